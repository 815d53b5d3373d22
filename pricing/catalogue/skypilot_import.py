"""Rental prices from SkyPilot's published catalog, as rows of `pricing/data/rental_prices.csv`.

SkyPilot (github.com/skypilot-org/skypilot-catalog, `catalogs/<version>/<cloud>/vms.csv`) lists, per
cloud, every instance type with its accelerators and its on-demand and spot price per instance-hour,
one row per region (per availability zone where the cloud has them). The columns this module reads
are `InstanceType, AcceleratorName, AcceleratorCount, Price, Region` (required), `SpotPrice` and
`AvailabilityZone` (when present); their order differs between clouds and other columns (`vCPUs`,
`MemoryGiB`, `GpuInfo`, `Arch`) are ignored.

The steps are pure functions, each usable on its own:

- `parse(path)`: the priced GPU instances of one `vms.csv` or of a folder laid out like SkyPilot's
  (`<cloud>/vms.csv`, the cloud named by the folder), and the rows set aside, with why;
- `to_rows(parsed)`: per provider, GPU, offer and region, the median over instance types of the
  price per GPU-hour (`Price / AcceleratorCount`, `SpotPrice / AcceleratorCount` for spot), as
  `rental_prices.csv` rows;
- `diff(rows, current)`: which of those rows are new, which change a price, which do not;
- `write(rows, data_dir)`: the merged file, loaded with `load_catalogue` from a temporary copy of the
  data folder before it replaces the real one, so a bad merge never leaves a broken catalogue.

Bad input raises `InputError` naming the file, the line and the column, and so does input that
would poison the catalogue (`pricing/catalogue/skypilot_guards.py`: prices per GPU-hour out of range, names
outside a safe alphabet, oversized files, a price moving more than 10x; the whole import is refused).
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import math
import os
import shutil
import statistics
import tempfile
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from models.errors import InputError, data_file_error
from pricing.catalogue import loader as catalogue
from pricing.catalogue import skypilot_guards as guards
from pricing.catalogue.rows import GPU_IDS, RentalRow

RENTAL_FILE = "rental_prices.csv"

#: SkyPilot accelerator name -> our GPU id (models/data/gpus.csv). SkyPilot's "A100" is the 40 GB
#: part (GCP's rows say 40960 MiB; AWS p4d, Lambda gpu_*_a100); "H100-MEGA" is GCP's a3-megagpu-8g,
#: the same H100 SXM GPU with more network. Names not here (A10G, L4, T4, V100, TPUs, ...) are
#: GPUs the catalogue does not carry. "GH200" is Lambda's gpu_1x_gh200, "1x GH200 (96 GB)": the 96 GB
#: HBM3 variant the catalogue's GH200 row describes.
ACCELERATORS: dict[str, str] = {
    "A100": "A100-40GB",
    "A100-80GB": "A100-80GB",
    "H100": "H100-SXM",
    "H100-MEGA": "H100-SXM",
    "H200": "H200",
    "B200": "B200",
    "GB200": "GB200",
    "MI300X": "MI300X",
    "L40S": "L40S",
    "GH200": "GH200",
}
#: the parts above that come only as PCIe cards: for the others a PCIe/NVL instance is another GPU
PCIE_PARTS = frozenset({"L40S"})
#: SkyPilot names an H100 NVL or PCIe card "H100" too; these instance-type fragments mark them
PCIE_MARKS = ("pcie", "_nc40ads_h100", "_nc80adis_h100")

#: SkyPilot's folder name -> (provider as the catalogue names it, provider_kind). A folder not
#: here is filed under its own name as a neocloud.
CLOUDS: dict[str, tuple[str, str]] = {
    "aws": ("AWS", "hyperscaler"),
    "gcp": ("GCP", "hyperscaler"),
    "azure": ("Azure", "hyperscaler"),
    "lambda": ("Lambda", "neocloud"),
    "nebius": ("Nebius", "neocloud"),
    "runpod": ("RunPod", "neocloud"),
    "vast": ("Vast.ai", "marketplace"),  # third-party hosts, as the catalogue files Vast.ai
    "hyperstack": ("Hyperstack", "neocloud"),
    "cudo": ("Cudo Compute", "neocloud"),
    "fluidstack": ("Fluidstack", "neocloud"),
    "paperspace": ("Paperspace", "neocloud"),
    "oci": ("OCI", "neocloud"),
    "do": ("DigitalOcean", "neocloud"),
    "ibm": ("IBM Cloud", "neocloud"),
    "verda": ("Verda", "neocloud"),
    "mithril": ("Mithril", "neocloud"),
    "seeweb": ("Seeweb", "neocloud"),
    "primeintellect": ("Prime Intellect", "neocloud"),
    "shadeform": ("Shadeform", "neocloud"),
    "hyperbolic": ("Hyperbolic", "neocloud"),
    "jarvislabs": ("JarvisLabs", "neocloud"),
}

#: GCP lists a GPU apart from the VM that hosts it: a row with no InstanceType prices the
#: accelerators alone, and SkyPilot adds the price of the host VM that this table names
#: (its `_ACC_INSTANCE_TYPE_DICTS`, sky/catalog/gcp_catalog.py) in the same zone.
HOST_VMS: dict[str, dict[int, tuple[str, ...]]] = {
    "A100": {
        1: ("a2-highgpu-1g",),
        2: ("a2-highgpu-2g",),
        4: ("a2-highgpu-4g",),
        8: ("a2-highgpu-8g",),
        16: ("a2-megagpu-16g",),
    },
    "A100-80GB": {
        1: ("a2-ultragpu-1g",),
        2: ("a2-ultragpu-2g",),
        4: ("a2-ultragpu-4g",),
        8: ("a2-ultragpu-8g",),
    },
    "H100": {
        1: ("a3-highgpu-1g",),
        2: ("a3-highgpu-2g",),
        4: ("a3-highgpu-4g",),
        8: ("a3-highgpu-8g",),
    },
    "H100-MEGA": {8: ("a3-megagpu-8g",)},
    "H200": {8: ("a3-ultragpu-8g",)},
    "B200": {8: ("a4-highgpu-8g",)},
}

REQUIRED_COLUMNS = ("InstanceType", "AcceleratorName", "AcceleratorCount", "Price", "Region")
NUMBER_COLUMNS = ("AcceleratorCount", "Price", "SpotPrice")
#: why a row of the file is not used
NOT_CARRIED = "GPU the catalogue does not carry"
PCIE = "PCIe/NVL card, not the SXM part the catalogue carries"
NO_PRICE = "no price"
FRACTION = "a fraction of a GPU"
NO_HOST = "GPU price without its host VM in the file"


@dataclass(frozen=True, slots=True)
class Instance:
    """One priced row of a vms.csv for a GPU we carry: USD per instance-hour for `gpus` GPUs."""

    cloud: str
    file: Path
    line: int
    instance_type: str
    accelerator: str
    gpu_id: str
    gpus: float
    region: str
    zone: str
    price: float
    spot: float | None
    host: str | None = None  # GCP: the host VM whose price is added to the accelerators'

    @property
    def per_gpu(self) -> float:
        return self.price / self.gpus

    @property
    def spot_per_gpu(self) -> float | None:
        return None if self.spot is None else self.spot / self.gpus


@dataclass
class Parsed:
    """What `parse` found: the usable instances, the files read and the rows set aside."""

    instances: list[Instance] = field(default_factory=list)
    files: list[tuple[str, Path]] = field(default_factory=list)
    #: (cloud, reason) -> accelerator name -> rows
    skipped: dict[tuple[str, str], Counter] = field(default_factory=lambda: defaultdict(Counter))

    def skip(self, cloud: str, reason: str, accelerator: str) -> None:
        self.skipped[(cloud, reason)][accelerator] += 1


@dataclass(frozen=True)
class Change:
    kind: str  # "added", "changed" or "unchanged"
    row: dict[str, str]
    old_price: float | None = None

    @property
    def price(self) -> float:
        return float(self.row["price_usd_per_gpu_hour"])

    @property
    def pct(self) -> float | None:
        if self.old_price is None:
            return None
        return (self.price / self.old_price - 1) * 100


@dataclass(frozen=True)
class Written:
    path: Path
    rows: int
    replaced: int
    added: int


def key(row: dict[str, str]) -> tuple[str, str, str, str]:
    """A rental row's identity in the catalogue (its unique key in `pricing/catalogue/loader.py`)."""
    return row["gpu_id"], row["provider"], row["offer"], row["region"]


def _check_tables() -> None:
    unknown = sorted(set(ACCELERATORS.values()) - set(GPU_IDS))
    if unknown:  # a GPU id renamed in models/data/gpus.csv must be renamed here too
        raise InputError("ACCELERATORS", f"not in models/data/gpus.csv: {', '.join(unknown)}")


# ------------------------------------------------------------------------------------------ parse


def find_files(path: Path, cloud: str | None = None) -> list[tuple[str, Path]]:
    """(cloud, file) for a vms.csv, a cloud's folder holding one, or a folder of `<cloud>/vms.csv`.

    A single file's cloud is `cloud`, or else the name of the folder it is in."""
    path = Path(path)
    if path.is_file():
        return [((cloud or path.resolve().parent.name).lower(), path)]
    if not path.exists():
        raise InputError(str(path), f"{path}: no such file or directory")
    if not path.is_dir():
        raise InputError(str(path), f"{path}: not a file or a folder")
    if (path / "vms.csv").is_file():
        return [((cloud or path.resolve().name).lower(), path / "vms.csv")]
    if cloud is not None:
        raise InputError(str(path), f"{path}: no vms.csv in this folder (--cloud names one file's)")
    found = sorted(p for p in path.glob("*/vms.csv") if p.is_file())
    if not found:
        raise InputError(str(path), f"{path}: no vms.csv, and no <cloud>/vms.csv under it")
    return [(p.parent.name.lower(), p) for p in found]


def _number(path: Path, line: int, column: str, text: str) -> float | None:
    text = text.strip()
    if not text:
        return None
    try:
        value = float(text)
    except ValueError:
        raise data_file_error(path, line, column, f"not a number ({text[:40]!r})") from None
    if not math.isfinite(value) or value < 0:
        raise data_file_error(path, line, column, f"not a finite number >= 0 ({text[:40]!r})")
    return value


def _records(path: Path) -> Iterable[tuple[int, dict[str, str]]]:
    """(line, {column: stripped text}) for each row; the header is line 1."""
    try:
        reader = csv.DictReader(io.StringIO(guards.read_capped(path), newline=""))
        header = [name.strip() for name in reader.fieldnames or []]
        reader.fieldnames = header
        for name in REQUIRED_COLUMNS:
            if name not in header:
                raise data_file_error(path, 1, name, "column missing from the header")
        for count, record in enumerate(reader, 1):
            line = reader.line_num
            if count > guards.MAX_FILE_ROWS:
                raise guards.too_many_rows(path, line)
            if None in record or any(value is None for value in record.values()):
                raise data_file_error(
                    path, line, "(row)", f"expected {len(header)} cells like the header"
                )
            yield line, {name: value.strip() for name, value in record.items()}
    except csv.Error as exc:
        raise data_file_error(path, None, "(file)", f"not a CSV file: {exc}") from None
    except UnicodeDecodeError:
        raise data_file_error(path, None, "(file)", "not UTF-8 text") from None
    except OSError as exc:
        raise data_file_error(path, None, "(file)", exc.strerror or type(exc).__name__) from None


def read_vms(path: Path, cloud: str, parsed: Parsed) -> None:
    """Adds the GPU instances of one vms.csv to `parsed` (and the rows it sets aside)."""
    hosts: dict[tuple[str, str], list[tuple[float, float | None]]] = defaultdict(list)
    attached = []  # GCP: accelerator rows without an instance type, priced once hosts are known
    for line, rec in _records(path):
        numbers = {c: _number(path, line, c, rec.get(c, "")) for c in NUMBER_COLUMNS}
        instance_type, accelerator = rec["InstanceType"], rec["AcceleratorName"]
        region, zone = rec["Region"], rec.get("AvailabilityZone", "")
        price, spot, count = numbers["Price"], numbers["SpotPrice"], numbers["AcceleratorCount"]
        if instance_type and not accelerator:
            if price is not None:
                hosts[(instance_type, zone or region)].append((price, spot))
            continue
        if not accelerator:
            continue
        gpu_id = ACCELERATORS.get(accelerator)
        if gpu_id is None:
            parsed.skip(cloud, NOT_CARRIED, accelerator)
            continue
        if gpu_id not in PCIE_PARTS and any(m in instance_type.lower() for m in PCIE_MARKS):
            parsed.skip(cloud, PCIE, f"{accelerator} ({instance_type})")
            continue
        if count is None or count < 1:
            parsed.skip(cloud, FRACTION, accelerator)
            continue
        if not price:
            parsed.skip(cloud, NO_PRICE, accelerator)
            continue
        # a row that will be priced: its names go into the catalogue, its price must be sane
        guards.check_gpus(path, line, count)
        guards.check_name(path, line, "Region", region, "region")
        guards.check_text(path, line, "InstanceType", instance_type)
        if instance_type:
            guards.check_price(path, line, "Price", price, count, "Price")
            if spot:
                guards.check_price(path, line, "SpotPrice", spot, count, "SpotPrice")
        inst = Instance(
            cloud, path, line, instance_type, accelerator, gpu_id, count, region, zone, price, spot
        )
        if instance_type:
            parsed.instances.append(inst)
        else:
            attached.append(inst)
    for inst in attached:
        candidates = []
        for host in HOST_VMS.get(inst.accelerator, {}).get(int(inst.gpus), ()):
            for price, spot in hosts.get((host, inst.zone or inst.region), ()):
                candidates.append((price, spot, host))
        if not candidates:
            parsed.skip(cloud, NO_HOST, inst.accelerator)
            continue
        price, spot, host = min(candidates, key=lambda c: c[0])  # the cheapest, as SkyPilot does
        both = None if spot is None or inst.spot is None else spot + inst.spot
        for column, value in (("Price", price + inst.price), ("SpotPrice", both)):
            how = f"{column} + host VM {host}'s {column} ="
            if value:
                guards.check_price(path, inst.line, column, value, inst.gpus, how)
        parsed.instances.append(
            Instance(
                inst.cloud,
                inst.file,
                inst.line,
                host,
                inst.accelerator,
                inst.gpu_id,
                inst.gpus,
                inst.region,
                inst.zone,
                price + inst.price,
                both,
                host=host,
            )
        )


def parse(path: Path | str, cloud: str | None = None) -> Parsed:
    """The GPU instances of a vms.csv or a folder of `<cloud>/vms.csv` (see `find_files`)."""
    _check_tables()
    parsed = Parsed()
    for name, file in find_files(Path(path), cloud):
        where = "--cloud" if cloud is not None else "the name of its folder"
        guards.check_name(file, None, where, provider_of(name)[0], "provider")
        parsed.files.append((name, file))
        read_vms(file, name, parsed)
    return parsed


# ------------------------------------------------------------------------------------------- rows


def price_text(value: float) -> str:
    """USD per GPU-hour as the catalogue writes it: at most 4 decimals, no trailing zeros."""
    return f"{value:.4f}".rstrip("0").rstrip(".")


def _names(values: Iterable[str], most: int = 4) -> str:
    names = sorted(set(values))
    return ", ".join(names[:most]) + (f" and {len(names) - most} more" if len(names) > most else "")


def provider_of(cloud: str) -> tuple[str, str]:
    return CLOUDS.get(cloud, (cloud, "neocloud"))


def to_rows(
    parsed: Parsed, as_of: dt.date | None = None, today: dt.date | None = None
) -> list[dict[str, str]]:
    """One `rental_prices.csv` row per provider, GPU, offer (on_demand, spot) and region.

    The price is the median over the region's instance types of each type's price per GPU-hour
    (itself the median over the region's zones: spot prices differ by zone). When a provider
    charges the same for a GPU and offer in every region of the file (2 or more), the regions are
    filed as one row with the region left empty, as the catalogue files a list price.
    """
    today = today or dt.date.today()
    as_of = as_of or today
    # (cloud, gpu, offer, region) -> instance type -> per-GPU prices (one per zone row)
    groups: dict[tuple, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    seen: dict[tuple, list[Instance]] = defaultdict(list)
    for inst in parsed.instances:
        for offer, value in (("on_demand", inst.per_gpu), ("spot", inst.spot_per_gpu)):
            if value:
                k = (inst.cloud, inst.gpu_id, offer, inst.region)
                groups[k][inst.instance_type].append(value)
                seen[k].append(inst)
    medians = {
        k: statistics.median(statistics.median(v) for v in types.values())
        for k, types in groups.items()
    }
    by_offer: dict[tuple, list[str]] = defaultdict(list)
    for cloud, gpu_id, offer, region in medians:
        by_offer[(cloud, gpu_id, offer)].append(region)
    spans = []  # (cloud, gpu, offer, region as filed, regions it stands for)
    for (cloud, gpu_id, offer), regions in sorted(by_offer.items()):
        values = {r: float(price_text(medians[(cloud, gpu_id, offer, r)])) for r in regions}
        if len(regions) >= 2 and len(set(values.values())) == 1:
            spans.append((cloud, gpu_id, offer, "", sorted(regions)))
        else:
            spans.extend((cloud, gpu_id, offer, r, [r]) for r in sorted(regions))
    if len(spans) > guards.MAX_IMPORT_PRICES:
        raise guards.too_many_prices([f for _, f in parsed.files], len(spans))
    rows = []
    for cloud, gpu_id, offer, region, members in spans:
        price = medians[(cloud, gpu_id, offer, members[0])]
        rows.append(_row(cloud, gpu_id, offer, region, price, members, groups, seen, as_of, today))
    return rows


def _row(cloud, gpu_id, offer, region, price, members, groups, seen, as_of, today) -> dict:
    provider, kind = provider_of(cloud)
    insts = [i for r in members for i in seen[(cloud, gpu_id, offer, r)]]
    column = "SpotPrice" if offer == "spot" else "Price"
    how = f"{column} / AcceleratorCount"
    if any(i.host for i in insts):
        how = f"(host VM {column} + GPUs' {column}) / AcceleratorCount, as SkyPilot prices GCP"
    where = "in the region"
    if not region:
        where = f"in each of the file's {len(members)} regions, the same ({_names(members, 3)})"
    names = {t for r in members for t in groups[(cloud, gpu_id, offer, r)]}
    row = {
        "gpu_id": gpu_id,
        "provider": provider,
        "provider_kind": kind,
        "offer": offer,
        "price_usd_per_gpu_hour": price_text(price),
        "region": region,
        "as_of": as_of.isoformat(),
        "grade": "A",
        "source": f"SkyPilot catalog {cloud}/vms.csv (imported {today.isoformat()}): "
        + "; ".join(sorted({str(i.file) for i in insts})),
        "notes": f"derived: {how} (USD per instance-hour / GPUs) per instance type, median over "
        f"its zones, then the median over {len(names)} instance type(s) {where}: "
        f"{_names(names)}; {len(insts)} catalog rows",
    }
    RentalRow.model_validate(row)  # a row the catalogue would refuse is a bug here, not input
    return row


# ------------------------------------------------------------------------------------------- diff


def read_rentals(data_dir: Path | str | None = None) -> tuple[list[str], list[dict[str, str]]]:
    """The header and rows of `data_dir/rental_prices.csv` (default `pricing/data/`), as text."""
    path = Path(data_dir if data_dir is not None else catalogue.DATA_DIR) / RENTAL_FILE
    if not path.is_file():
        raise data_file_error(path, None, "(file)", "file not found")
    with path.open(newline="", encoding="utf-8-sig") as handle:
        reader = csv.DictReader(handle)
        header = list(reader.fieldnames or [])
        missing = [c for c in RentalRow.model_fields if c not in header]
        if missing:
            raise data_file_error(path, 1, missing[0], "column missing from the header")
        return header, [dict(r) for r in reader]


def diff(rows: list[dict[str, str]], current: list[dict[str, str]]) -> list[Change]:
    """Each imported row against the current file: added, changed (a different price) or
    unchanged (same price to 4 decimals; on --write its as_of, source and notes are refreshed)."""
    old = {key(r): r for r in current}
    changes = []
    for row in rows:
        before = old.get(key(row))
        if before is None:
            changes.append(Change("added", row))
            continue
        try:
            old_price = float(before["price_usd_per_gpu_hour"])
        except ValueError:
            old_price = math.nan
        same = round(old_price, 4) == round(float(row["price_usd_per_gpu_hour"]), 4)
        changes.append(Change("unchanged" if same else "changed", row, old_price))
    return changes


def check_changes(changes: list[Change], parsed: Parsed, allow_large: bool = False) -> None:
    """Refuses a changed price more than `MAX_CHANGE_FACTOR` times above or below the catalogue's
    (unless `allow_large`), naming the file, line and column of the instance that set it."""
    if allow_large:
        return
    for c in changes:
        if c.kind != "changed" or not (math.isfinite(c.old_price) and c.old_price > 0):
            continue
        ratio = c.price / c.old_price
        if 1 / guards.MAX_CHANGE_FACTOR <= ratio <= guards.MAX_CHANGE_FACTOR:
            continue
        r = c.row
        what = f"{r['gpu_id']} {r['provider']} {r['offer']} {r['region'] or '(any region)'}"
        way = "above" if ratio > 1 else "below"
        problem = (
            f"{what} would go from {c.old_price:.4g} to {c.price:.4g} USD per GPU-hour "
            f"({ratio:.3g}x), more than {guards.MAX_CHANGE_FACTOR:g}x {way} the catalogue's "
            f"price; refused ({guards.ALLOW_LARGE_CHANGES} accepts it)"
        )
        path, line, column = origin(parsed, r)
        raise data_file_error(path, line, column, problem)


def origin(parsed: Parsed, row: dict[str, str]) -> tuple[Path, int | None, str]:
    """The file, line and price column of the instance whose price per GPU-hour is nearest the
    row's (the one that set the median, when one did)."""
    spot = row["offer"] == "spot"
    target = float(row["price_usd_per_gpu_hour"])
    found = []
    for i in parsed.instances:
        value = i.spot_per_gpu if spot else i.per_gpu
        if (
            value
            and i.gpu_id == row["gpu_id"]
            and row["region"] in ("", i.region)
            and provider_of(i.cloud)[0] == row["provider"]
        ):
            found.append((abs(value - target), str(i.file), i.line, i.file))
    column = "SpotPrice" if spot else "Price"
    if not found:  # a row that is not from `parsed`: name the files read
        return parsed.files[0][1] if parsed.files else Path("(import)"), None, column
    _, _, line, path = min(found)
    return path, line, column


def merge(current: list[dict[str, str]], rows: list[dict[str, str]]) -> list[dict[str, str]]:
    """The current rows with each imported row in place of the one with its key; new rows go after
    the last row of their GPU (at the end when the GPU has none), in their order. Every other row
    is kept. One pass over each list, by key: linear in their lengths."""
    new = {key(r): r for r in rows}
    merged = [new.pop(key(r), r) for r in current]
    added: dict[str, list[dict[str, str]]] = defaultdict(list)  # GPU -> its new rows, in order
    for (gpu_id, *_), row in new.items():
        added[gpu_id].append(row)
    last = {r["gpu_id"]: i for i, r in enumerate(merged)}
    out = []
    for i, r in enumerate(merged):
        out.append(r)
        if last[r["gpu_id"]] == i:
            out.extend(added.pop(r["gpu_id"], ()))
    for group in added.values():  # GPUs the catalogue has no row of, in order of first appearance
        out.extend(group)
    return out


def render(header: list[str], rows: list[dict[str, str]]) -> str:
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=header, lineterminator="\n", extrasaction="raise")
    writer.writeheader()
    writer.writerows(rows)
    return buf.getvalue()


def write(rows: list[dict[str, str]], data_dir: Path | str | None = None) -> Written:
    """Merges `rows` into `data_dir/rental_prices.csv` (default `pricing/data/`).

    The merged file is first written into a temporary copy of the whole data folder and loaded
    there with `load_catalogue`; only a catalogue that loads replaces the real file (atomically),
    so a failed import leaves the real files as they were. Raises `InputError` when it does not."""
    data_dir = Path(data_dir) if data_dir is not None else catalogue.DATA_DIR
    header, current = read_rentals(data_dir)
    merged = merge(current, rows)
    text = render(header, merged)
    target = data_dir / RENTAL_FILE
    with tempfile.TemporaryDirectory(prefix="skypilot-import-") as tmp:
        trial = Path(tmp) / "data"
        shutil.copytree(data_dir, trial, ignore=shutil.ignore_patterns("__pycache__"))
        (trial / RENTAL_FILE).write_text(text, encoding="utf-8")
        try:
            catalogue.load_catalogue(trial)
        except InputError as exc:
            raise InputError(
                exc.field, f"the merged catalogue does not load, nothing written: {exc}"
            ) from None
        finally:
            catalogue.clear_cache()
        staged = target.with_name(f".{RENTAL_FILE}.{os.getpid()}.tmp")
        shutil.copyfile(trial / RENTAL_FILE, staged)
        os.replace(staged, target)
    catalogue.clear_cache()  # the next load_catalogue(data_dir) reads the new file
    replaced = len({key(r) for r in rows} & {key(r) for r in current})
    return Written(target, len(merged), replaced, len(rows) - replaced)


# ----------------------------------------------------------------------------------------- report


def report_lines(changes: list[Change], parsed: Parsed) -> list[str]:
    """One line per added or changed price, one per kind of row set aside (no summary)."""
    lines = []
    for c in changes:
        r = c.row
        where = r["region"] or "(any region)"
        head = f"{c.kind:9} {r['gpu_id']:10} {r['provider']:12} {r['offer']:10} {where:24}"
        if c.kind == "added":
            lines.append(f"{head} {c.price:9.4f}")
        elif c.kind == "changed":
            pct = "" if c.pct is None or math.isnan(c.pct) else f" ({c.pct:+.1f} %)"
            lines.append(f"{head} {c.old_price:9.4f} -> {c.price:.4f}{pct}")
    for (cloud, reason), names in sorted(parsed.skipped.items()):
        total = sum(names.values())
        top = ", ".join(f"{n} {k}" for n, k in names.most_common(8))
        more = f" and {len(names) - 8} more" if len(names) > 8 else ""
        lines.append(f"skipped   {cloud}: {total} rows, {reason}: {top}{more}")
    return lines


def summary(changes: list[Change], parsed: Parsed) -> str:
    counts = Counter(c.kind for c in changes)
    clouds = ", ".join(dict.fromkeys(name for name, _ in parsed.files))
    skipped = sum(sum(c.values()) for c in parsed.skipped.values())
    return (
        f"{len(parsed.files)} file(s) ({clouds}), {len(parsed.instances)} GPU instance rows: "
        f"{len(changes)} prices: {counts['added']} added, {counts['changed']} changed, "
        f"{counts['unchanged']} unchanged; {skipped} rows skipped"
    )

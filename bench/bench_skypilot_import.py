"""Time and memory of `catalogue import-skypilot --write` on a large synthetic SkyPilot file.

Writes a made-up `aws/vms.csv` of ROWS rows (GPU instances of the carried GPUs in many regions
and zones, on-demand and spot, plus CPU rows) into a temporary folder, then runs the import's
steps (parse, to_rows, diff, check_changes, write) against a temporary copy of pricing/data/:
once timed, once under tracemalloc for the peak of Python allocations. Also times the refusal of a
file over the byte cap, and `merge` of 50,000 new rows into 50,000 current ones (linear now).

Run: .venv/bin/python bench/bench_skypilot_import.py [ROWS]   (default 100,000)
"""

from __future__ import annotations

import contextlib
import resource
import shutil
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's code

from models.errors import InputError
from pricing.catalogue import loader as catalogue
from pricing.catalogue import skypilot_guards as guards
from pricing.catalogue import skypilot_import as sky

HEADER = "InstanceType,AcceleratorName,AcceleratorCount,Price,SpotPrice,Region,AvailabilityZone\n"
GPUS = (("H100", 4.0), ("A100", 1.5), ("A100-80GB", 2.0), ("H200", 5.0), ("L40S", 1.0))


def synthetic(path: Path, rows: int) -> None:
    """`rows` rows, 300 per region (3 zones, 5 GPUs in 4 sizes, one CPU row in ten): 100,000 rows
    give 334 regions and about 3,300 prices (on-demand and spot), under the import's cap."""
    lines = [HEADER]
    i = 0
    while len(lines) <= rows:
        region = f"bench-{i // 300}"
        zone = f"{region}{'abc'[i % 3]}"
        if i % 10 == 9:
            lines.append(f"bench.cpu{i % 7},,,0.{i % 9 + 1},,{region},{zone}\n")
        else:
            name, per_gpu = GPUS[(i // 3) % len(GPUS)]
            count = (1, 2, 4, 8)[(i // 15) % 4]
            price = per_gpu * count * (1 + (i % 13) / 100)
            lines.append(
                f"bench.{name.lower()}x{count},{name},{count},{price:.4f},{price / 3:.4f},"
                f"{region},{zone}\n"
            )
        i += 1
    path.write_text("".join(lines), encoding="utf-8")


def run(vms: Path, data: Path) -> tuple[int, int]:
    parsed = sky.parse(vms)
    rows = sky.to_rows(parsed)
    _, current = sky.read_rentals(data)
    changes = sky.diff(rows, current)
    sky.check_changes(changes, parsed)
    written = sky.write(rows, data)
    return len(parsed.instances), written.added


def fresh_data(tmp: Path) -> Path:
    data = tmp / "data"
    shutil.rmtree(data, ignore_errors=True)
    shutil.copytree(catalogue.DATA_DIR, data, ignore=shutil.ignore_patterns("__pycache__"))
    return data


def main() -> None:
    rows = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    with tempfile.TemporaryDirectory(prefix="bench-skypilot-") as name:
        tmp = Path(name)
        vms = tmp / "aws" / "vms.csv"
        vms.parent.mkdir()
        synthetic(vms, rows)
        size = vms.stat().st_size

        data = fresh_data(tmp)
        t = time.perf_counter()
        instances, added = run(vms, data)
        wall = time.perf_counter() - t

        data = fresh_data(tmp)
        tracemalloc.start()
        run(vms, data)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        maxrss_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux

        big = tmp / "big" / "vms.csv"
        big.parent.mkdir()
        with big.open("wb") as handle:  # sparse: the cap refuses it by its size, unread
            handle.truncate(guards.MAX_FILE_BYTES * 50)
        t = time.perf_counter()
        with contextlib.suppress(InputError):
            sky.parse(big)
        refuse_ms = (time.perf_counter() - t) * 1000

        def row(gpu: str, region: str) -> dict[str, str]:
            return {"gpu_id": gpu, "provider": "P", "offer": "on_demand", "region": region}

        current = [row("H100-SXM", f"c{i}") for i in range(50_000)]
        new = [row("H100-SXM", f"n{i}") for i in range(25_000)]
        new += [row("B200", f"n{i}") for i in range(25_000)]
        t = time.perf_counter()
        sky.merge(current, new)
        merge_ms = (time.perf_counter() - t) * 1000

    print(
        f"file: {rows:,} rows, {size / 2**20:.1f} MiB; {instances:,} GPU instances -> {added:,} prices"
    )
    print(f"import (parse, rows, diff, checks, write + load): {wall:.2f} s")
    print(
        f"peak Python allocations (tracemalloc): {peak / 2**20:.0f} MiB; max RSS {maxrss_mib:.0f} MiB"
    )
    print(f"refusing a {guards.MAX_FILE_BYTES * 50 / 2**30:.1f} GiB file: {refuse_ms:.1f} ms")
    print(f"merge of 50,000 new rows into 50,000: {merge_ms:.0f} ms")


if __name__ == "__main__":
    main()

"""Price catalogue: the CSV files in `pricing/data/`, validated once and read through typed lookups.

Every row of every file carries `as_of` (ISO date), `grade` (A/B/C source quality, as in
docs/reference/tco.md) and a non-empty `source`; rows whose notes start with "derived:" were
computed from other sourced figures and say how. A bad row raises `CatalogueError` naming the
file, the line (the header is line 1) and the field. Figures the public sources lack are left
out, and `Catalogue.missing()` lists them when asked.

Aggregates prefer grade A/B rows and fall back to grade C only when nothing better exists.
A rental price may be listed again with a later `as_of`; then the provider's newest rows are its
price and the older ones stay as the record.
Figures no public source gives are labelled planner defaults: source "planner default (no public
figure found)", grade C, and notes that give the reasoning and a plausible range.

`timeline.csv` holds the provisioning-phase figures that `pricing/timeline.py` turns into days.
"""

from __future__ import annotations

import csv
import functools
import statistics
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import TypeVar

import pandas as pd
from pydantic import ValidationError

from models.errors import InputError, data_file_error
from models.options import spec
from pricing.catalogue.rows import (  # noqa: F401  (re-exported: the catalogue's vocabulary)
    DAYS_PER_UNIT,
    EXPECTED_ASSUMPTIONS,
    GPU_IDS,
    KEY_SUFFIX_UNITS,
    OFFERS,
    PLANNER_DEFAULT_SOURCE,
    SERVER_ITEMS,
    TIMELINE_OPTIONS,
    UNITS,
    AssumptionRow,
    CatalogueError,
    HardwareRow,
    LeadTimeRow,
    MissingFigureError,
    RentalRow,
    ResidualValueRow,
    TimelineRow,
    _Row,
    unit_for_key,
)

DATA_DIR = Path(__file__).resolve().parents[1] / "data"
#: the schema of the catalogue's files (their columns and meanings), written in each catalogue
#: folder's VERSION file, as SkyPilot versions its catalog: a folder written for another schema
#: is refused by name rather than read as if it were this one. Raise it when a file's columns or
#: their meaning change, and convert the bundled folder with it.
SCHEMA_VERSION = 1
VERSION_FILE = "VERSION"

M = TypeVar("M", bound=_Row)

# file name -> (row model, the fields that make a row unique)
FILES: dict[str, tuple[type[_Row], tuple[str, ...]]] = {
    "rental_prices.csv": (RentalRow, ("gpu_id", "provider", "offer", "region", "as_of")),
    "hardware_prices.csv": (HardwareRow, ("gpu_id", "item", "as_of", "source")),
    "lead_times.csv": (LeadTimeRow, ("gpu_id", "as_of", "source")),
    "assumptions.csv": (AssumptionRow, ("key",)),
    "residual_values.csv": (ResidualValueRow, ("age_years",)),
    "timeline.csv": (
        TimelineRow,
        ("option", "phase", "quantity", "applies_to", "size_metric", "size_min"),
    ),
}


def _error(path: Path, line: int, field: str, message: str) -> InputError:
    return data_file_error(path, line, field, message)


def _read(path: Path, model: type[M], key_fields: tuple[str, ...]) -> tuple[M, ...]:
    if not path.is_file():
        raise data_file_error(path, None, "(file)", "file not found")
    with path.open(newline="", encoding="utf-8-sig") as handle:
        reader = csv.DictReader(handle)
        header = [name.strip() for name in reader.fieldnames or []]
        reader.fieldnames = header
        for name in sorted(set(model.model_fields) ^ set(header)):
            problem = "unknown column" if name in header else "column missing from the header"
            raise _error(path, 1, name, problem)
        rows: list[M] = []
        seen: dict[tuple, int] = {}
        for record in reader:
            line = reader.line_num
            if None in record or any(value is None for value in record.values()):
                raise _error(path, line, "(row)", f"expected {len(header)} cells like the header")
            data = {name: value.strip() for name, value in record.items()}
            try:
                row = model.model_validate(data)
            except ValidationError as exc:
                first = exc.errors()[0]
                field = ".".join(str(part) for part in first["loc"]) or "(row)"
                raise _error(
                    path, line, field, f"{first['msg']} (value {data.get(field)!r})"
                ) from None
            key = tuple(getattr(row, name) for name in key_fields)
            if key in seen:
                raise _error(
                    path, line, "+".join(key_fields), f"duplicate of line {seen[key]}: {key}"
                )
            seen[key] = line
            rows.append(row)
    if not rows:
        raise data_file_error(path, None, "(rows)", "no data rows")
    return tuple(rows)


def _best_graded(rows: Iterable[M]) -> list[M]:
    """Grade A/B rows when there are any, else all rows (grade C is a fallback, not a default)."""
    rows = list(rows)
    return [row for row in rows if row.grade in ("A", "B")] or rows


def _newest_per_provider(rows: Iterable[RentalRow]) -> list[RentalRow]:
    """Each provider's rows of its latest `as_of`: a newer reading of a provider's price supersedes
    its older ones, which stay in the file as the record of what it charged then."""
    rows = list(rows)
    latest: dict[str, date] = {}
    for row in rows:
        latest[row.provider] = max(latest.get(row.provider, row.as_of), row.as_of)
    return [row for row in rows if row.as_of == latest[row.provider]]


def _frame(rows: Iterable[_Row]) -> pd.DataFrame:
    records = [
        {**row.model_dump(), "derived": row.derived, "planner_default": row.planner_default}
        for row in rows
    ]
    frame = pd.DataFrame.from_records(records)
    tail = ["as_of", "grade", "source", "notes", "derived", "planner_default"]
    frame = frame[[c for c in frame.columns if c not in tail] + tail]
    frame["as_of"] = pd.to_datetime(frame["as_of"])
    return frame


def _check_gpu(gpu_id: str) -> None:
    if gpu_id not in GPU_IDS:
        raise ValueError(f"unknown gpu_id {gpu_id!r}; known: {', '.join(GPU_IDS)}")


@dataclass(frozen=True)
class Catalogue:
    """All price data, validated; lookups return floats or the rows behind them."""

    data_dir: Path
    rental_rows: tuple[RentalRow, ...]
    hardware_rows: tuple[HardwareRow, ...]
    lead_time_rows: tuple[LeadTimeRow, ...]
    assumption_rows: tuple[AssumptionRow, ...]
    residual_value_rows: tuple[ResidualValueRow, ...]
    timeline_rows: tuple[TimelineRow, ...]

    @property
    def rental_prices(self) -> pd.DataFrame:
        """One row per rental figure (a fresh copy on each call)."""
        return _frame(self.rental_rows)

    @property
    def hardware_prices(self) -> pd.DataFrame:
        return _frame(self.hardware_rows)

    @property
    def assumptions(self) -> pd.DataFrame:
        return _frame(self.assumption_rows)

    @property
    def timeline(self) -> pd.DataFrame:
        return _frame(self.timeline_rows)

    @functools.cached_property
    def _rentals_by_gpu(self) -> dict[str, tuple[RentalRow, ...]]:
        """The rental rows by GPU, in file order (built once, as `_assumption_by_key`)."""
        out: dict[str, list[RentalRow]] = {}
        for row in self.rental_rows:
            out.setdefault(row.gpu_id, []).append(row)
        return {gpu: tuple(rows) for gpu, rows in out.items()}

    @functools.cached_property
    def _medians(self) -> dict[tuple, tuple[float | None, str]]:
        """(`rental_price`, `rental_as_of`) by their arguments, filled as they are asked for (a
        capacity plan prices hundreds of sizes on the same few rows)."""
        return {}

    @functools.cached_property
    def _assumption_by_key(self) -> dict[str, AssumptionRow]:
        """The assumption rows by key, the first of a key kept (the rows are immutable: built
        once; the engine looks up thousands of figures per comparison)."""
        out: dict[str, AssumptionRow] = {}
        for row in self.assumption_rows:
            out.setdefault(row.key, row)
        return out

    def assumption(self, key: str) -> AssumptionRow:
        row = self._assumption_by_key.get(key)
        if row is not None:
            return row
        hint = " (expected, but not found in public sources)" if key in EXPECTED_ASSUMPTIONS else ""
        raise MissingFigureError(f"assumption {key!r} is not in the catalogue{hint}")

    def rentals(
        self,
        gpu_id: str,
        offer: str | None = None,
        provider: str | None = None,
        provider_kind: str | None = None,
    ) -> tuple[RentalRow, ...]:
        _check_gpu(gpu_id)
        if offer is not None and offer not in OFFERS:
            raise ValueError(f"unknown offer {offer!r}; known: {', '.join(OFFERS)}")
        return tuple(
            row
            for row in self._rentals_by_gpu.get(gpu_id, ())
            if offer in (None, row.offer)
            and provider in (None, row.provider)
            and provider_kind in (None, row.provider_kind)
        )

    def rental_price(
        self, gpu_id: str, offer: str, provider: str | None = None, provider_kind: str | None = None
    ) -> float:
        """USD per GPU-hour: one provider's price (median over its regions of its newest reading),
        or when provider is None the median over providers of each provider's median (grade A/B
        rows preferred; of a provider's rows only those of its latest as_of count)."""
        price, _ = self._median(gpu_id, offer, provider, provider_kind)
        if price is None:
            who = provider or provider_kind or "any provider"
            raise MissingFigureError(f"no {offer} rental price for {gpu_id} from {who}")
        return price

    def rental_as_of(
        self, gpu_id: str, offer: str, provider: str | None = None, provider_kind: str | None = None
    ) -> str:
        """The newest `as_of` of the rows `rental_price` takes its median over ('' when none)."""
        return self._median(gpu_id, offer, provider, provider_kind)[1]

    def _median(self, *key: str | None) -> tuple[float | None, str]:
        """(`rental_price` or None where no row matches, `rental_as_of`), computed once per key."""
        if key not in self._medians:
            rows = _newest_per_provider(_best_graded(self.rentals(*key)))
            by_provider: dict[str, list[float]] = {}
            for row in rows:
                by_provider.setdefault(row.provider, []).append(row.price_usd_per_gpu_hour)
            price = (
                float(statistics.median(statistics.median(p) for p in by_provider.values()))
                if rows
                else None
            )
            self._medians[key] = price, max((str(r.as_of) for r in rows), default="")
        return self._medians[key]

    def providers(self, gpu_id: str) -> list[str]:
        """Providers with at least one rental price for this GPU, sorted by name."""
        return sorted({row.provider for row in self.rentals(gpu_id)})

    def server_prices(self, gpu_id: str) -> tuple[HardwareRow, ...]:
        _check_gpu(gpu_id)
        return tuple(r for r in self.hardware_rows if r.gpu_id == gpu_id and r.item in SERVER_ITEMS)

    def server_price_usd_per_gpu(self, gpu_id: str) -> float:
        """Median per-GPU price of the 8-GPU servers (NVL72 racks for GB200), grade A/B preferred."""
        rows = self.server_prices(gpu_id)
        if not rows:
            raise MissingFigureError(f"no server price for {gpu_id}")
        return float(statistics.median(row.price_usd_per_gpu for row in _best_graded(rows)))

    def lead_time(self, gpu_id: str) -> LeadTimeRow:
        """The most recent procurement lead-time figure for this GPU."""
        _check_gpu(gpu_id)
        rows = [row for row in self.lead_time_rows if row.gpu_id == gpu_id]
        if not rows:
            raise MissingFigureError(f"no lead time for {gpu_id}")
        return max(rows, key=lambda row: row.as_of)

    def lead_time_weeks(self, gpu_id: str) -> tuple[float, float]:
        row = self.lead_time(gpu_id)
        return row.lead_time_weeks_low, row.lead_time_weeks_high

    @property
    def residual_last_age_years(self) -> float:
        """The oldest age residual_values.csv gives (ten years: terms reach 120 months); ages past
        it are priced at it."""
        return max(float(r.age_years) for r in self.residual_value_rows)

    def residual_value_pct(self, age_years: float, column: str = "residual_value_pct") -> float:
        """Resale value as % of purchase price, interpolated linearly (100% at age 0); `column`
        residual_value_low_pct or residual_value_high_pct reads its range's end instead."""
        points = [(0.0, 100.0)] + sorted(
            (float(r.age_years), getattr(r, column)) for r in self.residual_value_rows
        )
        if not 0 <= age_years <= points[-1][0]:
            raise MissingFigureError(f"no residual value for age {age_years} years")
        for (age0, pct0), (age1, pct1) in zip(points, points[1:], strict=False):
            if age0 <= age_years <= age1:
                return pct0 + (pct1 - pct0) * (age_years - age0) / (age1 - age0)
        return points[-1][1]

    def residual_value_range_pct(self, age_years: float) -> tuple[float, float]:
        """The resale value's sourced range at `age_years` (ages past the last row at it)."""
        age = min(age_years, self.residual_last_age_years)
        return (
            self.residual_value_pct(age, "residual_value_low_pct"),
            self.residual_value_pct(age, "residual_value_high_pct"),
        )

    @functools.cached_property
    def _timeline_by_key(self) -> dict[tuple[str, str, str, str], list[TimelineRow]]:
        """The timeline rows by key, in file order (the rows are immutable: built once)."""
        out: dict[tuple[str, str, str, str], list[TimelineRow]] = {}
        for r in self.timeline_rows:
            out.setdefault(r.key, []).append(r)
        return out

    def timeline_row(
        self,
        option: str,
        phase: str,
        quantity: str = "duration",
        *,
        applies_to: str = "any",
        size: float = 0.0,
    ) -> TimelineRow:
        """The figure for option/phase/quantity whose size band holds `size`; an 'air'/'liquid'
        row beats an 'any' row, and an option without rows of its own uses those of the option its
        registry record names (managed on owned hardware uses the build rows)."""
        for opt in dict.fromkeys((option, spec(option).timeline_rows_of or option)):
            for kind in dict.fromkeys((applies_to, "any")):
                for r in self._timeline_by_key.get((opt, phase, quantity, kind), ()):
                    if r.covers(size):
                        return r
        raise MissingFigureError(f"no timeline figure for {option} {phase} {quantity} at {size}")

    def newest_as_of(self) -> str:
        """The newest `as_of` date (YYYY-MM-DD) among the price, hardware, lead-time and
        assumption rows: the date a report prints as its catalogue's."""
        rows = (self.rental_rows, self.hardware_rows, self.lead_time_rows, self.assumption_rows)
        return max(str(r.as_of)[:10] for table in rows for r in table)

    def missing(self) -> list[str]:
        """Figures the engine expects but the catalogue lacks, e.g. 'MI300X: rental spot'."""
        gaps = []
        for gpu_id in GPU_IDS:
            if not self.server_prices(gpu_id):
                gaps.append(f"{gpu_id}: server price")
            gaps += [f"{gpu_id}: rental {o}" for o in OFFERS if not self.rentals(gpu_id, o)]
            if not any(row.gpu_id == gpu_id for row in self.lead_time_rows):
                gaps.append(f"{gpu_id}: lead time")
        have = {row.key for row in self.assumption_rows}
        return gaps + [f"assumption: {key}" for key in EXPECTED_ASSUMPTIONS if key not in have]


def check_version(data_dir: Path) -> None:
    """Refuses a catalogue folder whose VERSION file is missing or names another schema."""
    path = data_dir / VERSION_FILE
    if not path.is_file():
        raise data_file_error(
            path, None, "(file)", f"file not found: a catalogue folder states its schema version "
            f"({SCHEMA_VERSION}) in {VERSION_FILE}"
        )  # fmt: skip
    text = path.read_text(encoding="utf-8").strip()
    if text != str(SCHEMA_VERSION):
        raise data_file_error(
            path, 1, "(file)", f"schema version {text[:20]!r}; this planner reads version "
            f"{SCHEMA_VERSION}"
        )  # fmt: skip


@functools.lru_cache(maxsize=8)
def _load(data_dir: Path) -> Catalogue:
    check_version(data_dir)
    tables: list[tuple] = []
    for name, (model, key_fields) in FILES.items():
        tables.append(_read(data_dir / name, model, key_fields))
    return Catalogue(data_dir, *tables)


def load_catalogue(data_dir: Path | None = None) -> Catalogue:
    """Load and validate every catalogue file once per directory (cached)."""
    return _load(Path(data_dir).resolve() if data_dir is not None else DATA_DIR)


clear_cache = _load.cache_clear  # for tests that rewrite files in a loaded directory

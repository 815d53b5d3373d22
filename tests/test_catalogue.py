"""Price catalogue: integrity of the shipped data files (pricing/data/), lookups and loud failures
on bad rows (against the made-up catalogue in tests/fixtures/catalogue/, so a price refresh never
breaks them)."""

from __future__ import annotations

import csv
import dataclasses
import re
import shutil
from datetime import date
from pathlib import Path

import pytest

from models.options import TIMELINE_ROW_OPTIONS
from pricing.catalogue.loader import (
    DATA_DIR,
    EXPECTED_ASSUMPTIONS,
    FILES,
    GPU_IDS,
    PLANNER_DEFAULT_SOURCE,
    SCHEMA_VERSION,
    CatalogueError,
    MissingFigureError,
    clear_cache,
    load_catalogue,
)

FIXTURE_CATALOGUE_DIR = Path(__file__).resolve().with_name("fixtures") / "catalogue"
LATEST_AS_OF = date(2026, 12, 2)  # the catalogue was last read up to this day
# shared/reference lists a single on-demand provider for these GPUs; those added 2026-12-02 (H800,
# MI250X, MI325X, B300, GB300, GH200, A800) have one source or a planner default
# (pricing/data/rental_prices.csv).
SINGLE_ON_DEMAND_SOURCE = {
    "A100-40GB",
    "GB200",
    "H800",
    "MI250X",
    "MI325X",
    "B300",
    "GB300",
    "GH200",
    "A800",
}


@pytest.fixture(scope="module")
def cat():
    return load_catalogue()


def _all_rows(cat):
    return [
        *cat.rental_rows,
        *cat.hardware_rows,
        *cat.lead_time_rows,
        *cat.assumption_rows,
        *cat.residual_value_rows,
        *cat.timeline_rows,
    ]


# --- integrity of the shipped files -------------------------------------------------------------


def test_every_file_is_present_and_non_empty(cat):
    assert {path.name for path in DATA_DIR.glob("*.csv")} == set(FILES)
    assert len(cat.rental_rows) >= 40 and len(cat.assumption_rows) >= 20


def test_every_row_has_a_source_a_date_and_a_grade(cat):
    for row in _all_rows(cat):
        assert row.source.strip(), row
        assert date(2000, 1, 1) <= row.as_of <= LATEST_AS_OF, row
        assert row.grade in {"A", "B", "C"}, row


def test_derived_rows_say_how_and_cite_their_inputs(cat):
    derived = [row for row in _all_rows(cat) if row.derived]
    assert derived, "the catalogue marks its derived figures"
    for row in derived:
        assert row.notes.startswith("derived"), row
        assert re.search(r"\d", row.notes) and row.source.strip(), row


def test_every_gpu_has_a_server_price_a_rental_price_and_a_lead_time(cat):
    for gpu_id in GPU_IDS:
        assert cat.server_price_usd_per_gpu(gpu_id) > 0
        assert cat.rental_price(gpu_id, "on_demand") > 0
        low, high = cat.lead_time_weeks(gpu_id)
        assert 0 < low <= high


def test_on_demand_prices_come_from_several_providers(cat):
    for gpu_id in set(GPU_IDS) - SINGLE_ON_DEMAND_SOURCE:
        on_demand = {row.provider for row in cat.rentals(gpu_id, "on_demand")}
        assert len(on_demand) >= 2, gpu_id
    kinds = {row.provider_kind for row in cat.rental_rows}
    assert kinds == {"hyperscaler", "neocloud", "marketplace"}
    offers = {row.offer for row in cat.rentals("H100-SXM")}
    assert offers == {"on_demand", "committed_1y", "committed_3y", "spot", "capacity_block"}


def test_the_shipped_catalogue_lacks_no_server_price_lead_time_or_assumption(cat):
    missing = cat.missing()
    assert [gap for gap in missing if "server price" in gap or "lead time" in gap] == []
    assert [gap for gap in missing if gap.startswith("assumption:")] == []
    assert {row.option for row in cat.timeline_rows} == set(TIMELINE_ROW_OPTIONS)


def test_gaps_are_reported_only_when_asked(fixture_catalogue):
    missing = fixture_catalogue.missing()
    # GB200 has on-demand prices but no spot offer; H100-SXM has both
    assert "GB200: rental spot" in missing and "GB200: rental on_demand" not in missing
    assert not [gap for gap in missing if gap.startswith("H100-SXM: rental spot")]
    assert "B200: rental on_demand" in missing  # no B200 rental rows at all
    assert not [gap for gap in missing if gap.startswith("assumption:")]
    for key in EXPECTED_ASSUMPTIONS:
        assert fixture_catalogue.assumption(key).key == key
    with pytest.raises(MissingFigureError, match="not in the catalogue"):
        fixture_catalogue.assumption("cooling_water_usd_per_year")


def test_an_expected_figure_left_out_is_reported(data_copy):
    path = data_copy / "assumptions.csv"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text("".join(x for x in lines if not x.startswith("idle_power_pct,")), "utf-8")
    cat = load_catalogue(data_copy)
    assert "assumption: idle_power_pct" in cat.missing()
    with pytest.raises(MissingFigureError, match="not found in public sources"):
        cat.assumption("idle_power_pct")


ENGINE_KEYS = {  # key: unit, for the figures the cost engine reads (pricing/inputs.py)
    "idle_power_pct": "%",
    "installation_usd_per_node": "USD/node",
    "storage_system_uplift_ratio": "ratio",
    "optic_400g_usd_per_transceiver": "USD/transceiver",
    "egress_usd_per_gb": "USD/GB",
    "rent_setup_fee_usd_per_node": "USD/node",
    "rent_support_pct": "%",
    "rent_min_term_months": "months",
    "managed_restart_ratio": "ratio",
    "managed_owned_fee_pct_of_capex_per_year": "%/year",
    "discount_rate_pct_per_year": "%/year",
    "loan_rate_pct_per_year": "%/year",
    "lease_rate_pct_per_year": "%/year",
}


def test_engine_figures_are_present_with_their_units(cat):
    for key, unit in ENGINE_KEYS.items():
        assert key in EXPECTED_ASSUMPTIONS, key
        row = cat.assumption(key)
        assert row.unit == unit and row.source and row.as_of, key
    assert 0 < cat.assumption("idle_power_pct").value < 100
    assert cat.assumption("managed_restart_ratio").value <= 1
    assert (
        cat.assumption("loan_rate_pct_per_year").value
        < cat.assumption("lease_rate_pct_per_year").value
    )


def test_planner_defaults_are_labelled_and_explained(cat):
    defaults = [row for row in cat.assumption_rows if row.planner_default]
    assert {row.key for row in defaults} >= {
        "installation_usd_per_node", "storage_system_uplift_ratio", "rent_setup_fee_usd_per_node",
        "managed_restart_ratio", "managed_owned_fee_pct_of_capex_per_year",
        "discount_rate_pct_per_year", "spot_interruption_overhead_pct",
    }  # fmt: skip
    for row in [*defaults, *(r for r in cat.timeline_rows if r.planner_default)]:
        # exactly the marker, or the marker and how the default's range is carried
        assert row.source.startswith(PLANNER_DEFAULT_SOURCE) and row.grade == "C", row
        assert row.notes.startswith("planner default"), row
    for row in defaults:  # the reasoning and a plausible range
        assert "range" in row.notes.lower() and re.search(r"\d", row.notes), row.key
    frame = cat.assumptions
    assert set(frame.loc[frame.planner_default, "key"]) == {row.key for row in defaults}


def test_the_fixture_catalogue_is_marked_as_made_up_in_every_row(fixture_catalogue):
    for row in _all_rows(fixture_catalogue):
        assert row.source == "test fixture (made-up figure)", row
        assert row.notes.startswith("TEST DATA"), row


# --- lookups ------------------------------------------------------------------------------------


def test_rental_price_is_a_median_over_provider_medians(fixture_catalogue):
    cat = fixture_catalogue
    # HyperA lists 8 and 10 USD in two regions: its price is their median
    assert cat.rental_price("H100-SXM", "on_demand", provider="HyperA") == pytest.approx(9.0)
    assert cat.rental_price("H100-SXM", "on_demand", provider="HyperB") == pytest.approx(6.0)
    # providers HyperA 9, HyperB 6, NeoA 4, NeoB 2 (grade A/B); the grade C marketplace row (1.5)
    # is set aside while better rows exist: median(9, 6, 4, 2) = 5
    assert cat.rental_price("H100-SXM", "on_demand") == pytest.approx(5.0)
    hyperscalers = cat.rental_price("H100-SXM", "on_demand", provider_kind="hyperscaler")
    assert hyperscalers == pytest.approx((9.0 + 6.0) / 2)
    # the marketplace on its own is all there is, so its grade C row is used
    market = cat.rental_price("H100-SXM", "on_demand", provider_kind="marketplace")
    assert market == pytest.approx(1.5)


def test_a_catalogue_of_other_rows_does_not_reuse_the_remembered_medians(fixture_catalogue):
    """The medians are remembered per catalogue (loader.py `_median`): a catalogue built from
    other rows (an import's preview, an override) prices on its own rows, also after the first
    has answered the same question."""
    cat = fixture_catalogue
    assert cat.rental_price("H100-SXM", "on_demand", provider="HyperA") == pytest.approx(9.0)
    doubled = tuple(
        r.model_copy(update={"price_usd_per_gpu_hour": 2 * r.price_usd_per_gpu_hour})
        for r in cat.rental_rows
    )
    other = dataclasses.replace(cat, rental_rows=doubled)
    assert other.rental_price("H100-SXM", "on_demand", provider="HyperA") == pytest.approx(18.0)
    assert cat.rental_price("H100-SXM", "on_demand", provider="HyperA") == pytest.approx(9.0)
    assert other.rental_as_of("H100-SXM", "on_demand") == cat.rental_as_of("H100-SXM", "on_demand")


def test_server_price_prefers_grade_a_and_b_quotes(fixture_catalogue):
    cat = fixture_catalogue
    assert cat.server_price_usd_per_gpu("GB200") == pytest.approx(3_600_000 / 72)
    # H100: the grade C quote (400k) is set aside while grade B quotes (240k, 320k) exist
    assert cat.server_price_usd_per_gpu("H100-SXM") == pytest.approx((240_000 + 320_000) / 2 / 8)
    # H200 has only a grade C figure, which is then used
    assert cat.server_price_usd_per_gpu("H200") == pytest.approx(400_000 / 8)


def test_lookups_return_typed_rows_and_fail_clearly(fixture_catalogue):
    cat = fixture_catalogue
    pue = cat.assumption("pue")
    assert (pue.value, pue.unit, str(pue.as_of)) == (1.5, "ratio", "2025-01-01")
    assert cat.lead_time_weeks("H100-SXM") == (10, 20)  # the 2024 row, not the older 40-50 weeks
    assert cat.providers("H100-SXM") == ["HyperA", "HyperB", "MarketA", "NeoA", "NeoB"]
    with pytest.raises(MissingFigureError):
        cat.rental_price("GB200", "spot")
    with pytest.raises(ValueError, match="unknown gpu_id"):
        cat.rental_price("H300", "on_demand")
    with pytest.raises(ValueError, match="unknown offer"):
        cat.rental_price("H100-SXM", "reserved")


def test_residual_value_is_interpolated_between_the_yearly_rows(fixture_catalogue):
    cat = fixture_catalogue  # 80, 60, 50, 40, 30, 20 % at 1-6 years; 100 % when new
    assert cat.residual_value_pct(0) == 100
    assert cat.residual_value_pct(0.5) == pytest.approx(90)  # halfway from 100 to 80
    assert cat.residual_value_pct(2.5) == pytest.approx(55)  # halfway from 60 to 50
    assert cat.residual_value_pct(6) == pytest.approx(20)
    for age in (-0.1, 6.01, 10):
        with pytest.raises(MissingFigureError):
            cat.residual_value_pct(age)


def test_shipped_residual_values_fall_with_age_and_faster_after_the_second_year(cat):
    values = [cat.residual_value_pct(age) for age in (0, 1, 2.5, 3, 6)]
    assert values[0] == 100 and values == sorted(values, reverse=True)
    # Value falls faster after the second year (Silicon Data via computeforecast).
    yearly = [cat.residual_value_pct(a + 1) / cat.residual_value_pct(a) for a in range(1, 6)]
    assert yearly[0] > max(yearly[1:])


def test_timeline_lookups(fixture_catalogue):
    cat = fixture_catalogue
    facility = cat.timeline_row("build", "facility", size=1305.6)  # the 500-10,000 kW band
    assert (facility.low, facility.high, facility.unit) == (4, 6, "months")
    assert facility.days == pytest.approx((4 * 365.25 / 12, 6 * 365.25 / 12))
    assert cat.timeline_row("build", "facility", size=500).high == 8  # the band's upper edge
    assert cat.timeline_row("managed:owned", "facility", size=1305.6) == facility
    liquid = cat.timeline_row("build", "rack_and_cable", "rate", applies_to="liquid")
    assert liquid.applies_to == "liquid" and liquid.mid == pytest.approx(0.5)
    crews = cat.timeline_row("build", "rack_and_cable", "max_crews", applies_to="liquid")
    assert crews.applies_to == "any"  # no liquid-specific row: the 'any' row serves
    with pytest.raises(MissingFigureError):
        cat.timeline_row("rent", "facility")
    assert len(cat.timeline) == len(cat.timeline_rows)


def test_load_is_cached_and_frames_are_copies(cat):
    assert load_catalogue() is cat and load_catalogue(DATA_DIR) is cat
    frame = cat.rental_prices
    frame.loc[0, "price_usd_per_gpu_hour"] = -1.0
    assert cat.rental_prices.loc[0, "price_usd_per_gpu_hour"] > 0


# --- loud failures on bad rows ------------------------------------------------------------------

COMMON = {"as_of": "2026-10-01", "grade": "B", "source": "test source", "notes": ""}
GOOD = {
    "rental_prices.csv": {
        "gpu_id": "H100-SXM",
        "provider": "TestCloud",
        "provider_kind": "neocloud",
        "offer": "on_demand",
        "price_usd_per_gpu_hour": "2.5",
        "region": "",
        **COMMON,
    },
    "hardware_prices.csv": {
        "gpu_id": "H100-SXM",
        "item": "server_8gpu",
        "price_usd": "300000",
        "gpus_per_unit": "8",
        **COMMON,
    },
    "lead_times.csv": {
        "gpu_id": "H100-SXM",
        "lead_time_weeks_low": "10",
        "lead_time_weeks_high": "20",
        **COMMON,
    },
    "assumptions.csv": {"key": "test_usd_per_node", "value": "1", "unit": "USD/node", **COMMON},
    "residual_values.csv": {
        "age_years": "7",
        "residual_value_pct": "50",
        "residual_value_low_pct": "40",
        "residual_value_high_pct": "60",
        **COMMON,
    },
    "timeline.csv": {
        "option": "rent",
        "phase": "onboarding",
        "quantity": "duration",
        "applies_to": "any",
        "size_metric": "gpus",
        "size_min": "",
        "size_max": "64",
        "low": "1",
        "high": "2",
        "unit": "days",
        **COMMON,
    },
}


@pytest.fixture
def data_copy(tmp_path: Path) -> Path:
    """A writable copy of the fixture catalogue."""
    return Path(shutil.copytree(FIXTURE_CATALOGUE_DIR, tmp_path / "data"))


def _append(path: Path, cells: dict[str, str]) -> int:
    """Appends one row in the header's column order; returns its 1-based line number."""
    text = path.read_text(encoding="utf-8")
    header = next(csv.reader([text.splitlines()[0]]))
    if not text.endswith("\n"):
        text += "\n"
    with path.open("w", newline="", encoding="utf-8") as handle:
        handle.write(text)
        csv.writer(handle, lineterminator="\n").writerow([cells[name] for name in header])
    return len(text.splitlines()) + 1


def _load_error(data_dir: Path) -> str:
    with pytest.raises(CatalogueError) as info:
        load_catalogue(data_dir)
    return str(info.value)


def test_good_rows_load(data_copy):
    for name, cells in GOOD.items():
        _append(data_copy / name, cells)
    cat = load_catalogue(data_copy)
    assert "TestCloud" in cat.providers("H100-SXM")
    assert cat.rental_price("H100-SXM", "on_demand", provider="TestCloud") == 2.5
    assert cat.assumption("test_usd_per_node").value == 1


@pytest.mark.parametrize(
    ("name", "field", "bad", "says"),
    [
        ("rental_prices.csv", "source", "", "at least 1 character"),
        ("rental_prices.csv", "as_of", "01/10/2026", "ISO date"),
        ("rental_prices.csv", "as_of", "2026-13-01", "date"),
        ("rental_prices.csv", "price_usd_per_gpu_hour", "-2.5", "greater than 0"),
        ("rental_prices.csv", "price_usd_per_gpu_hour", "cheap", "valid number"),
        ("rental_prices.csv", "gpu_id", "H100", "unknown gpu_id"),
        ("rental_prices.csv", "offer", "reserved", "on_demand"),
        ("rental_prices.csv", "grade", "", "'A'"),
        ("hardware_prices.csv", "price_usd", "-300000", "greater than 0"),
        ("hardware_prices.csv", "gpus_per_unit", "4", "holds 8 GPUs"),
        ("lead_times.csv", "gpu_id", "H300", "unknown gpu_id"),
        ("lead_times.csv", "lead_time_weeks_high", "5", "below low"),
        ("assumptions.csv", "unit", "USD/parsec", "unknown unit"),
        ("assumptions.csv", "unit", "USD/TB", "does not match"),
        ("assumptions.csv", "key", "fabric_cost", "unit suffix"),
        ("assumptions.csv", "value", "-1", "greater than or equal to 0"),
        ("residual_values.csv", "residual_value_pct", "120", "less than or equal to 100"),
        ("residual_values.csv", "source", "   ", "at least 1 character"),
        ("residual_values.csv", "residual_value_pct", "95", "must lie in its range 40-60"),
        ("residual_values.csv", "residual_value_high_pct", "", "residual_value_high_pct"),
        ("timeline.csv", "option", "lease", "'build'"),
        ("timeline.csv", "high", "0.5", "below low"),
        ("timeline.csv", "unit", "racks/day", "does not fit quantity"),
        ("timeline.csv", "size_max", "-3", "greater than 0"),
        ("timeline.csv", "as_of", "2026-02-30", "date"),
    ],
)
def test_bad_row_names_its_file_line_and_field(data_copy, name, field, bad, says):
    line = _append(data_copy / name, {**GOOD[name], field: bad})
    message = _load_error(data_copy)
    assert name in message
    assert f"line {line}," in message
    assert f"field '{field}'" in message
    assert says in message


def test_duplicate_key_names_both_lines(data_copy):
    path = data_copy / "assumptions.csv"
    first = next(csv.DictReader(path.open(encoding="utf-8")))
    line = _append(path, first)
    message = _load_error(data_copy)
    assert f"assumptions.csv, line {line}, field 'key'" in message
    assert "duplicate of line 2" in message


def test_a_providers_newest_rental_rows_supersede_its_older_ones(data_copy):
    path = data_copy / "rental_prices.csv"
    old = {**GOOD["rental_prices.csv"], "offer": "capacity_block", "as_of": "2024-10-01"}
    _append(path, {**old, "price_usd_per_gpu_hour": "4.0", "region": "r1"})
    _append(path, {**old, "price_usd_per_gpu_hour": "2.0", "region": "r2"})
    # a later reading of the same offer and region is not a duplicate: it is the newer price
    newer = {**old, "as_of": "2026-07-22", "region": "r1", "price_usd_per_gpu_hour": "5.0"}
    _append(path, newer)
    _append(path, {**newer, "region": "r2", "price_usd_per_gpu_hour": "7.0"})
    cat = load_catalogue(data_copy)
    # TestCloud's 2026 rows (5, 7) are its price; its 2024 rows (4, 2) would make it 4.5
    assert cat.rental_price("H100-SXM", "capacity_block", provider="TestCloud") == 6.0
    # across providers: HyperA's 5.0 (fixture) and TestCloud's 6.0
    assert cat.rental_price("H100-SXM", "capacity_block") == pytest.approx(5.5)
    assert len(cat.rentals("H100-SXM", "capacity_block", provider="TestCloud")) == 4  # all kept
    _append(path, newer)  # the same reading twice is still a duplicate
    clear_cache()
    assert "duplicate of line" in _load_error(data_copy)


def test_ragged_row_missing_column_and_missing_file_fail_loudly(data_copy):
    rental = data_copy / "rental_prices.csv"
    original = rental.read_text(encoding="utf-8")
    rental.write_text(original + "H100-SXM,TestCloud\n", encoding="utf-8")
    lines = len(original.splitlines()) + 1
    assert f"rental_prices.csv, line {lines}, field '(row)'" in _load_error(data_copy)

    header, _, body = original.partition("\n")
    rental.write_text(header.replace(",source,", ",origin,") + "\n" + body, encoding="utf-8")
    message = _load_error(data_copy)
    assert "rental_prices.csv, line 1, field 'origin': unknown column" in message

    rental.write_text(original, encoding="utf-8")
    (data_copy / "lead_times.csv").unlink()
    assert "lead_times.csv: file not found" in _load_error(data_copy)


def test_a_folder_of_another_schema_version_is_refused_by_name(data_copy):
    """The catalogue folder states its schema version (pricing/data/VERSION, as SkyPilot versions
    its catalog): a folder without one, or written for another schema, is refused, not read as if
    it were this one."""
    assert (DATA_DIR / "VERSION").read_text().strip() == str(SCHEMA_VERSION)
    (data_copy / "VERSION").write_text(f"{SCHEMA_VERSION + 1}\n", encoding="utf-8")
    message = _load_error(data_copy)
    assert "VERSION" in message and f"schema version '{SCHEMA_VERSION + 1}'" in message
    assert f"reads version {SCHEMA_VERSION}" in message
    (data_copy / "VERSION").unlink()
    assert "file not found" in _load_error(data_copy)
    (data_copy / "VERSION").write_text(f"{SCHEMA_VERSION}\n", encoding="utf-8")
    assert load_catalogue(data_copy).missing() == load_catalogue(FIXTURE_CATALOGUE_DIR).missing()

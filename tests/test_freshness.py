"""Prices that stay fresh (pricing/catalogue/freshness.py): the figures an answer depends on that are dated
more than 12 months before the catalogue's newest date are listed with their age, overrides never
are, planner defaults are named instead of dated; the Compare page, the PDF and the CLI report
say so.

Every comparison here uses a copy of the made-up fixture catalogue (newest date 2025-01-01) with a
few dates or sources changed, so no price refresh in pricing/data/ changes these tests."""

from __future__ import annotations

import csv
import io
import json
import pathlib
import re
import shutil
from collections.abc import Callable
from datetime import UTC, date, datetime

import pytest
from pypdf import PdfReader
from streamlit.testing.v1 import AppTest

from app import report_pdf, report_text, state
from app.cli import compare as compare_command
from app.cli import main
from app.formatting import ZWSP
from app.scenario_files import EXAMPLE
from pricing.catalogue import freshness
from pricing.catalogue.loader import load_catalogue
from pricing.catalogue.rows import PLANNER_DEFAULT_SOURCE
from pricing.engine import compare
from pricing.results import Comparison
from tests.builders import scenario

HARNESS = str(pathlib.Path(__file__).with_name("portal_harness.py"))
FIXTURE_CATALOGUE_DIR = pathlib.Path(__file__).resolve().with_name("fixtures") / "catalogue"
DRAWS = 200  # the tornado is what matters here; a small Monte Carlo keeps the tests quick
SERVER_LINE = "H100-SXM server price: 2022-09, 28 months old"
DEFAULTS_LINE = "Planner defaults the answer leans on (no public figure): Discount rate"

Edit = Callable[[dict], None]


def catalogue_copy(tmp: pathlib.Path, edits: dict[str, Edit]):
    """The fixture catalogue copied to `tmp`, each named file's rows passed through its edit."""
    folder = tmp / "catalogue"
    shutil.copytree(FIXTURE_CATALOGUE_DIR, folder)
    for name, edit in edits.items():
        path = folder / name
        with path.open(newline="", encoding="utf-8") as handle:
            reader = csv.DictReader(handle)
            header, rows = reader.fieldnames, list(reader)
        for row in rows:
            edit(row)
        with path.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=header, lineterminator="\n")
            writer.writeheader()
            writer.writerows(rows)
    return load_catalogue(folder)


def dated(when: str, **match: str) -> Edit:
    """An edit setting `as_of` on the rows whose columns equal `match`."""

    def edit(row: dict) -> None:
        if all(row[k] == v for k, v in match.items()):
            row["as_of"] = when

    return edit


def servers_dated(*dates: str) -> Edit:
    """An edit dating the fixture's three H100-SXM server quotes (which must differ in date)."""
    left = iter(dates)

    def edit(row: dict) -> None:
        if row["gpu_id"] == "H100-SXM":
            row["as_of"] = next(left)

    return edit


def planner_default(key: str) -> Edit:
    def edit(row: dict) -> None:
        if row["key"] == key:
            row.update(source=PLANNER_DEFAULT_SOURCE, grade="C", notes="planner default: test")

    return edit


def stale(c: Comparison) -> dict[str, freshness.StalePrice]:
    return {s.key: s for s in c.stale_prices}


@pytest.fixture(scope="module")
def old_server_catalogue(tmp_path_factory):
    """H100-SXM server quotes dated 2022-09-01 at the newest (28 months before 2025-01-01); the
    discount rate a planner default."""
    return catalogue_copy(
        tmp_path_factory.mktemp("old_server"),
        {
            "hardware_prices.csv": servers_dated("2022-07-01", "2022-09-01", "2021-01-01"),
            "assumptions.csv": planner_default("discount_rate_pct_per_year"),
        },
    )


@pytest.fixture(scope="module")
def stale_comparison(old_server_catalogue) -> Comparison:
    return compare(scenario(EXAMPLE), old_server_catalogue, draws=DRAWS)


# ------------------------------------------------------------------------------------ the engine


def test_a_price_dated_over_a_year_before_the_catalogue_is_listed_with_its_age(stale_comparison):
    c = stale_comparison
    assert c.catalogue_as_of == "2025-01-01"  # the reference is the catalogue, not today
    server = stale(c)["server_usd_per_gpu"]
    assert (server.label, server.as_of, server.age_months) == (
        "H100-SXM server price",
        "2022-09-01",
        28,
    )
    assert server.source.startswith("hardware_prices.csv")
    assert freshness.stale_line(server) == SERVER_LINE
    # nothing else is old in this catalogue
    assert list(stale(c)) == ["server_usd_per_gpu"]


def test_a_price_within_12_months_is_not_listed(tmp_path):
    cat = catalogue_copy(
        tmp_path, {"hardware_prices.csv": servers_dated("2023-01-01", "2024-02-01", "2023-06-01")}
    )
    c = compare(scenario(EXAMPLE), cat, draws=DRAWS)
    assert next(a for a in c.assumptions if a.key == "server_usd_per_gpu").as_of == "2024-02-01"
    assert c.stale_prices == []


@pytest.mark.parametrize(
    ("as_of", "is_stale", "age"),
    [
        ("2024-01-01", False, 12),  # exactly 12 months: not older than 12 months
        ("2023-12-31", True, 12),
        ("2024-06-30", False, 6),
        ("2022-09-01", True, 28),
        ("2025-03-01", False, -2),  # after the reference
    ],
)
def test_the_12_month_line_and_the_age(as_of, is_stale, age):
    ref = date(2025, 1, 1)
    assert freshness.is_stale(date.fromisoformat(as_of), ref) is is_stale
    assert freshness.months_between(date.fromisoformat(as_of), ref) == age


def test_the_line_is_the_same_day_a_year_before_at_month_ends():
    assert freshness.is_stale(date(2023, 2, 27), date(2024, 2, 29))
    assert not freshness.is_stale(date(2023, 2, 28), date(2024, 2, 29))
    assert freshness.months_between(date(2024, 8, 1), date(2026, 11, 30)) == 27


def test_an_override_is_never_stale(old_server_catalogue):
    sc = scenario(EXAMPLE, overrides={"server_usd_per_gpu": 30000.0})
    c = compare(sc, old_server_catalogue, draws=DRAWS)
    assert "server_usd_per_gpu" not in stale(c)
    assert "server_usd_per_gpu" not in c.planner_defaults


def test_an_overridden_figure_is_never_stale_even_when_it_carries_a_date(stale_comparison):
    """The engine gives an override no date; should a figure the user set ever carry one (an old
    saved comparison, another engine), it is still the user's and never stale."""
    c = stale_comparison
    mine = [
        a.model_copy(update={"overridden": True, "source": "user override"})
        if a.key == "server_usd_per_gpu"
        else a
        for a in c.assumptions
    ]
    stale_now, _ = freshness.assess(c.model_copy(update={"assumptions": mine}), None)
    assert [s.key for s in stale_now] == []
    assert [s.key for s in freshness.assess(c, None)[0]] == ["server_usd_per_gpu"]


def test_planner_defaults_are_named_not_dated(stale_comparison):
    c = stale_comparison
    assert c.planner_defaults == ["discount_rate_pct_per_year"]
    assert "discount_rate_pct_per_year" not in stale(c)
    assert freshness.planner_defaults_line(c) == DEFAULTS_LINE


def test_an_old_planner_default_is_still_a_planner_default(tmp_path):
    key = "discount_rate_pct_per_year"

    def edit(row: dict) -> None:
        planner_default(key)(row)
        dated("2019-01-01", key=key)(row)

    cat = catalogue_copy(tmp_path, {"assumptions.csv": edit})
    c = compare(scenario(EXAMPLE), cat, draws=DRAWS)
    assert c.planner_defaults == [key] and c.stale_prices == []


def test_a_derived_price_carries_the_oldest_date_it_came_from(tmp_path):
    """The fixture has no hyperscaler 1-year commitment for the H100: the engine derives it from
    the on-demand median (2025-01-01) and committed_1y_discount_pct, dated 2023-06-01 here."""
    key = "committed_1y_discount_pct"
    cat = catalogue_copy(tmp_path, {"assumptions.csv": dated("2023-06-01", key=key)})
    c = compare(scenario(EXAMPLE), cat, draws=DRAWS)
    price = next(a for a in c.assumptions if a.key == "cloud_committed_1y_usd_per_gpu_hour")
    assert price.source.startswith("derived:") and price.as_of == ""
    derived = stale(c)["cloud_committed_1y_usd_per_gpu_hour"]
    assert (derived.as_of, derived.age_months) == ("2023-06-01", 19)
    assert derived.label == "H100-SXM cloud 1-year commit price"
    # the discount overridden: what is left (the on-demand median) is fresh
    c = compare(scenario(EXAMPLE, overrides={key: 25.0}), cat, draws=DRAWS)
    assert c.stale_prices == []


def test_a_rental_median_carries_the_date_of_its_rows(tmp_path):
    """The rent is the neocloud median of 1-year commitments (one row, NeoA); the hyperscaler
    on-demand median over HyperA and HyperB (which the 1-year commit derives from) is dated by the
    newer of them; on 1,024 GPUs the cloud on-demand price is HyperA's capacity-block row alone."""
    old = "2023-01-01"

    def edit(row: dict) -> None:
        if row["gpu_id"] == "H100-SXM" and (
            (row["provider"], row["offer"]) == ("NeoA", "committed_1y")
            or row["provider"] == "HyperA"
        ):
            row["as_of"] = old

    c = compare(
        scenario(EXAMPLE), catalogue_copy(tmp_path, {"rental_prices.csv": edit}), draws=DRAWS
    )
    rent = stale(c)["rent_usd_per_gpu_hour"]
    assert (rent.as_of, rent.age_months, rent.label) == (old, 24, "H100-SXM dedicated rental price")
    assert "cloud_committed_1y_usd_per_gpu_hour" not in stale(c)  # HyperB is dated 2025-01-01
    assert stale(c)["cloud_on_demand_usd_per_gpu_hour"].as_of == old


def test_the_figures_the_answer_depends_on(stale_comparison):
    c = stale_comparison
    keys = freshness.dependent_keys(c)
    assert [b.key for b in c.sensitivity.bars] == keys[: len(c.sensitivity.bars)]
    for option in (
        "server_usd_per_gpu",
        "rent_usd_per_gpu_hour",
        "cloud_on_demand_usd_per_gpu_hour",
    ):
        assert option in keys
    # a figure only the Monte Carlo draws is not one of them
    assert "optic_400g_usd_per_transceiver" not in keys


def test_without_decision_support_the_price_figures_still_count(old_server_catalogue):
    c = compare(scenario(EXAMPLE), old_server_catalogue, decision=False)
    assert c.sensitivity is None
    assert list(stale(c)) == ["server_usd_per_gpu"]
    assert c.planner_defaults == []  # the discount rate is not among the price figures


def test_a_comparison_saved_before_the_fields_existed_still_loads(stale_comparison):
    data = stale_comparison.model_dump(mode="json")
    assert data["stale_prices"][0]["key"] == "server_usd_per_gpu"
    del data["stale_prices"], data["planner_defaults"]
    old = Comparison.model_validate(data)
    assert old.stale_prices == [] and old.planner_defaults == []
    assert report_text.comparison_report(old)  # the reports read it as "nothing to warn of"


# ------------------------------------------------------------------------------------ the outputs


def test_the_cli_text_report_lists_stale_prices(
    stale_comparison, old_server_catalogue, tmp_path, monkeypatch, capsys
):
    text = report_text.comparison_report(stale_comparison)
    assert "Prices older than 12 months (catalogue as of 2025-01-01):" in text
    assert f"  {SERVER_LINE}" in text and DEFAULTS_LINE in text
    # `clusterplan compare` prints it (the engine pointed at the edited catalogue)
    path = tmp_path / "scenario.json"
    path.write_text(json.dumps(EXAMPLE))
    monkeypatch.setattr(
        compare_command, "compare", lambda sc, **kw: compare(sc, old_server_catalogue, draws=DRAWS)
    )
    assert main(["compare", str(path)]) == 0
    out = capsys.readouterr().out
    assert "Prices older than 12 months" in out and SERVER_LINE in out


def test_the_text_report_says_nothing_when_every_price_is_fresh(fixture_catalogue):
    c = compare(scenario(EXAMPLE), fixture_catalogue, draws=DRAWS)
    assert c.stale_prices == [] and c.planner_defaults == []
    text = report_text.comparison_report(c)
    assert "older than 12 months" not in text and "Planner defaults" not in text


def test_the_pdf_cover_counts_stale_prices_and_page_two_lists_them(stale_comparison, monkeypatch):
    """Page 1 says how many caveats there are and names the oldest price; page 2 lists them (the
    lists pushed the university sample's cost chart off page 1: issue 32)."""
    monkeypatch.setattr(report_pdf, "charts_available", lambda *args, **kwargs: False)
    data = report_pdf.build_pdf(
        stale_comparison, link="", generated=datetime(2026, 11, 29, 12, tzinfo=UTC)
    )
    pages = [p.extract_text() for p in PdfReader(io.BytesIO(data)).pages]

    def flat(text: str) -> str:
        return re.sub(r"\s+", "", text)

    cover, details = flat(pages[0]), flat(pages[1])
    n = len(stale_comparison.stale_prices)
    oldest = max(stale_comparison.stale_prices, key=lambda p: p.age_months)
    said = "Caveats, listed on page 2: " + (
        f"{n} prices over a year old (the oldest: {oldest.label}, {oldest.as_of[:7]})"
        if n > 1
        else f"1 price over a year old ({oldest.label}, {oldest.as_of[:7]})"
    )
    assert flat(said) in cover
    assert flat("Prices older than 12 months") not in cover
    assert flat("Prices older than 12 months (catalogue as of 2025-01-01):") in details
    assert flat(SERVER_LINE) in details
    assert flat(DEFAULTS_LINE) in details


def _shown(text: str) -> str:
    """Markdown as the reader sees it: escapes and zero-width spaces gone."""
    return re.sub(r"\\(.)", r"\1", text).replace(ZWSP, "")


def test_the_compare_page_warns_under_the_recommendation(old_server_catalogue, monkeypatch):
    monkeypatch.setattr(state, "compare", lambda sc: compare(sc, old_server_catalogue, draws=DRAWS))
    state._compare.clear()  # the portal's cache holds comparisons made with the bundled catalogue
    try:
        at = AppTest.from_file(HARNESS, default_timeout=60)
        at.run()
        at.session_state["_page"] = "compare"
        at.run()
        assert not at.exception, at.exception
        warnings = [_shown(w.value) for w in at.warning]
        stale_box = next(w for w in warnings if "Prices older than 12 months" in w)
        assert "catalogue as of 2025-01-01" in stale_box
        assert f"- {SERVER_LINE}" in stale_box
        assert DEFAULTS_LINE in [_shown(c.value) for c in at.caption]
    finally:
        state._compare.clear()


def test_the_compare_page_is_quiet_when_prices_are_fresh(fixture_catalogue, monkeypatch):
    monkeypatch.setattr(state, "compare", lambda sc: compare(sc, fixture_catalogue, draws=DRAWS))
    state._compare.clear()
    try:
        at = AppTest.from_file(HARNESS, default_timeout=60)
        at.run()
        at.session_state["_page"] = "compare"
        at.run()
        assert not at.exception, at.exception
        assert not any("older than 12 months" in w.value for w in at.warning)
        assert not any("Planner defaults" in c.value for c in at.caption)
    finally:
        state._compare.clear()


def test_a_price_read_from_rental_rows_shows_their_date(tmp_path):
    """The Assumptions page and the PDF showed no date ('-') for the rent and cloud prices, the
    figures the answer leans on most: a price read from rental rows carries the newest date of
    the rows its median is taken over, the date freshness gives it; a derived price carries none
    (freshness dates it by its oldest part)."""
    cat = catalogue_copy(tmp_path, {})
    c = compare(scenario(EXAMPLE), cat, draws=DRAWS)
    undated = c.model_copy(
        update={"assumptions": [a.model_copy(update={"as_of": ""}) for a in c.assumptions]}
    )
    dater = freshness._Dater(undated, cat)
    read = [a for a in c.assumptions if a.source.startswith("rental_prices.csv:")]
    assert {a.key for a in read} >= {"rent_usd_per_gpu_hour", "cloud_on_demand_usd_per_gpu_hour"}
    for a in read:
        assert a.as_of == dater.date_of(dater.figures[a.key]).isoformat(), a.key
    for a in c.assumptions:
        if a.source.startswith("derived:") and "_usd_per_gpu_hour" in a.key:
            assert a.as_of == "", a.key

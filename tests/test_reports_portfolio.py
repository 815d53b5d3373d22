"""A portfolio's demand and capacity (scenario version 2) in the PDF, the CSV, the text report and
the capacity chart, read back as a user gets them and held against the engine's own fields; and a
version-1 comparison's PDF, CSV and text without any of it."""

from __future__ import annotations

import csv
import io
import json
import pathlib
import re

import plotly.io as pio
import pytest

from app import exports, report_pdf, report_text
from app.charts.common import (
    DARK_TEMPLATE_NAME,
    KIND_COLORS,
    TEMPLATE_NAME,
    THEMES,
    option_color,
    pale,
    team_colors,
)
from app.charts.portfolio import IDLE_SHARE, capacity_demand, portfolio_demand
from app.cli import main
from app.formatting import usd
from app.scenario_files import EXAMPLE
from models.scenario import Scenario
from pricing.engine import compare
from tests.builders import GENERATED, patient, sample, scenario
from tests.readback import flat, pdf_text


def portfolio() -> dict:
    """The lab sample on a fixed 768 GPUs (so the 1,024-GPU run is never served and queues), plus
    a team whose name and workload look like spreadsheet formulas."""
    data = sample("lab")
    data["cluster"]["gpus"] = 768
    data["workloads"].append(
        {
            "kind": "steady",
            "name": "=HYPERLINK(1)",
            "team": "=cmd|x",
            "gpus": 256,
            "utilisation_pct": 70,
            "start_month": 6,
            "duration_months": 30,
        }
    )
    return data


@pytest.fixture(scope="module")
def v2():
    return compare(Scenario.model_validate(portfolio()))


@pytest.fixture(scope="module")
def v1():
    return compare(Scenario.model_validate(EXAMPLE))


@pytest.fixture(scope="module")
def v2_pdf(v2):
    """The PDF's text, built without charts (the tables hold every number)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(report_pdf, "charts_available", lambda *a, **k: False)
        return pdf_text(report_pdf.build_pdf(v2, link="", generated=GENERATED))


def live(c):
    return [o for o in c.options if o.available]


def test_the_fixture_queues_work_and_holds_idle_capacity(v2):
    build = v2.option("build")
    assert build.queued_gpu_hours > 1e5 and build.idle_gpu_hours > 1e6
    assert any(d.never_served for d in build.workload_delays)


# ---------------------------------------------------------------------------------------- PDF


def test_pdf_shows_each_options_size_and_gpu_hours(v2, v2_pdf):
    text = flat(v2_pdf)
    assert "Demandandcapacity" in text
    for o in live(v2):
        row = [
            o.label,
            f"{o.capacity_size_gpus:,}",
            *(
                f"{v:,.0f}"
                for v in (
                    o.demanded_gpu_hours,
                    o.served_gpu_hours,
                    o.queued_gpu_hours,
                    o.beyond_term_gpu_hours,
                    o.idle_gpu_hours,
                )
            ),
        ]
        assert flat("".join(row)) in text, row


def test_pdf_shows_each_workloads_delay_under_each_option(v2, v2_pdf):
    text = flat(v2_pdf)
    options = live(v2)
    for w in v2.scenario.workloads:
        cells = []
        for o in options:
            d = next(d for d in o.workload_delays if d.name == w.name)
            cells.append(f"{d.delay_days_max:,.1f}/{d.delay_days_mean:,.1f}")
        assert flat(w.name + w.team + w.kind + "".join(cells)) in text, w.name
    never = next(d for d in v2.option("build").workload_delays if d.never_served)
    assert flat(f"Build, {never.name}: {never.never_served}") in text


def test_pdf_shows_the_chargeback_by_team(v2, v2_pdf):
    text = flat(v2_pdf)
    options = live(v2)
    for team in v2.option("build").chargeback_usd:
        row = team + "".join(usd(o.chargeback_usd[team]) for o in options)
        assert flat(row) in text, team
    assert flat("Total" + "".join(usd(o.total_usd) for o in options)) in text


def test_pdf_shows_the_monthly_capacity_and_demand(v2, v2_pdf):
    text = flat(v2_pdf)
    options = live(v2)
    for m in (0, 5, 11, 12, 35):
        row = f"{m + 1}{options[0].demand_gpu_hours[m]:,.0f}" + "".join(
            f"{o.capacity_gpus[m]:,.1f}" for o in options
        )
        assert flat(row) in text, m


def test_pdf_cover_describes_the_portfolio(v2, v2_pdf):
    text = flat(v2_pdf)
    assert flat(f"Portfolio of {len(v2.scenario.workloads)} workloads on H100-SXM") in text
    assert flat("base-70b (pretrain, pretraining)") in text
    assert flat(f"{v2.portfolio.demanded_gpu_hours:,.0f} GPU-hours over the term") in text


@pytest.mark.skipif(report_pdf.chromium_path() is None, reason="Chromium is not installed")
def test_pdf_draws_a_capacity_chart_per_option(v2):
    report = report_pdf.build_report(v2, link="", generated=GENERATED)
    assert report.charts
    text = pdf_text(report.data)
    # in the Demand and capacity section, under its heading, before the numbers behind the charts
    start, end = text.index("Monthly capacity against demand"), text.index("The numbers behind")
    for o in live(v2):
        assert start < text.index(f"Capacity against demand: {o.label}") < end, o.label


def test_v1_pdf_has_no_portfolio_section(v1, monkeypatch):
    monkeypatch.setattr(report_pdf, "charts_available", lambda *a, **k: False)
    text = pdf_text(report_pdf.build_pdf(v1, link="", generated=GENERATED))
    assert "Demand and capacity" not in text and "Chargeback" not in text
    assert "Workload" in text and "Usage" in text and "Portfolio of" not in text


# ---------------------------------------------------------------------------------------- CSV


def test_csv_rows_equal_the_engines_arrays(v2):
    rows = list(csv.DictReader(io.StringIO(exports.monthly_csv(v2))))
    assert tuple(rows[0]) == exports.PORTFOLIO_CSV_HEADER
    for o in v2.options:
        mine = [r for r in rows if r["option"] == o.option]
        for category, (name, unit) in exports.PORTFOLIO_MONTHLY.items():
            got = [r for r in mine if r["category"] == category]
            assert [int(r["month"]) for r in got] == list(range(1, len(got) + 1))
            assert [float(r["value"]) for r in got] == getattr(o, name), (o.option, category)
            assert {r["unit"] for r in got} == {unit}
        flows = [r for r in mine if r["unit"] == "usd" and r["category"] != "chargeback"]
        for category, values in o.monthly_by_category_usd.items():
            assert [float(r["value"]) for r in flows if r["category"] == category] == values
        assert sum(float(r["value"]) for r in flows) == pytest.approx(o.total_usd, rel=1e-9)
        charge = {r["team"]: float(r["value"]) for r in mine if r["category"] == "chargeback"}
        # a team name that a spreadsheet would run as a formula is written with a leading '
        assert charge == {
            ("'" + t if t.startswith("=") else t): v for t, v in o.chargeback_usd.items()
        }
    assert "=cmd|x" not in {r["team"] for r in rows}


def test_v1_csv_is_as_before(v1):
    text = exports.monthly_csv(v1)
    rows = list(csv.reader(io.StringIO(text)))
    assert tuple(rows[0]) == exports.CSV_HEADER
    expected = [
        [o.option, o.label, cat, str(m), repr(float(v))]
        for o in v1.options
        for cat, values in o.monthly_by_category_usd.items()
        for m, v in enumerate(values, start=1)
    ]
    assert rows[1:] == expected


# --------------------------------------------------------------------------------- text report


def test_compare_prints_the_pdfs_tables(v2, capsys, tmp_path):
    path = tmp_path / "p.json"
    path.write_text(json.dumps(portfolio()))
    assert main(["compare", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"Portfolio of {len(v2.scenario.workloads)} workloads (3 teams)")
    for rows in (
        report_text.capacity_rows(v2),
        report_text.delay_rows(v2),
        report_text.chargeback_rows(v2),
        report_text.monthly_capacity_rows(v2),
    ):
        for line in report_text.text_table(rows):
            assert line in out, line
    build = v2.option("build")
    section = out.split("Demand and capacity (GPU-hours over the term):\n", 1)[1]
    line = next(x for x in section.splitlines() if x.strip().startswith("Build "))
    assert line.split()[1:] == [
        "768",
        *(
            f"{v:,.0f}"
            for v in (
                build.demanded_gpu_hours,
                build.served_gpu_hours,
                build.queued_gpu_hours,
                build.beyond_term_gpu_hours,
                build.idle_gpu_hours,
            )
        ),
    ]


def test_v1_text_report_has_no_portfolio_tables(v1):
    out = report_text.comparison_report(v1)
    assert out.startswith(f"{v1.training.model} on ")
    assert "Demand and capacity" not in out and "Chargeback" not in out


# -------------------------------------------------------------------------------------- chart


def test_capacity_chart_draws_the_engines_arrays(v2):
    for o in live(v2):
        fig = capacity_demand(v2, o.option)
        by_kind = {t.meta["kind"]: t for t in fig.data}
        assert list(by_kind["served"].y) == o.served_gpu_hours_by_month
        assert list(by_kind["idle"].y) == o.idle_gpu_hours_by_month
        assert list(by_kind["demand"].y) == o.demand_gpu_hours
        assert fig.layout.barmode == "stack"
        assert by_kind["served"].marker.color == option_color(o.option)
        # idle in a solid pale colour, so its legend swatch is as pale as its bars (a marker
        # opacity left the swatch the served colour: issue 32)
        idle = by_kind["idle"].marker
        assert idle.opacity is None
        assert idle.color == pale(option_color(o.option), THEMES[False]["bg"], IDLE_SHARE)
        assert idle.color != by_kind["served"].marker.color
        assert f"{o.capacity_gpus[20]:,.1f} GPUs held" in by_kind["served"].customdata[20]
        assert fig.layout.template == pio.templates[TEMPLATE_NAME]
    dark = capacity_demand(v2, "build", dark=True)
    assert dark.layout.template == pio.templates[DARK_TEMPLATE_NAME]
    by_dict = capacity_demand(json.loads(v2.model_dump_json()), "build")
    assert by_dict.to_json() == capacity_demand(v2, "build").to_json()


def test_capacity_chart_empty_states(v1, v2):
    for c, option, words in (
        (v1, "build", "portfolio of workloads"),
        (v2, "cloud:spot", "was not compared"),
    ):
        fig = capacity_demand(c, option)
        assert not fig.data
        assert words in fig.layout.annotations[0].text
    gone = v2.model_copy(
        update={
            "options": [
                o.model_copy(update={"available": False}) if o.option == "rent" else o
                for o in v2.options
            ]
        }
    )
    assert "not available" in capacity_demand(gone, "rent").layout.annotations[0].text


def test_a_rental_that_steps_down_says_so_in_its_chart_and_its_table():
    """The lab's Rent dedicated steps down to one node: the capacity table's size and the chart's
    subtitle say both contracts, read from the result's fields; an option of one contract, one
    size. The chart's two-line subtitle keeps its legend below the plot, and the demand chart's
    two titled legend groups sit right of the plots, clear of the title and subtitle."""
    from app.formatting import on_day

    c = compare(scenario(patient(sample("lab"))), decision=False)
    rent, build = c.option("rent"), c.option("build")
    assert rent.resized_gpus == 8 and build.resized_gpus is None
    both = f"{rent.capacity_size_gpus:,} → 8 from {on_day(rent.resized_day)}"
    rows = {r[0]: r[1] for r in report_text.capacity_rows(c)}
    assert rows["Rent dedicated"] == both and rows["Build"] == f"{build.capacity_size_gpus:,}"
    fig = capacity_demand(c, "rent")
    subtitle = fig.layout.title.subtitle.text
    assert subtitle.startswith(f"1,024 GPUs → 8 GPUs from {on_day(rent.resized_day)}; ")
    assert "<br>" in subtitle and fig.layout.legend.y < 0
    demand = portfolio_demand(c.portfolio)
    assert demand.layout.legend.x > 1 and demand.layout.legend.orientation == "v"


def test_one_colour_per_team_and_kind_on_every_chart(v2):
    """A team keeps its colour whatever order its series come in (by name among the scenario's
    teams), kinds have theirs from one table, and no team shares a colour with a kind in the chart
    that stacks both (issue 32: the team and kind colours swapped between the two)."""
    fig = portfolio_demand(v2.portfolio)
    teams = {t.meta["name"]: t.marker.color for t in fig.data if t.meta["group"] == "team"}
    kinds = {t.meta["name"]: t.marker.color for t in fig.data if t.meta["group"] == "kind"}
    assert teams == team_colors(v2.portfolio.gpu_hours_by_team)
    assert kinds == {k: KIND_COLORS[k] for k in kinds}
    assert not set(teams.values()) & set(KIND_COLORS.values())
    assert len(set(teams.values())) == len(teams)
    reordered = v2.portfolio.model_copy(
        update={"gpu_hours_by_team": dict(reversed(v2.portfolio.gpu_hours_by_team.items()))}
    )
    again = portfolio_demand(reordered)
    assert {t.meta["name"]: t.marker.color for t in again.data if t.meta["group"] == "team"} == (
        teams
    )


#: the report's section headings written as literals (app/report_pdf/comparison.py)
HEADINGS = sorted(
    set(
        re.findall(
            r'self\.heading\(\s*"([^"]+)"',
            (pathlib.Path(report_pdf.__file__).parent / "comparison.py").read_text(),
        )
    )
)


@pytest.mark.skipif(report_pdf.chromium_path() is None, reason="Chromium is not installed")
@pytest.mark.parametrize("name", ["enterprise", "lab", "university"])
def test_no_heading_sits_alone_at_the_foot_of_a_page(name):
    """A heading is kept with what follows it (issue 32: "Monthly capacity against demand" ended
    page 6 while its charts and table started on the next): on every page, the last line above
    the footer is never a section heading."""
    from pypdf import PdfReader

    c = compare(Scenario.model_validate(sample(name)))
    report = report_pdf.build_report(c, link="", generated=GENERATED)
    assert report.charts
    assert "Monthly capacity against demand" in HEADINGS and len(HEADINGS) >= 8
    for n, page in enumerate(PdfReader(io.BytesIO(report.data)).pages, start=1):
        lines = [x.strip() for x in page.extract_text().split("\n") if x.strip()]
        body = [x for x in lines if not x.startswith("GPU Cluster Planner ·")]
        body = [x for x in body if x != report_pdf_title(c)]  # the running title
        assert body and body[-1] not in HEADINGS, (n, body[-3:])


@pytest.mark.skipif(report_pdf.chromium_path() is None, reason="Chromium is not installed")
@pytest.mark.parametrize("name", ["enterprise", "lab", "university"])
def test_page_one_draws_the_cost_over_the_term_for_every_sample(name):
    """Issue 32: page 1 holds the answer, the totals and the chart of cost over the term. The
    university sample's seven stale prices pushed its chart to page 2; page 1 now counts the
    caveats and page 2 lists them."""
    from pypdf import PdfReader

    c = compare(Scenario.model_validate(sample(name)))
    report = report_pdf.build_report(c, link="", generated=GENERATED)
    first = PdfReader(io.BytesIO(report.data)).pages[0].extract_text()
    assert report.charts and "Cumulative cost (USD)" in first
    assert "Totals over the term" in first and "Prices older than 12 months" not in first


def report_pdf_title(c) -> str:
    from app.kinds import words

    return words(c.scenario).title(c)


def test_a_heading_moves_to_the_next_page_with_what_it_must_keep(v1):
    """Document.heading keeps `keep` mm below it on its page (the capacity section passes its first
    chart's height): with 60 mm left, a heading that must keep a 100 mm chart starts a new page,
    one that keeps the default 30 mm stays."""
    from datetime import UTC, datetime

    from app.report_pdf.document import Document

    doc = Document(
        v1, title="t", link=None, generated=datetime(2026, 12, 2, tzinfo=UTC), catalogue=""
    )
    doc.add_page()
    doc.set_y(doc.page_break_trigger - 60)
    doc.heading("Stays", keep=30)
    assert doc.page == 1
    doc.set_y(doc.page_break_trigger - 60)
    doc.heading("Moves", keep=100)
    assert doc.page == 2 and doc.get_y() < 40

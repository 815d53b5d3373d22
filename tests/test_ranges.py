"""Issue 30: the figures that decide answers without a current source carry a range. The resale
curve (residual_values.csv) has a sourced default and a sourced low-high range at every age; the
order-size ramp's thresholds (timeline.csv) are planner defaults, so an order's lead time is carried
over its GPU's whole range. The tornado swings each to its range's ends, the Monte Carlo draws
across it, and the words a buyer reads (Compare, Guide, Assumptions, text report, PDF) say so."""

from __future__ import annotations

import csv
from datetime import date

import numpy as np
import pytest

from app.range_text import range_cell, resale_line
from app.views.guide import buying_cost
from pricing import decision as ds
from pricing import ranges
from pricing.catalogue.loader import DATA_DIR, load_catalogue
from pricing.catalogue.rows import PLANNER_DEFAULT_SOURCE
from pricing.engine import compare
from pricing.inputs import build_inputs
from pricing.timeline import order_weeks
from tests.builders import UTILISED, app, scenario
from tests.portal_app import goto

#: the sources the resale default and its range rest on (residual_values.csv's source column)
RESALE_CITES = ("spotwire.ai", "Silicon Data", "GPU Lease Rate Index", "runlocalai")


@pytest.fixture(scope="module")
def cat():
    return load_catalogue()


@pytest.fixture(scope="module")
def owned():
    """256 H100s at 70 % over 36 months, Build against Rent (the bundled catalogue)."""
    return scenario(UTILISED, options={"compare": ["build", "rent"]})


def test_the_resale_curve_has_a_current_sourced_default_and_range_at_every_age(cat):
    rows = sorted(cat.residual_value_rows, key=lambda r: r.age_years)
    assert [r.age_years for r in rows] == list(range(1, 11))
    for r in rows:
        assert r.residual_value_low_pct < r.residual_value_pct < r.residual_value_high_pct, r
        assert not r.planner_default and "http" in r.source, r
        assert r.as_of >= date(2025, 1, 1), r  # a 2025-26 source, not the 2014 list prices
        for cite in RESALE_CITES:
            assert cite in r.source + r.notes, (r.age_years, cite)
    for a, b in zip(rows, rows[1:], strict=False):  # value falls with age, at both ends too
        assert b.residual_value_pct < a.residual_value_pct
        assert b.residual_value_low_pct <= a.residual_value_low_pct
        assert b.residual_value_high_pct <= a.residual_value_high_pct
    # the decision: about 46 % at 3 years (was 65 %), inside 25-65 %
    three = rows[2]
    assert (three.residual_value_low_pct, three.residual_value_pct) == (25.0, 46.0)
    assert three.residual_value_high_pct == 65.0
    # the reader's words name the same sources the file cites
    for name in ("SpotWire", "Silicon Data", "GPU Lease Rate Index", "runlocalai"):
        assert name in ranges.RESALE_SOURCES


def test_the_resale_range_is_swung_and_drawn_at_the_hardwares_age(cat, owned):
    inp = build_inputs(owned, cat)
    lo, hi = cat.residual_value_range_pct(inp.resale_age_years)
    x = inp.value("residual_value_pct")
    assert lo < x < hi and 0 < inp.resale_age_years < 3
    assert ranges.range_of(inp, "residual_value_pct") == (lo, hi)
    low, high = ds.swing_multipliers(inp, "residual_value_pct")
    assert (low * x, high * x) == pytest.approx((lo, hi))  # not x ∓ 25 %
    drawn = ds.draw_multipliers(inp, ["residual_value_pct"], 4000, 3)["residual_value_pct"] * x
    assert drawn.min() >= lo - 1e-9 and drawn.max() <= hi + 1e-9
    assert np.percentile(drawn, 5) < x - 0.5 * (x - lo)  # it spreads over its range
    assert np.percentile(drawn, 95) > x + 0.5 * (hi - x)
    assert np.median(drawn) == pytest.approx(x, rel=0.05)


def test_a_resale_figure_the_buyer_sets_is_theirs(cat, owned):
    inp = build_inputs(owned.model_copy(update={"overrides": {"residual_value_pct": 30.0}}), cat)
    assert ranges.range_of(inp, "residual_value_pct") is None
    assert ds.swing_multipliers(inp, "residual_value_pct") == (1 - ds.SWING, 1 + ds.SWING)


def test_the_order_size_ramp_is_a_planner_default_whose_range_is_carried(cat):
    rows = list(csv.DictReader((DATA_DIR / "timeline.csv").open(encoding="utf-8")))
    ramp = next(r for r in rows if r["quantity"] == "order_size_ramp")
    assert ramp["source"].startswith(PLANNER_DEFAULT_SOURCE)
    assert "range" in ramp["source"] and "Monte Carlo" in ramp["source"]
    # B200: 17.3-43.3 weeks; 1,024 GPUs read the midpoint, so the range reaches 17.3 / 30.3
    site = build_inputs(scenario(UTILISED, cluster={"gpu": "B200", "gpus": 1024}), cat)
    low, weeks, high = order_weeks(cat, "build", "B200", 1024)
    lo, hi = ranges.range_of(site, "lead_time_multiplier")
    assert (lo, hi) == pytest.approx((low / weeks, max(1.5, high / weeks)))
    assert lo < 0.75
    assert ds.swing_multipliers(site, "lead_time_multiplier") == pytest.approx((lo, hi))
    m = ds.draw_multipliers(site, ["lead_time_multiplier"], 4000, 5)["lead_time_multiplier"]
    assert m.min() >= lo - 1e-12 and m.max() <= hi + 1e-12 and m.min() < 0.7


def test_a_quoted_lead_time_keeps_the_planners_spread(cat):
    quoted = scenario(
        UTILISED,
        cluster={"gpu": "B200", "gpus": 1024},
        constraints={"hardware_lead_time_weeks": 20},
    )
    inp = build_inputs(quoted, cat)
    assert ranges.range_of(inp, "lead_time_multiplier") == pytest.approx(ranges.LEAD_TIME_RANGE)


def test_the_buyer_reads_the_resale_range_and_its_sources(owned):
    c = compare(owned)
    a = next(a for a in c.assumptions if a.key == "residual_value_pct")
    assert a.range_low is not None and a.range_low < a.value < a.range_high
    assert "SpotWire" in a.range_source
    line = resale_line(c)
    assert f"{a.range_low:.0f}–{a.range_high:.0f} %" in line and "SpotWire" in line
    assert "tornado and the Monte Carlo" in line
    assert line in buying_cost(c)  # the Guide's "How much does a cluster cost?"
    assert range_cell(a).startswith(f"Range {a.range_low:.3g}–{a.range_high:.3g} %")
    lead = next(a for a in c.assumptions if a.key == "lead_time_multiplier")
    assert "planner defaults" in lead.range_source
    build = c.option("build")
    procurement = next(p for p in build.timeline if p.phase == "procurement")
    assert "the uncertainty carries 8–12 weeks" in procurement.note


def test_no_resale_line_without_owned_hardware():
    c = compare(scenario(UTILISED, options={"compare": ["rent", "cloud:on_demand"]}))
    assert resale_line(c) is None


def test_compare_and_guide_pages_show_the_resale_range():
    """AppTest: the sample's Compare totals and the Guide's cluster-cost answer give the range."""
    at = goto(app(), "compare")
    assert any("sourced range of" in c.value and "SpotWire" in c.value for c in at.caption)
    at = goto(at, "guide")
    assert any("sourced range of" in m.value for m in at.markdown)


def test_a_sourced_figure_carried_over_its_states_says_why(owned):
    """Electricity has a current US average (EIA 2025) yet keeps its range, the spread between
    states: the buyer is told that reason, not that no current source exists."""
    c = compare(owned)
    power = next(a for a in c.assumptions if a.key == "electricity_usd_per_kwh")
    assert (power.range_low, power.range_high) == pytest.approx(ranges.RANGES[power.key])
    assert "EIA, 2025" in power.range_source and "state" in power.range_source
    assert "no current public source" not in power.range_source
    support = next(a for a in c.assumptions if a.key == "support_pct_of_capex_per_year")
    assert support.range_source == ranges.NO_CURRENT_SOURCE


def test_the_refreshed_figures_carry_their_new_sources(cat):
    """Issue 30: electricity is EIA's 2025 US industrial average (mean of its months) and PUE
    Uptime's 2025 survey average; both dated in 2025, no longer 2023 and 2024."""
    power, pue = cat.assumption("electricity_usd_per_kwh"), cat.assumption("pue")
    assert (power.value, str(power.as_of)) == (0.0861, "2025-01-01")
    assert "8.61" in power.notes and "EIA" in power.source
    assert (pue.value, str(pue.as_of)) == (1.54, "2025-07-01")
    assert "Survey 2025" in pue.source


def test_a_ranged_value_near_zero_is_swung_to_its_range_not_to_infinity():
    """The fuzz test found it: a resale haircut overridden to 5e-324 % has a high multiplier of
    40 / 5e-324 = inf, and the tornado bar's high value came out infinite; it is the range's end."""
    import math

    from app.scenario_files import EXAMPLE
    from models.scenario import Scenario
    from pricing.engine import compare
    from pricing.ranges import RANGES

    data = {
        **EXAMPLE,
        "overrides": {"resale_bulk_haircut_pct": 5e-324},
        "options": {**EXAMPLE["options"], "compare": ["build", "rent"]},
    }
    c = compare(Scenario.model_validate(data))
    bar = next(b for b in c.sensitivity.bars if b.key == "resale_bulk_haircut_pct")
    assert (bar.low_value, bar.high_value) == (5e-324, RANGES["resale_bulk_haircut_pct"][1])
    assert all(math.isfinite(v) for b in c.sensitivity.bars for v in (b.low_value, b.high_value))

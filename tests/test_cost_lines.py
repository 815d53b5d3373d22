"""Cost lines the audit flagged (issue 30): cloud capacity in whole 8-GPU instances, commitments
past the term as their own line with the buyer's valuation, and the after-tax depreciation rules."""

from __future__ import annotations

import pytest

from models.scenario import Scenario
from pricing.engine import compare


def _steady(gpus: int, compare_: list[str], months: int = 12, **options) -> Scenario:
    return Scenario.model_validate(
        {
            "version": 2,
            "workloads": [
                {"kind": "steady", "name": "lab", "gpus": gpus, "utilisation_pct": 100,
                 "duration_months": months}
            ],
            "term": {"months": months},
            "options": {"compare": compare_, **options},
        }
    )  # fmt: skip


def _figure(c, key: str) -> float:
    return next(f.value for f in c.assumptions if f.key == key)


def test_cloud_bills_whole_instances_for_a_fraction_of_one(fixture_catalogue):
    """Two GPUs of steady work on cloud on-demand rent one 8-GPU instance: the compute line is
    8 GPUs x the hours it is held at the rate, six of the eight GPUs idle."""
    c = compare(_steady(2, ["cloud:on_demand"]), fixture_catalogue, decision=False)
    o = c.option("cloud:on_demand")
    assert o.capacity_size_gpus == 8
    served = sum(o.served_gpu_hours_by_month)
    assert served == pytest.approx(o.demanded_gpu_hours, rel=1e-9)
    rate = _figure(c, "cloud_on_demand_usd_per_gpu_hour")
    assert o.breakdown_usd["compute"] == pytest.approx(4 * served * rate, rel=1e-6)
    assert o.idle_gpu_hours == pytest.approx(3 * served, rel=1e-6)


def test_cloud_whole_instances_leave_whole_ones_as_they_were(fixture_catalogue):
    """Work in whole instances (16 GPUs) pays exactly the GPU-hours it serves."""
    c = compare(_steady(16, ["cloud:on_demand"]), fixture_catalogue, decision=False)
    o = c.option("cloud:on_demand")
    rate = _figure(c, "cloud_on_demand_usd_per_gpu_hour")
    assert o.breakdown_usd["compute"] == pytest.approx(o.served_gpu_hours * rate, rel=1e-9)
    assert o.idle_gpu_hours == pytest.approx(0.0, abs=1e-6)


def test_hybrid_burst_rents_whole_instances(fixture_catalogue):
    """A hybrid's cloud burst is sized and billed in whole instances: it never bills fewer
    GPU-hours than it serves, its size is a multiple of 8, and its bill for a 3-GPU overflow is
    the instance's."""
    s = Scenario.model_validate(
        {
            "version": 2,
            "workloads": [
                {"kind": "steady", "name": "base", "gpus": 64, "utilisation_pct": 100,
                 "duration_months": 24},
                {"kind": "steady", "name": "peak", "gpus": 3, "utilisation_pct": 100,
                 "start_month": 12, "duration_months": 12},
            ],
            "term": {"months": 24},
            "cluster": {"gpus": 64},
            "options": {"compare": ["hybrid"]},
        }
    )  # fmt: skip
    from pricing.planning.planner import plan_portfolio

    _, pf = plan_portfolio(s, fixture_catalogue)
    sp = pf.plans["hybrid"].split
    assert sp.burst_gpus % 8 == 0 and sp.burst_gpus >= 8
    assert (sp.burst_billed_gpu_hours >= sp.burst_served_gpu_hours - 1e-6).all()
    late = sp.burst_served_gpu_hours[13:]
    assert late.sum() > 0
    assert sp.burst_billed_gpu_hours[13:] == pytest.approx(8 / 3 * late, rel=1e-6)


def test_v1_cloud_on_a_fraction_of_an_instance_pays_the_instance(fixture_catalogue):
    """A single run on 4 GPUs: cloud on-demand bills its 8-GPU instance's hours."""

    def run(gpus: int):
        s = Scenario.model_validate(
            {
                "workload": {"model": "llama3-8b", "tokens": 2e9},
                "cluster": {"gpu": "H100-SXM", "gpus": gpus},
                "options": {"compare": ["cloud:on_demand"]},
            }
        )
        o = compare(s, fixture_catalogue, decision=False).option("cloud:on_demand")
        return o.breakdown_usd["compute"] / (o.train_days * 24)

    assert run(4) == pytest.approx(run(8), rel=1e-9)  # both pay 8 GPUs an hour of the run


def _committed_past_term(past_term: str = "idle") -> Scenario:
    """A 12-month term whose dedicated cluster, ready after day 0 on 1-year commitments, is held
    a year from its ready day: its last commitment runs past the term."""
    term = {"months": 12} | ({"past_term": past_term} if past_term != "idle" else {})
    return Scenario.model_validate(
        {
            "workload": {"model": "llama3-8b", "tokens": 1e11},
            "cluster": {"gpu": "H100-SXM", "gpus": 64},
            "usage": {"mode": "utilisation", "utilisation_pct": 80},
            "term": term,
            "options": {"compare": ["rent", "cloud:committed_1y", "build"],
                        "rent_commitment": "1y"},
        }
    )  # fmt: skip


def test_commitment_months_past_the_term_are_their_own_line(fixture_catalogue):
    """The months a 1-year commitment runs past a 12-month term are the line "past the term", paid
    in the last month at the commitment's rate, out of the rent (and cloud compute) line; support
    is paid on them as on the rent."""
    c = compare(_committed_past_term(), fixture_catalogue, decision=False)
    rent = c.option("rent")
    rate = _figure(c, "rent_usd_per_gpu_hour")
    beyond_months = rent.ready_day / (365.25 / 12)
    assert beyond_months > 0
    past = rent.monthly_by_category_usd["past the term"]
    assert past[:-1] == [0.0] * 11
    assert past[-1] == pytest.approx(beyond_months * 64 * rate * 365.25 * 24 / 12, rel=1e-9)
    assert max(rent.monthly_by_category_usd["rent"]) <= 64 * rate * 365.25 * 24 / 12 * (1 + 1e-12)
    support = _figure(c, "rent_support_pct") / 100
    assert rent.breakdown_usd["support"] == pytest.approx(
        support * (rent.breakdown_usd["rent"] + rent.breakdown_usd["past the term"]), rel=1e-9
    )
    assert "past-term resale" not in rent.breakdown_usd
    cloud = c.option("cloud:committed_1y")
    assert cloud.breakdown_usd["past the term"] > 0
    assert "past the term" not in c.option("build").breakdown_usd


def test_commitment_months_past_the_term_resold_at_the_haircut(fixture_catalogue):
    """Resold: a credit of the months past the term less commitment_resale_haircut_pct, in the
    last month, on every commitment alike; nothing else moves."""
    idle = compare(_committed_past_term(), fixture_catalogue, decision=False)
    sold = compare(_committed_past_term("resold"), fixture_catalogue, decision=False)
    haircut = _figure(sold, "commitment_resale_haircut_pct") / 100
    assert haircut == pytest.approx(0.12)
    rate = _figure(sold, "discount_rate_pct_per_year") / 100
    for option in ("rent", "cloud:committed_1y"):
        a, b = idle.option(option), sold.option(option)
        owed = a.breakdown_usd["past the term"]
        credit = b.monthly_by_category_usd["past-term resale"]
        assert credit[-1] == pytest.approx(-(1 - haircut) * owed, rel=1e-9)
        assert b.total_usd == pytest.approx(a.total_usd - (1 - haircut) * owed, rel=1e-9)
        assert b.npv_usd == pytest.approx(
            a.npv_usd - (1 - haircut) * owed * (1 + rate) ** -1, rel=1e-9
        )
        # the credit is income: after tax it is worth (1 - t) of itself
        t = _figure(sold, "tax_rate_pct") / 100
        assert b.total_after_tax_usd == pytest.approx(
            a.total_after_tax_usd - (1 - t) * (1 - haircut) * owed, rel=1e-9
        )
    assert sold.option("build").npv_usd == idle.option("build").npv_usd


def test_past_term_default_keeps_the_scenario_json(fixture_catalogue):
    s = _committed_past_term()
    assert "past_term" not in s.model_dump_json()
    assert '"past_term":"resold"' in _committed_past_term("resold").model_dump_json()
    with pytest.raises(ValueError):
        Scenario.model_validate({"term": {"past_term": "burned"}})


def test_ranged_figures_state_their_range_and_the_tornado_swings_to_it(fixture_catalogue):
    """Each figure without a current source carries its plausible range: the catalogue row's notes
    state the range pricing/decision.py RANGES holds, the value lies in it, the tornado swings to
    its ends and every Monte Carlo draw stays inside it with the base value as its median."""
    import re

    import numpy as np

    from pricing.catalogue.loader import load_catalogue
    from pricing.decision import draw_multipliers, swing_multipliers
    from pricing.inputs import build_inputs
    from pricing.ranges import RANGES

    cat = load_catalogue()
    for key, (lo, hi) in RANGES.items():
        row = cat.assumption(key)
        stated = re.search(r"[Pp]lausible range (\d+(?:\.\d+)?)-(\d+(?:\.\d+)?)", row.notes)
        assert stated and (float(stated[1]), float(stated[2])) == (lo, hi), key
        assert lo <= row.value <= hi, key
    inp = build_inputs(_committed_past_term("resold"), cat)
    for key, (lo, hi) in RANGES.items():
        x = inp.value(key)
        low, high = swing_multipliers(inp, key)
        assert (low * x, high * x) == pytest.approx((lo, hi)), key
        drawn = draw_multipliers(inp, [key], 4000, 1)[key] * x
        assert drawn.min() >= lo - 1e-9 and drawn.max() <= hi + 1e-9, key
        assert np.median(drawn) == pytest.approx(x, rel=0.05), key

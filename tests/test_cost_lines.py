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

"""Hybrid, own a base and burst the peaks to cloud (models/options.py `composed_of`,
pricing/planning/hybrid.py `Hybrid.hybrid`): its flows are the owned flows on the base plus the
per-use flows on the burst, demand is conserved, a version 1 scenario cannot offer it, and on a
peaky portfolio it beats both building for the peak and paying per use for the base."""

from __future__ import annotations

import numpy as np
import pytest

from models.options import spec
from models.scenario import Scenario
from models.units import DAYS_PER_MONTH, HOURS_PER_MONTH
from pricing import cashflows as cf
from pricing.engine import base_params, compare, evaluate
from pricing.planning.planner import Planner, plan_portfolio
from tests.builders import PEAKY, sample, scenario


@pytest.fixture(scope="module")
def peaky(fixture_catalogue):
    s = scenario(PEAKY)
    return s, compare(s, fixture_catalogue, decision=False), plan_portfolio(s, fixture_catalogue)


def _context(own, served, gpus, ready, held, runs) -> cf.Context:
    months = own.months
    return cf.Context(
        months,
        np.array([[ready]]),
        np.array([[1.0]]),
        np.array([[runs]]),
        (served / (gpus * HOURS_PER_MONTH))[None, :],
        np.array([[own.term_days]]),
        held[None, :],
        np.array([[0.0]]),
    )


def test_flows_are_owned_flows_on_the_base_plus_per_use_flows_on_the_burst(peaky):
    """Each line of hybrid = the build option's on the base's GPUs and served hours + cloud
    on-demand's on the burst's GPU-hours, each part priced from its own inputs (the burst at the
    price of its own size); the platform team is paid only in months the burst serves work."""
    _, c, (inp, portfolio) = peaky
    plan = portfolio.plans["hybrid"]
    sp = plan.split
    months = inp.months
    term = months * DAYS_PER_MONTH
    m = np.arange(months)
    base_held = np.clip((np.minimum(m + 1, months) * DAYS_PER_MONTH - sp.base_ready_day)
                        / DAYS_PER_MONTH, 0, 1)  # fmt: skip
    burst_held = np.clip((m + 1) - sp.burst_ready_day / DAYS_PER_MONTH, 0, 1)
    burst_held = burst_held * (sp.burst_served_gpu_hours > 0)
    Pbase, Pburst = base_params(sp.base_inputs), base_params(sp.burst_inputs)
    base_ctx = _context(sp.base_inputs, sp.base_served_gpu_hours, sp.base_gpus,
                        sp.base_ready_day, base_held, 0.0)  # fmt: skip
    share = sp.burst_served_gpu_hours.sum() / sum(plan.result.served_gpu_hours_by_month)
    # the burst is busy (and bills) its GPUs in use in whole 8-GPU instances
    burst_ctx = _context(sp.burst_inputs, sp.burst_billed_gpu_hours, sp.burst_gpus,
                         sp.burst_ready_day, burst_held, plan.weighted_runs * share)  # fmt: skip
    base = cf.OPTION_FLOWS["build"](sp.base_inputs, Pbase, base_ctx)
    burst = cf.OPTION_FLOWS["cloud:on_demand"](sp.burst_inputs, Pburst, burst_ctx)
    base["software licences"] = cf.software_licences(sp.base_inputs, Pbase, base_ctx, True)
    burst["software licences"] = cf.software_licences(sp.burst_inputs, Pburst, burst_ctx, False)
    hybrid = c.option("hybrid")
    assert set(hybrid.breakdown_usd) == set(base) | set(burst)
    for k, got in hybrid.monthly_by_category_usd.items():
        want = base.get(k, np.zeros((1, months)))[0] + burst.get(k, np.zeros((1, months)))[0]
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-6, err_msg=k)
    # the burst pays the on-demand price of its own size for the GPU-hours the base cannot
    # serve, in whole instances
    price = sp.burst_inputs.value("cloud_on_demand_usd_per_gpu_hour")
    assert hybrid.breakdown_usd["compute"] == pytest.approx(
        price * sp.burst_billed_gpu_hours.sum(), rel=1e-9
    )
    assert sp.burst_gpus % 8 == 0
    assert (sp.burst_billed_gpu_hours >= sp.burst_served_gpu_hours).all()
    assert sp.burst_served_gpu_hours.sum() > 0 and sp.base_served_gpu_hours.sum() > 0
    # the owned team every month from its hiring; the platform team on top only in burst months
    platform = np.array(hybrid.monthly_by_category_usd["staff"]) - base["staff"][0]
    np.testing.assert_array_equal(platform > 1e-6, burst_held > 0)
    assert term > sp.base_ready_day > sp.burst_ready_day  # the burst starts before the base


def test_demand_is_conserved_and_capacity_is_base_plus_burst(peaky):
    _, c, (_, portfolio) = peaky
    h = c.option("hybrid")
    sp = portfolio.plans["hybrid"].split
    assert h.served_gpu_hours + h.queued_gpu_hours + h.beyond_term_gpu_hours == pytest.approx(
        h.demanded_gpu_hours, rel=1e-9
    )
    for w in h.workload_delays:
        parts = w.served_gpu_hours + w.queued_gpu_hours + w.beyond_term_gpu_hours
        assert parts == pytest.approx(w.demanded_gpu_hours, rel=1e-9)
    served = np.array(h.served_gpu_hours_by_month)
    np.testing.assert_allclose(sp.base_served_gpu_hours + sp.burst_served_gpu_hours, served)
    assert np.all(sp.base_served_gpu_hours <= sp.base_capacity_gpus * HOURS_PER_MONTH + 1e-6)
    want = sp.base_capacity_gpus + sp.burst_billed_gpu_hours / HOURS_PER_MONTH
    np.testing.assert_allclose(h.capacity_gpus, want, rtol=1e-12)
    idle = np.array(h.capacity_gpus) * HOURS_PER_MONTH - served
    np.testing.assert_allclose(h.idle_gpu_hours_by_month, np.maximum(idle, 0.0), atol=1e-6)
    assert sum(h.chargeback_usd.values()) == pytest.approx(h.total_usd, rel=1e-9)
    assert h.completes_workload


def test_unavailable_for_a_version_1_scenario_with_the_note(fixture_catalogue):
    c = compare(scenario(options={"compare": ["build", "hybrid"]}), fixture_catalogue,
                decision=False)  # fmt: skip
    h = c.option("hybrid")
    assert not h.available and h.note.startswith("needs a demand shape")
    assert "version 2" in h.note
    assert c.option("build").available and c.recommendation.option == "build"


def test_peaky_portfolio_hybrid_beats_build_and_cloud(peaky):
    """Why: build is sized for the 768-GPU peak and leaves most of what it holds idle; cloud pays
    the on-demand price for the 256-GPU base every hour; hybrid owns the base (the median month's
    peak, 256 GPUs) and rents only the peaks' GPU-hours."""
    _, c, (_, portfolio) = peaky
    build, cloud, hybrid = (c.option(o) for o in ("build", "cloud:on_demand", "hybrid"))
    sp = portfolio.plans["hybrid"].split

    def idle_share(r):
        return r.idle_gpu_hours / (r.idle_gpu_hours + r.served_gpu_hours)

    assert max(c.portfolio.peak_gpus) == 768 and sp.base_gpus == 256
    assert hybrid.capacity_size_gpus == 256 and build.capacity_size_gpus >= 512
    assert idle_share(build) > 0.5  # build holds the peak all term
    assert idle_share(hybrid) < 0.15  # the base is busy at 90 % and waits for its build
    # cloud pays only each 8-GPU instance's unused share
    assert cloud.idle_gpu_hours < 0.01 * cloud.served_gpu_hours
    # the burst carries the months before the base is ready and each run's GPUs above the base
    burst = sp.burst_served_gpu_hours
    before = burst[: int(sp.base_ready_day // DAYS_PER_MONTH)].sum()
    assert before > 0 and burst.sum() - before > 0
    assert burst.sum() < 0.3 * hybrid.served_gpu_hours
    # day by day, not month by month: while a run holds 512 GPUs the steady work (90 % of 256)
    # and the run exceed the 256-GPU base by 486.4 GPUs, and on other days nothing does
    runs = next(w for w in portfolio.plans["hybrid"].result.workloads if w.name == "quarterly")
    ready_month = int(sp.base_ready_day // DAYS_PER_MONTH) + 1
    days = portfolio.demand.runs.run_days[0]
    for start in runs.runs_table.start_day:
        month = int(start // DAYS_PER_MONTH)
        if month >= ready_month and (start + days) < (month + 1) * DAYS_PER_MONTH:
            assert burst[month] == pytest.approx((0.9 * 256 + 512 - 256) * days * 24, rel=0.02)
            assert burst[month + 1] == 0.0
    assert hybrid.npv_usd < build.npv_usd and hybrid.npv_usd < cloud.npv_usd
    assert hybrid.usd_per_gpu_hour < cloud.usd_per_gpu_hour < build.usd_per_gpu_hour
    assert c.recommendation.option == "hybrid"
    assert spec("hybrid").composed_of == ("build", "cloud:on_demand")


def test_decision_support_draws_hybrid(peaky, fixture_catalogue):
    """Hybrid's parts move with the draws: a dearer cloud price raises its NPV, as a dearer server
    does (each part reads its own scaled figures)."""
    _, _, (inp, _) = peaky
    for key in ("cloud_on_demand_usd_per_gpu_hour", "server_usd_per_gpu"):
        P = base_params(inp, 2)
        P[key] = P[key] * np.array([[1.0], [1.5]])
        flows, _ = evaluate(inp, P, ["hybrid"])["hybrid"]
        total = sum(flows.values()).sum(axis=1)
        assert total[1] > total[0] * 1.001, key


def test_the_burst_pays_its_own_sizes_price_where_the_base_is_priced_at_another(
    fixture_catalogue,
):
    """The lab sample: an 8-GPU base (single-instance tier) and a 1,017-GPU burst (the capacity
    block tier). The burst's figures were scaled against the portfolio's reference inputs instead
    of the option's own, so it paid the base's rate: on the bundled catalogue compute $10.65M for
    $5.61M, and cloud on-demand recommended over a hybrid $0.67M cheaper in NPV."""

    data = sample("lab")
    data["options"]["compare"] = ["hybrid", "cloud:on_demand", "build", "rent"]
    s = Scenario.model_validate(data)
    sp = plan_portfolio(s, fixture_catalogue)[1].plans["hybrid"].split
    key = "cloud_on_demand_usd_per_gpu_hour"
    assert sp.burst_inputs.value(key) < 0.8 * sp.base_inputs.value(key)  # two tiers
    c = compare(s, fixture_catalogue)
    assert c.option("hybrid").breakdown_usd["compute"] == pytest.approx(
        sp.burst_inputs.value(key) * sp.burst_billed_gpu_hours.sum(), rel=1e-9
    )
    bar = {b.key: b for b in c.sensitivity.bars}.get(key)
    assert bar is None or bar.gap_low_usd != pytest.approx(bar.gap_high_usd)


def test_the_base_is_the_candidate_whose_whole_plan_costs_least(fixture_catalogue):
    """The university sample: the median month's peak (208 GPUs) owned as the base cost $15.04M on
    the bundled catalogue where 112 cost $9.96M. Each candidate base is now priced whole and the
    cheapest kept; the rule names it and the dearer ones."""

    data = sample("university")
    data["options"]["compare"] = ["hybrid", "build", "cloud:on_demand"]
    s = Scenario.model_validate(data)
    planner = Planner(s, fixture_catalogue)
    candidates = planner.base_sizes()
    assert len(candidates) >= 2
    cost = {}
    for base in candidates:
        size, rule, ready, cap, r, split = planner.hybrid("hybrid", base)
        cost[base] = planner.total_usd(planner._plan("hybrid", size, rule, ready, cap, r, split))
    plan = planner.plan("hybrid")
    assert plan.split.base_gpus == min(cost, key=cost.get)
    assert planner.total_usd(plan) == pytest.approx(min(cost.values()), rel=1e-12)
    assert max(cost.values()) > 1.05 * min(cost.values())  # the choice matters here
    dearer = ", ".join(f"{b:,}" for b in sorted(cost, key=cost.get)[1:])
    assert f"owned base: {plan.split.base_gpus:,} GPUs, the cheapest whole plan" in plan.rule
    assert f"; dearer: {dearer})" in plan.rule
    c = compare(s, fixture_catalogue, decision=False)
    assert c.option("hybrid").total_usd == pytest.approx(min(cost.values()), rel=1e-9)


def test_the_base_is_ordered_for_the_work_when_all_of_it_comes_late(fixture_catalogue):
    """A team in months 30-32 of 36: every base candidate is one node, and it was bought on day 0
    and held idle for two and a half years. It is now ordered its build timeline ahead of the
    first month with work, its milestones (deposit, space, staff) from then, its resale priced
    at its own age; the burst is unchanged."""
    data = {
        "version": 2,
        "term": {"months": 36},
        "options": {"compare": ["hybrid", "rent"]},
        "workloads": [
            {"kind": "steady", "name": "t", "gpus": 64, "utilisation_pct": 100,
             "start_month": 30, "duration_months": 3}
        ],
    }  # fmt: skip
    s = Scenario.model_validate(data)
    plan = plan_portfolio(s, fixture_catalogue)[1].plans["hybrid"]
    sp = plan.split
    assert plan.order_day > 0
    assert sp.base_ready_day == pytest.approx(30 * DAYS_PER_MONTH)
    assert sp.base_inputs.resale_age_years == pytest.approx(0.5)
    h = compare(s, fixture_catalogue).option("hybrid")
    paid = np.flatnonzero(np.array(h.monthly_usd) != 0)
    assert paid.min() == int(plan.order_day // DAYS_PER_MONTH)  # nothing before the order
    assert h.timeline[0].start_day == pytest.approx(plan.order_day)

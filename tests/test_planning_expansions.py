"""Expansion phases of an owned cluster (options.build_expansions, pricing/planning/
`Tranche`): a phase adds its GPUs after its own build lead time, pays its hardware when it is
accepted, keeps demand conserved, and a version 1 scenario refuses it."""

from __future__ import annotations

import json

import numpy as np
import pytest

from models.options import spec
from models.scenario import Scenario, explain_validation_error
from models.units import DAYS_PER_MONTH
from pricing import cashflows as cf
from pricing.engine import base_params, compare
from pricing.planning.option_context import context, option_params
from pricing.planning.planner import plan_portfolio
from tests.builders import PEAKY, scenario

#: the peaky portfolio (tests/builders.py) on 256 GPUs, built or managed-owned, with no phase yet
BASE = PEAKY | {
    "cluster": {"gpus": 256},
    "options": {"compare": ["build", "managed:owned"], "build_expansions": []},
}
PHASE = {"gpus": 256, "month": 6}


@pytest.fixture(scope="module")
def grown(fixture_catalogue):
    s0, s1 = scenario(BASE), scenario(BASE, options__build_expansions=[PHASE])
    return (
        plan_portfolio(s0, fixture_catalogue),
        plan_portfolio(s1, fixture_catalogue),
        compare(s0, fixture_catalogue, decision=False),
        compare(s1, fixture_catalogue, decision=False),
    )


def test_a_phase_adds_its_gpus_after_its_own_lead_time(grown, fixture_catalogue):
    """Capacity = the base's + 256 × the share of each month from month 6 + the build ready
    day of a 256-GPU order (pricing/timeline.py), and nothing of it before."""
    (_, p0), (_, p1), _, _ = grown
    plan0, plan1 = p0.plans["build"], p1.plans["build"]
    (t,) = plan1.tranches
    lead = plan0.ready_day  # the base is 256 GPUs too: the same build timeline
    assert t.ready_day == pytest.approx(6 * DAYS_PER_MONTH + lead)
    added = plan1.capacity_gpus - plan0.capacity_gpus
    m = np.arange(len(added))
    share = np.clip((m + 1) * DAYS_PER_MONTH - t.ready_day, 0, DAYS_PER_MONTH) / DAYS_PER_MONTH
    assert added == pytest.approx(256 * share)
    assert added[: int(t.ready_day // DAYS_PER_MONTH)].max() == 0.0
    assert added[-1] == 256


def test_a_phase_pays_its_hardware_in_its_acceptance_month(grown, fixture_catalogue):
    """The hardware line grows, in the phase's acceptance month, by the phase's own capex (its
    servers, fabric, ... without a second file system) less the deposit paid with its order
    in month 6, the deposit itself appearing in month 6."""
    (_, p0), (inp1, p1), c0, c1 = grown
    P = base_params(inp1)
    ctx = context(inp1, option_params(inp1, P, "build"), "build")
    _, t_inp, t_P, t_ctx = ctx.parts[1]
    capex = cf.hardware_capex(t_inp, t_P)
    capex["storage"] = 0.0
    per_1000, least = t_P["mgmt_servers_per_1000_gpus"] / 1000, t_P["mgmt_min_servers"]
    added = np.maximum(least, per_1000 * 512) - np.maximum(least, per_1000 * 256)
    capex["management servers"] = added * t_P["cpu_server_usd_per_server"]
    equipment = cf.equipment_value(capex)
    deposit = float((equipment * t_P["hardware_deposit_pct"] / 100)[0, 0])
    total = float(sum(np.asarray(v, dtype=float).reshape(-1)[0] for v in capex.values()))
    h0 = np.array(
        next(o for o in c0.options if o.option == "build").monthly_by_category_usd["hardware"]
    )
    h1 = np.array(
        next(o for o in c1.options if o.option == "build").monthly_by_category_usd["hardware"]
    )
    diff = h1 - h0
    accepted = int(t_ctx.ready_month[0, 0])
    assert diff[accepted] == pytest.approx(total - deposit, rel=1e-9)
    assert diff[6] == pytest.approx(deposit, rel=1e-9)
    others = np.delete(diff, [6, accepted, len(diff) - 1])
    assert np.abs(others).max() == pytest.approx(0.0, abs=1e-6)


def test_one_operations_team_on_the_gpus_installed(grown):
    """Staff = max(minimum team, FTE per 1,000 × GPUs installed / 1,000): the phase adds only
    what the larger cluster needs above the minimum team, not a second minimum team."""
    (inp0, _), (inp1, _), c0, c1 = grown
    P = base_params(inp1)
    s0 = np.array(
        next(o for o in c0.options if o.option == "build").monthly_by_category_usd["staff"]
    )
    s1 = np.array(
        next(o for o in c1.options if o.option == "build").monthly_by_category_usd["staff"]
    )
    yearly = float((P["ops_salary_usd_per_year"] * P["ops_loaded_cost_ratio"])[0, 0])
    fte = max(float(P["ops_min_team_fte"][0, 0]), float(P["ops_fte_per_1000_gpus"][0, 0]) * 0.512)
    assert s1[-1] == pytest.approx(fte * yearly / 12)
    assert s1[:5] == pytest.approx(s0[:5])


def test_demand_is_conserved_with_phases(grown):
    _, (_, p1), _, _ = grown
    for plan in p1.plans.values():
        r = plan.result
        demanded = p1.demand.demanded_gpu_hours
        assert r.served_gpu_hours + r.queued_gpu_hours + r.beyond_term_gpu_hours == pytest.approx(
            demanded, rel=1e-9
        )
        assert plan.tranches  # managed:owned shares build's hardware and its phases


def test_a_version_1_scenario_refuses_phases():
    with pytest.raises(ValueError) as exc:
        Scenario.model_validate({"options": {"build_expansions": [PHASE]}})
    ((field, message),) = explain_validation_error(exc.value)
    assert field == "options.build_expansions" and "version 2" in message


def test_a_phase_must_be_ordered_within_the_term():
    with pytest.raises(ValueError) as exc:
        scenario(BASE, options__build_expansions=[{"gpus": 8, "month": 36}])
    ((field, message),) = explain_validation_error(exc.value)
    assert field == "options.build_expansions[0].month" and "0 to 35" in message
    last = scenario(BASE, options__build_expansions=[{"gpus": 8, "month": 35}])
    assert last.options.build_expansions[0].month == 35


def test_a_scenario_without_phases_writes_the_json_it_did():
    d = json.loads(Scenario().model_dump_json())
    assert "build_expansions" not in d["options"]
    assert spec("build").billing is spec("managed:owned").billing


@pytest.mark.parametrize("financing", ["cash", "loan", "lease"])
@pytest.mark.parametrize("facility", ["colocation", "owned"])
def test_many_draws_price_each_row_as_that_row_alone(fixture_catalogue, financing, facility):
    """option_flows over many parameter sets takes what no set moves as one row: each set's
    lines and NPV are exactly those of that set priced on its own (two phases, a refresh)."""
    from pricing import decision as ds
    from pricing.valuation import evaluate, npv_table

    s = scenario(
        BASE,
        term__financing=financing,
        options__facility=facility,
        options__build_expansions=[PHASE, {"gpus": 128, "month": 20}],
        options__build_refresh_after_months=24,
    )
    inp, _ = plan_portfolio(s, fixture_catalogue)
    options = ["build", "managed:owned"]
    keys = [k for k in ds.relevant_inputs(inp, options, ds._DRAWABLE) if k not in ds.NOT_DRAWN]
    mult = ds.draw_multipliers(inp, keys, 4, 7)
    P = ds._rows(inp, mult, 4)
    many, table = evaluate(inp, P, options), npv_table(inp, P, options)
    for i in range(4):
        Pi = {k: v[i : i + 1] for k, v in P.items()}
        one = evaluate(inp, Pi, options)
        assert np.array_equal(npv_table(inp, Pi, options)[0], table[i])
        for o in options:
            assert list(one[o][0]) == list(many[o][0])
            for key, line in one[o][0].items():
                assert np.array_equal(line[0], many[o][0][key][i]), (o, key)

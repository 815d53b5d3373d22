"""Hardware refresh of an owned cluster (options.build_refresh_after_months, pricing/planning/
`Refresh`): at the chosen age the old hardware is sold at its resale curve value and new hardware
of the same size, ordered its lead time ahead, takes over; the hardware and residual lines move
to those months, capacity stays put, demand is conserved, and bad ages are refused by name."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest

from models.scenario import Scenario, explain_validation_error
from models.units import DAYS_PER_MONTH
from pricing import cashflows as cf
from pricing.engine import base_params, compare
from pricing.planning.option_context import context, option_params
from pricing.planning.planner import plan_portfolio
from tests.builders import PEAKY, scenario

#: the peaky portfolio (tests/builders.py) on 512 GPUs over 48 months, paid in cash, built or
#: managed-owned, with no refresh
BASE = copy.deepcopy(PEAKY) | {
    "cluster": {"gpus": 512},
    "term": {"months": 48, "financing": "cash"},
    "options": {"compare": ["build", "managed:owned"]},
}
for _w in BASE["workloads"]:
    _w["duration_months"] = 48
AGE = 18  # months


@pytest.fixture(scope="module")
def refreshed(fixture_catalogue):
    s0, s1 = scenario(BASE), scenario(BASE, options__build_refresh_after_months=AGE)
    return (
        plan_portfolio(s0, fixture_catalogue),
        plan_portfolio(s1, fixture_catalogue),
        compare(s0, fixture_catalogue, decision=False),
        compare(s1, fixture_catalogue, decision=False),
    )


def _line(c, option: str, key: str) -> np.ndarray:
    o = next(o for o in c.options if o.option == option)
    return np.array(o.monthly_by_category_usd[key])


def test_generations_follow_the_age_and_the_lead_time(refreshed):
    """The first hardware is sold when it is AGE months old; the next is ordered its lead time
    (the build timeline without the facility) ahead, accepted that day, and so on; capacity is
    the same 512 GPUs every month from the first ready day (no gap, no double count)."""
    (_, p0), (_, p1), _, _ = refreshed
    plan0, plan1 = p0.plans["build"], p1.plans["build"]
    age = AGE * DAYS_PER_MONTH
    assert plan1.retire_day == pytest.approx(plan1.ready_day + age)
    assert len(plan1.refreshes) == 2  # 48 months: refreshed at ~21 and ~39 months
    prev = plan1.retire_day
    for f in plan1.refreshes:
        assert f.ready_day == pytest.approx(prev)
        assert f.order_day < f.ready_day
        prev = f.retire_day
    assert plan1.refreshes[-1].retire_day is None
    assert plan1.capacity_gpus == pytest.approx(plan0.capacity_gpus, abs=1e-9)
    # the results carry them (compare --json): order, acceptance and the old hardware's sale
    (o,) = [o for o in refreshed[3].options if o.option == "build"]
    got = [(r.order_day, r.ready_day, r.replaced_sold_day) for r in o.hardware_refreshes]
    sold = [plan1.retire_day, *(f.retire_day for f in plan1.refreshes[:-1])]
    assert got == [
        (f.order_day, f.ready_day, s) for f, s in zip(plan1.refreshes, sold, strict=True)
    ]
    assert not next(o for o in refreshed[2].options if o.option == "build").hardware_refreshes


def test_a_refresh_pays_new_hardware_and_credits_the_old_at_its_resale_value(
    refreshed, fixture_catalogue
):
    """Cash: the hardware line gains, for each refresh, its deposit in its order month and the
    rest in its acceptance month (servers, fabric, ... at catalogue prices, no second file system
    or management servers); the residual value line credits the old hardware in its sale month at
    the resale curve value at AGE months, and the last generation at term end at its own age."""
    _, (inp1, p1), c0, c1 = refreshed
    P = base_params(inp1)
    ctx = context(inp1, option_params(inp1, P, "build"), "build")
    base, *parts = ctx.parts
    assert len(parts) == 2 and all(c.refresh for _, _, _, c in parts)
    months = inp1.months
    expected_hw = np.zeros(months)
    expected_rv = np.zeros(months)
    for k, (_, f_inp, f_P, f_ctx) in enumerate([base, *parts]):
        capex = cf.hardware_capex(f_inp, f_P)
        if k:
            capex["storage"] = 0.0 * capex["storage"]
            capex["management servers"] = 0.0 * capex["management servers"]
            deposit = cf.equipment_value(capex) * f_P["hardware_deposit_pct"] / 100
            total = sum(capex.values())
            expected_hw[int(f_ctx.order_day // DAYS_PER_MONTH)] += float(deposit.flat[0])
            expected_hw[int(f_ctx.ready_month[0, 0])] += float((total - deposit).flat[0])
        sold = months - 1 if f_ctx.retire_day is None else int(f_ctx.retire_day // DAYS_PER_MONTH)
        expected_rv[sold] -= float(cf.resale_value(f_inp, f_P, capex).flat[0])
    # the resale curve at AGE months, not at the term end
    assert base[1].resale_age_years == pytest.approx(AGE / 12)
    assert float(base[2]["residual_value_pct"].flat[0]) == pytest.approx(
        fixture_catalogue.residual_value_pct(AGE / 12)
    )
    h0, h1 = _line(c0, "build", "hardware"), _line(c1, "build", "hardware")
    assert h1 - h0 == pytest.approx(expected_hw, rel=1e-9, abs=1e-6)
    assert _line(c1, "build", "residual value") == pytest.approx(expected_rv, rel=1e-9, abs=1e-6)
    sold = int(p1.plans["build"].retire_day // DAYS_PER_MONTH)
    assert _line(c1, "build", "residual value")[sold] < 0


def test_the_old_hardware_stops_costing_when_sold(refreshed):
    """Support is on the hardware held: the same total GPU-months with or without a refresh (one
    generation at a time); the colocation space is the first generation's, paid to the term end."""
    _, _, c0, c1 = refreshed
    assert _line(c1, "build", "support").sum() == pytest.approx(
        _line(c0, "build", "support").sum(), rel=0.05
    )
    assert _line(c1, "build", "colocation") == pytest.approx(_line(c0, "build", "colocation"))


@pytest.mark.parametrize("financing", ["cash", "loan", "lease"])
def test_demand_is_conserved_and_costs_are_finite_with_a_refresh(fixture_catalogue, financing):
    s = scenario(BASE, term__financing=financing, options__build_refresh_after_months=AGE)
    c = compare(s, fixture_catalogue, decision=False)
    _, pf = plan_portfolio(s, fixture_catalogue)
    for o in c.options:
        total = o.served_gpu_hours + o.queued_gpu_hours + o.beyond_term_gpu_hours
        assert total == pytest.approx(o.demanded_gpu_hours, rel=1e-9)
        assert np.isfinite(o.npv_usd)
        assert pf.plans[o.option].refreshes  # managed:owned refreshes its hardware too
        assert "refreshed at 18 months" in o.capacity_rule


def test_the_refresh_age_is_refused_outside_its_range_by_name():
    for bad in (11, 48, 73):
        with pytest.raises(ValueError) as exc:
            scenario(BASE, options__build_refresh_after_months=bad)
        ((field, message),) = explain_validation_error(exc.value)
        assert field == "options.build_refresh_after_months" and "12 to 47" in message
    youngest = scenario(BASE, options__build_refresh_after_months=12)
    assert youngest.options.build_refresh_after_months == 12
    oldest = scenario(BASE, options__build_refresh_after_months=47)
    assert oldest.options.build_refresh_after_months == 47


def test_a_term_too_short_for_any_refresh_says_so_not_an_empty_range():
    """A 12-month term left 'from 12 to 11 months' as the allowed ages."""
    data = scenario(BASE, options__build_refresh_after_months=12).model_dump(mode="json")
    data["term"]["months"] = 12
    with pytest.raises(ValueError) as exc:
        Scenario.model_validate(data)
    ((field, message),) = explain_validation_error(exc.value)
    assert field == "options.build_refresh_after_months"
    assert "a 12-month term is too short for a refresh" in message and "13 months or longer" in (
        message
    )
    data["term"]["months"] = 13
    assert Scenario.model_validate(data).options.build_refresh_after_months == 12


def test_a_version_1_scenario_refuses_a_refresh_and_writes_the_json_it_did():
    with pytest.raises(ValueError) as exc:
        Scenario.model_validate({"options": {"build_refresh_after_months": 24}})
    ((field, message),) = explain_validation_error(exc.value)
    assert field == "options.build_refresh_after_months" and "version 2" in message
    assert "build_refresh_after_months" not in json.loads(Scenario().model_dump_json())["options"]

"""The cost engine against hand computation, and its properties."""

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from models.scenario import Scenario
from pricing import timeline as tl
from pricing.engine import breakeven_month, compare
from pricing.inputs import DAYS_PER_MONTH, HOURS_PER_MONTH, InputError, build_inputs

BASE = {
    "workload": {"model": "llama3-8b", "tokens": 1e12, "seq_len": 4096},
    "cluster": {"gpu": "H100-SXM", "gpus": 256},
    "usage": {"mode": "utilisation", "utilisation_pct": 70},
    "term": {"months": 36},
}


def scenario(**changes) -> Scenario:
    data = {k: dict(v) for k, v in BASE.items()}
    for path, value in changes.items():
        section, key = path.split("__")
        data.setdefault(section, {})[key] = value
    return Scenario.model_validate(data)


def option(comparison, name):
    return next(o for o in comparison.options if o.option == name)


def test_rent_only_equals_gpus_times_hours_times_price():
    zero = {
        "storage_rent_usd_per_gb_month": 0,
        "rent_setup_fee_usd_per_node": 0,
        "rent_support_pct": 0,
        "egress_usd_per_gb": 0,
        "rent_min_term_months": 0,
        "rent_usd_per_gpu_hour": 2.0,
    }
    sc = scenario(options__compare=["rent"]).model_copy(update={"overrides": zero})
    c = compare(sc, decision=False)
    rent = option(c, "rent")
    held_hours = (36 * DAYS_PER_MONTH - rent.ready_day) * 24
    assert rent.total_usd == pytest.approx(256 * held_hours * 2.0, rel=1e-9)
    assert rent.breakdown_usd["rent"] == pytest.approx(rent.total_usd)


def test_cloud_on_demand_pays_only_busy_hours():
    sc = scenario(options__compare=["cloud:on_demand"])
    sc = sc.model_copy(
        update={
            "overrides": {
                "storage_rent_usd_per_gb_month": 0,
                "egress_usd_per_gb": 0,
                "cloud_on_demand_usd_per_gpu_hour": 3.0,
            }
        }
    )
    c = compare(sc, decision=False)
    o = option(c, "cloud:on_demand")
    held_hours = (36 * DAYS_PER_MONTH - o.ready_day) * 24
    assert o.delivered_gpu_hours == pytest.approx(256 * held_hours * 0.7, rel=1e-9)
    assert o.total_usd == pytest.approx(o.delivered_gpu_hours * 3.0, rel=1e-9)
    assert o.usd_per_gpu_hour == pytest.approx(3.0)


def test_build_rebuilt_line_by_line():
    sc = scenario(options__compare=["build"])
    c = compare(sc, decision=False)
    inp = build_inputs(sc)
    v = inp.value
    b = option(c, "build")
    months = 36
    held_months = (months * DAYS_PER_MONTH - b.ready_day) / DAYS_PER_MONTH
    servers = 256 * v("server_usd_per_gpu")
    fabric = (
        inp.switches * v("ib_switch_64port_ndr_usd_per_switch")
        + inp.transceivers * v("optic_400g_usd_per_transceiver")
        + 256 * v("nic_400g_usd_per_port")
    )
    capex = (
        servers * (1 + v("spares_pct_of_nodes") / 100)
        + fabric
        + inp.storage_tb * v("storage_buy_usd_per_tb") * v("storage_system_uplift_ratio")
        + inp.nodes * v("installation_usd_per_node")
    )
    assert b.breakdown_usd["hardware"] == pytest.approx(capex)
    kw = inp.nodes * inp.node_power_kw
    idle = v("idle_power_pct") / 100
    kwh = kw * (idle + (1 - idle) * 0.7) * held_months * HOURS_PER_MONTH * v("pue")
    assert b.breakdown_usd["power"] == pytest.approx(kwh * v("electricity_usd_per_kwh"))
    assert b.breakdown_usd["colocation"] == pytest.approx(
        kw * v("colocation_usd_per_kw_month") * held_months
    )
    fte = max(v("ops_min_team_fte"), v("ops_fte_per_1000_gpus") * 256 / 1000)
    assert b.breakdown_usd["staff"] == pytest.approx(
        fte * v("ops_salary_usd_per_year") / 12 * held_months
    )
    support = (
        (
            v("support_pct_of_capex_per_year") / 100 * (servers + fabric)
            + v("licence_usd_per_gpu_year") * 256
        )
        / 12
        * held_months
    )
    assert b.breakdown_usd["support and licences"] == pytest.approx(support)
    assert b.breakdown_usd["parts"] == pytest.approx(
        v("part_replacement_pct_per_year") / 100 / 12 * servers * held_months
    )
    resale = (
        v("residual_value_pct") / 100 * (servers * (1 + v("spares_pct_of_nodes") / 100) + fabric)
    )
    assert b.breakdown_usd["residual value"] == pytest.approx(-resale)
    assert b.residual_value_usd == pytest.approx(resale)
    assert b.total_usd == pytest.approx(sum(b.breakdown_usd.values()))


def test_npv_below_nominal_and_equal_at_zero_rate():
    c = compare(scenario(), decision=False)
    for o in c.options:
        if o.available and o.total_usd > 0:
            assert o.npv_usd < o.total_usd
    c0 = compare(scenario(term__discount_rate_pct=0), decision=False)
    for o in c0.options:
        assert o.npv_usd == pytest.approx(o.total_usd)


def test_breakeven_is_consistent_with_the_cumulative_curves():
    c = compare(scenario(), decision=False)
    for a in c.options:
        for b_name, month in a.breakeven_month.items():
            b = option(c, b_name)
            ca, cb = np.array(a.cumulative_usd), np.array(b.cumulative_usd)
            if month is None:
                assert ca[-1] > cb[-1] - 1e-6
            else:
                assert np.all(ca[month - 1 :] <= cb[month - 1 :] + 1e-6)
                if month > 1:
                    assert ca[month - 2] > cb[month - 2] - 1e-6


def test_breakeven_helper_by_hand():
    assert breakeven_month(np.array([5, 6, 7]), np.array([1, 6, 9])) == 2
    assert breakeven_month(np.array([1, 2, 9]), np.array([5, 6, 7])) is None
    assert breakeven_month(np.array([1, 2, 3]), np.array([5, 6, 7])) == 1


PRICE_KEYS = [
    "server_usd_per_gpu",
    "rent_usd_per_gpu_hour",
    "cloud_on_demand_usd_per_gpu_hour",
    "electricity_usd_per_kwh",
    "colocation_usd_per_kw_month",
    "ops_salary_usd_per_year",
    "storage_rent_usd_per_gb_month",
    "managed_premium_pct",
]


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(PRICE_KEYS),
    st.floats(1.01, 3.0),
    st.sampled_from([12, 36, 60]),
    st.sampled_from(["cash", "loan", "lease"]),
)
def test_costs_never_negative_and_never_fall_when_a_price_rises(key, factor, months, financing):
    sc = scenario(
        term__months=months,
        term__financing=financing,
        options__compare=["build", "rent", "managed", "cloud:on_demand"],
    )
    base = compare(sc, decision=False)
    value = build_inputs(sc).value(key)
    up = compare(sc.model_copy(update={"overrides": {key: value * factor}}), decision=False)
    for o0, o1 in zip(base.options, up.options, strict=True):
        for cat, v in o0.breakdown_usd.items():
            if cat != "residual value":
                assert v >= -1e-6, (o0.option, cat)
        assert o1.total_usd >= o0.total_usd - 1e-6, (o0.option, key)


def test_managed_restarts_faster_so_runs_take_less_time():
    c = compare(scenario(), decision=False)
    assert option(c, "managed").train_days < option(c, "rent").train_days


def test_runs_mode_counts_runs_and_first_result():
    sc = scenario(usage__mode="runs", usage__runs=3)
    c = compare(sc, decision=False)
    for o in c.options:
        if o.completes_workload:
            assert o.runs_completed == pytest.approx(3)
            assert o.first_result_day == pytest.approx(o.ready_day + o.train_days)
            assert o.usd_per_training_run == pytest.approx(o.total_usd / 3)


def test_timeline_ready_day_matches_the_result():
    sc = scenario()
    c = compare(sc, decision=False)
    inp = build_inputs(sc)
    for o in c.options:
        t = tl.provisioning_timeline(
            o.option, gpu_id="H100-SXM", gpus=inp.gpus, nodes=inp.nodes, it_power_kw=inp.it_power_kw
        )
        assert o.ready_day == pytest.approx(t.ready_day)
        assert o.timeline and o.timeline[-1]["end_day"] <= t.ready_day + 1e-9


def test_decision_support_shapes_and_probabilities():
    c = compare(scenario(), draws=2000)
    probs = [q["probability_cheapest"] for q in c.uncertainty["options"].values()]
    assert sum(probs) == pytest.approx(1.0)
    for q in c.uncertainty["options"].values():
        assert q["p10_usd"] <= q["p50_usd"] <= q["p90_usd"]
    assert c.sensitivity["bars"] and c.sensitivity["cheapest"] == c.recommendation["option"]
    for f in c.flip_points:
        assert (
            f["cheapest_now"] == c.recommendation["option"]
            and f["cheapest_after"] != f["cheapest_now"]
        )
        assert (f["flip_value"] < f["base_value"]) == (f["direction"] == "below")


def test_flip_point_is_where_the_cheapest_option_changes():
    c = compare(scenario())
    assert c.flip_points
    for f in c.flip_points[:4]:
        beyond = f["flip_value"] * (0.97 if f["direction"] == "below" else 1.03)
        short = f["flip_value"] * (1.03 if f["direction"] == "below" else 0.97)
        after = compare(
            scenario().model_copy(update={"overrides": {f["key"]: beyond}}), decision=False
        )
        before = compare(
            scenario().model_copy(update={"overrides": {f["key"]: short}}), decision=False
        )
        assert after.recommendation["option"] == f["cheapest_after"], f
        assert before.recommendation["option"] == f["cheapest_now"], f


def test_unknown_override_and_provider_name_the_field():
    with pytest.raises(InputError) as exc:
        build_inputs(scenario().model_copy(update={"overrides": {"bogus_usd": 1.0}}))
    assert exc.value.field == "overrides.bogus_usd"
    with pytest.raises(InputError) as exc:
        build_inputs(scenario(options__rent_provider="Nobody"))
    assert exc.value.field == "options.rent_provider"


def test_every_number_is_finite():
    c = compare(scenario())
    for o in c.options:
        for v in [o.total_usd, o.npv_usd, *o.monthly_usd, *o.breakdown_usd.values()]:
            assert math.isfinite(v)


def test_owned_facility_replaces_colocation_and_waits_for_construction():
    colo = compare(scenario(options__compare=["build"]), decision=False)
    own = compare(scenario(options__compare=["build"], options__facility="owned"), decision=False)
    b0, b1 = option(colo, "build"), option(own, "build")
    assert "colocation" in b0.breakdown_usd and "colocation" not in b1.breakdown_usd
    assert b1.breakdown_usd["facility upkeep"] > 0
    assert b1.ready_day >= 18 * DAYS_PER_MONTH  # new construction: 18–24 months
    inp = build_inputs(scenario(options__facility="owned"))
    site = inp.it_power_kw * inp.value("facility_capex_usd_per_kw")
    assert b1.breakdown_usd["hardware"] == pytest.approx(b0.breakdown_usd["hardware"] + site)
    left = site * (1 - 3 / inp.value("facility_life_years"))
    assert b1.residual_value_usd == pytest.approx(b0.residual_value_usd + left)

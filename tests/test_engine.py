"""The cost engine against hand computation, and its properties, on the made-up fixture catalogue
(tests/fixtures/catalogue), so a price refresh never moves these numbers. The cash-flow formulas
one by one are in tests/test_cashflows.py; finite output over generated scenarios in
tests/test_engine_fuzz.py."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from models.scenario import Scenario
from pricing import timeline as tl
from pricing.engine import breakeven_month, compare
from pricing.inputs import DAYS_PER_MONTH, HOURS_PER_MONTH, InputError, build_inputs
from tests.builders import UTILISED, sample, scenario


def option(comparison, name):
    return next(o for o in comparison.options if o.option == name)


@pytest.fixture(scope="module")
def cat(fixture_catalogue):
    return fixture_catalogue


def test_rent_only_equals_gpus_times_hours_times_price(cat):
    zero = {
        "storage_rent_usd_per_gb_month": 0,
        "rent_setup_fee_usd_per_node": 0,
        "rent_support_pct": 0,
        "egress_usd_per_gb": 0,
        "rent_min_term_months": 0,
        "rent_usd_per_gpu_hour": 2.0,
        "rented_ops_fte_per_1000_gpus": 0,
        "rented_ops_min_team_fte": 0,
    }
    sc = scenario(UTILISED, options__compare=["rent"], options__rent_commitment="whole_term")
    c = compare(sc.model_copy(update={"overrides": zero}), cat, decision=False)
    rent = option(c, "rent")
    held_hours = (36 * DAYS_PER_MONTH - rent.ready_day) * 24
    assert rent.total_usd == pytest.approx(256 * held_hours * 2.0, rel=1e-9)
    assert rent.breakdown_usd["rent"] == pytest.approx(rent.total_usd)


def test_cloud_on_demand_pays_only_busy_hours(cat):
    sc = scenario(UTILISED, options__compare=["cloud:on_demand"])
    sc = sc.model_copy(
        update={
            "overrides": {
                "storage_rent_usd_per_gb_month": 0,
                "egress_usd_per_gb": 0,
                "cloud_on_demand_usd_per_gpu_hour": 3.0,
                "rented_ops_fte_per_1000_gpus": 0,
                "rented_ops_min_team_fte": 0,
            }
        }
    )
    c = compare(sc, cat, decision=False)
    o = option(c, "cloud:on_demand")
    held_hours = (36 * DAYS_PER_MONTH - o.ready_day) * 24
    assert o.delivered_gpu_hours == pytest.approx(256 * held_hours * 0.7, rel=1e-9)
    support = cat.assumption("cloud_support_pct").value / 100  # the plan on the compute bill
    assert o.breakdown_usd["compute"] == pytest.approx(o.delivered_gpu_hours * 3.0, rel=1e-9)
    assert o.breakdown_usd["support"] == pytest.approx(o.breakdown_usd["compute"] * support)
    assert o.total_usd == pytest.approx(o.delivered_gpu_hours * 3.0 * (1 + support), rel=1e-9)
    assert o.usd_per_gpu_hour == pytest.approx(3.0 * (1 + support))


def expected_resale(inp, servers, fabric):
    """Resale at term end by hand: the GPU share of the servers at the GPU curve, the host share and
    the fabric at their yearly decline over the hardware's age, less the whole-cluster haircut."""
    v = inp.value
    share = v("gpu_share_of_server_cost_pct") / 100
    age = inp.resale_age_years
    host = (1 - v("host_value_decline_pct_per_year") / 100) ** age
    net = (1 - v("fabric_value_decline_pct_per_year") / 100) ** age
    value = v("residual_value_pct") / 100 * share * servers + host * (1 - share) * servers
    return (value + net * fabric) * (1 - v("resale_bulk_haircut_pct") / 100)


def test_build_rebuilt_line_by_line(cat):
    sc = scenario(UTILISED, options__compare=["build"])
    c = compare(sc, cat, decision=False)
    inp = build_inputs(sc, cat)
    v = inp.value
    b = option(c, "build")
    months = 36
    term_days = months * DAYS_PER_MONTH
    held_months = (term_days - b.ready_day) / DAYS_PER_MONTH
    phases = {p.phase: p for p in b.timeline}
    servers = 256 * v("server_usd_per_gpu")
    fabric = inp.switches * v("ib_switch_64port_ndr_usd_per_switch") + inp.transceivers * v(
        "optic_400g_usd_per_transceiver"
    )  # the server quotes include their NICs
    # the file system: the most of capacity, write bandwidth / GB/s per TB and the smallest system
    system_tb = max(
        inp.storage_tb,
        inp.plan.checkpoint.write_bandwidth_gbyte_per_s / v("storage_write_gbyte_per_s_per_tb"),
        v("storage_min_system_tb"),
    )
    racks = 256 // 32  # air-cooled H100: 32 GPUs a rack (timeline.csv), 8 racks
    installation = inp.nodes * v("installation_usd_per_node")
    equipment = (
        servers * (1 + v("spares_pct_of_nodes") / 100)
        + fabric
        + system_tb * v("storage_buy_usd_per_tb") * v("storage_system_uplift_ratio")
        + inp.nodes * (v("frontend_network_usd_per_node") + v("oob_network_usd_per_node"))
        + max(v("mgmt_min_servers"), v("mgmt_servers_per_1000_gpus") * 256 / 1000)
        * v("cpu_server_usd_per_server")
        + racks * (v("rack_cabinet_usd_per_rack") + v("rack_pdu_usd_per_rack"))
    )  # no liquid-cooling loop for air-cooled GPUs
    assert b.breakdown_usd["hardware"] == pytest.approx(equipment + installation)
    # the deposit with the order in month 0, the balance on acceptance
    paid = b.monthly_by_category_usd["hardware"]
    assert paid[0] == pytest.approx(equipment * v("hardware_deposit_pct") / 100)
    # sales tax on the equipment, not on the installation labour
    assert b.breakdown_usd["sales tax"] == pytest.approx(equipment * v("sales_tax_pct") / 100)
    kw = inp.nodes * inp.node_power_kw
    idle = v("idle_power_pct") / 100
    kwh = kw * (idle + (1 - idle) * 0.7) * held_months * HOURS_PER_MONTH * v("pue")
    assert b.breakdown_usd["power"] == pytest.approx(kwh * v("electricity_usd_per_kwh"))
    # the space is paid from its hand-over, before the hardware is racked
    space_months = (term_days - phases["facility"].end_day) / DAYS_PER_MONTH
    assert phases["facility"].end_day < b.ready_day
    assert b.breakdown_usd["colocation"] == pytest.approx(
        kw * v("colocation_usd_per_kw_month") * space_months
    )
    # the team from its hiring lead before acceptance
    fte = max(v("ops_min_team_fte"), v("ops_fte_per_1000_gpus") * 256 / 1000)
    staff_months = held_months + min(v("ops_hiring_lead_months"), b.ready_day / DAYS_PER_MONTH)
    assert b.breakdown_usd["staff"] == pytest.approx(
        fte * v("ops_salary_usd_per_year") * v("ops_loaded_cost_ratio") / 12 * staff_months
    )
    support = v("support_pct_of_capex_per_year") / 100 * (servers + fabric) / 12 * held_months
    assert b.breakdown_usd["support"] == pytest.approx(support)
    # insured from delivery
    insured_months = (term_days - phases["delivery"].end_day) / DAYS_PER_MONTH
    assert b.breakdown_usd["insurance"] == pytest.approx(
        v("insurance_pct_per_year") / 100 / 12 * equipment * insured_months
    )
    # property tax on the book value: straight-line over the depreciation years from acceptance
    ready_month = int(b.ready_day // DAYS_PER_MONTH)
    m = np.arange(months)
    held = np.clip((np.minimum(term_days, (m + 1) * DAYS_PER_MONTH) - np.maximum(b.ready_day, m * DAYS_PER_MONTH)) / DAYS_PER_MONTH, 0, 1)  # fmt: skip
    book = np.clip(1 - np.maximum(m - ready_month, 0) / (12 * v("depreciation_years")), 0, 1)
    assert b.breakdown_usd["property tax"] == pytest.approx(
        v("property_tax_pct_per_year") / 100 / 12 * equipment * (held * book).sum()
    )
    # support replaces failed parts; licences are a scenario choice, off here
    assert "parts" not in b.breakdown_usd and "software licences" not in b.breakdown_usd
    resale = expected_resale(inp, servers * (1 + v("spares_pct_of_nodes") / 100), fabric)
    assert inp.resale_age_years == pytest.approx((term_days - b.ready_day) / 365.25)
    assert b.breakdown_usd["residual value"] == pytest.approx(-resale)
    assert b.residual_value_usd == pytest.approx(resale)
    assert b.total_usd == pytest.approx(sum(b.breakdown_usd.values()))


def test_npv_below_nominal_and_equal_at_zero_rate(cat):
    c = compare(scenario(UTILISED), cat, decision=False)
    assert all(o.available and o.total_usd > 0 for o in c.options)
    for o in c.options:
        assert o.npv_usd < o.total_usd
    c0 = compare(scenario(UTILISED, term__discount_rate_pct=0), cat, decision=False)
    for o in c0.options:
        assert o.npv_usd == pytest.approx(o.total_usd)


def test_breakeven_is_consistent_with_the_cumulative_curves(cat):
    c = compare(scenario(UTILISED), cat, decision=False)
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


@settings(max_examples=20)
@given(
    st.sampled_from(PRICE_KEYS),
    st.floats(1.01, 3.0),
    st.sampled_from([12, 36, 60]),
    st.sampled_from(["cash", "loan", "lease"]),
)
def test_costs_never_negative_and_never_fall_when_a_price_rises(
    cat, key, factor, months, financing
):
    sc = scenario(
        UTILISED,
        term__months=months,
        term__financing=financing,
        options__compare=["build", "rent", "managed", "cloud:on_demand"],
    )
    base = compare(sc, cat, decision=False)
    value = build_inputs(sc, cat).value(key)
    up = compare(sc.model_copy(update={"overrides": {key: value * factor}}), cat, decision=False)
    for o0, o1 in zip(base.options, up.options, strict=True):
        for cat, v in o0.breakdown_usd.items():
            if cat != "residual value":
                assert v >= -1e-6, (o0.option, cat)
        assert o1.total_usd >= o0.total_usd - 1e-6, (o0.option, key)


def test_managed_restarts_faster_so_runs_take_less_time(cat):
    c = compare(scenario(UTILISED), cat, decision=False)
    assert option(c, "managed").train_days < option(c, "rent").train_days


def test_runs_mode_counts_runs_and_first_result(cat):
    sc = scenario(UTILISED, usage__mode="runs", usage__runs=3)
    c = compare(sc, cat, decision=False)
    for o in c.options:  # 3 runs of ~4 days fit in 36 months on every option
        assert o.completes_workload, o.option
        assert o.runs_completed == pytest.approx(3)
        assert o.first_result_day == pytest.approx(o.ready_day + o.train_days)
        assert o.usd_per_training_run == pytest.approx(o.total_usd / 3)
    short = compare(scenario(UTILISED, usage__mode="runs", usage__runs=1000), cat, decision=False)
    for o in short.options:  # 1,000 runs of ~4 days do not fit in 36 months
        assert not o.completes_workload and o.runs_completed < 1000
        assert "runs fit in the term" in o.note
    assert short.recommendation.option is None


def test_timeline_ready_day_and_phases_come_from_the_catalogue_given(cat):
    sc = scenario(UTILISED)
    c = compare(sc, cat, decision=False)
    inp = build_inputs(sc, cat)
    for o in c.options:
        t = tl.provisioning_timeline(
            o.option, tl.Site("H100-SXM", inp.gpus, inp.nodes, inp.it_power_kw, cat)
        )
        assert o.ready_day == pytest.approx(t.ready_day), o.option
        # the provisioning phases, then, for an option bridged to its go-live, the bridge's
        bridge = []
        if o.bridged_by:
            by = c.option(o.bridged_by).label
            bridge = [(f"bridged on {by}", o.work_start_day, o.ready_day)]
        assert [(p.phase, p.start_day, p.end_day) for p in o.timeline] == [
            (p.name, p.start_day, p.end_day) for p in t.phases
        ] + bridge, o.option


def test_decision_support_shapes_and_probabilities(cat):
    c = compare(scenario(UTILISED), cat, draws=2000)
    probs = [q.probability_cheapest for q in c.uncertainty.options.values()]
    assert sum(probs) == pytest.approx(1.0)
    for q in c.uncertainty.options.values():
        assert q.p10_usd <= q.p50_usd <= q.p90_usd
    assert c.sensitivity.bars and c.sensitivity.cheapest == c.recommendation.option
    for f in c.flip_points:
        assert f.cheapest_now == c.recommendation.option and f.cheapest_after != f.cheapest_now
        assert (f.flip_value < f.base_value) == (f.direction == "below")


def test_flip_point_is_where_the_cheapest_option_changes(cat):
    c = compare(scenario(UTILISED), cat)
    assert c.flip_points
    for f in c.flip_points[:4]:
        beyond = f.flip_value * (0.97 if f.direction == "below" else 1.03)
        short = f.flip_value * (1.03 if f.direction == "below" else 0.97)
        after = compare(
            scenario(UTILISED).model_copy(update={"overrides": {f.key: beyond}}),
            cat,
            decision=False,
        )
        before = compare(
            scenario(UTILISED).model_copy(update={"overrides": {f.key: short}}), cat, decision=False
        )
        assert after.recommendation.option == f.cheapest_after, f
        assert before.recommendation.option == f.cheapest_now, f


def test_unknown_override_and_provider_name_the_field(cat):
    with pytest.raises(InputError) as exc:
        build_inputs(scenario(UTILISED).model_copy(update={"overrides": {"bogus_usd": 1.0}}), cat)
    assert exc.value.field == "overrides.bogus_usd"
    with pytest.raises(InputError) as exc:
        build_inputs(scenario(UTILISED, options__rent_provider="Nobody"), cat)
    assert exc.value.field == "options.rent_provider"
    assert "HyperA" in str(exc.value)  # the message lists the providers that do have prices


def test_owned_facility_replaces_colocation_and_waits_for_construction(cat):
    colo = compare(scenario(UTILISED, options__compare=["build"]), cat, decision=False)
    own = compare(
        scenario(UTILISED, options__compare=["build"], options__facility="owned"),
        cat,
        decision=False,
    )
    b0, b1 = option(colo, "build"), option(own, "build")
    assert "colocation" in b0.breakdown_usd and "colocation" not in b1.breakdown_usd
    assert b1.breakdown_usd["facility upkeep"] > 0
    facility = {p.phase: p for p in b1.timeline}["facility"]
    assert "new construction" in facility.note
    assert "new construction" not in {p.phase: p for p in b0.timeline}["facility"].note
    assert b1.ready_day > facility.end_day > b0.ready_day  # racking waits for the building
    inp = build_inputs(scenario(UTILISED, options__facility="owned"), cat)
    inp0 = build_inputs(scenario(UTILISED), cat)
    site = inp.it_power_kw * inp.value("facility_capex_usd_per_kw")
    assert b1.breakdown_usd["hardware"] == pytest.approx(b0.breakdown_usd["hardware"] + site)
    left = site * (1 - 3 / inp.value("facility_life_years"))
    # the hardware is accepted later in a new building, so it is younger at term end
    v = inp.value
    servers = 256 * v("server_usd_per_gpu") * (1 + v("spares_pct_of_nodes") / 100)
    fabric = inp.switches * v("ib_switch_64port_ndr_usd_per_switch") + inp.transceivers * v(
        "optic_400g_usd_per_transceiver"
    )
    assert inp.resale_age_years < inp0.resale_age_years
    assert inp.value("residual_value_pct") >= inp0.value("residual_value_pct")
    hardware_resale = expected_resale(inp, servers, fabric)
    assert hardware_resale > expected_resale(inp0, servers, fabric)
    assert b1.residual_value_usd == pytest.approx(hardware_resale + left)


@pytest.mark.parametrize("version", [1, 2])
def test_every_provider_bill_pays_its_support_plan_and_nothing_else_does(cat, version):
    """Rent pays its support plan on the rent (rent_support_pct, derived from AWS's support
    schedule), so every cloud option pays AWS's support plan on its compute (cloud_support_pct);
    a managed service's premium includes it, owned hardware pays its vendor contract instead."""
    from models.options import OPTION_IDS, Billing, spec

    if version == 1:
        sc = scenario(
            UTILISED, options__compare=[o for o in OPTION_IDS if not spec(o).needs_demand]
        )
    else:
        data = sample("enterprise")
        data["options"]["compare"] = list(OPTION_IDS)
        sc = Scenario.model_validate(data)
    c = compare(sc, cat, decision=False)
    pct = {k: cat.assumption(k).value / 100 for k in ("cloud_support_pct", "rent_support_pct")}
    billed = {Billing.PER_USE: "compute", Billing.COMMITTED: "compute", Billing.RENT: "rent"}
    checked = set()
    for o in c.options:
        if not o.available:
            continue
        billing = spec(o.option).billing
        lines = o.breakdown_usd
        if billing in billed:
            rate = pct["rent_support_pct" if billing is Billing.RENT else "cloud_support_pct"]
            # on the bill, with the commitment months past the term (their own line)
            bill = lines[billed[billing]] + lines.get("past the term", 0.0)
            assert lines["support"] == pytest.approx(bill * rate), o.option
            assert lines["support"] > 0
            checked.add(billing)
        elif billing is Billing.MANAGED_RENT:
            assert "support" not in lines, o.option
    assert checked == set(billed)

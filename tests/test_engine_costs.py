"""Issue 13's cost-model fixes: owned hardware ages from its acceptance, licences are a choice
charged alike to every option, one discount rate, and no option gets cheaper when one of its own
cost lines rises."""

from __future__ import annotations

import functools

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from models.errors import InputError
from models.options import OPTION_IDS, spec
from models.scenario import Scenario
from models.units import DAYS_PER_MONTH, DAYS_PER_YEAR, HOURS_PER_MONTH
from pricing import engine
from pricing.catalogue.loader import load_catalogue
from pricing.inputs import build_inputs
from pricing.planning.planner import plan_portfolio
from tests.builders import scenario


def test_residual_value_follows_the_hardwares_age_at_term_end(slow_delivery_catalogue):
    """30 more weeks of lead time leave the hardware 30 weeks younger when the term ends, so it
    resells for more; the figure is the catalogue's curve at that age, not at the term's length."""
    sc = scenario(term={"months": 36})
    for cat in (load_catalogue(), slow_delivery_catalogue):
        c = engine.compare(sc, cat, decision=False)
        build = c.option("build")
        age = (36 * DAYS_PER_MONTH - build.ready_day) / DAYS_PER_YEAR
        figure = {a.key: a for a in c.assumptions}["residual_value_pct"]
        assert figure.value == pytest.approx(cat.residual_value_pct(age))
        assert age < 3.0
    bundled = build_inputs(sc, load_catalogue()).value("residual_value_pct")
    slow = build_inputs(sc, slow_delivery_catalogue).value("residual_value_pct")
    assert slow > bundled


def test_software_licences_are_charged_alike_to_every_option_or_to_none():
    options = list(OPTION_IDS)
    off = engine.compare(scenario(options={"compare": options}), decision=False)
    assert all("software licences" not in o.breakdown_usd for o in off.options)
    on = engine.compare(
        scenario(options={"compare": options, "software_licence": True}), decision=False
    )
    per_gpu_year = {a.key: a.value for a in on.assumptions}["licence_usd_per_gpu_year"]
    for o in on.options:
        # hybrid on a version 1 scenario (tests/test_planning_hybrid.py prices it)
        if not o.available:
            assert spec(o.option).needs_demand, o.option
            continue
        line = o.breakdown_usd["software licences"]
        holds = spec(o.option).holds
        if holds == "term":  # owned: every GPU from the ready day to the term's end
            held_months = (36 * DAYS_PER_MONTH - o.ready_day) / DAYS_PER_MONTH
            assert line == pytest.approx(per_gpu_year / 12 * 64 * held_months), o.option
        elif holds == "rental":  # rented for one 1-year commitment (two short runs fit in it)
            assert o.ready_day + 2 * o.train_days < 365
            assert line == pytest.approx(per_gpu_year * 64), o.option
        else:  # the GPU-hours used
            hours_per_year = 12 * HOURS_PER_MONTH
            assert line == pytest.approx(per_gpu_year * o.delivered_gpu_hours / hours_per_year), (
                o.option
            )
        # and nothing else moved
        before = off.option(o.option)
        assert o.total_usd == pytest.approx(before.total_usd + line), o.option


def test_one_discount_rate():
    sc = scenario(term={"discount_rate_pct": 8.0}, overrides={"discount_rate_pct_per_year": 12.0})
    with pytest.raises(InputError) as err:
        engine.compare(sc, decision=False)
    assert err.value.field == "overrides.discount_rate_pct_per_year"
    assert "term.discount_rate_pct" in str(err.value)
    # either one alone is used
    for sc in (
        scenario(term={"discount_rate_pct": 8.0}),
        scenario(overrides={"discount_rate_pct_per_year": 8.0}),
    ):
        figures = {a.key: a.value for a in engine.compare(sc, decision=False).assumptions}
        assert figures["discount_rate_pct_per_year"] == 8.0


#: figures that are a price or a cost an option pays (raising one can only add cost); the
#: residual value, rates and usage are not costs
COST_KEYS = (
    "server_usd_per_gpu",
    "spares_pct_of_nodes",
    "ib_switch_64port_ndr_usd_per_switch",
    "optic_400g_usd_per_transceiver",
    "storage_buy_usd_per_tb",
    "storage_system_uplift_ratio",
    "installation_usd_per_node",
    "storage_min_system_tb",
    "frontend_network_usd_per_node",
    "oob_network_usd_per_node",
    "mgmt_servers_per_1000_gpus",
    "mgmt_min_servers",
    "cpu_server_usd_per_server",
    "rack_cabinet_usd_per_rack",
    "rack_pdu_usd_per_rack",
    "liquid_cooling_usd_per_kw",
    "electricity_usd_per_kwh",
    "pue",
    "colocation_usd_per_kw_month",
    "ops_fte_per_1000_gpus",
    "ops_min_team_fte",
    "ops_salary_usd_per_year",
    "rented_ops_fte_per_1000_gpus",
    "rented_ops_min_team_fte",
    "support_pct_of_capex_per_year",
    "licence_usd_per_gpu_year",
    "rent_support_pct",
    "rent_setup_fee_usd_per_node",
    "rent_min_term_months",
    "storage_rent_usd_per_gb_month",
    "egress_usd_per_gb",
    "managed_premium_pct",
    "managed_owned_fee_pct_of_capex_per_year",
    "rent_usd_per_gpu_hour",
    "cloud_on_demand_usd_per_gpu_hour",
    "cloud_spot_usd_per_gpu_hour",
    "cloud_committed_1y_usd_per_gpu_hour",
    "cloud_committed_3y_usd_per_gpu_hour",
    "facility_capex_usd_per_kw",
    "facility_maintenance_pct_of_capex_per_year",
    "loan_rate_pct_per_year",
    "lease_rate_pct_per_year",
    "insurance_pct_per_year",
    "sales_tax_pct",
    "property_tax_pct_per_year",
    "ops_hiring_lead_months",
    # a lower resale is a higher cost
    "resale_bulk_haircut_pct",
    "host_value_decline_pct_per_year",
    "fabric_value_decline_pct_per_year",
)
#: a portfolio with a base and peaks (scenario version 2): every option's capacity plan, hybrid's
#: base and burst included
PEAKY = [
    {"kind": "steady", "name": "base", "gpus": 64, "utilisation_pct": 90, "duration_months": 36},
    {"kind": "pretrain", "name": "peak", "model": "llama3-8b", "gpus": 128, "tokens": 1e11,
     "runs_per_month": 0.25, "duration_months": 36},
]  # fmt: skip


def _portfolio_inputs(financing: str, facility: str, licence: bool):
    sc = Scenario.model_validate(
        {
            "version": 2,
            "workloads": PEAKY,
            "options": {
                "compare": list(OPTION_IDS),
                "facility": facility,
                "software_licence": licence,
            },
            "term": {"financing": financing, "months": 36},
        }
    )
    return plan_portfolio(sc, load_catalogue())[0]


#: the settings the property draws from: financing × facility × licence × scenario version
SETTINGS = [
    (financing, facility, licence, version)
    for financing in ("cash", "loan", "lease")
    for facility in ("colocation", "owned")
    for licence in (False, True)
    for version in ("v1", "v2")
]


@functools.cache
def _inputs(financing: str, facility: str, licence: bool, version: str):
    """The engine's inputs for one setting, built on first use (not at import: collecting the
    suite would build all 24)."""
    if version == "v2":
        return _portfolio_inputs(financing, facility, licence)
    return build_inputs(
        scenario(
            options={
                "compare": list(OPTION_IDS),
                "facility": facility,
                "software_licence": licence,
            },
            term={"financing": financing, "months": 36},
            usage={"mode": "utilisation", "utilisation_pct": 60},
        ),
        load_catalogue(),
    )


@given(
    setting=st.sampled_from(SETTINGS),
    key=st.sampled_from(COST_KEYS),
    rise=st.floats(1.01, 3.0),
)
def test_no_option_gets_cheaper_when_one_of_its_cost_lines_rises(setting, key, rise):
    inp = _inputs(*setting)
    P = engine.base_params(inp, 2)
    P[key] = P[key] * np.array([[1.0], [rise]])
    offered = [o for o in OPTION_IDS if o not in inp.unavailable]
    assert "hybrid" in offered or setting[3] == "v1"  # a portfolio prices hybrid's every line
    totals = {
        option: engine.totals(flows, P, inp.months)
        for option, (flows, _ctx) in engine.evaluate(inp, P, offered).items()
    }
    for option, (nominal, npv) in totals.items():
        assert nominal[1] >= nominal[0] - 1e-6 * abs(nominal[0]), (option, key)
        assert npv[1] >= npv[0] - 1e-6 * abs(npv[0]), (option, key)


def test_planner_defaults_say_so_instead_of_a_date():
    """A figure no public source gives shows "planner default" where a sourced one shows its
    date; the catalogue row's as_of is only the day the default was set."""
    import re

    from pricing.catalogue.rows import PLANNER_DEFAULT_SOURCE

    c = engine.compare(scenario(), decision=False)
    defaults = [a for a in c.assumptions if a.source == PLANNER_DEFAULT_SOURCE]
    assert defaults, "the catalogue has planner defaults"
    assert all(a.as_of == "planner default" for a in defaults)
    sourced = [a for a in c.assumptions if a.source.startswith("http")]
    assert sourced and all(re.fullmatch(r"\d{4}-\d{2}-\d{2}", a.as_of) for a in sourced)

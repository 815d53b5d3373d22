"""Issue 13's money lines of owning, on the made-up fixture catalogue (tests/fixtures/catalogue):
what is paid before the cluster is ready (the space from its hand-over, the team from its hiring
lead, the deposit with the order), insurance and sales and property tax, and the resale of GPUs,
hosts and fabric at their own rates less a whole-cluster haircut; and how tax treats each."""

from __future__ import annotations

import numpy as np
import pytest

from models.units import DAYS_PER_MONTH
from pricing import engine
from pricing import timeline as tl
from pricing.inputs import build_inputs
from pricing.tax import after_tax_flows
from tests.builders import UTILISED, scenario

#: 256 H100s used 70 % of the time over 36 months (tests/builders.py UTILISED), paid in cash,
#: building and managed-owned against renting
OWNED = UTILISED | {
    "term": {"months": 36, "financing": "cash"},
    "options": {"compare": ["build", "managed:owned", "rent"]},
}


def flows_of(cat, option="build", financing="cash", **overrides):
    inp = build_inputs(scenario(OWNED, term__financing=financing, overrides=overrides), cat)
    P = engine.base_params(inp)
    flows, ctx = engine.evaluate(inp, P, [option])[option]
    return inp, {k: np.broadcast_to(v, (1, inp.months))[0] for k, v in flows.items()}, ctx


def month_of(day: float) -> int:
    return int(day // DAYS_PER_MONTH)


def test_the_months_before_the_cluster_is_ready_are_paid_for(fixture_catalogue):
    """The space is paid from the facility phase's end, the team from its hiring lead, the
    deposit with the order; the cluster itself is accepted months later."""
    inp, f, ctx = flows_of(fixture_catalogue)
    site = inp.site
    phases = {
        p.name: p for p in tl.provisioning_timeline("build", site).phases
    }  # the timeline's own phases
    ready = month_of(float(ctx.ready_day[0, 0]))
    space = month_of(phases["facility"].end_day)
    delivered = month_of(phases["delivery"].end_day)
    lead = inp.value("ops_hiring_lead_months")
    hired = month_of(float(ctx.ready_day[0, 0]) - lead * DAYS_PER_MONTH)
    assert space < ready and hired < ready and delivered < ready
    # nothing of a line before its start, something in every month from it
    for line, start in (("colocation", space), ("staff", hired), ("insurance", delivered)):
        assert not f[line][:start].any(), line
        assert (f[line][start:] > 0).all(), line
    # full months before acceptance pay the full monthly rate
    kw = inp.it_power_kw
    assert f["colocation"][ready - 1] == pytest.approx(
        kw * inp.value("colocation_usd_per_kw_month")
    )
    # the deposit with the order (month 0) is the deposit share of the equipment
    assert f["hardware"][0] > 0 and not f["hardware"][1:ready].any()
    without = flows_of(fixture_catalogue, hardware_deposit_pct=0.0)[1]
    assert without["hardware"][0] == 0
    assert f["hardware"].sum() == pytest.approx(without["hardware"].sum())  # paid once, earlier
    # power, support and property tax run from acceptance
    for line in ("power", "support", "property tax"):
        assert not f[line][:ready].any(), line


def test_a_managed_owned_cluster_has_no_team_to_hire_and_a_lease_no_deposit(fixture_catalogue):
    inp, managed, ctx = flows_of(fixture_catalogue, option="managed:owned")
    ready = month_of(float(ctx.ready_day[0, 0]))
    assert "staff" not in managed and not managed["managed service"][:ready].any()
    _, lease, ctx = flows_of(fixture_catalogue, financing="lease")
    ready = month_of(float(ctx.ready_day[0, 0]))
    assert "hardware" not in lease and not lease["lease"][:ready].any()
    _, lease0, _ = flows_of(fixture_catalogue, financing="lease", hardware_deposit_pct=0.0)
    assert lease["lease"] == pytest.approx(lease0["lease"])  # the lessor pays the order
    # the lessor is paid for the sales tax it pays on the purchase
    _, untaxed, _ = flows_of(fixture_catalogue, financing="lease", sales_tax_pct=0.0)
    assert lease["lease"].sum() > untaxed["lease"].sum()


def test_sales_tax_is_paid_with_the_hardware_and_financed_the_same_way(fixture_catalogue):
    inp, cash, ctx = flows_of(fixture_catalogue)
    ready = month_of(float(ctx.ready_day[0, 0]))
    rate = inp.value("sales_tax_pct") / 100
    _, none, _ = flows_of(fixture_catalogue, sales_tax_pct=0.0)
    equipment = none["hardware"].sum() - inp.nodes * inp.value("installation_usd_per_node")
    assert cash["sales tax"].sum() == pytest.approx(rate * equipment)
    assert cash["sales tax"][ready] == pytest.approx(rate * equipment)  # with the balance
    assert "sales tax" in none and not none["sales tax"].any()
    # on a loan, the tax is repaid with the principal and pays interest of its own
    _, loan, _ = flows_of(fixture_catalogue, financing="loan")
    _, loan0, _ = flows_of(fixture_catalogue, financing="loan", sales_tax_pct=0.0)
    assert not loan["sales tax"][: ready + 1].any() and loan["sales tax"].sum() == pytest.approx(
        rate * equipment
    )
    assert loan["financing"].sum() > loan0["financing"].sum()


def test_insurance_is_on_the_equipment_and_property_tax_on_its_falling_book_value(
    fixture_catalogue,
):
    inp, f, ctx = flows_of(fixture_catalogue)
    ready = month_of(float(ctx.ready_day[0, 0]))
    _, none, _ = flows_of(fixture_catalogue, sales_tax_pct=0.0)
    equipment = none["hardware"].sum() - inp.nodes * inp.value("installation_usd_per_node")
    monthly = inp.value("insurance_pct_per_year") / 100 / 12 * equipment
    assert f["insurance"][ready + 1 :] == pytest.approx(np.full(inp.months - ready - 1, monthly))
    # book value falls by 1/(12 × depreciation years) of the cost a month after acceptance
    tax = f["property tax"][ready + 1 :]
    step = inp.value("property_tax_pct_per_year") / 100 / 12 * equipment
    step /= 12 * inp.value("depreciation_years")
    assert np.diff(tax) == pytest.approx(np.full(tax.size - 1, -step))


def test_resale_prices_gpus_hosts_and_fabric_apart_less_the_haircut(fixture_catalogue):
    c = fixture_catalogue
    base = flows_of(c)[1]["residual value"].sum()
    # the haircut scales the whole sale
    uncut = flows_of(c, resale_bulk_haircut_pct=0.0)[1]["residual value"].sum()
    haircut = build_inputs(scenario(OWNED), c).value("resale_bulk_haircut_pct") / 100
    assert base == pytest.approx(uncut * (1 - haircut))
    # host and fabric lose value at their own rates: keeping all their value raises the resale
    for key in ("host_value_decline_pct_per_year", "fabric_value_decline_pct_per_year"):
        assert flows_of(c, **{key: 0.0})[1]["residual value"].sum() < base, key
    # a server that is all GPU resells at the GPU curve alone
    gpu_only = flows_of(
        c,
        gpu_share_of_server_cost_pct=100.0,
        fabric_value_decline_pct_per_year=100.0,
        resale_bulk_haircut_pct=0.0,
    )
    inp = gpu_only[0]
    servers = (
        inp.gpus * inp.value("server_usd_per_gpu") * (1 + inp.value("spares_pct_of_nodes") / 100)
    )
    assert -gpu_only[1]["residual value"].sum() == pytest.approx(
        inp.value("residual_value_pct") / 100 * servers
    )


def test_resale_follows_the_hardware_age_at_term_end(fixture_catalogue):
    """A longer term leaves older hardware: every part resells for less."""
    resale = {}
    for months in (24, 36, 48):
        sc = scenario(OWNED).model_copy(
            update={"term": scenario(OWNED).term.model_copy(update={"months": months})}
        )
        inp = build_inputs(sc, fixture_catalogue)
        P = engine.base_params(inp)
        flows, _ = engine.evaluate(inp, P, ["build"])["build"]
        resale[months] = -float(flows["residual value"].sum())
        assert inp.resale_age_years == pytest.approx(
            (months * DAYS_PER_MONTH - tl.ready_day("build", inp.site)) / 365.25
        )
    assert resale[24] > resale[36] > resale[48] > 0


def test_tax_capitalises_the_sales_tax_and_expenses_insurance_and_property_tax():
    # 1,000 of hardware and 100 of sales tax in month 0, 1-year life: 1,100 / 12 a month deducted;
    # insurance and property tax deducted as paid
    months, t = 24, 0.25
    flows = {
        "hardware": np.zeros((1, months)),
        "sales tax": np.zeros((1, months)),
        "insurance": np.full((1, months), 4.0),
        "property tax": np.full((1, months), 6.0),
    }
    flows["hardware"][0, 0], flows["sales tax"][0, 0] = 1000.0, 100.0
    got = after_tax_flows(flows, np.array([[0]]), months, np.array([[25.0]]), np.array([[1.0]]))
    got = got[0]
    assert got[0] == pytest.approx(1100 + 10 * (1 - t) - t * 1100 / 12)
    assert got[1:12] == pytest.approx(np.full(11, 10 * (1 - t) - t * 1100 / 12))
    assert got[12:] == pytest.approx(np.full(12, 10 * (1 - t)))

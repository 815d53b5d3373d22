"""After-tax flows (pricing/tax.py) against hand-computed values."""

from __future__ import annotations

import numpy as np
import pytest

from pricing.tax import after_tax_flows


def row(values, months):
    out = np.zeros((1, months))
    for m, v in values.items():
        out[0, m] = v
    return out


def test_an_expense_costs_one_minus_the_tax_rate():
    flows = {"rent": np.full((1, 12), 100.0), "power": np.full((1, 12), 20.0)}
    got = after_tax_flows(flows, np.array([[0]]), 12, np.array([[25.0]]), np.array([[5.0]]))
    assert got[0] == pytest.approx(np.full(12, 90.0))  # (100 + 20) × (1 − 0.25)


def test_a_purchase_is_recovered_by_depreciation_and_the_sale_is_taxed_on_its_gain():
    # 1,200 paid in month 0, depreciated over 1 year (100 a month); sold for 300 at the end of a
    # 24-month term, when its book value is 0: a 300 gain taxed at 25 %
    flows = {"hardware": row({0: 1200.0}, 24), "residual value": row({23: -300.0}, 24)}
    got = after_tax_flows(flows, np.array([[0]]), 24, np.array([[25.0]]), np.array([[1.0]]))[0]
    assert got[0] == pytest.approx(1200 - 25)
    assert got[1:12] == pytest.approx(np.full(11, -25.0))
    assert got[12:23] == pytest.approx(np.zeros(11))
    assert got[23] == pytest.approx(-300 + 75)
    # pre-tax 900, shield 300 (1,200 × 25 %), tax on the gain 75
    assert got.sum() == pytest.approx(900 - 300 + 75)


def test_a_sale_below_book_value_is_a_deduction():
    # 1,200 in month 2, 10-year life: 10 a month for 10 months of a 12-month term, book 1,100 at
    # the end; sold for 600: a 500 loss deducted at 20 %
    flows = {"hardware": row({2: 1200.0}, 12), "residual value": row({11: -600.0}, 12)}
    got = after_tax_flows(flows, np.array([[2]]), 12, np.array([[20.0]]), np.array([[10.0]]))[0]
    assert got[:2] == pytest.approx([0.0, 0.0])
    assert got[2] == pytest.approx(1200 - 2)
    assert got[11] == pytest.approx(-600 - 2 - 0.2 * 500)


def test_a_lease_is_deducted_as_paid_and_nothing_is_depreciated():
    flows = {"lease": np.full((1, 6), 50.0), "power": np.full((1, 6), 10.0)}
    got = after_tax_flows(flows, np.array([[0]]), 6, np.array([[21.0]]), np.array([[5.0]]))
    assert got[0] == pytest.approx(np.full(6, 60 * 0.79))


def test_zero_tax_changes_nothing():
    rng = np.random.default_rng(1)
    flows = {
        "hardware": row({1: 1000.0}, 10),
        "staff": rng.uniform(0, 50, (1, 10)),
        "residual value": row({9: -200.0}, 10),
    }
    got = after_tax_flows(flows, np.array([[1]]), 10, np.array([[0.0]]), np.array([[3.0]]))
    assert got == pytest.approx(sum(flows.values()))


def test_the_engines_after_tax_npv_is_the_tax_model_on_its_own_flows():
    """compare() applies pricing/tax.py to each option's monthly flows by category, discounted
    like the pre-tax NPV; a loan's interest is deducted, its principal is not."""
    from models.scenario import Scenario
    from models.units import DAYS_PER_MONTH
    from pricing.engine import compare

    sc = Scenario.model_validate(
        {
            "workload": {"model": "llama3-8b", "tokens": 2e11},
            "cluster": {"gpu": "H100-SXM", "gpus": 64},
            "term": {"months": 36, "financing": "loan"},
            "options": {"compare": ["build", "rent", "cloud:on_demand"]},
        }
    )
    c = compare(sc, decision=False)
    figures = {a.key: a.value for a in c.assumptions}
    r = figures["discount_rate_pct_per_year"] / 100
    discount = (1 + r) ** (-(np.arange(36) + 1) / 12)
    for o in c.options:
        flows = {k: np.array([v]) for k, v in o.monthly_by_category_usd.items()}
        ready_month = np.array([[int(o.ready_day // DAYS_PER_MONTH)]])
        monthly = after_tax_flows(
            flows,
            ready_month,
            36,
            np.array([[figures["tax_rate_pct"]]]),
            np.array([[figures["depreciation_years"]]]),
        )[0]
        assert o.npv_after_tax_usd == pytest.approx((monthly * discount).sum()), o.option
        assert o.total_after_tax_usd == pytest.approx(monthly.sum()), o.option
    # an option that buys nothing saves exactly the tax rate on every dollar
    rent = c.option("rent")
    assert rent.total_after_tax_usd == pytest.approx(
        rent.total_usd * (1 - figures["tax_rate_pct"] / 100)
    )


def test_each_purchase_is_depreciated_from_its_own_acceptance_and_taxed_at_its_own_sale():
    """Two purchases of 1,200 over a 1-year life: one accepted in month 0 and sold in month 5 for
    600 (book 600: no gain), one accepted in month 12 and sold at the end for 0. As one asset from
    month 0 the second was depreciated from month 0, and the first's sale taxed at the end."""
    months = 24
    first = {"hardware": row({0: 1200.0}, months), "residual value": row({5: -600.0}, months)}
    second = {"hardware": row({12: 1200.0}, months)}
    flows = {
        "hardware": first["hardware"] + second["hardware"],
        "residual value": first["residual value"],
        "staff": np.full((1, months), 10.0),
    }
    assets = [
        (first, np.array([[0]]), np.array([[5]])),
        (second, np.array([[12]]), np.array([[months - 1]])),
    ]
    t, life = np.array([[25.0]]), np.array([[1.0]])
    got = after_tax_flows(flows, np.array([[0]]), months, t, life, assets)[0]
    shield = 0.25 * 100  # 1,200 / 12 a month, at 25 %
    want = np.full(months, 10 * 0.75)
    want[0] += 1200
    want[0:6] -= shield  # the first: months 0-5, then sold at its book value (600)
    want[5] -= 600
    want[12] += 1200
    want[12:24] -= shield  # the second: months 12-23, from its own acceptance
    assert got == pytest.approx(want)
    single = after_tax_flows(flows, np.array([[0]]), months, t, life)[0]  # the old reading
    assert single[1] == pytest.approx(7.5 - 50)  # 2,400 depreciated from month 0
    assert single.sum() == pytest.approx(got.sum())  # the same tax, paid at other times


def test_an_expansion_is_depreciated_from_its_own_acceptance_in_the_engine():
    """Build with 1,024 GPUs more ordered in month 24 of 36: the engine's after-tax NPV is the tax
    model on each part's capital flows, the phase from its own acceptance month."""
    from models.scenario import Scenario
    from pricing import cashflows as cf
    from pricing.catalogue.loader import load_catalogue
    from pricing.engine import base_params, compare
    from pricing.planning.option_context import context, option_params
    from pricing.planning.planner import plan_portfolio

    sc = Scenario.model_validate(
        {
            "version": 2,
            "term": {"months": 36},
            "options": {"compare": ["build"], "build_expansions": [{"gpus": 1024, "month": 24}]},
            "workloads": [
                {"name": "s", "kind": "steady", "gpus": 1024, "utilisation_pct": 80,
                 "start_month": 0, "duration_months": 36}
            ],
        }
    )  # fmt: skip
    c = compare(sc, decision=False)
    build = c.option("build")
    inp, _ = plan_portfolio(sc, load_catalogue())
    P = option_params(inp, base_params(inp), "build")
    ctx = context(inp, P, "build")
    (_, _, _, base_ctx), (_, _, _, phase_ctx) = ctx.parts
    assert int(phase_ctx.ready_month[0, 0]) > int(base_ctx.ready_month[0, 0]) + 20
    flows = {k: np.array([v]) for k, v in build.monthly_by_category_usd.items()}
    assets = [
        (cf.BILLING_FLOWS[s.billing](s, i, p, x), x.ready_month, x.sold_month)
        for s, i, p, x in ctx.parts
    ]
    capital = sum(a[0]["hardware"] for a in assets)
    assert capital == pytest.approx(flows["hardware"])  # the parts' purchases are the option's
    figures = {a.key: a.value for a in c.assumptions}
    args = (36, np.array([[figures["tax_rate_pct"]]]), np.array([[figures["depreciation_years"]]]))
    r = figures["discount_rate_pct_per_year"] / 100
    discount = (1 + r) ** (-(np.arange(36) + 1) / 12)
    own = after_tax_flows(flows, base_ctx.ready_month, *args, assets)[0]
    one = after_tax_flows(flows, base_ctx.ready_month, *args)[0]
    assert build.npv_after_tax_usd == pytest.approx((own * discount).sum(), rel=1e-9)
    assert (own * discount).sum() > (one * discount).sum() + 1e5  # depreciation came too early

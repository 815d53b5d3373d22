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

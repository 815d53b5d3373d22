"""Cash-flow formulas against numbers worked out by hand, one formula per test.

Each expected value is computed here from first principles (the formula is in the comment beside
it), never by calling the code under test. The flows are driven through `pricing.cashflows` with a
hand-set ready day and run length, on the made-up fixture catalogue (tests/fixtures/catalogue) with
overrides that make the capital cost a round number: 8 H100 at 12,500 USD each = 100,000 USD, with
spares, fabric, storage, networks, management servers, racks, cooling and installation set to 0.

Units: a month is 365.25 / 12 = 30.4375 days and 730.5 hours.
"""

from __future__ import annotations

import numpy as np
import pytest

from models.scenario import Scenario
from pricing import cashflows as cf
from pricing import engine
from pricing.inputs import build_inputs

MONTH_DAYS = 365.25 / 12  # 30.4375
MONTH_HOURS = 365.25 * 24 / 12  # 730.5
GPUS = 8
CAPEX = GPUS * 12_500.0  # 100,000 USD
#: capital cost = servers only: every other hardware line priced at 0
ROUND_CAPEX = {
    "server_usd_per_gpu": 12_500.0,
    "spares_pct_of_nodes": 0.0,
    "ib_switch_64port_ndr_usd_per_switch": 0.0,
    "optic_400g_usd_per_transceiver": 0.0,
    "storage_buy_usd_per_tb": 0.0,
    "installation_usd_per_node": 0.0,
    "frontend_network_usd_per_node": 0.0,
    "oob_network_usd_per_node": 0.0,
    "cpu_server_usd_per_server": 0.0,
    "rack_cabinet_usd_per_rack": 0.0,
    "rack_pdu_usd_per_rack": 0.0,
    "liquid_cooling_usd_per_kw": 0.0,
}
#: the financing formulas alone: no deposit with the order, no sales tax financed beside the
#: hardware, and the whole server resold at the GPU resale curve with no whole-cluster haircut
#: (tests/test_cashflows_owning.py checks those lines)
PLAIN_FINANCING = {
    "hardware_deposit_pct": 0.0,
    "sales_tax_pct": 0.0,
    "gpu_share_of_server_cost_pct": 100.0,
    "resale_bulk_haircut_pct": 0.0,
}


def setup(
    cat,
    *,
    months=24,
    financing="cash",
    loan_years=3,
    usage=None,
    overrides=None,
    commitment="whole_term",
):
    """(inputs, base parameters) for 8 H100 on the fixture catalogue."""
    sc = Scenario.model_validate(
        {
            "workload": {"model": "llama3-8b", "tokens": 1e10, "seq_len": 4096},
            "cluster": {"gpu": "H100-SXM", "gpus": GPUS},
            "usage": usage or {"mode": "runs", "runs": 1},
            "term": {"months": months, "financing": financing, "loan_years": loan_years},
            "options": {"rent_commitment": commitment},
            "overrides": {**ROUND_CAPEX, **PLAIN_FINANCING, **(overrides or {})},
        }
    )
    inp = build_inputs(sc, cat)
    assert inp.gpus == GPUS
    return inp, engine.base_params(inp)


def context(inp, P, *, ready_day=0.0, train_days=10.0, hold="term"):
    return cf.make_context(inp, P, np.array([[ready_day]]), np.array([[train_days]]), hold=hold)


def flows_of(option, inp, P, ctx):
    """The option's cash flows, through the engine's table of cash-flow functions."""
    return cf.OPTION_FLOWS[option](inp, P, ctx)


def row(flows, category) -> np.ndarray:
    return np.broadcast_to(flows[category], (1, flows[category].shape[-1]))[0]


def test_the_round_capital_cost_is_the_servers_alone(fixture_catalogue):
    inp, P = setup(fixture_catalogue)
    assert sum(v[0, 0] for v in cf.hardware_capex(inp, P).values()) == pytest.approx(CAPEX)


# --- loan: an annuity from the month after acceptance; the balance settled at term end ----------


def test_loan_payment_and_the_split_of_the_first_and_last_month(fixture_catalogue):
    # 12 %/year = 1 % a month (i), 1-year loan (n = 12), ready on day 0, 24-month term
    inp, P = setup(fixture_catalogue, financing="loan", loan_years=1)
    flows = flows_of("build", inp, P, context(inp, P))
    principal, interest = row(flows, "hardware"), row(flows, "financing")
    i, n = 0.01, 12
    payment = CAPEX * i / (1 - (1 + i) ** -n)  # A = C·i / (1 − (1+i)^−n) = 8,884.88
    assert payment == pytest.approx(8_884.88, abs=0.01)
    assert principal[0] == 0 and interest[0] == 0  # acceptance month: nothing due yet
    # month 1: interest on the whole 100,000, the rest of the payment repays principal
    assert interest[1] == pytest.approx(CAPEX * i)  # 1,000
    assert principal[1] == pytest.approx(payment - CAPEX * i)
    # month 12, the last payment: the balance before it is A / (1 + i) (one payment left)
    before_last = payment / (1 + i)
    assert interest[12] == pytest.approx(before_last * i)
    assert principal[12] == pytest.approx(before_last)
    assert principal[1:13] + interest[1:13] == pytest.approx(np.full(12, payment))
    # the loan is repaid within the term: nothing is left to settle
    assert principal[13:] == pytest.approx(np.zeros(11), abs=1e-6)
    assert interest[13:] == pytest.approx(np.zeros(11), abs=1e-6)
    assert principal.sum() == pytest.approx(CAPEX)
    assert interest.sum() == pytest.approx(n * payment - CAPEX)


def test_a_loan_longer_than_the_term_is_settled_at_term_end(fixture_catalogue):
    # 5-year loan (n = 60) in a 24-month term: payments in months 1-23, then the balance is paid off
    inp, P = setup(fixture_catalogue, financing="loan", loan_years=5)
    flows = flows_of("build", inp, P, context(inp, P))
    principal, interest = row(flows, "hardware"), row(flows, "financing")
    i, n = 0.01, 60
    payment = CAPEX * i / (1 - (1 + i) ** -n)  # 2,224.44
    assert payment == pytest.approx(2_224.44, abs=0.01)
    # balance after k payments = the present value of the n − k payments still due
    left_after_23 = payment * (1 - (1 + i) ** -(n - 23)) / i
    before_23 = payment * (1 - (1 + i) ** -(n - 22)) / i
    assert interest[1] == pytest.approx(1_000.0)
    assert interest[23] == pytest.approx(before_23 * i)
    assert principal[23] == pytest.approx(payment - before_23 * i + left_after_23)
    assert principal.sum() == pytest.approx(CAPEX)  # every dollar borrowed is repaid in the term
    assert interest.sum() == pytest.approx(23 * payment - (CAPEX - left_after_23))


def test_a_zero_rate_loan_repays_capex_over_n_in_equal_instalments(fixture_catalogue):
    # the limit of the annuity as i → 0: C / n a month, no interest
    inp, P = setup(
        fixture_catalogue, financing="loan", loan_years=1, overrides={"loan_rate_pct_per_year": 0}
    )
    flows = flows_of("build", inp, P, context(inp, P))
    want = np.zeros(24)
    want[1:13] = CAPEX / 12
    assert row(flows, "hardware") == pytest.approx(want, abs=1e-6)
    assert row(flows, "financing") == pytest.approx(np.zeros(24), abs=1e-9)


# --- lease: level payments over the held months; the residual stays with the lessor -------------


def test_lease_payment_leaves_the_residual_with_the_lessor(fixture_catalogue):
    # 24 %/year = 2 % a month; 24 payments from the acceptance month; the hardware is worth 40 % at
    # term end, which the lessor keeps: L = (C − R·(1+i)^−n) · i / (1 − (1+i)^−n)
    inp, P = setup(fixture_catalogue, financing="lease", overrides={"residual_value_pct": 40.0})
    flows = flows_of("build", inp, P, context(inp, P))
    i, n, residual = 0.02, 24, 0.40 * CAPEX
    lease = (CAPEX - residual * (1 + i) ** -n) * i / (1 - (1 + i) ** -n)
    assert lease == pytest.approx(3_972.27, abs=0.01)
    assert row(flows, "lease") == pytest.approx(np.full(n, lease))
    # the lessee neither buys the hardware nor is credited its resale value
    assert not {"hardware", "residual value", "financing"} & set(flows)
    # at the lease rate, the payments plus the residual the lessor keeps are worth the capex
    pv = sum(lease * (1 + i) ** -t for t in range(1, n + 1)) + residual * (1 + i) ** -n
    assert pv == pytest.approx(CAPEX)


def test_a_zero_rate_lease_pays_capex_less_residual_over_n(fixture_catalogue):
    # ready in month 2 (day 76): 22 payments in months 2-23 of (C − R) / n = 60,000 / 22
    inp, P = setup(
        fixture_catalogue,
        financing="lease",
        overrides={"residual_value_pct": 40.0, "lease_rate_pct_per_year": 0},
    )
    flows = flows_of("build", inp, P, context(inp, P, ready_day=2.5 * MONTH_DAYS))
    want = np.zeros(24)
    want[2:] = (CAPEX - 0.40 * CAPEX) / 22
    assert row(flows, "lease") == pytest.approx(want)


# --- committed cloud: whole 1- or 3-year blocks, take-or-pay beyond the term ---------------------

COMMITTED = {
    "cloud_committed_1y_usd_per_gpu_hour": 5.0,
    "cloud_committed_3y_usd_per_gpu_hour": 4.0,
}


def committed(cat, years, train_days, ready_day=0.0):
    inp, P = setup(cat, overrides=COMMITTED)  # one run, 24-month term (730.5 days)
    ctx = context(inp, P, ready_day=ready_day, train_days=train_days, hold="busy")
    return row(flows_of(f"cloud:committed_{years}y", inp, P, ctx), "compute")


def test_a_run_ending_mid_way_through_a_1_year_block_pays_the_whole_block(fixture_catalogue):
    compute = committed(fixture_catalogue, 1, train_days=100)
    month = GPUS * MONTH_HOURS * 5.0  # 8 GPUs × 730.5 h × 5 USD = 29,220 a month
    assert compute[:12] == pytest.approx(np.full(12, month))  # 12 months, not 100 days
    assert compute[12:] == pytest.approx(np.zeros(12))
    # a run of 400 days needs a second block: the whole 24-month term is paid, nothing beyond
    assert committed(fixture_catalogue, 1, train_days=400) == pytest.approx(np.full(24, month))


def test_a_block_starting_mid_month_is_paid_pro_rata_at_both_ends(fixture_catalogue):
    start = 15.0  # day 15: month 0 holds 30.4375 − 15 days of the block, month 12 the other 15
    compute = committed(fixture_catalogue, 1, train_days=100, ready_day=start)
    month = GPUS * MONTH_HOURS * 5.0
    assert compute[0] == pytest.approx(month * (MONTH_DAYS - start) / MONTH_DAYS)
    assert compute[12] == pytest.approx(month * start / MONTH_DAYS)
    assert compute.sum() == pytest.approx(12 * month)


def test_a_3_year_block_in_a_2_year_term_pays_the_third_year_at_term_end(fixture_catalogue):
    compute = committed(fixture_catalogue, 3, train_days=100)
    month = GPUS * MONTH_HOURS * 4.0  # 23,376 a month
    assert compute[:23] == pytest.approx(np.full(23, month))
    assert compute[23] == pytest.approx(month)  # its own month; the 12 beyond the term are ...
    inp, P = setup(fixture_catalogue, overrides=COMMITTED)
    ctx = context(inp, P, ready_day=0.0, train_days=100, hold="busy")
    past = row(flows_of("cloud:committed_3y", inp, P, ctx), "past the term")
    assert past[23] == pytest.approx(12 * month) and past[:23].sum() == 0  # ... their own line
    assert compute.sum() + past.sum() == pytest.approx(36 * month)


# --- dedicated rent: take-or-pay to the minimum term ----------------------------------------------


def test_a_short_rental_pays_up_to_the_minimum_term(fixture_catalogue):
    # 12-month term, ready after 3 months (day 91.3125): 9 months held, 18-month minimum, 2 USD/h
    overrides = {"rent_usd_per_gpu_hour": 2.0, "rent_min_term_months": 18}
    inp, P = setup(fixture_catalogue, months=12, overrides=overrides)
    flows = flows_of("rent", inp, P, context(inp, P, ready_day=3 * MONTH_DAYS, hold="rental"))
    rent = row(flows, "rent")
    month = GPUS * MONTH_HOURS * 2.0  # 11,688 a month
    assert rent[:3] == pytest.approx(np.zeros(3))
    assert rent[3:11] == pytest.approx(np.full(8, month))
    assert rent[11] == pytest.approx(month)
    # the unheld 9 months past the term, at its end, as their own line
    assert row(flows, "past the term")[11] == pytest.approx((18 - 9) * month)
    assert rent.sum() + row(flows, "past the term").sum() == pytest.approx(18 * month)
    assert row(flows, "support").sum() == pytest.approx(0.10 * 18 * month)  # 10 % support tier
    # with no minimum, only the 9 held months are paid
    inp0, P0 = setup(
        fixture_catalogue, months=12, overrides={**overrides, "rent_min_term_months": 0}
    )
    held_only = flows_of(
        "rent", inp0, P0, context(inp0, P0, ready_day=3 * MONTH_DAYS, hold="rental")
    )
    assert row(held_only, "rent").sum() == pytest.approx(9 * month)


# --- managed service on hardware the buyer owns -------------------------------------------------


def test_managed_owned_is_the_build_without_staff_plus_the_yearly_fee(fixture_catalogue):
    # cash, 24 months, ready on day 0; one node installed for 20,000: capex 120,000
    inp, P = setup(fixture_catalogue, overrides={"installation_usd_per_node": 20_000})
    assert inp.nodes == 1
    ctx = context(inp, P)
    build, managed = flows_of("build", inp, P, ctx), flows_of("managed:owned", inp, P, ctx)
    assert set(managed) == set(build) - {"staff"} | {"managed service"}
    for category in set(build) - {"staff"}:
        assert row(managed, category) == pytest.approx(row(build, category)), category
    # fee 6 % of the whole capex a year = 120,000 × 0.06 / 12 = 600 a month, for 24 held months
    assert row(managed, "managed service") == pytest.approx(np.full(24, 600.0))
    # the build's staff: max(4-FTE minimum team, 5 FTE per 1,000 GPUs × 8) × 120,000 salary × 1.5
    # (salary plus benefits) / 12
    assert row(build, "staff") == pytest.approx(np.full(24, 4 * 120_000 * 1.5 / 12))


# --- spot: interruptions stretch each run ---------------------------------------------------------


def test_spot_runs_take_the_interruption_overhead_longer(fixture_catalogue):
    def spot_and_on_demand(overhead_pct):
        sc = Scenario.model_validate(
            {
                "workload": {"model": "llama3-8b", "tokens": 1e10, "seq_len": 4096},
                "cluster": {"gpu": "H100-SXM", "gpus": GPUS},
                "options": {"compare": ["cloud:on_demand", "cloud:spot"]},
                "overrides": {
                    "spot_interruption_overhead_pct": overhead_pct,
                    "cloud_spot_usd_per_gpu_hour": 2.0,
                },
            }
        )
        c = engine.compare(sc, fixture_catalogue, decision=False)
        return c.options[1], c.options[0]

    for overhead in (20.0, 50.0, 0.0):
        spot, od = spot_and_on_demand(overhead)
        # training days × (1 + overhead)
        assert spot.train_days == pytest.approx(od.train_days * (1 + overhead / 100))
        # one run, paid by the busy GPU-hour: 8 GPUs × 24 h × spot days × 2 USD
        assert spot.breakdown_usd["compute"] == pytest.approx(GPUS * 24 * spot.train_days * 2.0)


# --- discounting --------------------------------------------------------------------------------


def test_discount_factor_is_end_of_month_at_the_yearly_rate():
    P = {"discount_rate_pct_per_year": np.array([[12.0]])}
    factors = engine.discount_factors(P, 24)[0]
    # (1 + r)^−(m+1)/12: month 0 is discounted by one twelfth of a year, month 11 by a whole year
    assert factors[0] == pytest.approx(1.12 ** (-1 / 12))
    assert factors[11] == pytest.approx(1 / 1.12)
    assert factors[23] == pytest.approx(1 / 1.12**2)
    flows = {"x": np.zeros((1, 24))}
    flows["x"][0, 11] = flows["x"][0, 23] = 1_000.0
    nominal, npv = engine.totals(flows, P, 24)
    assert nominal[0] == pytest.approx(2_000.0)
    assert npv[0] == pytest.approx(1_000 / 1.12 + 1_000 / 1.12**2)
    zero = engine.discount_factors({"discount_rate_pct_per_year": np.array([[0.0]])}, 24)
    assert zero == pytest.approx(np.ones((1, 24)))


# --- rental commitments: held for as long as the work needs -----------------------------------


@pytest.mark.parametrize(
    ("commitment", "months_paid"),
    [("monthly", 2), ("1y", 12), ("3y", 36)],
)
def test_a_rental_is_paid_for_the_work_rounded_up_to_whole_commitments(
    fixture_catalogue, commitment, months_paid
):
    # 48-month term, ready on day 0, one run of 40 days: monthly rounds up to 2 months, a 1-year
    # commitment holds 12 months, a 3-year one 36; nothing beyond; 2 USD/h, no minimum term
    overrides = {"rent_usd_per_gpu_hour": 2.0, "rent_min_term_months": 0}
    inp, P = setup(fixture_catalogue, months=48, overrides=overrides, commitment=commitment)
    flows = flows_of("rent", inp, P, context(inp, P, train_days=40.0, hold="rental"))
    rent = row(flows, "rent")
    month = GPUS * MONTH_HOURS * 2.0
    assert rent[:months_paid] == pytest.approx(np.full(months_paid, month))
    assert rent[months_paid:] == pytest.approx(np.zeros(48 - months_paid))


def test_a_commitment_running_past_the_term_is_paid_at_its_end(fixture_catalogue):
    # 24-month term, a 3-year commitment from day 0 for a 40-day run: 24 months held, the other
    # 12 paid in the last month (take-or-pay)
    overrides = {"rent_usd_per_gpu_hour": 2.0, "rent_min_term_months": 0}
    inp, P = setup(fixture_catalogue, months=24, overrides=overrides, commitment="3y")
    flows = flows_of("rent", inp, P, context(inp, P, train_days=40.0, hold="rental"))
    rent, past = row(flows, "rent"), row(flows, "past the term")
    month = GPUS * MONTH_HOURS * 2.0
    assert rent[:23] == pytest.approx(np.full(23, month))
    assert rent[23] == pytest.approx(month)
    assert past[23] == pytest.approx(12 * month) and past[:23].sum() == 0  # their own line


def test_a_yearly_commitment_never_ends_before_the_minimum_term(fixture_catalogue):
    # an 18-month minimum makes a 1-year commitment for a 40-day run hold 18 months
    overrides = {"rent_usd_per_gpu_hour": 2.0, "rent_min_term_months": 18}
    inp, P = setup(fixture_catalogue, months=36, overrides=overrides, commitment="1y")
    rent = row(flows_of("rent", inp, P, context(inp, P, train_days=40.0, hold="rental")), "rent")
    assert rent.sum() == pytest.approx(18 * GPUS * MONTH_HOURS * 2.0)

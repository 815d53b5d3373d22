"""The after-tax depreciation rules (issue 30): straight-line or the US bonus depreciation of 2025
for owned hardware (Term.depreciation), a new facility over a building's 39 years, on every
surface that states them."""

from __future__ import annotations

from datetime import date

import numpy as np
import pytest

from app.formatting import depreciation_text
from app.report_text import after_tax_line
from models.scenario import Scenario
from pricing import tax
from pricing.engine import compare
from pricing.tax import after_tax_flows, bonus_pct


def _row(values: dict[int, float], months: int) -> np.ndarray:
    out = np.zeros((1, months))
    for m, v in values.items():
        out[0, m] = v
    return out


def _build(depreciation: str = "straight_line", facility: str = "colocation", **term) -> Scenario:
    return Scenario.model_validate(
        {
            "version": 2,
            "workloads": [
                {"kind": "steady", "name": "lab", "gpus": 64, "utilisation_pct": 90,
                 "duration_months": 36}
            ],
            "term": {"months": 36, "depreciation": depreciation, **term},
            "options": {"compare": ["build", "rent"], "facility": facility},
        }
    )  # fmt: skip


@pytest.mark.parametrize(
    ("acquired", "in_service", "expected"),
    [
        (date(2025, 1, 20), date(2025, 3, 1), 100.0),  # after the OBBBA's cut-off: 100 % for good
        (date(2026, 12, 2), date(2031, 6, 1), 100.0),
        (date(2025, 1, 19), date(2025, 3, 1), 40.0),  # on the cut-off: the TCJA's phase-down
        (date(2024, 5, 1), date(2026, 2, 1), 20.0),
        (date(2024, 5, 1), date(2027, 2, 1), 0.0),
        (date(2023, 5, 1), date(2024, 2, 1), 60.0),
        (date(2022, 5, 1), date(2023, 2, 1), 80.0),
        (date(2021, 5, 1), date(2022, 2, 1), 100.0),
    ],
)
def test_bonus_rate_by_acquisition_and_service_date(acquired, in_service, expected):
    assert bonus_pct(acquired, in_service) == expected


def test_bonus_depreciation_deducts_the_whole_basis_in_the_month_of_acceptance():
    # 1,200 accepted in month 2, 5-year life; sold for 300 at the end of a 24-month term: under
    # bonus the whole 1,200 is deducted in month 2 at 25 % (300) and the sale is all gain (75 tax)
    flows = {"hardware": _row({2: 1200.0}, 24), "residual value": _row({23: -300.0}, 24)}
    args = (flows, np.array([[2]]), 24, np.array([[25.0]]), np.array([[5.0]]))
    got = after_tax_flows(*args, depreciation="bonus_2025")[0]
    assert got[2] == pytest.approx(1200 - 300)
    assert got[3:23] == pytest.approx(np.zeros(20))
    assert got[23] == pytest.approx(-300 + 75)
    # straight-line: 20 a month for 22 months (440 deducted, 110 saved), book 760 at the sale: a
    # 460 loss deducted (115 saved); both recover 300 - 75 of the same 900 net cost
    line = after_tax_flows(*args)[0]
    assert line[2] == pytest.approx(1200 - 5)
    assert line.sum() == pytest.approx(got.sum())


def test_a_new_facility_is_depreciated_over_39_years_and_takes_no_bonus():
    # 1,000 of hardware and a 468-unit facility accepted in month 0, 1-year hardware life: the
    # facility's 468 over 39 x 12 = 468 months is 1 a month, the hardware's 1,000 at once (bonus)
    flows = {"hardware": _row({0: 1468.0}, 12)}
    args = (flows, np.array([[0]]), 12, np.array([[50.0]]), np.array([[1.0]]))
    got = after_tax_flows(*args, depreciation="bonus_2025", facility_basis=468.0)[0]
    assert got[0] == pytest.approx(1468 - 0.5 * (1000 + 1))
    assert got[1:11] == pytest.approx(np.full(10, -0.5))
    # book 456 left on the facility at the sale (no resale): a loss deducted at 50 %
    assert got[11] == pytest.approx(-0.5 - 0.5 * 456)
    # a lease's facility is the lessor's: no capital flows, nothing depreciated
    lease = {"lease": np.full((1, 12), 100.0)}
    got = after_tax_flows(lease, np.array([[0]]), 12, np.array([[50.0]]), np.array([[1.0]]),
                          facility_basis=468.0)  # fmt: skip
    assert got[0] == pytest.approx(np.full(12, 50.0))


def test_a_facility_upgrade_is_recovered_as_the_building_and_written_off_at_the_sale():
    """The `facility upgrade` line (the buyer's site's power and cooling, pricing/site_power.py)
    is an improvement to the building: 39 years straight-line, no bonus, the rest written off in
    the month the hardware is sold; it was deducted as an expense in the month it was paid."""
    # 1,000 of hardware in month 0 (1-year life, bonus) and a 468 upgrade paid in month 0
    flows = {"hardware": _row({0: 1000.0}, 12), "facility upgrade": _row({0: 468.0}, 12)}
    args = (flows, np.array([[0]]), 12, np.array([[50.0]]), np.array([[1.0]]))
    got = after_tax_flows(*args, depreciation="bonus_2025")[0]
    assert got[0] == pytest.approx(1468 - 0.5 * (1000 + 1))  # 1 a month of the upgrade
    assert got[1:11] == pytest.approx(np.full(10, -0.5))
    assert got[11] == pytest.approx(-0.5 - 0.5 * 456)  # the book value left, written off
    # over the term the same tax is saved as expensing it, later: the NPV counts the difference
    assert got.sum() == pytest.approx(1468 * 0.5)


def test_the_default_keeps_straight_line_and_the_scenario_json():
    s = Scenario.model_validate({"version": 2, "workloads": _build().model_dump()["workloads"]})
    assert s.term.depreciation == "straight_line"
    assert "depreciation" not in s.model_dump_json()
    bonus = _build("bonus_2025")
    dumped = bonus.model_dump(mode="json")
    assert dumped["term"]["depreciation"] == "bonus_2025"
    assert Scenario.model_validate(dumped) == bonus


def test_bonus_depreciation_moves_the_owners_after_tax_npv_only(fixture_catalogue):
    """Bonus depreciation brings the hardware's deduction forward: Build's NPV after tax falls,
    its pre-tax figures and Rent's stay; under a lease it changes nothing."""
    line = compare(_build(), fixture_catalogue, decision=False)
    bonus = compare(_build("bonus_2025"), fixture_catalogue, decision=False)
    b0, b1 = line.option("build"), bonus.option("build")
    assert b1.npv_after_tax_usd < b0.npv_after_tax_usd - 1e4
    assert b1.npv_usd == b0.npv_usd and b1.total_usd == b0.total_usd
    assert b1.total_after_tax_usd == pytest.approx(b0.total_after_tax_usd, rel=1e-9)
    assert bonus.option("rent").npv_after_tax_usd == line.option("rent").npv_after_tax_usd
    leased = [
        compare(_build(d, financing="lease"), fixture_catalogue, decision=False)
        for d in tax.BONUS_PCT
    ]
    assert (
        leased[0].option("build").npv_after_tax_usd == leased[1].option("build").npv_after_tax_usd
    )


def test_an_owned_facility_is_depreciated_as_a_building(fixture_catalogue, monkeypatch):
    """The facility built with an owned cluster is recovered over 39 years, not the hardware's
    5: a facility depreciated as fast as the hardware would shield more tax within the term."""
    s = _build(facility="owned")
    as_building = compare(s, fixture_catalogue, decision=False).option("build").npv_after_tax_usd
    monkeypatch.setattr(tax, "BUILDING_LIFE_YEARS", 5.0)
    as_hardware = compare(s, fixture_catalogue, decision=False).option("build").npv_after_tax_usd
    assert as_building > as_hardware + 1e3


def test_reports_state_the_rule(fixture_catalogue):
    line = compare(_build(), fixture_catalogue, decision=False)
    assert "hardware depreciated over 5 years):" in after_tax_line(line)
    bonus = compare(_build("bonus_2025", facility="owned"), fixture_catalogue, decision=False)
    said = after_tax_line(bonus)
    assert "100 % in its first month (US bonus depreciation, 2025 law)" in said
    assert "the new facility over 39 years" in said
    assert depreciation_text(_build(facility="owned"), 5).endswith("new facility over 39 years")


def test_the_workload_page_chooses_the_rule_and_the_link_carries_it():
    from app import share_link, state
    from tests.builders import app

    at = app()
    box = at.selectbox(key="w_depreciation")
    assert box.value == "straight_line"
    box.set_value("bonus_2025").run()
    sc = Scenario.model_validate(at.session_state[state.KEY])
    assert sc.term.depreciation == "bonus_2025"
    assert share_link.decode(share_link.encode(sc)).term.depreciation == "bonus_2025"


def test_the_pdf_states_the_rule(fixture_catalogue):
    from app.report_pdf.comparison import ComparisonDocument
    from tests.builders import GENERATED

    c = compare(_build("bonus_2025"), fixture_catalogue, decision=False)
    doc = ComparisonDocument(c, title="t", link="", generated=GENERATED, catalogue="2026-11-29")
    rows = dict(doc.scenario_rows())
    assert "after tax: US bonus depreciation of 2025" in rows["Term"]
    assert "after tax" not in dict(
        ComparisonDocument(
            compare(_build(), fixture_catalogue, decision=False),
            title="t", link="", generated=GENERATED, catalogue="2026-11-29",
        ).scenario_rows()
    )["Term"]  # fmt: skip


def test_figures_without_a_current_source_are_ranged():
    """Electricity (EIA's 2023 average: no 2024 or 2025 US figure found) and the host and fabric
    resale declines (2002 dealer prices) are carried over their range (pricing/ranges.py)."""
    from pricing.ranges import RANGES

    assert RANGES["electricity_usd_per_kwh"] == (0.066, 0.098)
    assert RANGES["host_value_decline_pct_per_year"] == (37.0, 75.0)
    assert RANGES["fabric_value_decline_pct_per_year"] == (37.0, 75.0)

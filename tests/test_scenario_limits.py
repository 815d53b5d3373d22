"""Issue 27, scale while bounded: terms to 120 months (a facility's horizon) and portfolios to 200
workloads (a university's groups), with the resale curve carried to the longest term's age."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from models.portfolio.workloads import MAX_MONTHS
from models.scenario import MAX_WORKLOADS, REFRESH_MONTHS, Scenario
from pricing.catalogue.loader import load_catalogue
from pricing.engine import compare
from pricing.inputs import build_inputs


def test_the_longest_term_and_the_largest_portfolio_are_accepted_and_one_more_is_not():
    steady = {"kind": "steady", "gpus": 8, "duration_months": MAX_MONTHS}
    ok = {
        "version": 2,
        "workloads": [{**steady, "name": f"group{i}"} for i in range(MAX_WORKLOADS)],
        "term": {"months": MAX_MONTHS},
    }
    assert MAX_WORKLOADS == 200 and MAX_MONTHS == 120
    Scenario.model_validate(ok)
    with pytest.raises(ValidationError, match="200"):
        Scenario.model_validate(
            {**ok, "workloads": [*ok["workloads"], {**steady, "name": "one-more"}]}
        )
    with pytest.raises(ValidationError, match="120"):
        Scenario.model_validate({**ok, "term": {"months": MAX_MONTHS + 1}})


def test_the_resale_curve_reaches_the_longest_term_and_refreshes_up_to_it():
    cat = load_catalogue()
    assert cat.residual_last_age_years * 12 == REFRESH_MONTHS[1] == MAX_MONTHS
    ages = [cat.residual_value_pct(a) for a in range(1, 11)]
    assert all(b < a for a, b in zip(ages, ages[1:], strict=False))  # it keeps falling


def test_a_ten_year_build_is_resold_at_its_own_age_not_the_six_year_price():
    """Owned hardware at the end of a 120-month term is about 9.5 years old: its resale is the
    curve's value there (about 15 %), where the six-year clamp priced it at 32.8 %."""
    cat = load_catalogue()
    inp = build_inputs(Scenario(term={"months": 120}), cat)
    resale = inp.figures["residual_value_pct"]
    assert 9 < inp.resale_age_years < 10
    assert resale.value == pytest.approx(cat.residual_value_pct(inp.resale_age_years))
    assert resale.value < cat.residual_value_pct(6.0) - 10
    assert compare(Scenario(term={"months": 120}), cat).option("build").available

"""pricing/delivery.py: the one place that asks which kind of scenario is priced; the valuation,
the decision support and the price checks read the answer."""

from __future__ import annotations

import json

from app import scenario_files
from models.scenario import Scenario
from pricing import decision as ds
from pricing.catalogue.loader import load_catalogue
from pricing.delivery import PORTFOLIO, SINGLE_RUN, delivery_of
from pricing.inputs import build_inputs
from pricing.planning.planner import plan_portfolio
from tests.builders import scenario


def test_a_single_run_varies_the_usage_number_it_uses_and_a_portfolio_neither():
    cat = load_catalogue()
    runs = build_inputs(scenario(), cat)
    steady = build_inputs(scenario(usage={"mode": "utilisation", "utilisation_pct": 60}), cat)
    data = json.loads(scenario_files.PORTFOLIOS["lab"].read_text())
    portfolio, _ = plan_portfolio(Scenario.model_validate(data), cat)
    assert (delivery_of(runs), delivery_of(steady), delivery_of(portfolio)) == (
        SINGLE_RUN,
        SINGLE_RUN,
        PORTFOLIO,
    )
    options = list(runs.scenario.options.compare)
    assert "runs" in ds.relevant_inputs(runs, options)
    assert "utilisation_pct" not in ds.relevant_inputs(runs, options)
    assert "utilisation_pct" in ds.relevant_inputs(steady, options)
    assert "runs" not in ds.relevant_inputs(steady, options)
    # the capacity plans are made once, on the base figures: what they fix is not varied
    plans_fix = {"runs", "utilisation_pct", "lead_time_multiplier", "failure_rate_multiplier"}
    assert plans_fix == PORTFOLIO.FIXED
    varied = ds.relevant_inputs(portfolio, list(portfolio.scenario.options.compare))
    assert varied and not set(varied) & plans_fix
    # a single run varies the lead time and the failure rate: each draw re-times it
    assert {"lead_time_multiplier", "failure_rate_multiplier"} <= set(
        ds.relevant_inputs(runs, options)
    )


def test_a_portfolio_option_is_priced_on_its_own_plan():
    cat = load_catalogue()
    data = json.loads(scenario_files.PORTFOLIOS["enterprise"].read_text())
    inp, portfolio = plan_portfolio(Scenario.model_validate(data), cat)
    for option, plan in portfolio.plans.items():
        assert PORTFOLIO.option_inputs(inp, option) is plan.inputs
        assert SINGLE_RUN.option_inputs(inp, option) is inp

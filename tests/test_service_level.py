"""The service level of a portfolio (issue 30): `max_wait_days` per workload, sizing that honours
it, per option whether it is met, and a recommendation that ranks only options meeting it."""

from __future__ import annotations

import json

import pytest

from app.recommendation_text import recommendation_text
from app.scenario_files import PORTFOLIOS
from models.errors import InputError
from models.portfolio.service import ServiceLevel, WaitMiss
from models.portfolio.workloads import WORKLOAD_KINDS, parse_workloads
from models.scenario import Scenario
from pricing import decision as ds
from pricing.catalogue.loader import load_catalogue
from pricing.engine import compare
from pricing.planning.planner import plan_portfolio


def _university(**options) -> Scenario:
    data = json.loads(PORTFOLIOS["university"].read_text())
    data["options"] |= options
    return Scenario.model_validate(data)


def test_the_default_service_level_by_kind():
    """Serving answers traffic as it comes; fine-tuning and research wait a few days at most."""
    defaults = {k: WORKLOAD_KINDS[k](name="w").max_wait_days for k in WORKLOAD_KINDS}
    assert defaults == {"pretrain": 14.0, "finetune": 3.0, "serve": 0.0, "steady": 3.0}


@pytest.mark.parametrize("value", [-1, 1e9])
def test_a_negative_or_huge_service_level_is_refused_naming_the_field(value):
    with pytest.raises(InputError) as err:
        parse_workloads([{"kind": "steady", "name": "x", "max_wait_days": value}])
    assert "workloads[0].max_wait_days" in str(err.value)
    assert "allowed: at least 0 and at most 3650" in str(err.value)


def _rent_size(scenario: Scenario, wait: float) -> tuple[int, ServiceLevel]:
    data = scenario.model_dump(mode="json")
    for w in data["workloads"]:
        w["max_wait_days"] = 3650.0
    data["workloads"][0]["max_wait_days"] = wait
    data["options"]["compare"] = ["rent"]
    plan = plan_portfolio(Scenario.model_validate(data), load_catalogue())[1].plans["rent"]
    return plan.size_gpus, plan.service


def test_a_zero_wait_forces_a_larger_rent_than_without():
    """The university's research workload waits weeks on the work-done size; at 0 days the rent
    is raised until it waits no more (after go-live)."""
    scenario = _university()
    loose, loose_level = _rent_size(scenario, 3650.0)
    tight, tight_level = _rent_size(scenario, 0.0)
    assert loose_level.met and tight_level.met
    assert tight > loose


def _miss(label: str) -> ServiceLevel:
    return ServiceLevel(
        met=False,
        misses=[WaitMiss(name=f"{label}-work", wait_days=9.0, max_wait_days=3.0)],
        excess_days=6.0,
    )


@pytest.fixture(scope="module")
def university():
    scenario = _university(compare=["rent", "cloud:on_demand"])
    return scenario, compare(scenario, decision=False)


def test_the_recommendation_skips_an_option_that_misses(university):
    scenario, c = university
    inp = plan_portfolio(scenario, load_catalogue())[0]
    assert ds.recommend(inp, c.options).option == "rent"
    results = [
        o.model_copy(update={"service_level": _miss(o.label)}) if o.option == "rent" else o
        for o in c.options
    ]
    rec = ds.recommend(inp, results)
    assert rec.option == "cloud:on_demand"
    assert [r.option for r in rec.cheaper_but_slow] == ["rent"]
    assert "Rent dedicated is cheaper but keeps work waiting" in recommendation_text(rec)


def test_when_none_meets_it_the_answer_names_the_closest(university):
    scenario, c = university
    inp = plan_portfolio(scenario, load_catalogue())[0]
    results = []
    for o in c.options:
        level = _miss(o.label)
        if o.option == "cloud:on_demand":  # the closer one
            level = level.model_copy(update={"excess_days": 2.0})
        results.append(o.model_copy(update={"service_level": level}))
    rec = ds.recommend(inp, results)
    assert rec.meets_service_level is False
    assert rec.closest_service.option == "cloud:on_demand"
    text = recommendation_text(rec)
    assert text.startswith("No option keeps every workload within its service level")
    assert "Cloud on-demand comes closest" in text

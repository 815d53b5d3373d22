"""The comparison's charts are built once per (chart, scenario, theme, options) and shared
(app/views/chart_cache.py): the same key gives the same figure, and every input the figure reads
changes it, so a cached chart is always the one the builder would draw now."""

import copy
import json
import pathlib

import plotly.io as pio
import pytest

from app.scenario_files import EXAMPLE
from app.views import chart_cache
from models.scenario import Scenario
from models.training.plan import plan_training
from pricing.engine import compare

ENTERPRISE = (
    pathlib.Path(__file__).resolve().parents[1] / "app" / "data" / "portfolio_enterprise.json"
)


def _spec(fig) -> str:
    return pio.to_json(fig, validate=False)


def _fresh(name: str, sc: Scenario, dark: bool, **options) -> str:
    return _spec(chart_cache.BUILDERS[name](compare(sc), dark=dark, **options))


@pytest.fixture(scope="module")
def run() -> Scenario:
    return Scenario.model_validate(copy.deepcopy(EXAMPLE))


@pytest.fixture(scope="module")
def portfolio() -> Scenario:
    return Scenario.model_validate(json.loads(ENTERPRISE.read_text()))


def test_the_same_chart_is_built_once_and_is_the_builders(run):
    first = chart_cache.figure("cumulative_cost", run, False)
    again = chart_cache.figure(
        "cumulative_cost", Scenario.model_validate(copy.deepcopy(EXAMPLE)), False
    )
    assert again is first
    assert _spec(first) == _fresh("cumulative_cost", run, False)


def test_a_changed_input_changes_the_chart(run):
    longer = Scenario.model_validate(copy.deepcopy(EXAMPLE) | {"term": {"months": 48}})
    before = _spec(chart_cache.figure("cost_breakdown", run, False))
    after = _spec(chart_cache.figure("cost_breakdown", longer, False))
    assert after != before
    assert after == _fresh("cost_breakdown", longer, False)


def test_the_theme_is_part_of_the_key(run):
    light = _spec(chart_cache.figure("tornado", run, False))
    dark = _spec(chart_cache.figure("tornado", run, True))
    assert dark != light
    assert dark == _fresh("tornado", run, True)


def test_the_charts_options_are_part_of_the_key(portfolio):
    run_drawn = _spec(chart_cache.figure("provisioning_gantt", portfolio, False, first_run=True))
    no_run = _spec(chart_cache.figure("provisioning_gantt", portfolio, False, first_run=False))
    assert no_run != run_drawn
    assert no_run == _fresh("provisioning_gantt", portfolio, False, first_run=False)
    c = compare(portfolio)
    ids = [o.option for o in c.options if o.available][:2]
    specs = [_spec(chart_cache.figure("capacity_demand", portfolio, False, option=i)) for i in ids]
    assert specs[0] != specs[1]
    assert specs[1] == _fresh("capacity_demand", portfolio, False, option=ids[1])


def _plan(**cluster):
    data = copy.deepcopy(EXAMPLE)
    data["cluster"] = {**data.get("cluster", {}), **cluster}
    return plan_training(Scenario.model_validate(data), curve=False)


def _fresh_plan(plan, dark: bool) -> str:
    return _spec(
        chart_cache.PLAN_BUILDERS["training_memory"][0](plan.model_dump(mode="json"), dark)
    )


def test_the_memory_chart_is_built_once_per_plan_and_theme():
    plan = _plan()
    first = chart_cache.plan_figure("training_memory", plan, False)
    # the same plan searched again (its search time differs; the chart does not show it)
    again = _plan()
    assert again.search.seconds != plan.search.seconds or again == plan
    assert chart_cache.plan_figure("training_memory", again, False) is first
    assert _spec(first) == _fresh_plan(plan, False)
    dark = _spec(chart_cache.plan_figure("training_memory", plan, True))
    assert dark != _spec(first) and dark == _fresh_plan(plan, True)


def test_a_changed_plan_changes_the_memory_chart():
    small, large = _plan(gpus=256), _plan(gpus=1024)
    assert small.gpus != large.gpus
    specs = [_spec(chart_cache.plan_figure("training_memory", p, False)) for p in (small, large)]
    assert specs[0] != specs[1]
    assert specs[1] == _fresh_plan(large, False)

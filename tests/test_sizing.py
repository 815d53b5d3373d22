"""Deadline sizing says when more GPUs buy almost nothing (issue 17): the efficient size beside the
fastest, and the days saved per extra 1,000 GPUs, from the core (models/training/sizing.py
efficient_beside_chosen, TrainingPlan.efficient, TrainingSummary.efficient) to every page."""

from __future__ import annotations

import copy
import pathlib
import re

import pytest
from streamlit.testing.v1 import AppTest

from app import report_text
from app.formatting import days, gpus
from app.scenario_files import EXAMPLE
from models.scenario import Scenario
from models.training.plan import plan_training
from models.training.sizing import efficient_beside_chosen
from pricing.engine import compare

HARNESS = str(pathlib.Path(__file__).with_name("portal_harness.py"))
#: a 405B run whose deadline needs a count far past the efficient one (the issue's case: 16,384
#: GPUs finish in 95 days, the deadline's budget is a little less, and the next count is 2x)
DEADLINE = {
    **copy.deepcopy(EXAMPLE),
    "workload": {"model": "llama3-405b", "tokens": 15.6e12, "seq_len": 8192, "precision": "bf16"},
    # 200 days: at 150 the whole-run expectation (104 days at best, on 49,152 GPUs) plus the
    # options' provisioning cannot finish the run
    "cluster": {"gpu": "H100-SXM", "deadline_days": 200},
}


def test_efficient_beside_chosen_on_a_hand_curve():
    points = [(2048, 578.4), (4096, 309.7), (8192, 168.4), (16384, 94.7), (32768, 92.3)]
    effs = [1.0, 0.93, 0.86, 0.76, 0.39]
    found = efficient_beside_chosen(points, effs, 32768)
    assert found["gpus"] == 8192 and found["train_days"] == 168.4
    assert found["scaling_efficiency"] == 0.86 and found["chosen_scaling_efficiency"] == 0.39
    assert found["marginal_days_per_1000_gpus"] == pytest.approx((168.4 - 92.3) / 24576 * 1000)
    assert found["previous_gpus"] == 16384
    assert found["previous_marginal_days_per_1000_gpus"] == pytest.approx(2.4 / 16384 * 1000)
    # the chosen count efficient itself: no GPUs beyond it to price
    same = efficient_beside_chosen(points, effs, 8192)
    assert same["gpus"] == 8192 and same["marginal_days_per_1000_gpus"] is None
    assert efficient_beside_chosen(points, effs, 12288) is None  # not on the curve


@pytest.fixture(scope="module")
def deadline_comparison(fixture_catalogue):
    return compare(Scenario.model_validate(DEADLINE), fixture_catalogue)


def test_the_comparison_carries_the_efficient_size_of_its_own_curve(deadline_comparison):
    t = deadline_comparison.training
    e = t.efficient
    assert e is not None and e.gpus < t.gpus  # the precondition: the deadline went past it
    found = efficient_beside_chosen(
        [(p.gpus, p.train_days) for p in t.curve], [p.scaling_efficiency for p in t.curve], t.gpus
    )
    assert e.model_dump() == found
    point = next(p for p in t.curve if p.gpus == e.gpus)
    assert e.train_days == point.train_days and e.scaling_efficiency >= 0.8


def test_the_text_report_offers_the_efficient_size(deadline_comparison):
    t = deadline_comparison.training
    e = t.efficient
    out = report_text.comparison_report(deadline_comparison)
    line = next(x for x in out.splitlines() if x.startswith("Efficient size: "))
    assert line.startswith(f"Efficient size: {gpus(e.gpus)}, a run in {days(e.train_days)}")
    assert f"saves {days(e.marginal_days_per_1000_gpus)}" in line
    last_step = f"from {gpus(e.previous_gpus)} ({days(e.previous_train_days)}), saves "
    assert (last_step in line) == (e.previous_gpus != e.gpus)


def test_a_deadline_plan_has_the_efficient_size_without_a_curve():
    """The Workload page plans without the curve (speed); a deadline still gets the advice."""
    plan = plan_training(Scenario.model_validate(DEADLINE))
    assert plan.curve is None and plan.sizing == "deadline"
    assert plan.efficient is not None and plan.efficient.gpus < plan.gpus


@pytest.mark.parametrize("page", ["workload", "compare"])
def test_the_pages_show_the_efficient_size_beside_the_fastest(page):
    at = AppTest.from_file(HARNESS, default_timeout=120)
    at.session_state["scenario"] = copy.deepcopy(DEADLINE)
    at.session_state["_page"] = page
    at.run()
    assert not at.exception, at.exception
    info = [re.sub(r"\\(.)", r"\1", i.value) for i in at.info if "Efficient size" in i.value]
    assert len(info) == 1
    assert "each extra 1,000 GPUs beyond it saves" in info[0] and "the deadline needs" in info[0]

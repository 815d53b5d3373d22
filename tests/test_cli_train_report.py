"""`clusterplan train`'s text report writes its numbers by the shared rules (issue 17,
models/numbers.py): percentages with a space, durations by `days`, one run's length as
`run_length`, GPU counts by `gpus`, the deadline's budget and the efficient size beside it."""

from __future__ import annotations

import json
import re

import pytest

from app.cli import main
from app.formatting import (
    band,
    days,
    deadline_sizing,
    efficient_size_advice,
    gpus,
    pct,
    run_length,
    si,
)
from app.report_text import training_report
from models.scenario import Scenario
from models.training.plan import plan_training
from pricing.results import DeadlineAnswer

LLAMA8 = {"model": "llama3-8b", "tokens": 1e12}


@pytest.fixture(scope="module")
def plan():
    sc = Scenario.model_validate(
        {"workload": LLAMA8, "cluster": {"gpu": "H100-SXM", "gpus": 64}, "term": {"months": 12}}
    )
    return plan_training(sc, curve=True)


def _row(report: str, name: str) -> str:
    return next(line for line in report.splitlines() if line.startswith(name + " "))[16:]


def test_percentages_and_days_follow_the_shared_rules(plan):
    """It wrote 'MFU 14.7%', '83.0%' and '94.7 days' / '7.5 days (no failures)' its own way."""
    p = plan.model_copy(
        update={"mfu": 0.147, "goodput": 0.83, "train_days": 94.66, "ideal_days": 7.46}
    )
    out = training_report(p)
    assert _row(out, "Efficiency").startswith("MFU 14.7 %, ")
    assert _row(out, "One run") == (
        run_length(94.66, p.train_days_low, p.train_days_high, 7.46, 0.83, p.steady_days)
        + f", {si(p.gpu_hours)} GPU-hours"
    )
    assert "95 days expected for the whole run (likely " in _row(out, "One run")
    assert f"steady state {days(p.steady_days)}, 7.5 days" in _row(out, "One run")
    assert "7.5 days without failures, goodput 83.0 %" in _row(out, "One run")
    assert not re.search(r"\d%", out)  # '83 %', never '83%'


def test_the_uncertainty_row_is_the_band(plan):
    p = plan.model_copy(update={"train_days_low": 78.4, "train_days_high": 160.6})
    assert _row(training_report(p), "Uncertainty").startswith(
        band(78.4, 160.6).strip().strip("()") + ": "
    )
    assert "likely 78–161 days" in training_report(p)


def test_the_smallest_count_that_fits_is_a_gpu_count(plan):
    head = training_report(plan.model_copy(update={"min_gpus": 1, "sizing": "fixed"}))
    assert head.splitlines()[0].endswith(f"smallest that fits: {gpus(1)}]")
    assert head.splitlines()[0].endswith("smallest that fits: 1 GPU]")


def test_the_curve_writes_percent_and_days_per_cell(plan):
    out = training_report(plan)
    for c in plan.curve:
        row = next(line for line in out.splitlines() if line.split()[:1] == [f"{c.gpus:,}"])
        for cell in (pct(c.mfu, 1), days(c.ideal_days), days(c.train_days)):
            assert f" {cell} " in row
        assert f" {pct(c.scaling_efficiency)}" in row


def test_a_deadline_says_its_budget_and_the_efficient_size(capsys):
    rc = main(
        ["train", "--model", "llama3-70b", "--tokens", "15T", "--gpu", "H100-SXM"]
        + ["--deadline-days", "90", "--json"]
    )
    assert rc == 0
    from models.training.plan import TrainingPlan

    data = json.loads(capsys.readouterr().out)
    said = data.pop("deadline")
    p = TrainingPlan.model_validate(data)
    a = DeadlineAnswer.model_validate({**said, "plan": p})
    out = training_report(p, a)
    sentence = deadline_sizing(90, a.label, a.ready_day, a.first_result_day)
    assert _row(out, "Deadline") == sentence.removeprefix("Sized ")
    assert "for the 90-day deadline from the decision" in sentence
    advice = efficient_size_advice(p.gpus, p.efficient)
    assert advice.startswith("Efficient size: 8,192 GPUs")
    assert advice in out.splitlines()


def test_the_workload_page_writes_the_band_as_the_report_does():
    """The Workload page said 'Wall-clock days likely 12.8 to 36.4'; the report and Compare say
    'likely 13–36 days'."""
    import pathlib

    from streamlit.testing.v1 import AppTest

    from app.scenario_files import EXAMPLE

    at = AppTest.from_file(
        str(pathlib.Path(__file__).with_name("portal_harness.py")), default_timeout=60
    )
    at.session_state["_page"] = "workload"
    at.run()
    assert not at.exception, at.exception
    p = plan_training(Scenario.model_validate(EXAMPLE))
    likely = band(p.train_days_low, p.train_days_high).strip().strip("()")
    assert likely.startswith("likely ") and "–" in likely
    captions = [c.value for c in at.caption]
    assert any(f", {likely} (the whole-run model's error range" in c for c in captions)


def test_the_efficient_size_beside_a_fixed_count_does_not_speak_of_a_deadline():
    """With a fixed --gpus the count was chosen, not needed by a deadline: the advice said 'the
    16,384 GPUs the deadline needs' with no deadline given."""
    sc = Scenario.model_validate(
        {
            "workload": {"model": "llama3-405b", "tokens": 15.6e12},
            "cluster": {"gpu": "H100-SXM", "gpus": 16384},
            "term": {"months": 36},
        }
    )
    p = plan_training(sc, curve=True)
    assert p.sizing == "fixed" and p.efficient is not None and p.efficient.gpus < p.gpus
    out = training_report(p)
    assert f"(the {gpus(p.gpus)} chosen run at" in out
    assert "deadline" not in out.lower()

"""One deadline answer (issue 30): the Workload page, Compare, the PDF and `clusterplan train
--deadline-days` size a deadlined run the same way, counted from the decision with the provisioning
of the option that can deliver first (pricing/deadline.py); the numbers of its sentence add up as
shown; a deadline no option can meet is refused with the closest date any can give, and that date
is one the planner then meets."""

import json
import math
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.formatting import deadline_miss, deadline_sizing
from models.errors import InputError
from models.scenario import Scenario
from pricing.deadline import answer
from pricing.engine import compare
from tests.builders import app
from tests.readback import metric, number

#: the issue's case, Llama 3 405B on 15T tokens on H100, at 200 days (150 was the issue's; the whole-run
#: expectation, 104 days at best on 49,152 GPUs plus Managed's 58 days to be ready, cannot meet it)
CASE = {"workload": {"model": "llama3-405b", "tokens": 15e12}, "cluster": {"gpu": "H100-SXM"}}


def _deadlined(days: float, gpu: str = "H100-SXM") -> Scenario:
    return Scenario.model_validate(
        {**CASE, "cluster": {"gpu": gpu, "gpus": None, "deadline_days": days}}
    )


@pytest.mark.parametrize(("days", "gpu"), [(200.0, "H100-SXM"), (120.0, "B200")])
def test_compare_the_command_line_and_the_workload_page_give_one_answer(days, gpu, capsys):
    from app.cli import main

    sc = _deadlined(days, gpu)
    c = compare(sc, decision=False)
    a = answer(sc)
    sized_for = c.option(c.training.deadline_sized_for)
    assert (a.gpus, a.option) == (c.training.gpus, sized_for.option)
    assert a.ready_day == sized_for.ready_day
    assert a.first_result_day == pytest.approx(sized_for.first_result_day)
    assert a.first_result_day <= days  # the option it sized for meets the deadline
    code = main(
        ["train", "--model", "llama3-405b", "--tokens", "15e12", "--gpu", gpu, "--deadline-days",
         f"{days:g}", "--json"]
    )  # fmt: skip
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["gpus"] == c.training.gpus
    assert out["deadline"]["option"] == a.option
    assert out["deadline"]["first_result_day"] == pytest.approx(a.first_result_day)
    at = app(scenario=sc.model_dump(mode="json", exclude_defaults=True))
    assert number(metric(at, "GPUs")) == c.training.gpus
    shown = " ".join(cap.value for cap in at.caption)
    assert f"ready on day {math.ceil(a.ready_day)}" in shown.replace("\\", "")


@given(
    deadline=st.integers(20, 2000),
    ready=st.floats(0, 400, allow_nan=False),
    run=st.floats(0.05, 1500, allow_nan=False),
)
def test_the_deadline_sentence_adds_up_as_shown(deadline, ready, run):
    """'ready on day R, leaving L days; a run takes N days there, so its first result is on day F':
    R + L is the deadline and R + N is F, in the whole days shown."""
    text = deadline_sizing(float(deadline), "Rent dedicated", ready, ready + run)
    r, left, n, f = (
        int(x.replace(",", ""))
        for x in re.search(
            r"ready on day ([\d,]+), leaving ([\d,-]+) days?; a run takes ([\d,]+) days? there, so "
            r"its first result is on day ([\d,]+)",
            text,
        ).groups()
    )
    assert r + left == deadline and r + n == f
    assert r == math.ceil(ready - 1e-9) and f == math.ceil(ready + run - 1e-9)


@given(deadline=st.integers(10, 1000), late=st.floats(1e-6, 3.0))
def test_a_miss_is_never_zero_days_late(deadline, late):
    text = deadline_miss("Build", float(deadline), deadline + late, late)
    first = int(re.search(r"ends on day ([\d,]+)", text).group(1).replace(",", ""))
    days_late = int(re.search(r", ([\d,]+) days? late", text).group(1))
    assert days_late >= 1 and days_late == first - deadline


def test_a_deadline_no_option_can_meet_names_the_closest_date_and_that_date_is_met():
    with pytest.raises(InputError) as e:
        answer(_deadlined(90.0))
    assert e.value.field == "cluster.deadline_days"
    said = str(e.value)
    m = re.search(
        r"The earliest first result any option gives is day ([\d,]+): ([\d,]+) H100-SXM on "
        r"([A-Za-z ]+); allowed: a deadline of ([\d,]+) days or more",
        said,
    )
    assert m, said
    day = int(m.group(1).replace(",", ""))
    assert int(m.group(4).replace(",", "")) == day > 90
    met = answer(_deadlined(float(day)))  # the date it names is one the planner can meet
    assert met.first_result_day <= day
    with pytest.raises(InputError):  # and a day earlier than it is not (on the same ladder)
        answer(_deadlined(float(day) - 10))

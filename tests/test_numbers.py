"""Numbers in one voice (issue 17): the engine's sentences, the terminal report, the Compare page,
the PDF and the sidebar write money, points in time, durations, percentages and ratios by the same
rules (models/numbers.py, re-exported by app/formatting.py)."""

from __future__ import annotations

import re

import pytest

from app import report_text
from app.formatting import deadline_miss, deadline_sizing, on_day, pct, run_length, usd
from app.recommendation_text import recommendation_text
from app.scenario_files import EXAMPLE
from models.numbers import in_unit
from models.scenario import Scenario
from pricing import decision as ds
from pricing.engine import compare
from pricing.inputs import build_inputs
from tests.builders import app


@pytest.fixture(scope="module")
def example(fixture_catalogue):
    return compare(Scenario.model_validate(EXAMPLE), fixture_catalogue)


def test_the_recommendation_writes_npv_and_shares_as_the_tables_do(example):
    """'NPV $0.3M' stood beside '$269,151': the sentence now uses the tables' money rule."""
    rec = example.recommendation
    best = example.option(rec.option)
    assert f"NPV {usd(best.npv_usd)}" in recommendation_text(rec)
    assert not re.search(r"\d%", recommendation_text(rec))  # '77 %', never '77%'
    assert f"ready on {on_day(best.ready_day)}" in recommendation_text(rec)


def test_the_recommendation_counts_the_ready_day_as_the_tables_do(fixture_catalogue):
    """A cluster ready at day 7.3 is ready 'on day 8' in the table (on_day); the sentence said
    'day 7'."""
    sc = Scenario.model_validate(EXAMPLE)
    c = compare(sc, fixture_catalogue, decision=False)
    best = c.option(c.recommendation.option)
    results = [
        o.model_copy(update={"ready_day": 7.3}) if o.option == best.option else o for o in c.options
    ]
    why = recommendation_text(ds.recommend(build_inputs(sc, fixture_catalogue), results))
    assert "ready on day 8" in why


@pytest.mark.parametrize(
    ("value", "unit", "text"),
    [
        (2.84, "ratio", "2.84×"),  # was "2.84 ratio"
        (150_000.0, "USD/year", "$0.15M per year"),  # was "$150,000.00 per year"
        (2.06, "USD/GPU-hour", "$2.06 per GPU-hour"),
        (12.0, "%/year", "12 % a year"),
    ],
)
def test_a_flip_value_is_written_in_its_unit(value, unit, text):
    assert in_unit(value, unit) == text


def test_the_text_report_writes_days_as_points_and_percent_with_a_space(example):
    out = report_text.comparison_report(example)
    t = example.training
    assert f"goodput {pct(t.goodput, 1)}" in out.splitlines()[0]
    for o in example.options:
        if not o.available:
            continue
        row = next(line for line in out.splitlines() if line.startswith(o.label + " "))
        assert on_day(o.ready_day) in row and on_day(o.first_result_day) in row
    # the uncertainty and sensitivity lines name options by label, not by id
    assert "cloud:on_demand " not in out and "between cloud" not in out


def test_a_deadline_miss_and_the_sizing_count_days_as_on_day():
    # day 240 against 180 is 60 days late, as shown (not the 59.4 days past rounded)
    assert "ends on day 240, 60 days late" in deadline_miss("Build", 180, 239.4, 59.4)
    line = deadline_sizing(180, "Rent dedicated", 10.2, 105.3)
    assert "ready on day 11, leaving 169 days; a run takes 95 days there" in line
    assert line.endswith("its first result is on day 106")


def test_a_runs_length_is_one_parenthesis():
    text = run_length(21.8, 18.0, 25.0, 21.5, 0.987)
    assert text == "22 days (likely 18–25 days; 22 days without failures, goodput 98.7 %)"
    assert text.count("(") == 1 and ") (" not in text


def test_the_sidebar_names_the_model_not_its_id():
    at = app("workload")
    caption = " ".join(c.value for c in at.sidebar.caption)
    assert "Llama 3 70B" in caption and "llama3-70b" not in caption


def test_compare_totals_give_points_in_time_and_one_parenthesis():
    at = app("compare")
    totals = at.dataframe[0].value
    assert all(v == "n/a" or re.fullmatch(r"day [\d,]+", v) for v in totals["Ready"])
    assert all(v == "-" or re.fullmatch(r"day [\d,]+", v) for v in totals["First result"])
    captions = " ".join(c.value for c in at.caption)
    assert ") (" not in captions


def test_the_gpu_count_box_reads_with_thousands_separators():
    """It read "1024" beside the metric's "1,024"; parse_number reads "1,024" back."""
    at = app("workload")
    assert at.text_input(key="w_gpus").value == "1,024"
    assert at.session_state["scenario"]["cluster"]["gpus"] == 1024

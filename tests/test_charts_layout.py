"""The charts read at 1440 px and in the PDF (issue 17): each check reads the figure object."""

from __future__ import annotations

import pytest

from app.charts.common import MIN_TEXT_CONTRAST, contrast
from app.charts.cost import cost_breakdown, cumulative_cost
from app.charts.memory import training_memory
from app.charts.risk import tornado
from app.charts.timeline import provisioning_gantt
from app.formatting import on_day
from app.scenario_files import EXAMPLE
from models.options import OPTION_IDS
from models.scenario import Scenario
from models.training.plan import plan_training
from pricing.engine import compare


@pytest.fixture(scope="module")
def example(fixture_catalogue):
    return compare(Scenario.model_validate(EXAMPLE), fixture_catalogue)


@pytest.fixture(scope="module")
def every_option(fixture_catalogue):
    data = {**EXAMPLE, "options": {"compare": list(OPTION_IDS)}}
    return compare(Scenario.model_validate(data), fixture_catalogue, decision=False)


#: width of a character of the Gantt's 11 px label and of its 15 px star, in px; the narrowest plot
#: the chart is drawn on (the PDF's column)
CHAR_PX, STAR_PX, PLOT_PX = 7.0, 15.0, 600.0


def test_the_gantt_axis_holds_the_end_labels(example):
    """'day 20' was shown for day 203: the autorange ended at the star and clipped its label."""
    fig = provisioning_gantt(example)
    stars = [t for t in fig.data if (t.meta or {}).get("kind") == "first_result"]
    assert stars
    right = fig.layout.xaxis.range[1]
    for t in stars:
        day, label = t.x[0], t.text[0]
        assert label == on_day(day)
        # the label ends at the star plus its text, in data units on the narrowest plot
        needed = day + (STAR_PX + CHAR_PX * len(label)) * right / PLOT_PX
        assert right >= needed, (label, right, needed)


def test_the_tornado_legend_sits_below_the_plot(example):
    """Above the plot it wrapped onto the subtitle."""
    fig = tornado(example)
    assert fig.layout.legend.y < 0 and fig.layout.legend.yanchor == "top"
    assert fig.layout.margin.b >= 100


@pytest.mark.parametrize("dark", [False, True])
def test_option_coloured_text_is_readable(every_option, dark):
    """The pale yellow (Cloud 3-yr commit) on white, black on the dark theme: unreadable totals."""
    fig = cost_breakdown(every_option, dark=dark)
    bg = fig.layout.template.layout.paper_bgcolor
    totals = [a for a in fig.layout.annotations if a.name == "total"]
    assert len(totals) == sum(o.available for o in every_option.options)
    for a in totals:
        assert contrast(a.font.color, bg) >= MIN_TEXT_CONTRAST, a.text


def test_the_training_memory_chart_has_a_title_and_units(fixture_catalogue):
    plan = plan_training(Scenario.model_validate(EXAMPLE))
    fig = training_memory(plan.model_dump(mode="json"))
    assert fig.layout.title.text == "Memory per GPU by part"
    assert "GiB" in fig.layout.xaxis.title.text
    assert plan.model.name in fig.layout.title.subtitle.text
    bars = fig.data[0]
    assert sum(bars.x) == pytest.approx(
        sum(v for k, v in plan.memory_gib_per_gpu.items() if k != "total" and v > 0.05)
    )
    assert all(t.endswith(" GiB") for t in bars.text)
    assert fig.layout.xaxis.range[1] >= max([plan.memory_capacity_gib, *bars.x])


def test_a_breakeven_marker_names_the_pair(example):
    """Each ◆ has a legend entry saying which option passes which, and in which month."""
    fig = cumulative_cost(example)
    markers = [t for t in fig.data if (t.meta or {}).get("kind") == "breakeven"]
    assert markers, "the example has breakevens"
    labels = {o.option: o.label for o in example.options}
    named = 0
    for t in markers:
        o = example.option(t.meta["option"])
        (month,) = t.x
        pairs = sorted(labels[k] for k, m in o.breakeven_month.items() if m == month)
        assert t.showlegend is not False
        assert t.name == f"month {month}: {o.label} < {', '.join(pairs)}"
        named += len(pairs)
    # every breakeven inside the term has its marker
    assert named == sum(
        1
        for o in example.options
        if o.available
        for k, m in o.breakeven_month.items()
        if m is not None and 1 < m <= len(o.cumulative_usd) and example.option(k).available
    )
    # below the plot, clear of the subtitle
    assert fig.layout.legend.yref == "container" and fig.layout.legend.y == 0

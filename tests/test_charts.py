"""Charts (app/charts/): one template, one colour per option, every figure built from a real
comparison, with and without decision support, from the model or from its JSON dict."""

from __future__ import annotations

import json
import pathlib

import plotly.graph_objects as go
import plotly.io as pio
import pytest

from app.charts.common import (
    DARK_TEMPLATE_NAME,
    OPTION_COLORS,
    TEMPLATE_NAME,
    USD_AXIS,
    category_color,
    fmt_usd,
    option_color,
    template_name,
)
from app.charts.compare import all_figures
from app.charts.cost import cost_breakdown, cumulative_cost
from app.charts.risk import tornado, uncertainty
from app.charts.scaling import scaling_curve
from app.charts.timeline import provisioning_gantt
from app.charts.validation import validation_scatter
from app.scenario_files import EXAMPLE
from models.scenario import OPTION_IDS, Scenario
from pricing.engine import Comparison, OptionResult, compare

ROOT = pathlib.Path(__file__).resolve().parents[1]
KEYS = ("cumulative", "breakdown", "gantt", "scaling", "tornado", "uncertainty")
CURVE = [  # hand-made scaling curve, in the shape compare() puts under training["curve"]
    {
        "gpus": g,
        "step_time_s": 30.0 * 256 / g,
        "mfu": 0.55 - 0.02 * i,
        "ideal_days": 80.0 * 256 / g,
        "train_days": 82.0 * 256 / g * (1 + 0.06 * i),
        "gpu_hours": 4.9e5 * (1 + 0.06 * i),
        "scaling_efficiency": 1 / (1 + 0.06 * i),
    }
    for i, g in enumerate((256, 512, 1024, 2048, 4096))
]


@pytest.fixture(scope="module")
def full() -> Comparison:
    return compare(Scenario.model_validate(EXAMPLE))


@pytest.fixture(scope="module")
def bare() -> Comparison:
    return compare(Scenario.model_validate(EXAMPLE), decision=False)


@pytest.fixture(scope="module")
def with_unavailable(full) -> Comparison:
    """The full comparison plus an option the catalogue cannot offer, as compare() reports one."""
    months = len(full.options[0].monthly_usd)
    spot = OptionResult.unavailable(
        "cloud:spot", "Cloud spot", "no spot offer in the catalogue", months
    )
    return full.model_copy(update={"options": [*full.options, spot]})


def _available(c: Comparison) -> list[OptionResult]:
    return [o for o in c.options if o.available]


def _traces(fig: go.Figure, kind: str, option: str | None = None) -> list:
    return [
        t
        for t in fig.data
        if (t.meta or {}).get("kind") == kind and (option is None or t.meta.get("option") == option)
    ]


def _colour(trace) -> str:
    if trace.type == "scatter" and trace.mode == "lines":
        return trace.line.color
    return trace.marker.color


def _option_colours(fig: go.Figure) -> dict[str, set[str]]:
    """{option id: the colours its traces are drawn in}, from the traces' meta tags."""
    out: dict[str, set[str]] = {}
    for t in fig.data:
        meta = t.meta or {}
        if "option" in meta:
            out.setdefault(meta["option"], set()).add(_colour(t))
        for option, colour in zip(meta.get("options", []), t.marker.color or [], strict=False):
            out.setdefault(option, set()).add(colour)
    return out


def _strings(node):
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for v in node.values():
            yield from _strings(v)
    elif isinstance(node, list):
        for v in node:
            yield from _strings(v)


def _annotations(fig: go.Figure) -> list[str]:
    return [a.text for a in fig.layout.annotations]


def test_templates_are_registered_with_the_house_style():
    for name, bg in ((TEMPLATE_NAME, "#FFFFFF"), (DARK_TEMPLATE_NAME, "#0E1117")):
        layout = pio.templates[name].layout
        assert layout.separators == ".,"
        assert layout.legend.orientation == "h" and layout.legend.y > 1
        assert layout.font.family and layout.hoverlabel.font.size
        assert layout.paper_bgcolor == bg and layout.margin.t > 0
    assert USD_AXIS["tickprefix"] == "$"
    assert template_name(True) == DARK_TEMPLATE_NAME


def test_one_distinct_colour_per_option_id():
    assert set(OPTION_COLORS) == set(OPTION_IDS)
    assert len(set(OPTION_COLORS.values())) == len(OPTION_IDS)
    assert all(option_color(o) == OPTION_COLORS[o] for o in OPTION_IDS)
    assert category_color("no such category") == category_color("no such category")


@pytest.mark.parametrize(
    ("x", "text"),
    [
        (1.2e6, "$1.2M"),
        (65.49e6, "$65.5M"),
        (-29.36e6, "\u2212$29.4M"),
        (1.25e9, "$1.25B"),
        (350e3, "$350k"),
        (512.0, "$512"),
        (0.0, "$0"),
        (None, "n/a"),
        (4.1e6, "$4.1M"),
    ],
)
def test_fmt_usd(x, text):
    assert fmt_usd(x) == text


def test_every_figure_draws_each_option_in_its_own_colour(full):
    figs = all_figures(full)
    assert tuple(figs) == KEYS
    seen: dict[str, set[str]] = {}
    for key, fig in figs.items():
        assert isinstance(fig, go.Figure)
        colours = _option_colours(fig)
        if key != "scaling":  # the scaling curve is about the cluster, not the options
            assert colours, key
        for option, used in colours.items():
            assert used == {OPTION_COLORS[option]}, (key, option, used)
            seen.setdefault(option, set()).update(used)
    assert {o.option for o in _available(full)} <= set(seen)
    assert all(len(v) == 1 for v in seen.values())


def test_cumulative_ends_at_each_total_and_marks_breakevens(full):
    fig = cumulative_cost(full)
    pairs = 0
    for o in _available(full):
        (line,) = _traces(fig, "cumulative", o.option)
        assert list(line.x) == list(range(1, len(o.cumulative_usd) + 1))
        assert line.y[-1] == pytest.approx(o.total_usd)
        marks = _traces(fig, "breakeven", o.option)
        hover = " ".join(t for m in marks for t in m.customdata)
        for other, month in o.breakeven_month.items():
            if month is not None and month > 1:
                label = next(x.label for x in full.options if x.option == other)
                assert f"{o.label} breaks even with {label} in month {month}" in hover
                mark = next(m for m in marks if month in m.x)  # one trace per marked month
                i = list(mark.x).index(month)
                assert mark.y[i] == pytest.approx(o.cumulative_usd[month - 1])
                pairs += 1
    assert pairs > 0  # the example has breakevens after month 1
    assert fig.layout.yaxis.title.text and fig.layout.xaxis.title.text


def test_breakdown_bars_add_up_to_each_total(full):
    fig = cost_breakdown(full)
    categories = _traces(fig, "category")
    options = _available(full)
    for i, o in enumerate(options):
        assert sum(t.y[i] for t in categories) == pytest.approx(o.total_usd, rel=1e-9)
        assert categories[0].x[i] == o.label
    residual = [t for t in categories if t.meta["category"] == "residual value"]
    assert residual and min(residual[0].y) < 0
    (total,) = _traces(fig, "total")
    assert list(total.y) == pytest.approx([o.total_usd for o in options])
    assert len([a for a in fig.layout.annotations if a.name == "total"]) == len(options)
    assert fig.layout.barmode == "relative"


def test_gantt_has_one_training_bar_per_available_option(with_unavailable):
    fig = provisioning_gantt(with_unavailable)
    for o in _available(with_unavailable):
        (bar,) = _traces(fig, "training", o.option)
        assert len(bar.x) == 1
        assert bar.base[0] == pytest.approx(o.ready_day)
        assert bar.base[0] + bar.x[0] == pytest.approx(o.first_result_day)
        (star,) = _traces(fig, "first_result", o.option)
        assert star.x[0] == pytest.approx(o.first_result_day)
        (phases,) = _traces(fig, "phase", o.option)
        assert len(phases.x) == len(o.timeline)
    assert not _traces(fig, "training", "cloud:spot")
    assert "Cloud spot (unavailable)" in fig.layout.yaxis.ticktext
    assert "no spot offer in the catalogue" in _annotations(fig)


def test_gantt_gives_parallel_phases_their_own_lane(full):
    fig = provisioning_gantt(full)
    (build,) = _traces(fig, "phase", "build")
    rows = {}
    for y, start, width in zip(build.y, build.base, build.x, strict=True):
        rows.setdefault(y, []).append((start, start + width))
    for spans in rows.values():
        spans.sort()
        assert all(a[1] <= b[0] + 1e-9 for a, b in zip(spans, spans[1:], strict=False))
    assert len(rows) >= 2  # the facility is built while the hardware is on order


def test_tornado_has_one_bar_per_input(full):
    fig = tornado(full)
    bars = full.sensitivity.bars
    segments = _traces(fig, "tornado")
    assert {t.meta["option"] for t in segments} == {
        full.sensitivity.cheapest,
        full.sensitivity.runner_up,
    }
    for t in segments:
        assert len(t.y) == len(bars)
        assert list(t.y) == [b.label for b in bars]
        assert min(t.x) >= 0
    for i, b in enumerate(bars):
        lo, hi = sorted((b.gap_low_usd, b.gap_high_usd))
        covered = sum(t.x[i] for t in segments)
        assert covered == pytest.approx(hi - lo)
        if hi > lo:  # an input that moves nothing draws no segment
            assert min(t.base[i] for t in segments if t.x[i] > 0) == pytest.approx(lo)
    assert list(fig.layout.yaxis.categoryarray) == [b.label for b in bars][::-1]


def test_uncertainty_shows_p10_to_p90_and_the_median(full):
    fig = uncertainty(full)
    for option, s in full.uncertainty.options.items():
        (rng,) = _traces(fig, "range", option)
        assert rng.base[0] == pytest.approx(s.p10_usd)
        assert rng.base[0] + rng.x[0] == pytest.approx(s.p90_usd)
        (p50,) = _traces(fig, "p50", option)
        assert p50.x[0] == pytest.approx(s.p50_usd)
        (prob,) = _traces(fig, "probability", option)
        assert prob.x[0] == pytest.approx(100 * s.probability_cheapest)


def test_scaling_curve_from_a_hand_made_curve(bare):
    data = bare.model_dump(mode="json")
    data["training"] |= {"curve": CURVE, "chosen_gpus": 1024}
    # a deadline sizes the cluster: the scenario then gives no GPU count (it may not give both)
    data["scenario"]["cluster"] |= {"gpus": None, "deadline_days": 30}
    fig = scaling_curve(data)
    (days,) = _traces(fig, "train_days")
    (ideal,) = _traces(fig, "ideal_days")
    (eff,) = _traces(fig, "efficiency")
    (chosen,) = _traces(fig, "chosen")
    assert list(days.x) == [p["gpus"] for p in CURVE]
    assert list(days.y) == pytest.approx([p["train_days"] for p in CURVE])
    assert (
        list(ideal.y) == pytest.approx([p["ideal_days"] for p in CURVE])
        and ideal.line.dash == "dash"
    )
    assert eff.yaxis == "y2" and list(eff.y) == pytest.approx(
        [100 * p["scaling_efficiency"] for p in CURVE]
    )
    assert chosen.x[0] == 1024 and chosen.y[0] == pytest.approx(CURVE[2]["train_days"])
    assert fig.layout.xaxis.type == "log"
    assert [s.y0 for s in fig.layout.shapes if s.name == "deadline"] == [30]
    assert "no scaling curve" not in " ".join(_annotations(fig))
    # sized by the engine: the line is at the training time the deadline leaves after provisioning
    data["training"]["train_days_budget"] = 24.5
    fig = scaling_curve(data)
    assert [s.y0 for s in fig.layout.shapes if s.name == "deadline"] == [24.5]
    assert "deadline: 30 days, 24 days to train after provisioning" in _annotations(fig)
    # no deadline: no line; unsorted input is drawn in GPU order
    data["scenario"]["cluster"] |= {"gpus": 1024, "deadline_days": None}
    data["training"]["curve"] = CURVE[::-1]
    fig = scaling_curve(data)
    assert not fig.layout.shapes and list(_traces(fig, "train_days")[0].x) == [
        p["gpus"] for p in CURVE
    ]


def test_scaling_curve_without_a_curve_says_so(bare):
    data = bare.model_dump(mode="json")
    data["training"].pop("curve", None)
    fig = scaling_curve(data)
    assert not fig.data and "no scaling curve" in " ".join(_annotations(fig))


def test_no_decision_support_gives_empty_states_not_errors(bare):
    assert not bare.sensitivity and not bare.uncertainty
    figs = all_figures(bare)
    for key in ("tornado", "uncertainty"):
        assert not figs[key].data
        assert [a.name for a in figs[key].layout.annotations] == ["empty"]
        assert figs[key].layout.title.text
    assert figs["cumulative"].data and figs["breakdown"].data and figs["gantt"].data


def test_no_available_option_gives_empty_states(full):
    none = full.model_copy(
        update={"options": [o.model_copy(update={"available": False}) for o in full.options]}
    )
    figs = all_figures(none)
    for key in ("cumulative", "breakdown"):
        assert not figs[key].data and figs[key].layout.annotations[0].name == "empty"
    assert not _traces(figs["gantt"], "training")


def test_unavailable_options_are_left_out_of_cost_charts(with_unavailable):
    figs = all_figures(with_unavailable)
    for key in ("cumulative", "breakdown", "uncertainty"):
        assert "cloud:spot" not in _option_colours(figs[key]), key
    assert "Cloud spot" not in figs["breakdown"].data[0].x


def test_figures_serialise_without_mathjax(full, with_unavailable):
    for c in (full, with_unavailable):
        for key, fig in all_figures(c).items():
            text = fig.to_json()
            assert "$$" not in text, key
            # plotly.js typesets anything between two dollar signs as LaTeX when MathJax is loaded
            assert [s for s in _strings(json.loads(text)["data"]) if s.count("$") > 1] == [], key
            layout = json.loads(text)["layout"]
            layout.pop("template")
            assert [s for s in _strings(layout) if s.count("$") > 1] == [], key


def test_figures_have_titles_axis_titles_with_units_and_a_readable_height(full):
    figs = all_figures(full)
    value_axes = {
        "cumulative": ("yaxis", "(USD)"),
        "breakdown": ("yaxis", "(USD)"),
        "gantt": ("xaxis", "Days"),
        "scaling": ("xaxis", "GPUs"),
        "tornado": ("xaxis", "(USD)"),
        "uncertainty": ("xaxis", "(USD)"),
    }
    for key, fig in figs.items():
        assert fig.layout.title.text and fig.layout.title.subtitle.text, key
        assert 380 <= fig.layout.height <= 700, key
        axis, unit = value_axes[key]
        assert unit in getattr(fig.layout, axis).title.text, key
    assert "Month" in figs["cumulative"].layout.xaxis.title.text
    assert "%" in figs["uncertainty"].layout.xaxis2.title.text


def test_dark_variant_uses_the_dark_template(full):
    for key, fig in all_figures(full, dark=True).items():
        assert fig.layout.template == pio.templates[DARK_TEMPLATE_NAME], key
        assert fig.layout.template.layout.paper_bgcolor == "#0E1117"
    for key, fig in all_figures(full).items():
        assert fig.layout.template == pio.templates[TEMPLATE_NAME], key


def test_a_dict_gives_the_same_figures_as_the_model(full):
    data = json.loads(full.model_dump_json())  # what the JSON export and the CLI carry
    by_dict, by_model = all_figures(data), all_figures(full)
    for key in KEYS:
        assert by_dict[key].to_json() == by_model[key].to_json(), key
    with pytest.raises(TypeError):
        cumulative_cost([1, 2, 3])


@pytest.mark.parametrize("dark", [False, True])
def test_validation_scatter_uses_the_template_and_marks_unscored_rows(dark):
    from models.validation.training import validate

    rows = validate()["rows"]
    fig = validation_scatter(rows, dark=dark)
    assert (
        fig.layout.template.layout.paper_bgcolor
        == pio.templates[template_name(dark)].layout.paper_bgcolor
    )
    assert fig.layout.xaxis.type == "log" and fig.layout.yaxis.type == "log"
    points = [t for t in fig.data if t.mode == "markers"]
    assert sum(len(t.x) for t in points) == len(rows)  # every row drawn once
    open_ = [t for t in points if t.marker.symbol == "circle-open"]
    assert sum(len(t.x) for t in open_) == sum(not r["scored"] for r in rows) > 0
    assert all(t.name.endswith("(not scored)") for t in open_)
    assert all("$" not in d for t in points for d in t.customdata)


def test_a_portfolio_report_draws_provisioning_only_and_no_one_run_scaling_curve(full):
    """A portfolio's work is many workloads: the report's Gantt is the portal's "Time to capacity"
    (no training run drawn after provisioning) and there is no empty one-run scaling chart; the
    PDF's provisioning table gives the longest run, not "one run"."""
    import io

    from pypdf import PdfReader

    from app import report_pdf
    from app.scenario_files import PORTFOLIOS

    c = compare(Scenario.model_validate(json.loads(PORTFOLIOS["lab"].read_text())), decision=False)
    figures = all_figures(c)
    assert "scaling" not in figures
    assert figures["gantt"].layout.title.text.startswith("Time to capacity")
    assert [tr.name for tr in figures["gantt"].data] == [
        tr.name for tr in provisioning_gantt(c, first_run=False).data
    ]
    one_run = all_figures(full)  # a one-run scenario keeps both
    assert "scaling" in one_run and one_run["gantt"].layout.title.text.startswith("Time to first")
    data = report_pdf.build_pdf(c)
    text = "".join("".join(p.extract_text().split()) for p in PdfReader(io.BytesIO(data)).pages)
    assert "OptionReadyLongestrunFirstresult" in text and "OnerunFirstresult" not in text

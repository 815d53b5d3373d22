"""Names the user types, in charts (issue 27).

A team, a workload's or a saved scenario's name reaches a plotly figure only escaped
(app/charts/common.py `user_text`): plotly.js renders `<a href>` as a link and `<span style>` as
styled text, and typesets text between two `$` as LaTeX. Every string plotly renders in every
figure of a portfolio with hostile names, and of a side-by-side comparison of hostile scenario
names, is swept; a new chart builder is either swept here or says why it shows no user text. The
exported SVG (what the side-by-side PDF draws) prints the names as typed. Names refusing control
characters: tests/test_checks.py.
"""

from __future__ import annotations

import functools
import html
import importlib
import inspect
import json
import pkgutil
import re
import sys
import xml.etree.ElementTree as ET

import plotly.graph_objects as go
import pytest
from hypothesis import given
from hypothesis import strategies as st

import app.charts
from app import chart_export, report_pdf
from app.charts.common import user_text
from app.charts.compare import all_figures
from app.charts.portfolio import capacity_demand, portfolio_demand
from app.charts.scaling import scaling_curve
from app.charts.side_by_side import side_by_side_cost
from app.scenario_files import PORTFOLIOS
from models.scenario import Scenario
from pricing.engine import compare
from pricing.side_by_side import side_by_side

HOSTILE = (
    '<a href="https://evil.example/">T</a>',
    '<span style="font-size:90px">x</span>',
    "$$x$$",
)
#: markup plotly.js would render, in any string of a figure
MARKUP = re.compile(r"<\s*/?\s*(a|span)\b", re.IGNORECASE)
#: keys of a figure's JSON that plotly does not render (no template here reads %{meta})
NOT_RENDERED = {"meta", "template", "uid", "legendgroup"}


def _portfolio(names=HOSTILE, teams=HOSTILE[1:] + HOSTILE[:1]) -> dict:
    data = json.loads(PORTFOLIOS["lab"].read_text())
    for w, name, team in zip(data["workloads"], names, teams, strict=True):
        w["name"], w["team"] = name, team
    return data


@pytest.fixture(scope="module")
def hostile():
    """A portfolio whose workloads and teams carry the hostile names, compared with decision
    support, and a side by side of three scenarios named with them."""
    c = compare(Scenario.model_validate(_portfolio()))
    return c, side_by_side([(name, c) for name in HOSTILE])


def _rendered(node, key: str = ""):
    """(key, string) of every string in a figure's JSON that plotly renders."""
    if isinstance(node, str):
        yield key, node
    elif isinstance(node, dict):
        for k, v in node.items():
            if k not in NOT_RENDERED:
                yield from _rendered(v, k)
    elif isinstance(node, list):
        for v in node:
            yield from _rendered(v, key)


def _problems(fig: go.Figure) -> list[tuple[str, str]]:
    out = []
    for key, s in _rendered(json.loads(fig.to_json())):
        if "%{meta" in s:
            out.append((key, f"reads meta, which is not escaped: {s}"))
        if MARKUP.search(s) or s.count("$") > 1 or any(h in s for h in HOSTILE):
            out.append((key, s))
    return out


def _figures(c, sbs) -> dict[str, go.Figure]:
    """Every chart that can show a user's name, as the portal and the PDFs build them."""
    figs = {f"all_figures:{k}": f for k, f in all_figures(c).items()}
    figs |= {f"dark:{k}": f for k, f in all_figures(c, dark=True).items()}
    figs["scaling"] = scaling_curve(c)  # a portfolio's Compare has none; its builder still escapes
    figs["portfolio_demand"] = portfolio_demand(c.portfolio)
    figs["portfolio_demand:dict"] = portfolio_demand(c.portfolio.model_dump(mode="json"))
    for o in c.options:
        figs[f"capacity:{o.option}"] = capacity_demand(c, o.option)
    figs["capacity:unknown"] = capacity_demand(c, HOSTILE[0])
    figs["side_by_side"] = side_by_side_cost(sbs)
    figs["side_by_side:pdf"] = report_pdf.side_by_side_figure(sbs)
    return figs


# ------------------------------------------------------------------------------ the escape itself


@pytest.mark.parametrize(
    ("text", "escaped"),
    [
        ("research", "research"),
        ("R&D", "R&amp;D"),
        ("&lt;", "&amp;lt;"),
        ("<b>x</b>", "&lt;b&gt;x&lt;/b&gt;"),
        ("$$x$$", "&#36;&#36;x&#36;&#36;"),
        ("a $5 team", "a &#36;5 team"),
        ("équipe · 研究", "équipe · 研究"),
    ],
)
def test_user_text_escapes_markup_entities_and_dollars(text, escaped):
    assert user_text(text) == escaped


@given(st.text(max_size=80))
def test_user_text_reads_back_as_typed_and_holds_no_markup(text):
    out = user_text(text)
    assert html.unescape(out) == text
    assert not set("<>$") & set(out)
    assert re.fullmatch(r"([^&]|&(amp|lt|gt|#36);)*", out, re.DOTALL)


# ----------------------------------------------------------------------------- every chart, swept


def test_no_chart_renders_a_name_as_markup_or_latex(hostile):
    c, sbs = hostile
    problems = {k: p for k, fig in _figures(c, sbs).items() if (p := _problems(fig))}
    assert problems == {}


def test_the_names_are_still_shown_escaped(hostile):
    c, sbs = hostile
    escaped = {user_text(h) for h in HOSTILE}
    demand = portfolio_demand(c.portfolio)
    teams = {t.name for t in demand.data if t.meta["group"] == "team"}
    assert teams == escaped
    hover = {d.split(", month")[0] for t in demand.data for d in t.customdata}
    assert escaped <= hover
    fig = side_by_side_cost(sbs)
    assert {t.name.split(" · ")[0] for t in fig.data} == escaped
    assert all(e in fig.layout.title.subtitle.text for e in escaped)
    assert {t.meta["scenario"] for t in fig.data} == set(HOSTILE)
    unknown = capacity_demand(c, HOSTILE[0])
    assert unknown.layout.title.text.endswith(user_text(HOSTILE[0]))


#: the shared module's helpers that return a figure (a new one, an empty state, cost axes): every
#: builder starts from them, and none draws a chart of its own
LAYOUT_HELPERS = {"figure", "empty", "cumulative_axes", "vline"}
#: builders whose text is the app's own (validation rows, model presets, GPU names): they show no
#: user text
NO_USER_TEXT = {
    "validation_scatter",
    "benchmark_scatter",
    "serve_curve",
    "finetune_memory",
    "training_memory",
}


def _chart_modules() -> list:
    return [
        importlib.import_module(m.name)
        for m in pkgutil.iter_modules(app.charts.__path__, "app.charts.")
    ]


def test_every_chart_builder_is_swept_or_shows_no_user_text(hostile, monkeypatch):
    """Each public function of app/charts/ that returns a figure is called by the sweep (every
    figure it returns is swept, those all_figures leaves out too) or is in NO_USER_TEXT; those of
    the shared module (app/charts/common.py) are the LAYOUT_HELPERS every builder starts from."""
    found = {
        (module.__name__, name): f
        for module in _chart_modules()
        for name, f in inspect.getmembers(module, inspect.isfunction)
        if f.__module__ == module.__name__
        and not name.startswith("_")
        and inspect.signature(f).return_annotation in ("go.Figure", go.Figure)
    }
    assert {name for module, name in found if module == "app.charts.common"} == LAYOUT_HELPERS
    builders = {name: f for (module, name), f in found.items() if module != "app.charts.common"}
    built: list[tuple[str, go.Figure]] = []

    def spy(name, f):
        @functools.wraps(f)
        def wrapper(*args, **kwargs):
            fig = f(*args, **kwargs)
            built.append((name, fig))
            return fig

        return wrapper

    # every name a builder is called by: its module's, its importers' (all_figures calls the
    # Compare page's builders, the PDF the side by side's) and this file's
    modules = [m for n, m in list(sys.modules.items()) if n.startswith("app.") or n == __name__]
    for name, f in builders.items():
        wrapper = spy(name, f)
        for module in modules:
            if getattr(module, name, None) is f:
                monkeypatch.setattr(module, name, wrapper)
    _figures(*hostile)
    assert [(name, p) for name, fig in built if (p := _problems(fig))] == []
    assert builders.keys() - {name for name, _ in built} == NO_USER_TEXT


# -------------------------------------------------------------- what the side-by-side PDF draws

needs_chromium = pytest.mark.skipif(
    chart_export.chromium_path() is None, reason="Chromium is not installed"
)


@needs_chromium
def test_the_side_by_side_pdf_chart_prints_the_names_as_typed(hostile):
    """The SVG kaleido exports for the PDF, tidied as the PDF reads it: the names are text, no
    element is a link or takes the span's style, and `$$x$$` is printed, not typeset."""
    c, sbs = hostile
    figures = [report_pdf.side_by_side_figure(sbs), portfolio_demand(c.portfolio)]
    for svg in chart_export.figure_svgs(figures):
        root = ET.fromstring(chart_export.svg_for_pdf(svg))
        elements = list(root.iter())
        assert not [e for e in elements if e.tag.rsplit("}", 1)[-1] == "a"]
        attributes = " ".join(v for e in elements for v in e.attrib.values())
        assert "evil.example" not in attributes and "90px" not in attributes
        texts = ["".join(e.itertext()) for e in elements if e.tag.rsplit("}", 1)[-1] == "text"]
        for name in HOSTILE:
            assert any(name in t for t in texts), name


@needs_chromium
def test_the_side_by_side_pdf_is_drawn_with_its_chart(hostile):
    c, sbs = hostile
    report = report_pdf.build_side_by_side_report(sbs, [c, c, c], link=None)
    assert report.charts and report.pages >= 2

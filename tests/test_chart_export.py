"""Every chart the PDF prints keeps its title and subtitle inside the figure (issue 17): each is
exported with kaleido at the PDF's width (chart_export.CHART_WIDTH_PX) as the PDF exports it,
tidied for the PDF (svg_for_pdf, which sets a text element in DejaVu where the chart font lacks a
character), and each line of a title or subtitle is measured in the font the PDF sets it in: its
start (x, from the SVG) plus its width must end inside the figure less its right margin. The
tornado's and cumulative cost's first subtitle lines ran 85-105 px past the right edge."""

from __future__ import annotations

import copy
import functools
import json
import re
import xml.etree.ElementTree as ET

import plotly.io as pio
import pytest
from fontTools.ttLib import TTFont

from app import chart_export, report_pdf
from app.charts.common import TEMPLATE_NAME
from app.charts.compare import all_figures
from app.scenario_files import EXAMPLE, PORTFOLIOS
from models.scenario import Scenario
from pricing.engine import compare
from pricing.side_by_side import side_by_side

pytestmark = pytest.mark.skipif(
    chart_export.chromium_path() is None, reason="Chromium is not installed"
)
NS = "{http://www.w3.org/2000/svg}"
#: the charts' right margin (the template's margin.r): titles end before it
RIGHT_PX = pio.templates[TEMPLATE_NAME].layout.margin.r


@functools.cache
def _font(family: str):
    fonts = chart_export._font_files()
    font = TTFont(fonts["body"] if "DejaVu" in family else fonts["chart"])
    return font.getBestCmap(), font["hmtx"].metrics, font["head"].unitsPerEm


def width_px(text: str, size: float, family: str) -> float:
    cmap, hmtx, upem = _font(family)
    return size * sum(hmtx[cmap.get(ord(ch), ".notdef")][0] for ch in text) / upem


def title_lines(svg: bytes) -> list[tuple[str, float, float]]:
    """(line, where it starts, where it ends) of every title and subtitle line of a PDF chart."""
    root = ET.fromstring(chart_export.svg_for_pdf(svg))
    out = []
    for t in root.iter(NS + "text"):
        if not t.get("class", "").startswith("gtitle"):
            continue
        style = t.get("style", "")
        size = float(re.search(r"font-size: ([\d.]+)px", style)[1])
        family = re.search(r"font-family: ([^;]+)", style)[1]
        for line in t.findall(NS + "tspan") or [t]:
            text = "".join(line.itertext())
            x = float(line.get("x") or t.get("x"))
            out.append((text, x, x + width_px(text, size, family)))
    return out


def _check(svgs: dict[str, bytes]) -> None:
    for name, svg in svgs.items():
        width = float(ET.fromstring(svg).get("width"))
        assert width == chart_export.CHART_WIDTH_PX
        lines = title_lines(svg)
        assert len(lines) >= 2, name  # a title and at least one subtitle line were found
        for text, start, end in lines:
            assert start >= 0 and end <= width - RIGHT_PX, (name, text, round(end, 1))


@pytest.fixture(scope="module")
def run_comparisons():
    deadline = copy.deepcopy(EXAMPLE)
    deadline["cluster"] = {"gpu": "H100-SXM", "deadline_days": 180}
    return [compare(Scenario.model_validate(d)) for d in (EXAMPLE, deadline)]


def test_every_chart_of_a_training_run_report(run_comparisons):
    for c in run_comparisons:
        svgs = chart_export.chart_svgs(c)
        assert list(svgs) == list(all_figures(c))
        _check(svgs)


def test_every_chart_of_a_portfolio_report():
    c = compare(Scenario.model_validate(json.loads(PORTFOLIOS["enterprise"].read_text())))
    svgs = chart_export.chart_svgs(c)
    assert any(k.startswith("capacity:") for k in svgs)
    _check(svgs)


def test_the_side_by_side_chart(run_comparisons):
    sbs = side_by_side(list(zip(("Example", "Deadline 180 days"), run_comparisons, strict=True)))
    fig = report_pdf.side_by_side_figure(sbs)
    _check({"side_by_side": chart_export.figure_svgs([fig])[0]})


def test_the_measure_is_the_pdfs_font():
    """The test's own ruler: 'W' is wider than 'i' and DejaVu wider than Liberation Sans."""
    assert width_px("W", 12, "Liberation") > 2 * width_px("i", 12, "Liberation")
    assert width_px("mmmm", 12, "DejaVu") > width_px("mmmm", 12, "Liberation")

"""The side-by-side PDF (app/report_pdf/ build_side_by_side_report), read back with pypdf: every
scenario's figures, each as its own comparison gives them, the curves' monthly numbers, the link."""

from __future__ import annotations

import re

import pytest

from app import report_pdf
from app.formatting import days, on_day, usd, usd_rate
from app.scenario_files import EXAMPLE
from pricing.side_by_side import compare_named
from tests.builders import GENERATED, scenario
from tests.readback import pdf_text

LINK = "https://planner.example.com/side_by_side?s=eNqrVipLLSrOzM9TsjKsBQAiNgSu"


@pytest.fixture(scope="module")
def result():
    named = [
        ("H100 job", scenario(EXAMPLE)),
        ("B200 job", scenario(EXAMPLE, cluster__gpu="B200")),
        ("half", scenario(EXAMPLE, cluster__gpus=512)),
    ]
    return compare_named(named)


@pytest.fixture(scope="module")
def text(result):
    sbs, comparisons = result
    with pytest.MonkeyPatch.context() as mp:  # tables only: the numbers are the point here
        mp.setattr(report_pdf, "charts_available", lambda *a, **k: False)
        report = report_pdf.build_side_by_side_report(
            sbs, comparisons, link=LINK, generated=GENERATED
        )
    assert not report.charts and report.pages >= 2
    return pdf_text(report.data)


#: a figure of the side-by-side table as printed (app/formatting.py usd, on_day, days, usd_rate)
FIGURE = re.compile(r"-?\$[\d,.]+M?|day [\d,]+|[\d,.]+ days|not available")


def test_every_scenarios_figures_are_its_own_comparisons(result, text):
    sbs, comparisons = result
    assert "Side by side: H100 job vs B200 job vs half" in text
    table = text.split("Side by side\n", 1)[1].split("Totals and NPV over each", 1)[0]
    want = []
    for s, c in zip(sbs.scenarios, comparisons, strict=True):
        assert s.name in table
        for o in c.options:  # the comparison's own fields, in its order, formatted as everywhere
            want += [usd(o.total_usd), usd(o.npv_usd), on_day(o.ready_day), days(o.train_days)]
            want.append(usd_rate(o.usd_per_gpu_hour))
        run = f"one training run of {c.training.model} on {c.training.gpus:,} × {c.training.gpu}"
        line = re.sub(r"\s+", " ", text)  # the scenario's line wraps at the page's edge
        assert f"{s.name}: {run}" in line
        assert f"recommended: {c.recommendation.label}" in line
    assert FIGURE.findall(table) == want
    # the scenarios differ, so a figure taken from the wrong one is caught
    assert comparisons[0].options[0].npv_usd != comparisons[1].options[0].npv_usd


def test_the_curves_numbers_are_each_scenarios_cumulative_costs(result, text):
    sbs, comparisons = result
    for s, c in zip(sbs.scenarios, comparisons, strict=True):
        live = [o for o in c.options if o.available]
        section = text.split(f"{s.name}: cumulative cost at the end of each month", 1)[1]
        lines = [" ".join(line.split()) for line in section.splitlines()]
        for m in (1, 12, c.scenario.term.months):
            row = next(r for r in lines if re.match(rf"{m} \$", r))
            assert row == " ".join([str(m), *(usd(o.cumulative_usd[m - 1]) for o in live)])


def test_the_link_reopens_the_set(text):
    assert LINK in text.replace("\n", "")

"""The pages' metrics and the charts' words write numbers with the shared rules (models/numbers.py):
the Workload page said 'Wall-clock days 21.8' where Compare said 'one run takes 22 days', and the
tornado said '25%' where the text says '25 %'."""

from __future__ import annotations

import re

import pytest

from app.charts.risk import tornado, uncertainty
from app.charts.scaling import scaling_curve
from app.charts.timeline import provisioning_gantt
from app.formatting import days, gib, pct
from app.scenario_files import EXAMPLE
from models.scenario import Scenario
from pricing.engine import compare
from tests.builders import app
from tests.readback import number


@pytest.fixture(scope="module")
def example():
    return compare(Scenario.model_validate(EXAMPLE))


def test_the_workload_metrics_write_days_as_compare_does(example):
    t = example.training
    at = app("workload")
    shown = {m.label: m.value for m in at.metric}
    assert shown["Whole-run days"] == days(t.train_days)
    assert shown["Steady-state days"] == days(t.steady_days)
    assert shown["Ideal days"] == days(t.ideal_days)
    assert shown["Memory per GPU"] == gib(t.memory_gib_per_gpu["total"])
    # Compare's run line starts with the same words
    compare_page = app("compare")
    run = next(c.value for c in compare_page.caption if "one run takes" in c.value)
    assert f"one run takes {shown['Whole-run days']} expected for the whole run (" in run


def test_the_readback_refuses_a_number_not_written_by_the_rule():
    assert number("22 days", "days") == 22 and number("7.5 days", "days") == 7.5
    assert number("1,024") == 1024
    for text, unit in (("21.8", "days"), ("21.8 days", "days"), ("1024.0 GiB", "GiB")):
        with pytest.raises(AssertionError):
            number(text, unit)


def test_the_tornado_writes_its_swing_as_a_percentage(example):
    fig = tornado(example)
    swing = pct(example.sensitivity.swing)
    assert re.fullmatch(r"\d+ %", swing)
    assert f"each input {swing} lower" in fig.layout.title.subtitle.text
    names = {t.name for t in fig.data}
    assert {
        f"input lower (\u2212{swing} or its range's low end)",
        f"input higher (+{swing} or its range's high end)",
    } <= names
    assert all(f"gap at \u2212{swing}: " in h for t in fig.data for h in t.customdata or ())


def test_a_ranged_input_is_swung_to_its_ranges_ends_and_says_so():
    """A figure carried over a range (pricing/ranges.py: the resale value, support, the host and
    fabric declines) is swung to its range's ends, not ±25 %: its bar's low and high values are
    the range's, and the chart's hover and the PDF's "What decides it" say so, where they had
    said "−25 %" for every bar."""
    from app.formatting import swing_ends, swing_text
    from app.report_pdf.comparison import deciding_text
    from pricing.ranges import RANGES

    steady = {"mode": "utilisation", "utilisation_pct": 85}  # Build is the runner-up at 60 months
    c = compare(Scenario.model_validate({**EXAMPLE, "term": {"months": 60}, "usage": steady}))
    s = c.sensitivity
    ranged = [b for b in s.bars if b.key in RANGES]
    assert ranged, [b.key for b in s.bars]
    for b in ranged:
        lo, hi = RANGES[b.key]
        assert (b.low_value, b.high_value) == pytest.approx(
            (min(lo, b.base_value), max(hi, b.base_value))
        )
        assert swing_text(b, s.swing) == f"from {b.low_value:,.4g} to {b.high_value:,.4g} {b.unit}"
        hover = next(
            h for t in tornado(c).data for h in t.customdata or () if h.startswith(b.label)
        )
        low, high = swing_ends(b, s.swing)
        assert f"gap at {low}: " in hover and f", at {high}: " in hover
    plain_bar = next(b for b in s.bars if b.key not in RANGES and b.key != "lead_time_multiplier")
    assert swing_text(plain_bar, s.swing) == f"±{pct(s.swing)}"
    said = deciding_text(c)
    for b in sorted(s.bars, key=lambda b: -abs(b.gap_high_usd - b.gap_low_usd))[:3]:
        assert f"({swing_text(b, s.swing)})" in said


def test_the_uncertainty_chart_writes_shares_as_percentages(example):
    fig = uncertainty(example)
    u = example.uncertainty.options
    bars = [t for t in fig.data if (t.meta or {}).get("kind") == "probability"]
    assert bars
    for t in bars:
        s = u[t.meta["option"]]
        assert list(t.text) == [pct(s.probability_cheapest)]
        assert t.customdata[0].endswith(f"the cheapest in {pct(s.probability_cheapest)} of draws")
    ranges = [t for t in fig.data if (t.meta or {}).get("kind") == "range"]
    for t in ranges:
        s = u[t.meta["option"]]
        assert (
            f"completes the workload in {pct(s.probability_completes)} of draws" in t.customdata[0]
        )
    assert fig.layout.xaxis2.ticksuffix == " %"


def test_the_time_charts_write_durations_and_points_as_the_tables_do(example):
    fig = scaling_curve(example)
    (line,) = [t for t in fig.data if (t.meta or {}).get("kind") == "train_days"]
    for p, text in zip(
        sorted(example.training.curve, key=lambda p: p.gpus), line.customdata, strict=True
    ):
        assert text.startswith(
            f"{p.gpus:,} GPUs: {days(p.train_days)} for one run (ideal {days(p.ideal_days)})"
        )
        assert f"scaling efficiency {pct(p.scaling_efficiency)}, MFU {pct(p.mfu)}" in text
    gantt = provisioning_gantt(example)
    runs = [t for t in gantt.data if (t.meta or {}).get("kind") == "training"]
    assert runs
    for t in runs:
        o = next(o for o in example.options if o.option == t.meta["option"])
        assert list(t.text) == ["training"]
        assert f"one run: {days(o.train_days)}" in t.customdata[0]
    phases = [h for t in gantt.data if (t.meta or {}).get("kind") == "phase" for h in t.customdata]
    assert phases and all(re.search(r", day [\d,]+ to day [\d,]+", h) for h in phases)


def test_the_token_count_reads_with_thousands_separators_as_the_gpu_count_does():
    """It read "2000" beside the GPUs' "1,024" (a number box cannot group thousands)."""
    at = app("workload")
    box = at.text_input(key="w_tokens")
    assert (box.value, at.text_input(key="w_gpus").value) == ("2,000", "1,024")
    days_before = number(next(m.value for m in at.metric if m.label == "Whole-run days"), "days")
    box.set_value("4,000").run()
    assert at.session_state["scenario"]["workload"]["tokens"] == 4e12
    assert at.text_input(key="w_tokens").value == "4,000"
    after = number(next(m.value for m in at.metric if m.label == "Whole-run days"), "days")
    assert after == pytest.approx(2 * days_before, rel=0.05)
    at.text_input(key="w_tokens").set_value("1.5k").run()
    assert at.session_state["scenario"]["workload"]["tokens"] == 1.5e12
    # text that is no number stays as typed, and the schema names the field
    at.text_input(key="w_tokens").set_value("lots").run()
    assert at.text_input(key="w_tokens").value == "lots"
    assert any("workload.tokens" in e.value for e in at.error), [e.value for e in at.error]

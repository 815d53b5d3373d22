"""The value of time on the portal, the share link and the PDF (issue 30): the Workload page takes
a value per day in both modes (a bad one named with its range and kept as typed), Compare shows
the adjustment as its own table and the answer says how much of the margin it is, a link carries
it, and the PDF prints it."""

from __future__ import annotations

import copy

import pytest

from app import report_pdf, share_link
from app.formatting import usd
from models.scenario import Scenario
from pricing.engine import compare
from tests.builders import GENERATED, TIME_RUNS, app, sample
from tests.portal_app import send_edits
from tests.readback import errors, flat, pdf_text

FIELD = "value_usd_per_day_earlier"


def _valued_runs() -> dict:
    data = copy.deepcopy(TIME_RUNS)
    data["usage"][FIELD] = 5000.0
    return data


def _valued_lab() -> dict:
    data = sample("lab")
    data["workloads"][0][FIELD] = 20_000.0
    data["options"]["bridge"] = False  # Build's run waits for its go-live: a delay to value
    return data


def test_the_workload_page_takes_a_value_per_run_and_names_a_bad_one():
    at = app()
    box = at.text_input(key="w_value_time")
    assert box.value == "" and FIELD not in at.session_state["scenario"].get("usage", {})
    box.set_value("20k").run()
    assert at.session_state["scenario"]["usage"][FIELD] == 20_000
    at.text_input(key="w_value_time").set_value("-5").run()
    message = errors(at)
    assert f"usage.{FIELD}" in message and "at least 0" in message, message
    assert at.text_input(key="w_value_time").value == "-5"  # kept as typed
    at.text_input(key="w_value_time").set_value("").run()
    assert FIELD not in at.session_state["scenario"]["usage"] and not at.error


def test_the_portfolio_table_takes_a_value_per_workload_and_names_a_bad_one():
    at = app(scenario=sample("lab"))
    key = at.data_editor[0].key
    assert FIELD in at.data_editor[0].value.columns
    send_edits(at, key, edited={0: {FIELD: 20_000.0}})
    assert at.session_state["scenario"]["workloads"][0][FIELD] == 20_000.0
    send_edits(at, at.data_editor[0].key, edited={1: {FIELD: -1.0}})
    message = errors(at)
    assert f"workloads[1].{FIELD}" in message and "at least 0" in message, message


def _value_table(at):
    return next(df.value for df in at.dataframe if "value of time" in df.value.columns)


def test_compare_shows_the_value_of_time_and_the_trade():
    at = app("compare", scenario=_valued_runs())
    assert not at.error, [e.value for e in at.error]
    c = compare(Scenario.model_validate(_valued_runs()))
    rows = _value_table(at).to_dict("records")
    assert [(r["option"], r["value of time"], r["in the ranking"]) for r in rows] == [
        (o.label, usd(o.value_of_time.value_usd), usd(o.value_of_time.ranked_npv_usd))
        for o in c.options
    ]
    page = " ".join(m.value for m in at.markdown) + " ".join(x.value for x in at.caption)
    assert "buys results 170 days earlier" in page
    assert "not a cash flow" in page


def test_compare_without_a_value_has_no_value_of_time():
    at = app("compare", scenario=copy.deepcopy(TIME_RUNS))
    assert not any("value of time" in df.value.columns for df in at.dataframe)
    assert not any(s.value == "Value of time" for s in at.subheader)


def test_compare_of_a_portfolio_names_each_valued_workload():
    at = app("compare", scenario=_valued_lab())
    assert not at.error, [e.value for e in at.error]
    assert _value_table(at) is not None
    captions = [x.value.replace("\\", "").replace("\u200b", "") for x in at.caption]
    assert any(x.startswith("Build: base-8b 173 days later") for x in captions), captions


def test_a_link_carries_the_value_of_time_both_ways():
    for data in (_valued_runs(), _valued_lab()):
        sc = Scenario.model_validate(data)
        back = share_link.decode(share_link.encode(sc))
        assert back == sc
        assert back.model_dump(mode="json") == sc.model_dump(mode="json")
    assert share_link.decode(share_link.encode(Scenario())).usage.value_usd_per_day_earlier is None


@pytest.fixture
def no_charts(monkeypatch):
    monkeypatch.setattr(report_pdf, "charts_available", lambda *args, **kwargs: False)


def test_the_pdf_prints_the_value_of_time_and_the_trade(no_charts):
    c = compare(Scenario.model_validate(_valued_runs()), draws=200)
    text = flat(pdf_text(report_pdf.build_report(c, generated=GENERATED).data))
    assert flat("Value of time") in text
    assert flat(usd(c.option("build").value_of_time.value_usd)) in text
    assert flat("buys results 170 days earlier") in text
    assert flat("First with the value of time") in text
    plain = compare(Scenario.model_validate(TIME_RUNS), draws=200)
    assert flat("Value of time") not in flat(
        pdf_text(report_pdf.build_report(plain, generated=GENERATED).data)
    )

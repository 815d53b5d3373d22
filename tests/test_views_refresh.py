"""The owned cluster's hardware refresh (options.build_refresh_after_months) in the portal, the
share link, the PDF and the CSV, read from `OptionResult.hardware_refreshes`; share-link errors
for the owned plan named as the Workload page names them (app/field_problems.py); and the
portfolio Guide's first result, which the core gives no sooner than each option's ready day."""

from __future__ import annotations

import copy
import csv
import io
import re

import pytest

from app import exports, report_pdf, share_link
from app.formatting import on_day
from app.scenario_files import EXAMPLE
from app.views import guide
from models.scenario import Scenario
from models.units import DAYS_PER_MONTH
from pricing.engine import compare
from tests.builders import GENERATED, app, sample, token_of_json
from tests.readback import errors, flat, metric, pdf_text, refused

FIELD = "options.build_refresh_after_months"
AGE = 12  # months: the enterprise sample's 36-month term holds two refreshes


def refreshed(age: int | None = AGE) -> dict:
    data = sample("enterprise")
    if age is not None:
        data["options"][FIELD.split(".")[1]] = age
    return data


@pytest.fixture(scope="module")
def with_refresh():
    """On the catalogue the portal reads (pricing/data/), as the Compare page's."""
    return compare(Scenario.model_validate(refreshed()), decision=False)


def expected_lines(o) -> list[str]:
    """What the Compare caption, the PDF and the text say of each refresh, from its fields."""
    return [
        f"refresh at month {int(r.ready_day // DAYS_PER_MONTH) + 1}: new {r.gpus:,} GPUs ready "
        f"day {r.ready_day:,.0f}, old sold day {r.replaced_sold_day:,.0f}"
        for r in o.hardware_refreshes
    ]


def test_the_fixture_refreshes_builds_hardware_twice(with_refresh):
    build = with_refresh.option("build")
    got = [(r.generation, r.gpus, round(r.ready_day)) for r in build.hardware_refreshes]
    # the 24-GPU build is ready on day 92.5; its hardware is 12 months (365.25 days) old on days
    # 458 and 823
    assert got == [(1, 24, 458), (2, 24, 823)]
    assert not with_refresh.option("rent").hardware_refreshes


# ----------------------------------------------------------------------------- Workload page


def refresh_box(at):
    return at.text_input(key="p_refresh")


def options(at) -> dict:
    return at.session_state["scenario"].get("options", {})


def test_the_refresh_is_off_by_default_and_an_age_typed_is_in_the_scenario_and_the_link():
    at = app(scenario=sample("enterprise"))
    assert refresh_box(at).value == "" and FIELD.split(".")[1] not in options(at)
    refresh_box(at).set_value("18").run()
    assert not at.exception and not at.error, errors(at)
    assert options(at)["build_refresh_after_months"] == 18
    linked = share_link.decode(at.query_params["s"])
    assert linked.options.build_refresh_after_months == 18
    refresh_box(at).set_value("").run()  # emptied: no refresh, the link as without one
    assert "build_refresh_after_months" not in options(at)
    assert (
        "build_refresh_after_months" not in share_link.decode_data(at.query_params["s"])["options"]
    )


@pytest.mark.parametrize(
    ("typed", "kept"),
    [("6", 6), ("36", 36), ("a year", "a year")],
    ids=["younger-than-a-year", "the-whole-term", "not-a-number"],
)
def test_a_bad_refresh_age_names_the_field_and_its_range_and_keeps_what_was_typed(typed, kept):
    at = app(scenario=sample("enterprise"))
    refresh_box(at).set_value(typed).run()
    assert not at.exception
    message = errors(at)
    assert FIELD in message and "12 to 35 months" in message, message
    assert options(at)["build_refresh_after_months"] == kept
    assert refresh_box(at).value == typed
    # the workloads are still sized meanwhile
    assert metric(at, "GPU-hours demanded")
    refresh_box(at).set_value("24").run()
    assert not at.error and options(at)["build_refresh_after_months"] == 24


# ---------------------------------------------------------------------- Compare, PDF and CSV


def test_compare_says_each_refresh_of_build_as_the_result_gives_it(with_refresh):
    at = app("compare", scenario=refreshed())
    assert not at.exception and not at.error, [e.value for e in at.error]
    captions = [x.value for x in at.caption]
    build = with_refresh.option("build")
    line = "Build, hardware refresh: " + "; ".join(expected_lines(build)) + "."
    assert line in captions, captions
    assert "refresh at month 16: new 24 GPUs ready day 458, old sold day 458" in line
    assert sum("hardware refresh:" in x for x in captions) == 1  # Build only: it owns hardware
    at = app("compare", scenario=sample("enterprise"))
    assert not any("hardware refresh:" in x.value for x in at.caption)


def _pdf(c) -> str:
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(report_pdf, "charts_available", lambda *a, **k: False)
        return flat(pdf_text(report_pdf.build_pdf(c, link="", generated=GENERATED)))


def test_the_pdf_reads_the_refreshes_from_the_result(with_refresh):
    text = _pdf(with_refresh)
    build = with_refresh.option("build")
    assert flat("Build, hardware refresh: " + "; ".join(expected_lines(build))) in text
    # read, not recomputed: a result that says another sale day is printed as it says
    r0 = build.hardware_refreshes[0]
    doctored = build.model_copy(
        update={"hardware_refreshes": [r0.model_copy(update={"replaced_sold_day": 401.0})]}
    )
    other = with_refresh.model_copy(
        update={"options": [doctored if o is build else o for o in with_refresh.options]}
    )
    assert flat("refresh at month 16: new 24 GPUs ready day 458, old sold day 401") in _pdf(other)
    none = other.model_copy(
        update={"options": [o.model_copy(update={"hardware_refreshes": []}) for o in other.options]}
    )
    assert "hardwarerefresh:" not in _pdf(none)


def test_the_csv_has_each_refresh_in_its_ready_month(with_refresh):
    rows = list(csv.DictReader(io.StringIO(exports.monthly_csv(with_refresh))))
    got = [
        (r["option"], r["category"], int(r["month"]), float(r["value"]), r["unit"])
        for r in rows
        if r["category"].startswith("refresh_")
    ]
    want = [
        ("build", category, int(f.ready_day // DAYS_PER_MONTH) + 1, float(value), unit)
        for f in with_refresh.option("build").hardware_refreshes
        for category, value, unit in (
            ("refresh_gpus", f.gpus, "gpus"),
            ("refresh_order_day", f.order_day, "day"),
            ("refresh_ready_day", f.ready_day, "day"),
            ("refresh_replaced_sold_day", f.replaced_sold_day, "day"),
        )
    ]
    assert got == want and len(got) == 8


# -------------------------------------------------------------------------------- share link


def test_a_refresh_round_trips_in_the_link_and_a_v1_link_cannot_hold_one():
    scenario = Scenario.model_validate(refreshed(30))
    token = share_link.encode(scenario)
    assert share_link.decode_data(token)["options"]["build_refresh_after_months"] == 30
    assert share_link.decode(token) == scenario
    assert share_link.encode(Scenario.model_validate(refreshed(None))) != token
    v1 = copy.deepcopy(EXAMPLE)
    v1["options"]["build_refresh_after_months"] = 24
    msg = refused(token_of_json(v1), "scenario is invalid")
    assert f"{FIELD}: a hardware refresh needs version 2" in msg, msg


@pytest.mark.parametrize(
    ("options", "said"),
    [
        (
            {"build_expansions": [{"gpus": 8, "month": 120}]},
            "options.build_expansions[0].month: Input should be less than or equal to 119 "
            "(allowed: a whole number from 0 to 35, within the term)",
        ),
        (
            {"build_expansions": [{"gpus": 8, "month": 1}, {"gpus": 0, "month": 2}]},
            "options.build_expansions[1].gpus: Input should be greater than or equal to 1 "
            "(allowed: at least 1 and at most 262,144)",
        ),
        (
            {"build_refresh_after_months": "yearly"},
            f"{FIELD}: Input should be a valid integer, unable to parse string as an integer "
            "(allowed: 12 to 35 months in a 36-month term, or empty for no refresh)",
        ),
        (
            {"build_refresh_after_months": 40},
            f"{FIELD}: must be from 12 to 35 months",
        ),
    ],
    ids=[
        "phase-month-past-ten-years",
        "second-phase-no-gpus",
        "refresh-not-a-number",
        "refresh-past-the-term",
    ],
)
def test_a_bad_owned_plan_in_a_link_is_named_as_the_workload_page_names_it(options, said):
    data = sample("enterprise")
    data["options"].update(options)
    msg = refused(token_of_json(data), "scenario is invalid")
    assert said in msg, msg
    assert not re.search(r"build_expansions\.\d", msg), msg


# ------------------------------------------------------------------------ Guide, first result


@pytest.mark.parametrize("name", ["enterprise", "lab"])
def test_the_portfolio_guide_says_each_options_first_result_no_sooner_than_it_is_ready(
    name, fixture_catalogue
):
    c = compare(Scenario.model_validate(sample(name)), fixture_catalogue, decision=False)
    live = [o for o in c.options if o.available]
    lines = guide.answers(c)[guide.QUESTIONS[4]]
    assert len(lines) == len(live)
    for o, line in zip(live, lines, strict=True):
        assert o.first_result_day is not None  # both samples finish runs or jobs
        # capacity is given from the ready day on (models/portfolio/capacity.py slot_capacity),
        # or the bridge's first day for work bridged to it (pricing/planning/bridging.py)
        start = o.ready_day if o.work_start_day is None else min(o.ready_day, o.work_start_day)
        assert o.first_result_day >= start, (o.option, o.ready_day, o.first_result_day)
        assert line.startswith(
            f"{o.label}: ready on {on_day(o.ready_day)}; first run done on "
            f"{on_day(o.first_result_day)}; "
        ), line

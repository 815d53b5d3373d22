"""The portal's portfolio additions of issue 15: the owned cluster's expansion phases edited on the
Workload page (validated by the schema, kept as typed, carried in the share link, shown on
Compare), and the Guide and Compare's Time view speaking about the whole portfolio with the
engine's numbers (Streamlit's AppTest through tests/portal_harness.py)."""

from __future__ import annotations

import copy
import json
import re

import pytest
from streamlit.testing.v1 import AppTest

from app import share_link
from app.formatting import days, gpus, md_plain, on_day
from app.scenario_files import EXAMPLE
from app.views import guide
from models.portfolio.demand import derive_demand
from models.scenario import Scenario
from pricing.engine import compare
from tests.builders import app, patient, sample, ten_workloads, token_of_json
from tests.portal_app import send_edits
from tests.readback import compare_tables, errors, metric, refused

PHASE_FIELD = "options.build_expansions"


def phases_editor(at: AppTest):
    return next(e for e in at.data_editor if e.key.startswith("p_expansions_"))


def edit_phases(at: AppTest, **edits) -> AppTest:
    """What the expansion table's editor sends after the user's edits."""
    return send_edits(at, phases_editor(at).key, **edits)


def phases(at: AppTest):
    return at.session_state["scenario"].get("options", {}).get("build_expansions")


def with_phases(data: dict, *rows) -> dict:
    out = copy.deepcopy(data)
    out["options"]["build_expansions"] = list(rows)
    return out


# ------------------------------------------------------------------- expansion phases, Workload


def test_a_phase_added_on_the_workload_page_is_in_the_scenario_and_the_link():
    at = app(scenario=sample("enterprise"))
    assert phases_editor(at).value.empty and phases(at) is None
    edit_phases(at, added=[{"gpus": 64, "month": 6}])
    assert phases(at) == [{"gpus": 64, "month": 6}]
    assert phases_editor(at).value.to_dict("records") == [{"gpus": 64, "month": 6}]
    linked = share_link.decode(at.query_params["s"])
    assert [(p.gpus, p.month) for p in linked.options.build_expansions] == [(64, 6)]
    # a row added with empty cells starts at one node (8 H100s) ordered in month 12
    edit_phases(at, added=[{}])
    assert phases(at) == [{"gpus": 64, "month": 6}, {"gpus": 8, "month": 12}]
    edit_phases(at, edited={1: {"gpus": 128}})
    assert phases(at)[1] == {"gpus": 128, "month": 12}
    edit_phases(at, deleted=[0, 1])
    assert phases(at) is None  # no phases: the scenario (and its link) as before
    assert "build_expansions" not in share_link.decode_data(at.query_params["s"])["options"]


@pytest.mark.parametrize(
    ("row", "field", "allowed"),
    [
        ({"gpus": 64, "month": 40}, "month", "from 0 to 35"),
        ({"gpus": 0, "month": 6}, "gpus", "at least 1 and at most 262,144"),
        ({"gpus": 2.5, "month": 6}, "gpus", "at least 1 and at most 262,144"),
        ({"gpus": 64, "month": -1}, "month", "from 0 to 35"),
    ],
    ids=["month-past-the-term", "no-gpus", "half-a-gpu", "month-before-the-decision"],
)
def test_a_bad_phase_names_the_field_and_its_range_and_keeps_what_was_typed(row, field, allowed):
    at = app(scenario=sample("enterprise"))
    edit_phases(at, added=[row])
    message = errors(at)
    assert f"{PHASE_FIELD}[0].{field}" in message and allowed in message, message
    assert phases(at) == [row]  # kept as typed, in the scenario and the table
    assert phases_editor(at).value.to_dict("records") == [row]
    # the workloads are still sized meanwhile, with the core's numbers
    demand = derive_demand(Scenario.model_validate(sample("enterprise")).workloads, "H100-SXM", 36)
    assert metric(at, "GPU-hours demanded") == f"{demand.workloads[0].demanded_gpu_hours:,.0f}"
    edit_phases(at, edited={0: {"gpus": 64, "month": 6}})
    assert not at.error and phases(at) == [{"gpus": 64, "month": 6}]


def test_the_phases_caption_names_the_owned_options_they_apply_to():
    at = app(scenario=sample("enterprise"))
    captions = " ".join(c.value for c in at.caption)
    assert "Applies to Build." in captions, captions
    data = copy.deepcopy(sample("enterprise"))
    data["options"]["compare"] = ["rent", "cloud:on_demand"]
    at = app(scenario=data)
    assert "No owned option is compared" in " ".join(c.value for c in at.caption)


# -------------------------------------------------------------------- expansion phases, Compare


def test_compare_shows_the_phase_in_builds_capacity_and_its_term_end_size():
    base = sample("enterprise")
    base["cluster"]["gpus"] = 64  # a fixed base, so the phase adds to it (no new size search)
    data = with_phases(base, {"gpus": 64, "month": 6})
    at = app("compare", scenario=data)
    assert not at.exception and not at.error, [e.value for e in at.error]
    c0 = compare(Scenario.model_validate(base))
    c1 = compare(Scenario.model_validate(data))
    capacity = compare_tables(at)["capacity_v2"].set_index("Option").to_dict("index")
    for o in c1.options:
        assert capacity[o.label]["GPUs at term end"] == f"{o.capacity_gpus[-1]:,.0f}"
    build0, build1 = c0.option("build"), c1.option("build")
    assert (build0.capacity_gpus[-1], build1.capacity_gpus[-1]) == (64, 128)
    rules = [m.value for m in at.markdown if m.value.startswith("- **")][0].splitlines()
    build_rule = next(r for r in rules if r.startswith("- **Build**: "))
    assert md_plain("64 GPUs ordered in month 6") in build_rule, rules
    rent0, rent1 = c0.option("rent"), c1.option("rent")  # a rented cluster has no phases
    assert capacity[rent1.label]["GPUs at term end"] == f"{rent0.capacity_gpus[-1]:,.0f}"
    assert rent1.capacity_gpus == rent0.capacity_gpus
    captions = " ".join(x.value for x in at.caption)
    assert "Expansion phases (Workload page): 64 GPUs ordered in month 6; they add to Build." in (
        captions
    )


# ------------------------------------------------------------------ expansion phases, share link

EIGHT_PHASES = [{"gpus": 1024 * (i + 1), "month": 6 * i + 5} for i in range(8)]


def test_a_ten_workload_portfolio_with_eight_phases_links_short_and_round_trips():
    data = ten_workloads()
    data["options"]["build_expansions"] = EIGHT_PHASES  # the most the schema allows
    scenario = Scenario.model_validate(data)
    url = share_link.link_url(scenario)
    # measured: 1,124 characters (1,027 without the phases)
    assert len(url) < 2000, len(url)
    back = share_link.decode(share_link.token_from_url(url))
    assert back == scenario
    assert [(p.gpus, p.month) for p in back.options.build_expansions] == [
        (p["gpus"], p["month"]) for p in EIGHT_PHASES
    ]


@pytest.mark.parametrize(
    ("phases", "pattern"),
    [
        ([{"gpus": 8, "month": 36}], r"options\.build_expansions\[0\]\.month: .*from 0 to 35"),
        (
            [{"gpus": 8, "month": 120}],
            r"options\.build_expansions\[0\]\.month: .*119 \(allowed: .*from 0 to 35, within the term",
        ),
        (
            [{"gpus": 0, "month": 1}],
            r"options\.build_expansions\[0\]\.gpus: .*greater than or equal to 1 \(allowed: at least 1",
        ),
        ([{"gpus": 8, "month": 1, "lead_weeks": 2}], r"build_expansions\[0\]\.lead_weeks: Extra"),
        (EIGHT_PHASES + [{"gpus": 8, "month": 1}], r"options\.build_expansions: .*at most 8"),
    ],
    ids=["past-the-term", "past-ten-years", "no-gpus", "unknown-field", "nine-phases"],
)
def test_a_link_with_bad_phases_is_refused_naming_the_field(phases, pattern):
    data = ten_workloads()
    data["term"]["months"] = 36
    data["options"]["build_expansions"] = phases
    msg = refused(token_of_json(data), "scenario is invalid")
    assert re.search(pattern, msg), msg


# ------------------------------------------------------------- Guide and Time, for a portfolio

GUIDE_Q = dict(enumerate(guide.QUESTIONS))


@pytest.fixture(scope="module")
def lab(fixture_catalogue):
    return compare(Scenario.model_validate(patient(sample("lab"))), fixture_catalogue)


@pytest.fixture(scope="module")
def lab_too_small(fixture_catalogue):
    """The lab on 512 GPUs: its 1,024-GPU pre-training run never fits, work stays queued."""
    data = sample("lab")
    data["cluster"]["gpus"] = 512
    return compare(Scenario.model_validate(data), fixture_catalogue)


def _month_of_max(values) -> int:
    return max(range(len(values)), key=values.__getitem__) + 1


def test_the_guide_sizes_the_whole_portfolio_not_one_training_run(lab):
    p = lab.portfolio
    answers = guide.answers(lab)
    peak = max(p.peak_gpus)
    assert peak > 8
    first = answers[GUIDE_Q[0]]
    assert first.startswith(
        f"A cluster: the 3 workloads together need up to {gpus(peak)} at once "
        f"(month {_month_of_max(p.peak_gpus)})"
    ), first
    assert f"The quietest month needs {gpus(min(p.peak_gpus))}" in first
    assert "one run in" not in first  # the representative training plan is not the answer
    lines = answers[GUIDE_Q[1]]
    assert lines[0] == (
        f"Demand: {p.gpu_hours[0]:,.0f} GPU-hours in month 1, {max(p.gpu_hours):,.0f} in the "
        f"busiest month (month {_month_of_max(p.gpu_hours)}); {p.demanded_gpu_hours:,.0f} "
        f"GPU-hours over {p.months} months, {p.beyond_term_gpu_hours:,.0f} of them finishing "
        "after the term."
    )
    rec = lab.option(lab.recommendation.option)
    kinds = [line for line in lines if line.split(":")[0] in p.peak_gpus_by_kind]
    assert [k.split(":")[0] for k in kinds] == list(p.peak_gpus_by_kind)  # a line per kind
    assert set(p.peak_gpus_by_kind) == {"pretrain", "finetune"}
    for line in kinds:
        kind = line.split(":")[0]
        peaks, hours = p.peak_gpus_by_kind[kind], p.gpu_hours_by_kind[kind]
        assert f"up to {gpus(max(peaks))} at once (month {_month_of_max(peaks)})" in line
        assert f"{max(hours):,.0f} GPU-hours in its busiest month" in line
        for d in rec.workload_delays:
            shown = f"{d.name} ({d.demanded_gpu_hours:,.0f} GPU-hours)"
            assert (shown in line) == (d.kind == kind), (shown, line)
    for o in lab.options:
        assert f"{o.label}: {gpus(o.capacity_size_gpus)} ({o.capacity_rule})." in lines


def test_the_guide_says_which_workloads_wait_and_how_long(lab, lab_too_small):
    for c in (lab, lab_too_small):
        lines = guide.answers(c)[GUIDE_Q[4]]
        assert len(lines) == len([o for o in c.options if o.available])
        for o, line in zip([o for o in c.options if o.available], lines, strict=True):
            assert line.startswith(f"{o.label}: ready on {on_day(o.ready_day)}; ")
            waiting = [d for d in o.workload_delays if d.delay_days_max]
            for d in o.workload_delays:
                said = f"{d.name} waits up to {days(d.delay_days_max or 0)}"
                assert (said in line) == (d in waiting), (said, line)
                if d in waiting:
                    assert f"{said} (mean {days(d.delay_days_mean)})" in line
            assert ("no workload waits for capacity" in line) == (not waiting)
            queued = o.queued_gpu_hours or 0
            assert (f"{queued:,.0f} GPU-hours still queued at the term end" in line) == (
                queued >= 0.5
            )
    build = lab_too_small.option("build")
    assert any(d.never_served for d in build.workload_delays)
    line = guide.answers(lab_too_small)[GUIDE_Q[4]][0]
    assert "never served: base-70b" in line and build.queued_gpu_hours >= 0.5, line
    # a waiting workload in the lab as sampled: the build is ready on day 181
    assert any(d.delay_days_max for d in lab.option("build").workload_delays)


def test_a_training_run_scenario_keeps_its_guide():
    c = compare(Scenario.model_validate(EXAMPLE))
    answers = guide.answers(c)
    assert answers[GUIDE_Q[0]] == guide.server_or_cluster(c)
    assert answers[GUIDE_Q[4]] == guide.deployment(c)


def _plain(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text).replace("\u200b", "")


def test_the_guide_page_and_compares_time_view_show_the_portfolios_lines():
    c = compare(Scenario.model_validate(patient(sample("lab"))))
    at = app("guide", scenario=patient(sample("lab")))
    shown = [_plain(m.value) for m in at.markdown]
    for line in [*guide.portfolio_gpus(c), *guide.portfolio_delays(c)]:
        assert f"- {line}" in shown, line
    assert guide.portfolio_server_or_cluster(c) in shown
    at = app("compare", scenario=patient(sample("lab")))
    at.segmented_control(key="compare_view_v2").set_value("Time").run()
    assert not at.exception and not at.error
    shown = [_plain(m.value) for m in at.markdown]
    for line in [*guide.portfolio_delays(c), *guide.portfolio_kind_lines(c)]:
        assert f"- {line}" in shown, line
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    kinds = {t["meta"]["kind"] for t in spec["data"]}
    assert kinds == {"phase"}, kinds  # no one training run drawn for a portfolio
    assert spec["layout"]["title"]["text"].startswith("Time to capacity")


def test_the_cached_capacity_chart_follows_the_scenario_and_the_theme():
    """Compare's capacity figure is cached per scenario, option and theme: an input changed, the
    chart shows the new comparison's numbers, not the figure built before."""
    data = sample("enterprise")
    at = app("compare", scenario=data)

    def served() -> list[float]:
        spec = json.loads(at.get("plotly_chart")[0].proto.spec)
        return next(t["y"] for t in spec["data"] if t["meta"]["kind"] == "served")

    c0 = compare(Scenario.model_validate(data))
    assert served() == pytest.approx(c0.option(c0.recommendation.option).served_gpu_hours_by_month)
    at.session_state["scenario"]["workloads"][1]["rps"] = 4
    at.run()
    data["workloads"][1]["rps"] = 4
    c1 = compare(Scenario.model_validate(data))
    rec = c1.option(c1.recommendation.option)
    assert served() == pytest.approx(rec.served_gpu_hours_by_month)
    assert rec.served_gpu_hours_by_month != pytest.approx(
        c0.option(c1.recommendation.option).served_gpu_hours_by_month
    )

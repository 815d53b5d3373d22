"""The portal's portfolio additions of issue 15: the owned cluster's expansion phases edited on the
Workload page (validated by the schema, kept as typed, carried in the share link, shown on
Compare), and the Guide and Compare's Time view speaking about the whole portfolio with the
engine's numbers (Streamlit's AppTest through tests/portal_harness.py)."""

from __future__ import annotations

import copy
import re

import pytest
from streamlit.testing.v1 import AppTest

from app import share_link
from models.demand import derive_demand
from models.scenario import Scenario
from pricing.engine import compare
from tests.test_portfolio_pages import app, compare_tables, errors, metric, sample

PHASE_FIELD = "options.build_expansions"


def phases_editor(at: AppTest):
    return next(e for e in at.data_editor if e.key.startswith("p_expansions_"))


def edit_phases(at: AppTest, *, edited=None, added=None, deleted=None) -> AppTest:
    """What the expansion table's editor sends after the user's edits."""
    at.session_state[phases_editor(at).key] = {
        "edited_rows": edited or {},
        "added_rows": added or [],
        "deleted_rows": deleted or [],
    }
    at.run()
    assert not at.exception, at.exception
    return at


def phases(at: AppTest):
    return at.session_state["scenario"].get("options", {}).get("build_expansions")


def with_phases(data: dict, *rows) -> dict:
    out = copy.deepcopy(data)
    out["options"]["build_expansions"] = list(rows)
    return out


# ------------------------------------------------------------------- expansion phases, Workload


def test_a_phase_added_on_the_workload_page_is_in_the_scenario_and_the_link():
    at = app(sample("enterprise"))
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
        ({"gpus": 0, "month": 6}, "gpus", "at least 1 and at most 65,536"),
        ({"gpus": 2.5, "month": 6}, "gpus", "at least 1 and at most 65,536"),
        ({"gpus": 64, "month": -1}, "month", "from 0 to 35"),
    ],
    ids=["month-past-the-term", "no-gpus", "half-a-gpu", "month-before-the-decision"],
)
def test_a_bad_phase_names_the_field_and_its_range_and_keeps_what_was_typed(row, field, allowed):
    at = app(sample("enterprise"))
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
    at = app(sample("enterprise"))
    captions = " ".join(c.value for c in at.caption)
    assert "Applies to Build." in captions, captions
    data = copy.deepcopy(sample("enterprise"))
    data["options"]["compare"] = ["rent", "cloud:on_demand"]
    at = app(data)
    assert "No owned option is compared" in " ".join(c.value for c in at.caption)


# -------------------------------------------------------------------- expansion phases, Compare


def test_compare_shows_the_phase_in_builds_capacity_and_its_term_end_size():
    base = sample("enterprise")
    base["cluster"]["gpus"] = 64  # a fixed base, so the phase adds to it (no new size search)
    data = with_phases(base, {"gpus": 64, "month": 6})
    at = app(data, page="compare")
    assert not at.exception and not at.error, [e.value for e in at.error]
    c0 = compare(Scenario.model_validate(base))
    c1 = compare(Scenario.model_validate(data))
    capacity = compare_tables(at)["capacity_v2"].set_index("Option").to_dict("index")
    for o in c1.options:
        assert capacity[o.label]["GPUs at the term end"] == f"{o.capacity_gpus[-1]:,.0f}"
    build0, build1 = c0.option("build"), c1.option("build")
    assert (build0.capacity_gpus[-1], build1.capacity_gpus[-1]) == (64, 128)
    assert "64 GPUs ordered in month 6" in capacity["Build"]["Capacity plan"]
    rent0, rent1 = c0.option("rent"), c1.option("rent")  # a rented cluster has no phases
    assert capacity[rent1.label]["GPUs at the term end"] == f"{rent0.capacity_gpus[-1]:,.0f}"
    assert rent1.capacity_gpus == rent0.capacity_gpus
    captions = " ".join(x.value for x in at.caption)
    assert "Expansion phases (Workload page): 64 GPUs ordered in month 6; they add to Build." in (
        captions
    )


# ------------------------------------------------------------------ expansion phases, share link

EIGHT_PHASES = [{"gpus": 1024 * (i + 1), "month": 6 * i + 5} for i in range(8)]


def test_a_ten_workload_portfolio_with_eight_phases_links_short_and_round_trips():
    from tests.test_share_link import ten_workloads

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
            [{"gpus": 8, "month": 60}],
            r"options\.build_expansions\.0\.month: .*less than or equal to 59",
        ),
        ([{"gpus": 0, "month": 1}], r"options\.build_expansions\.0\.gpus: .*greater than or equal"),
        ([{"gpus": 8, "month": 1, "lead_weeks": 2}], r"build_expansions\.0\.lead_weeks: Extra"),
        (EIGHT_PHASES + [{"gpus": 8, "month": 1}], r"options\.build_expansions: .*at most 8"),
    ],
    ids=["past-the-term", "past-five-years", "no-gpus", "unknown-field", "nine-phases"],
)
def test_a_link_with_bad_phases_is_refused_naming_the_field(phases, pattern):
    from tests.test_share_link import refused, ten_workloads, token_of_json

    data = ten_workloads()
    data["term"]["months"] = 36
    data["options"]["build_expansions"] = phases
    msg = refused(token_of_json(data), "scenario is invalid")
    assert re.search(pattern, msg), msg

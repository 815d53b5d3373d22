"""Side by side from both ends (AppTest, the real pages, no browser): the Compare page saves the
scenario in force with the Side by side page's own form, the Side by side page loads a saved
scenario back as the scenario in force (Compare then prices it), and the sidebar says what the
share link carries."""

from __future__ import annotations

import copy

import pytest
from streamlit.testing.v1 import AppTest

from app.formatting import usd
from app.scenario_files import EXAMPLE
from app.views import side_by_side
from models.scenario import Scenario
from pricing.engine import compare
from tests.builders import app, sample
from tests.portal_app import goto


def save(at: AppTest, name: str) -> AppTest:
    at.text_input(key="sbs_name").set_value(name)
    at.button(key="sbs_save_go").click().run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    return at


def saved_names(at: AppTest) -> list[str]:
    return [s["name"] for s in at.session_state[side_by_side.KEY]["scenarios"]]


def test_the_compare_page_saves_the_scenario_in_force():
    at = app("compare")
    at.session_state["scenario"]["term"]["months"] = 24  # as the Workload page would
    at.run()
    save(at, "two years")
    assert saved_names(at) == ["two years"]
    entry = at.session_state[side_by_side.KEY]["scenarios"][0]
    assert entry["scenario"] == at.session_state["scenario"]
    assert entry["scenario"]["term"]["months"] == 24
    assert any("Saved “two years”" in s.value for s in at.success)
    # the Side by side page lists it, picked
    goto(at, "side_by_side")
    assert at.multiselect(key="sbs_pick").value == ["two years"]


@pytest.fixture(scope="module")
def two_saved():
    at = app("side_by_side")
    save(at, "H100")
    at.session_state["scenario"]["cluster"]["gpu"] = "B200"  # as the Workload page would
    at.run()
    save(at, "B200")
    return at


def test_loading_a_saved_scenario_puts_it_in_force_and_compare_prices_it(two_saved):
    at = two_saved
    assert at.session_state["scenario"]["cluster"]["gpu"] == "B200"
    at.selectbox(key="sbs_load").set_value("H100").run()
    at.button(key="sbs_load_go").click().run()
    assert not at.exception, at.exception
    assert at.session_state["scenario"] == EXAMPLE
    assert any("“H100” is now the scenario in force" in s.value for s in at.success)
    # loading is not saving: the saved set is as it was
    assert saved_names(at) == ["H100", "B200"]
    goto(at, "compare")
    c = compare(Scenario.model_validate(EXAMPLE))
    table = next(d.value for d in at.dataframe if "NPV" in d.value.columns)
    assert list(table["NPV"]) == [usd(o.npv_usd) for o in c.options]
    # and the scenario in force is a copy: changing it leaves the saved one as saved
    at.session_state["scenario"]["cluster"]["gpu"] = "H200"
    saved_h100 = at.session_state[side_by_side.KEY]["scenarios"][0]["scenario"]
    assert saved_h100["cluster"]["gpu"] == EXAMPLE["cluster"]["gpu"]


def test_loading_a_portfolio_keeps_the_training_run_for_the_mode_switch():
    at = app("side_by_side")
    save(at, "run")
    run = copy.deepcopy(at.session_state["scenario"])
    portfolio = {"name": "portfolio", "scenario": sample("enterprise")}
    at.session_state[side_by_side.KEY]["scenarios"].append(portfolio)
    at.run()
    at.selectbox(key="sbs_load").set_value("portfolio").run()
    at.button(key="sbs_load_go").click().run()
    assert not at.exception, at.exception
    assert at.session_state["scenario"]["version"] == 2
    assert at.session_state["_scenario_run"] == run


def _share_caption(at: AppTest) -> str:
    at.sidebar.button(key="share").click().run()
    assert not at.exception, at.exception
    return next(c.value for c in at.sidebar.caption if c.value.startswith("This link carries"))


def test_the_share_caption_says_what_the_link_carries(two_saved):
    caption = _share_caption(two_saved)
    assert "the scenario (every page shows it)" in caption
    assert "2 saved scenarios for Side by side (2 picked)" in caption
    assert "Serve inputs, Fine-tune inputs join" not in caption
    bare = app("workload")
    caption = _share_caption(bare)
    assert caption.startswith("This link carries the scenario (every page shows it);")
    assert "Serve inputs, Fine-tune inputs and saved scenarios join it" in caption


def test_a_portfolio_is_offered_a_save_name_that_says_what_it_is():
    """The save form's name is never blank: a portfolio is offered its workloads, GPU and term (it
    was offered "" and a buyer had to invent a name before saving)."""
    at = app("side_by_side", scenario=sample("university"))
    sc = Scenario.model_validate(sample("university"))
    offered = at.text_input(key="sbs_name").value
    assert offered == (
        f"Portfolio, {len(sc.workloads)} workloads, {sc.cluster.gpu}, {sc.term.months} months"
    )
    at.button[0].click().run()  # saved under the offered name, untouched
    assert not at.exception, at.exception
    assert saved_names(at) == [offered]

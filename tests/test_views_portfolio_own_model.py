"""A model of one's own in a portfolio on the Workload page (issue 29 item 4), through AppTest: a
model given as JSON under the table becomes the selected row's and a choice of the Model column;
the scenario (its JSON, the share link) carries its fields in `own_models`, so a link reopens the
portfolio in a new session on a server that has forgotten the model, and Compare prices it; a
scenario file's own models are the session's; a link naming a model nobody defined says so."""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from app import share_link, state
from models.model_file import content_id
from models.portfolio.demand import size_workload
from models.scenario import Scenario
from models.shapes import ModelShape, get_preset
from tests.builders import app, sample, token_of_json
from tests.portal_app import goto
from tests.readback import field_errors, metric

#: each test starts from and leaves the registry as it found it (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("registry")


def fields(**changes) -> dict:
    """Llama 3 8B's fields as a model of one's own, 24 layers instead of 32."""
    base = get_preset("llama3-8b").model_dump(mode="json", exclude={"source"})
    return base | {"model_id": "acme-8b", "name": "Acme 8B", "layers": 24} | changes


def model_id(data: dict) -> str:
    return content_id(ModelShape.model_validate(data))


def paste(at: AppTest, data: dict | str) -> AppTest:
    at.text_area(key="p_own_text").input(data if isinstance(data, str) else json.dumps(data))
    at.button(key="p_own_use").click().run()
    assert not at.exception, at.exception
    return at


def token(at: AppTest) -> str:
    value = at.query_params["s"]
    return value[0] if isinstance(value, list) else value


def test_a_pasted_model_becomes_the_rows_and_a_link_reopens_it_anywhere(registry):
    at = app(scenario=sample("lab"))  # row 0: a pre-training run of a preset
    at = paste(at, fields())
    mine = model_id(fields())
    assert not at.error, [e.value for e in at.error]
    assert at.session_state["scenario"]["workloads"][0]["model"] == mine
    assert mine in at.data_editor[0].value.to_dict("records")[0]["model"]
    sc = Scenario.model_validate(
        {**at.session_state["scenario"], "own_models": [fields()]}
    )  # what the page validates: the session's model carried by the scenario
    sized = size_workload(sc.workloads[0], "H100-SXM")
    assert metric(at, "GPUs per run") == f"{sized.gpus_per_run:,}"
    link = token(at)
    opened = share_link.decode_link(link)
    assert [m["model_id"] for m in opened.scenario["own_models"]] == ["acme-8b"]
    assert "models" not in opened.sections  # carried once, by the scenario
    registry.clear()  # another server process: the model is only in the link
    again = app(token=link)
    assert not again.error and not again.exception
    assert again.session_state["scenario"]["workloads"][0]["model"] == mine
    assert list(again.session_state["own_models"]) == [mine]  # the pickers name it
    shown = " ".join(c.value for c in again.caption).replace("\\", "").replace("\u200b", "")
    assert "Model of your own: Acme 8B" in shown
    assert metric(again, "GPUs per run") == f"{sized.gpus_per_run:,}"
    goto(again, "compare")
    assert not again.error and not again.exception


def test_a_bad_model_under_the_table_is_named_and_the_row_keeps_its_model():
    at = paste(app(scenario=sample("lab")), fields(layers=10**6))
    assert (
        at.session_state["scenario"]["workloads"][0]["model"]
        == sample("lab")["workloads"][0]["model"]
    )
    assert "model.layers: layers: 1,000,000 is over 1,000 (allowed 1 to 1,000)" in field_errors(at)


def test_a_scenario_file_naming_its_own_model_by_id_opens_on_workload_and_compare(registry):
    data = sample("enterprise")
    data["own_models"] = [fields()]
    data["workloads"][0]["model"] = "acme-8b"  # a hand-written file names it by its own id
    registry.clear()
    at = app(scenario=data)
    assert not at.error and not at.exception, [e.value for e in at.error]
    goto(at, "compare")
    assert not at.error and not at.exception


def test_a_link_naming_a_model_nobody_defined_says_so(registry):
    data = sample("lab")
    data["workloads"][0]["model"] = model_id(fields())
    registry.clear()
    at = app(token=token_of_json(data))
    assert not at.exception
    warned = " ".join(w.value for w in at.warning).replace("\\", "").replace("\u200b", "")
    assert "This share link could not be opened" in warned
    assert f"unknown model '{model_id(fields())}'" in warned


def test_the_demand_of_a_portfolio_whose_model_was_forgotten_is_still_derived(registry):
    data = sample("lab") | {"own_models": [fields()]}
    data["workloads"][0]["model"] = "acme-8b"
    sc = Scenario.model_validate(data)
    registry.clear()  # other sessions' models pushed it out between two runs
    demand, err = state.portfolio_demand(sc)
    assert err is None and demand.workloads[0].demanded_gpu_hours > 0

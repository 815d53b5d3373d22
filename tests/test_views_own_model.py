"""A model of one's own on the Serve, Fine-tune and Workload pages (app/views/own_model.py, issue 29
item 4) through AppTest: an uploaded or pasted JSON model is the one the results use and name; a
bad one is named with its field and range, what was typed kept; a share link carries the model's
fields and reopens the same result in a new session after the server has forgotten it; a hostile
link is refused with a message."""

from __future__ import annotations

import json
import re

import pytest
from streamlit.testing.v1 import AppTest

from models.finetune.plan import FinetuneInputs, plan_finetune
from models.model_file import MAX_FILE_BYTES, content_id
from models.serving.plan import ServeInputs, plan_serving
from models.shapes import ModelShape, get_preset
from tests.builders import RUNS, app, token_of_json
from tests.portal_app import goto
from tests.readback import field_errors as errors
from tests.readback import metric
from tests.readback import metric_number as number

#: each test starts from and leaves the registry as it found it (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("registry")


def serve_inputs(model: str = "llama3-70b") -> ServeInputs:
    """The Serve page's starting inputs (requests per second) with `model`."""
    return ServeInputs(model=model, gpu="H100-SXM", input_tokens=2048, output_tokens=256,
                       rps=10.0, ttft_ms=2000, tpot_ms=50)  # fmt: skip


def fields(**changes) -> dict:
    """Llama 3 70B's fields under an id of one's own, 70 layers, with `changes`."""
    base = get_preset("llama3-70b").model_dump(mode="json", exclude={"source"})
    return base | {"model_id": "acme-70b", "name": "Acme 70B", "layers": 70} | changes


def paste(at: AppTest, prefix: str, data: dict | str) -> AppTest:
    text = data if isinstance(data, str) else json.dumps(data)
    at.text_area(key=f"{prefix}_own_text").input(text)
    at.button(key=f"{prefix}_own_use").click()
    at.run()
    assert not at.exception, at.exception
    return at


def captions(at: AppTest) -> str:
    return re.sub(r"\\(.)", r"\1", " ".join(c.value for c in at.caption)).replace("\u200b", "")


def token(at: AppTest) -> str:
    value = at.query_params["s"]
    return value[0] if isinstance(value, list) else value


def test_serve_takes_a_pasted_model_and_a_link_reopens_it_in_a_new_session(registry):
    at = paste(app("serve"), "s", fields())
    model = content_id(ModelShape.model_validate(fields()))
    assert not at.error and at.session_state["serve_inputs"]["model"] == model
    plan = plan_serving(serve_inputs(model=model))
    assert number(at, "GPUs") == plan.gpus and number(at, "TPOT") == pytest.approx(
        plan.tpot_ms, abs=0.05
    )
    assert plan.tpot_ms != plan_serving(serve_inputs()).tpot_ms  # 70 layers, not the preset's 80
    assert "Model of your own: Acme 70B" in captions(at) and model in captions(at)
    assert at.selectbox(key="s_model").value == model
    registry.clear()  # other sessions' models pushed it out of the server's registry
    at.run()
    assert not at.error and number(at, "GPUs") == plan.gpus  # registered again from the copy
    link = token(at)
    registry.clear()  # another server process, or the model dropped since
    again = app("serve", link)
    assert not again.error and not again.warning
    assert again.session_state["serve_inputs"]["model"] == model
    assert number(again, "GPUs") == plan.gpus and "Acme 70B" in captions(again)


def test_serve_takes_an_uploaded_file_and_refuses_a_bad_one_naming_the_field():
    at = app("serve")
    at.file_uploader(key="s_own_file").upload(
        "acme.json", json.dumps(fields(kv_heads=7)).encode(), "application/json"
    )
    at.run()
    assert "model.kv_heads" in errors(at) and "kv_heads: 7 does not divide" in errors(at)
    assert at.session_state["serve_inputs"]["model"] == "llama3-70b"  # the model stays
    assert json.loads(at.text_area(key="s_own_text").value)["kv_heads"] == 7  # shown to fix
    at.file_uploader(key="s_own_file").set_value(
        ("acme.json", json.dumps(fields()).encode(), "application/json")
    )
    at.run()
    assert not at.error and "Acme 70B" in captions(at)
    big = b" " * (MAX_FILE_BYTES + 1)
    at.file_uploader(key="s_own_file").set_value(("big.json", big, "application/json"))
    at.run()
    assert f"over the {MAX_FILE_BYTES:,} allowed" in errors(at)
    assert "Acme 70B" in at.text_area(key="s_own_text").value  # refused before it was read


def test_finetune_takes_a_pasted_model_and_keeps_a_bad_one_as_typed():
    at = paste(app("finetune"), "f", fields(layers=5000))
    assert "model.layers" in errors(at) and "allowed 1 to 1,000" in errors(at)
    assert "Trainable params" in [m.label for m in at.metric]  # the preset's result stands
    goto(at, "serve")
    goto(at, "finetune")  # away and back: the text is still there
    assert json.loads(at.text_area(key="f_own_text").value)["layers"] == 5000
    at = paste(at, "f", fields())
    model = content_id(ModelShape.model_validate(fields()))
    inputs = FinetuneInputs.model_validate(at.session_state["finetune_inputs"])
    assert inputs.model == model and not at.error
    plan = plan_finetune(inputs)
    assert number(at, "GPUs") == plan.gpus and "Acme 70B" in captions(at)


def test_finetune_refuses_text_that_is_not_a_model():
    at = paste(app("finetune"), "f", "{not json")
    assert "not JSON" in errors(at)
    at = paste(at, "f", fields(evil=1))
    assert "model.evil" in errors(at) and "not a model field" in errors(at)
    assert at.session_state["finetune_inputs"]["model"] == "llama3-8b"


def test_workload_sizes_a_pasted_model_and_its_link_reopens_the_same_result(registry):
    at = paste(app("workload"), "w", fields(name="Acme 8B", **{
        k: v for k, v in get_preset("llama3-8b").model_dump(mode="json").items()
        if k not in ("model_id", "name", "source")} | {"layers": 30}))  # fmt: skip
    assert not at.error
    model = at.session_state["scenario"]["workload"]["model"]
    assert model.startswith("acme-70b@") and get_preset(model).layers == 30
    assert "Model of your own: Acme 8B" in captions(at)
    gpus, days = metric(at, "GPUs"), metric(at, "Whole-run days")
    registry.clear()  # pushed out of the server's registry: registered again from the copy
    at.run()
    assert not at.error and metric(at, "GPUs") == gpus
    link = token(at)
    registry.clear()
    again = app("workload", link)
    assert not again.error and not again.warning
    assert again.session_state["scenario"]["workload"]["model"] == model
    assert (metric(again, "GPUs"), metric(again, "Whole-run days")) == (gpus, days)
    assert again.selectbox(key="w_model").value == model


def _bad_link(models: dict, *, in_scenario: bool) -> str:
    model = "acme-70b@" + "0" * 12
    data = {"version": 1, **RUNS, "serve": {"version": 2, "model": model, "gpu": "H100-SXM",
            "input_tokens": 10, "output_tokens": 10}, "models": models}  # fmt: skip
    if in_scenario:
        data["workload"] = {"model": model}
    return token_of_json(data)


@pytest.mark.parametrize(
    ("models", "says"),
    [
        ({"version": 1, "models": [fields(source="x" * 9000)]}, "too large"),
        ({"version": 1, "models": [fields(evil=1)]}, "evil: not a model field"),
        ({"version": 1, "models": [fields(layers=10**7)]}, "layers: 10,000,000 is over 1,000"),
    ],
)
def test_a_hostile_link_is_refused_with_a_message(models, says):
    at = app("serve", _bad_link(models, in_scenario=False))
    warned = " ".join(w.value for w in at.warning).replace("\\", "").replace("\u200b", "")
    assert "models of your own were not opened" in warned and says in warned
    assert "unknown model" in errors(at)  # the Serve inputs name a model the link lacked
    at = app("workload", _bad_link(models, in_scenario=True))
    warned = " ".join(w.value for w in at.warning).replace("\\", "").replace("\u200b", "")
    assert "This share link could not be opened" in warned and says in warned
    assert at.session_state["scenario"]["workload"]["model"] != "acme-70b@" + "0" * 12

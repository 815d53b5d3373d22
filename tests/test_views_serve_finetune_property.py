"""Any inputs the records accept (ServeInputs, FinetuneInputs) render on the Serve and Fine-tune
pages: the inputs show the values, the page shows the core's plan for them or the core's message
naming the field, never a traceback, and rendering changes nothing in the inputs."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from streamlit.testing.v1 import AppTest

from app.schema_widgets import parse_number
from app.views import finetune as finetune_page
from app.views import serve as serve_page
from models.errors import InputError
from models.finetune.plan import FinetuneInputs, plan_finetune
from models.hardware import load_gpus
from models.scenario import field_bounds
from models.serving.plan import ServeInputs, plan_serving
from models.shapes import load_presets
from tests.builders import app

PRESETS = list(load_presets())
GPUS = list(load_gpus())


def bounded(model, name, *edges, integers=False):
    """Values the record accepts for a field: its bounds, the given edge values, any between."""
    b = field_bounds(model, name)
    low, high = b.get("ge", b.get("gt")), b["le"]
    if integers:
        inner = st.integers(low, high)
    else:
        inner = st.floats(low, high, exclude_min="gt" in b, allow_subnormal=False)
    ends = [high] if "gt" in b else [low, high]
    return st.one_of(st.sampled_from([*ends, *edges]), inner)


def first_error(at: AppTest) -> str:
    return re.sub(r"^` (.*?) `.*", r"\1", at.error[0].value) if at.error else ""


def shows_plan_or_its_error(at: AppTest, plan_or_error, field_metric: tuple[str, str]) -> None:
    """The core's plan (its GPU count) or the core's InputError field, and nothing else."""
    label, attr = field_metric
    if isinstance(plan_or_error, InputError):
        assert first_error(at) == plan_or_error.field, (first_error(at), plan_or_error)
        assert not at.metric
    else:
        assert not at.error, [e.value for e in at.error]
        shown = next(m.value for m in at.metric if m.label == label)
        assert float(shown.split()[0].replace(",", "")) == getattr(plan_or_error, attr)


def core(plan, inputs):
    try:
        return plan(inputs)
    except InputError as exc:
        return exc


# ----------------------------------------------------------------------------------------- Serve


@st.composite
def serve_data(draw) -> tuple[dict, str]:
    data = {
        "model": draw(st.sampled_from(PRESETS)),
        "gpu": draw(st.sampled_from(GPUS)),
        "input_tokens": draw(bounded(ServeInputs, "input_tokens", 128, 2048, integers=True)),
        "output_tokens": draw(bounded(ServeInputs, "output_tokens", 128, 512, integers=True)),
    }
    if precision := draw(st.sampled_from([None, "bf16", "fp8", "fp4"])):  # None: the GPU's
        data["precision"] = precision
    if kv := draw(st.sampled_from([None, "bf16", "fp8"])):
        data["kv_precision"] = kv
    traffic = draw(st.sampled_from(["rps", "users"]))
    if traffic == "rps":
        data["rps"] = draw(bounded(ServeInputs, "rps", 1.0, 50.0))
    else:
        data["users"] = draw(bounded(ServeInputs, "users", 16, 256, integers=True))
    for name, edges in (("ttft_ms", (500.0, 2000.0)), ("tpot_ms", (20.0, 50.0))):
        if draw(st.booleans()):
            data[name] = draw(bounded(ServeInputs, name, *edges))
    if draw(st.booleans()):
        data["gpus"] = draw(bounded(ServeInputs, "gpus", 2, 8, integers=True))
    if mode := draw(st.sampled_from([None, "auto", "colocated", "split"])):
        data["prefill_decode"] = mode
    ServeInputs.model_validate(data)  # the record accepts it
    return data, traffic


@settings(max_examples=40)
@given(serve_data())
def test_any_valid_serve_inputs_show_their_values_and_the_cores_plan(case):
    data, traffic = case
    at = app("serve", session={serve_page.KEY: data, serve_page.TRAFFIC_KEY: traffic})
    assert at.selectbox(key="s_model").value == data["model"]
    assert at.selectbox(key="s_gpu").value == data["gpu"]
    assert at.selectbox(key="s_precision").value == data.get("precision")
    assert at.selectbox(key="s_kv").value == data.get("kv_precision")
    assert at.selectbox(key="s_prefill_decode").value == data.get("prefill_decode", "auto")
    assert at.number_input(key="s_input").value == data["input_tokens"]
    assert at.number_input(key="s_output").value == data["output_tokens"]
    assert at.radio(key="s_traffic").value == traffic
    assert at.number_input(key=f"s_{traffic}").value == data[traffic]
    for name, key in (("ttft_ms", "s_ttft"), ("tpot_ms", "s_tpot"), ("gpus", "s_gpus")):
        box = at.text_input(key=key).value
        assert (parse_number(box) if box else None) == data.get(name), name  # exactly
    shows_plan_or_its_error(at, core(plan_serving, ServeInputs(**data)), ("GPUs", "gpus"))
    assert at.session_state[serve_page.KEY] == data  # rendering changed nothing


# ------------------------------------------------------------------------------------- Fine-tune


@st.composite
def finetune_data(draw) -> dict:
    data = {
        "model": draw(st.sampled_from(PRESETS)),
        "method": draw(st.sampled_from(["full", "lora", "qlora"])),
        "gpu": draw(st.sampled_from(GPUS)),
        "precision": draw(st.sampled_from(["bf16", "fp8"])),
        "tokens": draw(bounded(FinetuneInputs, "tokens", 1e6, 1e9)),
        "epochs": draw(bounded(FinetuneInputs, "epochs", 1.0, 3.0)),
        "seq_len": draw(bounded(FinetuneInputs, "seq_len", 2048, 8192, integers=True)),
        "global_batch_seqs": draw(
            bounded(FinetuneInputs, "global_batch_seqs", 16, 64, integers=True)
        ),
        "lora_rank": draw(bounded(FinetuneInputs, "lora_rank", 8, 64, integers=True)),
    }
    if draw(st.booleans()):
        data["gpus"] = draw(bounded(FinetuneInputs, "gpus", 8, 64, integers=True))
    FinetuneInputs.model_validate(data)
    return data


@settings(max_examples=30)
@given(finetune_data())
def test_any_valid_finetune_inputs_show_their_values_and_the_cores_plan(data):
    at = app("finetune", session={finetune_page.KEY: data})
    assert at.selectbox(key="f_model").value == data["model"]
    assert at.selectbox(key="f_method").value == data["method"]
    assert at.selectbox(key="f_gpu").value == data["gpu"]
    assert at.selectbox(key="f_precision").value == data["precision"]
    assert at.number_input(key="f_tokens").value == pytest.approx(data["tokens"] / 1e6)
    assert at.number_input(key="f_epochs").value == data["epochs"]
    assert at.number_input(key="f_seq").value == data["seq_len"]
    assert at.number_input(key="f_batch").value == data["global_batch_seqs"]
    if data["method"] != "full":
        assert at.number_input(key="f_rank").value == data["lora_rank"]
    box = at.text_input(key="f_gpus").value
    assert (parse_number(box) if box else None) == data.get("gpus")
    plan = core(plan_finetune, FinetuneInputs(**data))
    shows_plan_or_its_error(at, plan, ("GPUs", "gpus"))
    assert at.session_state[finetune_page.KEY] == data

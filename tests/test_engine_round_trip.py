"""An engine chosen explicitly survives the round trip (issue 29, found with the ROCm builds):
share links and scenario files write the fields that differ from the defaults, so TensorRT-LLM
(the field's default) chosen for a serving workload on an AMD cluster used to read back as
"left at its default", i.e. vLLM's ROCm build, instead of being refused. Now an explicit engine
is written even at the default, an engine left unset stays unset, and both sides refuse the same
way, naming the field and the engines allowed: the portfolio's link and scenario JSON, the Serve
page's link section, and `clusterplan compare` on either."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from app import share_link
from app.cli import main
from app.scenario_files import PORTFOLIOS
from app.views import serve as serve_page
from models.errors import InputError
from models.scenario import Scenario
from models.serving.plan import ServeInputs
from tests.builders import app

REFUSAL = "TensorRT-LLM does not run on AMD GPUs (MI300X); choose one of: vllm, sglang"


def _amd_portfolio(engine: str | None) -> dict:
    data = json.loads(PORTFOLIOS["enterprise"].read_text())
    data["cluster"] = {"gpu": "MI300X"}
    serve = next(w for w in data["workloads"] if w["kind"] == "serve")
    if engine is not None:
        serve["engine"] = engine
    return data


def _serve(sc: Scenario):
    return next(w for w in sc.workloads if w.kind == "serve")


def test_tensorrt_chosen_on_amd_reads_back_from_a_link_as_chosen_and_is_refused():
    sc = Scenario.model_validate(_amd_portfolio("tensorrt-llm"))
    back = share_link.decode(share_link.encode(sc))
    w = _serve(back)
    assert "engine" in w.model_fields_set and w.engine == "tensorrt-llm"
    with pytest.raises(InputError) as exc:
        w.engine_on("MI300X")
    assert exc.value.field == "engine" and REFUSAL in str(exc.value)


def test_the_scenario_file_keeps_it_and_compare_refuses_it_from_file_and_link(tmp_path, capsys):
    sc = Scenario.model_validate(_amd_portfolio("tensorrt-llm"))
    path = tmp_path / "s.json"
    path.write_text(sc.model_dump_json(exclude_defaults=True))  # as scenario files are written
    assert main(["compare", str(path)]) != 0
    from_file = capsys.readouterr().err
    assert "workloads[1].engine" in from_file and REFUSAL in from_file
    linked = tmp_path / "l.json"
    linked.write_text(share_link.decode(share_link.encode(sc)).model_dump_json())
    assert main(["compare", str(linked)]) != 0
    assert REFUSAL in capsys.readouterr().err


def test_an_engine_left_unset_stays_unset_and_runs_the_gpus_default():
    sc = Scenario.model_validate(_amd_portfolio(None))
    w = _serve(share_link.decode(share_link.encode(sc)))
    assert "engine" not in w.model_fields_set and w.engine_on("MI300X") == "vllm"
    assert "engine" not in json.loads(sc.model_dump_json(exclude_defaults=True))["workloads"][1]


def test_the_serve_section_keeps_an_explicit_engine_and_leaves_a_default_out():
    given = dict(model="llama3-70b", input_tokens=2000, output_tokens=300, rps=1.0)
    chosen = ServeInputs(gpu="H100-SXM", engine="tensorrt-llm", **given)
    assert share_link.section_data("serve", chosen)["engine"] == "tensorrt-llm"
    default = ServeInputs(gpu="H100-SXM", **given)
    assert "engine" not in share_link.section_data("serve", default)
    on_amd = ServeInputs(gpu="MI300X", **given)
    assert on_amd.engine == "vllm"  # unset: the GPU's default, and left out of the link
    assert "engine" not in share_link.section_data("serve", on_amd)
    assert on_amd.model_dump()["engine"] == "vllm"  # a full dump says what runs
    with pytest.raises(ValidationError) as exc:
        ServeInputs(gpu="MI300X", engine="tensorrt-llm", **given)
    (err,) = exc.value.errors()
    assert err["loc"] == ("engine",) and REFUSAL in err["msg"]


def test_the_serve_page_reopens_an_explicit_engine_as_chosen():
    chosen = ServeInputs(
        model="llama3-70b",
        gpu="H100-SXM",
        engine="tensorrt-llm",
        input_tokens=2000,
        output_tokens=300,
        rps=1.0,
    )
    token = share_link.encode(Scenario.model_validate({}), {"serve": chosen})
    at = app("serve", token)
    assert at.selectbox(key="s_engine").value == "tensorrt-llm"
    assert at.session_state[serve_page.KEY]["engine"] == "tensorrt-llm"


def test_the_gpu_comparison_runs_each_gpus_default_unless_one_was_chosen():
    """The Serve page's GPU comparison: a service left at the default engine runs TensorRT-LLM on
    NVIDIA and vLLM's ROCm build on AMD (it used to carry H100's TensorRT-LLM to MI300X, refused,
    and MI300X's vLLM to H100); an engine chosen explicitly is kept, and refused where it does
    not run."""
    from pricing.serving_economics import compare_gpus

    given = dict(model="llama3-70b", input_tokens=2000, output_tokens=300, rps=5.0)
    on_h100 = {c.gpu: c for c in compare_gpus(ServeInputs(gpu="H100-SXM", **given), ["MI300X"])}
    assert on_h100["MI300X"].note in (None, "") and on_h100["MI300X"].gpus
    own = {c.gpu: c for c in compare_gpus(ServeInputs(gpu="H100-SXM", **given), ["H100-SXM"])}
    from_amd = {c.gpu: c for c in compare_gpus(ServeInputs(gpu="MI300X", **given), ["H100-SXM"])}
    assert from_amd["H100-SXM"].ttft_ms == own["H100-SXM"].ttft_ms  # TensorRT-LLM, not vLLM
    chosen = ServeInputs(gpu="H100-SXM", engine="tensorrt-llm", **given)
    (refused,) = compare_gpus(chosen, ["MI300X"])
    assert refused.gpus is None and REFUSAL in refused.note


def test_the_compare_page_opened_from_the_link_refuses_it_naming_the_field():
    sc = Scenario.model_validate(_amd_portfolio("tensorrt-llm"))
    at = app("compare", share_link.encode(sc))
    text = " ".join(e.value for e in at.error).replace("\\", "").replace("\u200b", "")
    assert "workloads[1].engine" in text and "TensorRT-LLM does not run on AMD GPUs" in text
    assert "choose one of: vllm, sglang" in text


def test_the_compare_page_sizes_a_default_engine_on_amd_as_the_command_line_does():
    """The page's engine caches key the scenario by its JSON; a full dump named TensorRT-LLM for
    a serving workload left at its default, and the page refused every AMD portfolio with one
    (the command line sized it with vLLM's ROCm build)."""
    sc = Scenario.model_validate(_amd_portfolio(None))
    at = app("compare", share_link.encode(sc))
    assert not at.error, [e.value for e in at.error]
    page = " ".join(str(m.value) for m in at.markdown).replace("\\", "")
    assert "cheaper than" in page  # compared and recommended, not refused

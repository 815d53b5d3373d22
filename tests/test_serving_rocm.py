"""ROCm engine builds, engine versions and the MI300X/MI325X scale-up mesh (models/serving/builds.py,
models/serving/roofline.py `group_scaleup_rate`; docs/reference/serving-evidence.md, sixteenth
amendment): TensorRT-LLM is refused on AMD naming `engine` and the engines allowed, vLLM's ROCm
build is the AMD default and is named, a version travels through every surface, a small
tensor-parallel group on the mesh gets its own links' rate, and NVIDIA plans do not move."""

from __future__ import annotations

import json

import numpy as np
import pytest
from pydantic import ValidationError

from app.cli import main
from app.formatting import serve_engine_text
from app.share_link import decode, encode
from app.views import serve as serve_page
from models.errors import InputError
from models.hardware import get_gpu, load_gpus
from models.portfolio.workloads import Serve
from models.scenario import Scenario
from models.serving import builds, roofline
from models.serving.plan import ServeInputs, plan_serving
from models.units import BYTES_PER_GB
from tests.builders import app


def run_cli(capsys, *args: str) -> tuple[int, str]:
    """`clusterplan ARGS`: its exit code and what it printed (out and err)."""
    try:
        rc = main(list(args))
    except SystemExit as exc:
        rc = exc.code
    out, err = capsys.readouterr()
    return rc, out + err


MI300X = {"model": "llama3-70b", "gpu": "MI300X", "input_tokens": 1000, "output_tokens": 300}
H100 = MI300X | {"gpu": "H100-SXM"}


def _plan(**fields):
    return plan_serving(ServeInputs(**(MI300X | {"rps": 2.0} | fields)))


# ---------------------------------------------------------------------------- engines on AMD


@pytest.mark.parametrize("gpu", ["MI300X", "MI325X"])
def test_tensorrt_llm_is_refused_on_amd_naming_the_field_and_the_engines_allowed(gpu):
    with pytest.raises(ValidationError) as exc:
        ServeInputs(**(MI300X | {"gpu": gpu, "engine": "tensorrt-llm", "rps": 1.0}))
    err = exc.value.errors()[0]
    assert err["loc"] == ("engine",)
    assert "does not run on AMD GPUs" in err["msg"] and "vllm, sglang" in err["msg"]


def test_tensorrt_llm_on_amd_through_the_cli_names_the_option(capsys):
    code, out = run_cli(
        capsys, "serve", "--model", "llama3-70b", "--gpu", "MI300X", "--rps", "2", "--input-tokens", "1000", "--output-tokens", "300",
        "--engine", "tensorrt-llm",
    )  # fmt: skip
    assert code != 0
    assert "--engine" in out and "vllm, sglang" in out and "Traceback" not in out


def test_the_amd_default_is_vllms_rocm_build_and_the_output_names_it(capsys):
    inp = ServeInputs(**(MI300X | {"rps": 2.0}))
    assert inp.engine == "vllm"
    assert ServeInputs(**(H100 | {"rps": 2.0})).engine == "tensorrt-llm"
    plan = plan_serving(inp)
    assert plan.engine_version == builds.ROCM_BUILDS["vllm"][-1].version  # dense: 0.10.2 (32nd)
    assert plan.software_generation.startswith("vLLM (ROCm) 0.10.2")
    code, out = run_cli(
        capsys,
        "serve",
        "--model",
        "llama3-70b",
        "--gpu",
        "MI300X",
        "--rps",
        "2",
        "--input-tokens",
        "1000",
        "--output-tokens",
        "300",
    )
    assert code == 0 and "vLLM (ROCm) 0.10.2" in out.splitlines()[0]


def test_a_rocm_build_costs_its_measured_step_not_cuda_vllms():
    """k · step + layers · s: the fitted constants change the step; CUDA vLLM's factor does not."""
    inp = ServeInputs(**(MI300X | {"gpus": 8, "users": 4, "engine": "vllm:0.6.3"}))
    from models.serving.plan import evaluate

    rocm = evaluate(inp, [8], [1], [4.0])["t_step"][0]
    b = builds.resolve("vllm", "MI300X", "0.6.3", moe=False)
    raw = (rocm - 80 * b.step_s_per_layer) / b.step_factor
    assert b.step_factor > 1.5 and rocm > 1.5 * raw


# ---------------------------------------------------------------------------- versions


def test_a_version_not_measured_uses_the_nearest_measured_with_a_note():
    plan = _plan(engine="vllm:0.9.2")
    assert plan.engine_version == "0.10.2"  # the nearest measured on a dense model (32nd)
    assert "0.9.2 was not measured" in plan.engine_note and "0.10.2" in plan.software_generation
    older = _plan(engine="vllm:0.7.0")
    assert older.engine_version == "0.6.3"  # nearer 0.6.3 than 0.10.2 among dense builds
    moe = plan_serving(
        ServeInputs(
            model="deepseek-v3-like", gpu="MI300X", input_tokens=3200, output_tokens=800,
            users=64, gpus=8, engine="vllm:0.8.0",
        )
    )  # fmt: skip
    assert moe.engine_version == "0.7.3"
    exact = _plan(engine="vllm:0.6.3")
    assert exact.engine_version == "0.6.3" and exact.engine_note is None


def test_nearest_version_picks_by_release_numbers():
    vllm = builds.ROCM_BUILDS["vllm"]
    assert builds._nearest(vllm, "0.6.4").version == "0.6.3"
    assert builds._nearest(vllm, "0.7.2.dev5").version == "0.7.3"
    assert builds._nearest(vllm, "0.12.0").version == "0.10.2"
    assert builds._nearest(vllm, "0.8.0").version == "0.7.3"


@pytest.mark.parametrize("text", ["vllm:abc", "vllm:", "vllm:0.7.3; rm -rf", "vllm:" + "9" * 60])
def test_a_malformed_version_is_refused_naming_engine(text):
    with pytest.raises(ValidationError) as exc:
        ServeInputs(**(MI300X | {"rps": 1.0, "engine": text}))
    assert exc.value.errors()[0]["loc"] == ("engine",)


def test_cuda_version_is_carried_and_named_and_costs_do_not_move():
    base = plan_serving(ServeInputs(**(H100 | {"rps": 2.0, "engine": "vllm"})))
    versioned = plan_serving(ServeInputs(**(H100 | {"rps": 2.0, "engine": "vllm:0.15.1"})))
    assert versioned.engine_version == "0.15.1" and versioned.engine_note is None
    assert versioned.tpot_ms == base.tpot_ms and versioned.gpus == base.gpus
    old = plan_serving(ServeInputs(**(H100 | {"rps": 2.0, "engine": "vllm:0.6.0"})))
    assert "0.11.2 to 0.19.0" in old.engine_note


def test_an_unset_version_leaves_cuda_json_as_before():
    data = plan_serving(ServeInputs(**(H100 | {"rps": 2.0}))).model_dump(mode="json")
    assert "engine_version" not in data and "engine_note" not in data
    assert "engine_version" not in ServeInputs(**(H100 | {"rps": 2.0})).model_dump(mode="json")
    assert _plan().model_dump(mode="json")["engine_version"] == "0.10.2"


def test_serve_json_carries_the_version(capsys):
    code, out = run_cli(
        capsys, "serve", "--model", "llama3-70b", "--gpu", "MI300X", "--rps", "2", "--input-tokens", "1000", "--output-tokens", "300",
        "--engine", "sglang:0.4.2", "--json",
    )  # fmt: skip
    assert code == 0
    data = json.loads(out)
    assert data["engine"] == "sglang" and data["engine_version"] == "0.4.2"


# ---------------------------------------------------------------------------- the mesh


def test_mi300x_mesh_group_rates_are_their_own_links_not_the_aggregate():
    for gpu_id in ("MI300X", "MI325X"):
        gpu = get_gpu(gpu_id)
        assert gpu.scaleup_link_gbyte_per_s == 64
        up = roofline.link_rates(gpu)[0]
        rate = roofline.group_scaleup_rate(gpu, np.array([2.0, 4.0, 8.0]))
        link = 64 * BYTES_PER_GB * (up / (gpu.scaleup_bandwidth_gbyte_per_s * BYTES_PER_GB))
        assert rate == pytest.approx([link, 3 * link, up])  # 64, 192, 448 GB/s before efficiency


def test_every_switched_gpu_keeps_its_whole_rate_for_any_group():
    for gpu in load_gpus().values():
        if gpu.scaleup_link_gbyte_per_s is None:
            rate = roofline.group_scaleup_rate(gpu, np.array([2.0, 4.0, 8.0]))
            assert rate == pytest.approx([roofline.link_rates(gpu)[0]] * 3)


def test_a_tp2_all_reduce_on_mi300x_takes_the_pair_links_time():
    gpu = get_gpu("MI300X")
    size = 64e6
    t2 = roofline._allreduce_s(size, np.array([2.0]), gpu)[0]
    t8 = roofline._allreduce_s(size, np.array([8.0]), gpu)[0]
    # ring: 2·(n−1)/n·S/B; on the aggregate TP 2 would be 4x faster than TP 8's per-byte time
    assert t2 > 2.5 * t8


# ---------------------------------------------------------------------------- portfolio, links


def test_a_portfolio_service_on_an_amd_cluster_runs_vllm_rocm_or_refuses_tensorrt():
    w = Serve(name="chat", team="t", duration_months=12)
    assert w.engine_on("MI300X") == "vllm" and w.engine_on("H100-SXM") == "tensorrt-llm"
    assert serve_engine_text(w, "MI300X") == "vLLM (ROCm) 0.10.2"
    explicit = Serve(name="chat", team="t", duration_months=12, engine="tensorrt-llm")
    with pytest.raises(InputError) as exc:
        explicit.engine_on("MI300X")
    assert exc.value.field == "engine"


def test_a_share_link_keeps_the_engine_version():
    from app.scenario_files import PORTFOLIOS

    data = json.loads(PORTFOLIOS["enterprise"].read_text())
    serve = next(w for w in data["workloads"] if w["kind"] == "serve")
    serve["engine"] = "vllm:0.7.3"
    scenario = Scenario.model_validate(data)
    back = decode(encode(scenario))
    w = next(w for w in back.workloads if w.kind == "serve")
    assert (w.engine, w.engine_version) == ("vllm", "0.7.3")
    assert back == scenario


# ---------------------------------------------------------------------------- the Serve page


def test_the_serve_page_offers_the_rocm_builds_on_amd():
    at = app("serve", session={serve_page.KEY: dict(serve_page.STARTING, gpu="MI300X")})
    box = at.selectbox(key="s_engine")
    assert box.options == ["Default: vLLM (ROCm)", "vLLM (ROCm)", "SGLang (ROCm)"]
    assert not at.error
    text = " ".join(c.value for c in at.caption)
    assert "vLLM (ROCm) 0.10.2" in text
    at.text_input(key="s_engine_version").set_value("0.9.2").run()
    text = " ".join(c.value for c in at.caption)
    assert "0.9.2 was not measured" in text


def test_the_serve_page_names_tensorrt_kept_on_an_amd_gpu():
    at = app(
        "serve",
        session={serve_page.KEY: dict(serve_page.STARTING, gpu="MI300X", engine="tensorrt-llm")},
    )
    assert any("does not run on AMD GPUs" in e.value for e in at.error)

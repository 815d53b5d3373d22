"""A serving replica over more than one node (docs/reference/serving-evidence.md, twenty-fourth
amendment): tensor parallel over 2, 4 or 8 nodes for SGLang and TensorRT-LLM on CUDA GPUs, the
fourteenth amendment's crossing term with its rate scaled by the NIC under 400 Gb/s, vLLM and ROCm
refused, and the search offering it only to a dense model no node holds."""

from __future__ import annotations

import pytest

from models.errors import InputError
from models.hardware import get_gpu
from models.serving import plan as serving_plan
from models.serving.engines import ENGINES
from models.serving.plan import ServeInputs, plan_serving
from models.shapes import get_preset
from models.units import BYTES_PER_GB
from tests.builders import run_cli

DEEPSEEK_16 = {
    "model": "deepseek-v3-like",
    "gpu": "H100-SXM",
    "precision": "fp8",
    "engine": "sglang",
    "input_tokens": 1024,
    "output_tokens": 1024,
    "users": 1,
    "gpus": 16,
}
DENSE_70B = {
    "model": "llama3-70b",
    "gpu": "H100-SXM",
    "input_tokens": 1000,
    "output_tokens": 500,
    "users": 8,
}


def _with_nic(monkeypatch, gbit: float) -> None:
    """H100 with another NIC per GPU (gpus.csv scaleout_bandwidth_gbit_per_s), wherever plan.py
    reads the GPU."""
    real = get_gpu

    def patched(gpu_id):
        spec = real(gpu_id)
        return spec.model_copy(update={"scaleout_bandwidth_gbit_per_s": gbit})

    monkeypatch.setattr(serving_plan, "get_gpu", patched)


def test_a_16_gpu_deepseek_replica_on_h100_is_planned_over_two_nodes():
    p = plan_serving(ServeInputs(**DEEPSEEK_16))
    assert (p.tp, p.gpus_per_replica, p.nodes_per_replica, p.gpus) == (16, 16, 2, 16)
    # the memory check is per GPU: FP8 weights over 16 GPUs fit an 80 GB H100
    assert p.weights_gib_per_gpu < get_gpu("H100-SXM").memory_gib
    assert p.weights_gib_per_gpu == pytest.approx(
        get_preset("deepseek-v3-like").params_total / 16 / 2**30, rel=1e-9
    )


def test_its_tpot_carries_the_scale_out_term_that_grows_as_the_nic_halves(monkeypatch):
    """Halving the NIC (400 -> 200 Gb/s) halves the crossing rate r_tp: at one sequence TPOT grows
    by exactly f_e · layers · hidden · 2 bytes / r_tp (the prefill is unchanged), and TTFT by the
    same through its first decode step."""
    full = plan_serving(ServeInputs(**DEEPSEEK_16))
    _with_nic(monkeypatch, 200.0)
    half = plan_serving(ServeInputs(**DEEPSEEK_16))
    spec, shape = ENGINES["sglang"], get_preset("deepseek-v3-like")
    r_tp = spec.crossing[1] * BYTES_PER_GB
    grown = spec.decode_step_factor * shape.layers * 1 * shape.hidden * 2 / r_tp
    assert half.batch == full.batch == 1
    assert (half.tpot_ms - full.tpot_ms) / 1e3 == pytest.approx(grown, rel=1e-6)
    assert half.ttft_ms > full.ttft_ms


def test_a_faster_nic_than_the_fits_is_not_credited(monkeypatch):
    full = plan_serving(ServeInputs(**DEEPSEEK_16))
    _with_nic(monkeypatch, 800.0)
    assert plan_serving(ServeInputs(**DEEPSEEK_16)).tpot_ms == full.tpot_ms


def test_a_dense_70b_over_two_h100_nodes_per_engine():
    """TensorRT-LLM and SGLang run TP 16 over two nodes; vLLM TP 8 x PP 2 (twenty-eighth
    amendment): half the weights per GPU either way."""
    tp8 = plan_serving(ServeInputs(**DENSE_70B, gpus=8))
    for engine in ("tensorrt-llm", "sglang", "vllm"):
        p = plan_serving(ServeInputs(**DENSE_70B, gpus=16, engine=engine))
        assert (p.tp * (p.pp or 1), p.nodes_per_replica) == (16, 2)
        assert (p.tp, p.pp) == ((8, 2) if engine == "vllm" else (16, None))
        assert p.weights_gib_per_gpu == pytest.approx(tp8.weights_gib_per_gpu / 2, rel=1e-9)


def test_rocm_and_odd_counts_are_refused_with_the_allowed_values():
    with pytest.raises(InputError) as e:
        plan_serving(ServeInputs(**DENSE_70B | {"gpu": "MI300X"}, gpus=16, engine="sglang"))
    assert e.value.field == "gpus" and "ROCm" in str(e.value)
    assert str(e.value).endswith("give 1 to 8")  # no multiples offered on AMD
    with pytest.raises(InputError) as e:
        plan_serving(ServeInputs(**DENSE_70B, gpus=24))
    assert e.value.field == "gpus" and "16, 32, 64" in str(e.value)


@pytest.mark.parametrize("rps", [0.5, 5.0, 50.0, 500.0])
def test_a_buyer_whose_model_one_node_holds_never_gets_two_nodes(monkeypatch, rps):
    """Not only the plan chosen: no layout over nodes is even evaluated for a model one node holds
    (the search's gate), so no tie-break or SLO can hand the buyer two nodes."""
    tps = []
    real = serving_plan.evaluate

    def recording(inp, tp, *args, **kwargs):
        tps.extend(float(t) for t in list(tp))
        return real(inp, tp, *args, **kwargs)

    monkeypatch.setattr(serving_plan, "evaluate", recording)
    base = {k: v for k, v in DENSE_70B.items() if k != "users"}
    p = plan_serving(ServeInputs(**base, rps=rps, engine="sglang"))
    assert p.gpus_per_replica <= 8 and p.nodes_per_replica is None
    assert "nodes_per_replica" not in p.model_dump()
    assert max(tps) <= 8


def test_a_dense_model_no_node_holds_is_planned_over_nodes_in_the_search():
    inp = {"model": "llama3-405b", "gpu": "H100-SXM", "precision": "bf16"}
    inp |= {"input_tokens": 1000, "output_tokens": 500, "rps": 1.0}
    p = plan_serving(ServeInputs(**inp))
    assert p.tp == 16 and p.nodes_per_replica == 2 and p.pp is None
    # vLLM: TP within a node x one pipeline stage per node (twenty-eighth amendment)
    p = plan_serving(ServeInputs(**inp, engine="vllm"))
    assert (p.tp, p.pp, p.gpus_per_replica, p.nodes_per_replica) == (8, 2, 16, 2)


def test_more_gpus_are_not_offered_where_no_larger_replica_is_laid_out():
    """A model no node holds on an engine or build with no replica over nodes (ROCm): the message
    says why more GPUs do not help and what does; within one node it still says more GPUs."""
    big = {"model": "megatron-1t", "gpu": "MI300X", "precision": "bf16"}
    big |= {"input_tokens": 1000, "output_tokens": 500, "rps": 1.0}
    with pytest.raises(InputError) as e:
        plan_serving(ServeInputs(**big))
    assert e.value.field == "model"
    assert "more GPUs do not help here" in str(e.value) and "use more GPUs" not in str(e.value)
    assert "ROCm" in str(e.value)
    with pytest.raises(InputError) as e:  # within one node more GPUs still help
        plan_serving(ServeInputs(**big | {"model": "llama3-405b", "gpus": 2}))
    assert "use more GPUs" in str(e.value)


def test_the_cli_names_gpus_and_the_allowed_values_for_a_count_no_replica_spans():
    rc, out, err = run_cli(
        "serve",
        *("--model", "llama3-70b", "--gpu", "H100-SXM", "--engine", "vllm"),
        *("--input-tokens", "1000", "--output-tokens", "500", "--gpus", "24", "--users", "8"),
    )
    assert rc == 2 and out == ""
    assert "--gpus" in err and "give 1 to 8, or 16, 32, 64 over nodes" in err
    assert "Traceback" not in err


def test_the_cli_shows_the_nodes():
    rc, out, _ = run_cli(
        "serve",
        *("--model", "deepseek-v3-like", "--gpu", "H100-SXM", "--engine", "sglang"),
        *("--input-tokens", "1024", "--output-tokens", "1024", "--gpus", "16", "--users", "1"),
    )
    assert rc == 0
    layout = next(x for x in out.splitlines() if x.startswith("Layout"))
    assert "TP16" in layout and "16 GPUs per replica over 2 nodes" in layout

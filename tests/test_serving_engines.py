"""The serving engine as an input (models/serving/engines.py): each engine's decode-step factor
is the fit docs/reference/serving-evidence.md fixed before fitting (bench/serve_engines.py
reproduces it), it lengthens the decode step and nothing else, and every surface takes it."""

from __future__ import annotations

import contextlib
import io
import json

import numpy as np
import pytest

from app.cli import main
from bench.serve_engines import fit
from models.portfolio.demand import size_workload
from models.portfolio.workloads import Serve
from models.serving.engines import ENGINES
from models.serving.plan import ServeInputs, evaluate, plan_serving
from models.shapes import get_preset

SERVICE = {"model": "llama3-70b", "gpu": "H100-SXM", "input_tokens": 2048, "output_tokens": 256}


def test_each_factor_is_the_fit_on_the_tuning_rows():
    fitted = fit()
    for spec in ENGINES.values():
        if spec.backend == "trtllm":
            assert spec.decode_step_factor == 1.0
            continue
        factor, n = fitted[spec.backend]
        assert spec.decode_step_factor == pytest.approx(factor, abs=5e-5), spec.id
        assert f"{n} configurations" in spec.source


@pytest.mark.parametrize("engine", ["vllm", "sglang"])
def test_an_engine_lengthens_the_decode_step_and_nothing_else(engine):
    """At TP 1 an engine's step is its factor times TensorRT-LLM's and nothing else moves; above it
    each engine's all-reduces also take its own latency per doubling of TP (the tenth amendment:
    2 · layers · λ · log2 TP in the step, before the factor, and in the prefill)."""
    trt = evaluate(ServeInputs(**SERVICE), [1, 1], [1, 1], [16, 64])
    other = evaluate(ServeInputs(**SERVICE, engine=engine), [1, 1], [1, 1], [16, 64])
    k = ENGINES[engine].decode_step_factor
    assert other["t_step"] == pytest.approx(trt["t_step"] * k, rel=1e-12)
    for same in ("t_prefill", "max_seqs", "weights_gpu", "kv_gpu"):
        assert other[same] == pytest.approx(trt[same], rel=1e-12), same
    trt = evaluate(ServeInputs(**SERVICE), [2, 4], [2, 4], [16, 64])
    other = evaluate(ServeInputs(**SERVICE, engine=engine), [2, 4], [2, 4], [16, 64])
    sync = 2 * get_preset("llama3-70b").layers * np.log2([2, 4])
    gap = (
        ENGINES[engine].allreduce_s_per_doubling - ENGINES["tensorrt-llm"].allreduce_s_per_doubling
    ) * sync
    assert other["t_step"] == pytest.approx((trt["t_step"] + gap) * k, rel=1e-12)
    assert other["t_prefill"] == pytest.approx(trt["t_prefill"] + gap, rel=1e-12)
    for same in ("max_seqs", "weights_gpu", "kv_gpu"):
        assert other[same] == pytest.approx(trt[same], rel=1e-12), same


def test_every_surface_takes_the_engine_and_names_it():
    plan = plan_serving(ServeInputs(**SERVICE, rps=10, engine="vllm"))
    assert plan.engine == "vllm" and plan.software_generation.startswith("vLLM")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        args = ["serve", "--model", "llama3-70b", "--gpu", "H100-SXM", "--input-tokens", "2048"]
        assert main([*args, "--output-tokens", "256", "--rps", "10", "--engine", "vllm"]) == 0
    assert out.getvalue().split("\n")[0].endswith("vLLM")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main([*args, "--output-tokens", "256", "--rps", "10", "--json"]) == 0
    assert json.loads(out.getvalue())["engine"] == "tensorrt-llm"  # the default, named
    # a portfolio's serving workload sizes at its engine: a slower step, at least as many GPUs
    # (at a TPOT objective of 25 ms: at 30 ms both fit 30 GPUs since the tenth amendment)
    work = {k: v for k, v in SERVICE.items() if k != "gpu"} | {"rps": 50.0, "tpot_ms": 25.0}
    fast = size_workload(Serve(name="s", **work), "H100-SXM")
    slow = size_workload(Serve(name="s", engine="sglang", **work), "H100-SXM")
    assert max(slow.gpus_by_month) > max(fast.gpus_by_month)

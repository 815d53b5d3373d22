"""Time per output token per engine (docs/reference/serving-evidence.md, tenth amendment): each
engine's tensor-parallel all-reduce takes a latency per doubling of the group, fitted on tuning rows
by the page's rule (bench/serve_tpot_fit.py reproduces it, and the fifth amendment's MoE constant
refitted beside it), in the decode step (inside the engine's factor) and the prefill, on every
surface; without it the held-out levels of tests/test_validation_silicon.py are not met."""

from __future__ import annotations

import numpy as np
import pytest

from bench import serve_tpot_fit
from models import constants as C
from models.serving.engines import ENGINES
from models.serving.plan import ServeInputs, evaluate, plan_serving
from models.shapes import get_preset

SERVICE = {"model": "llama3-70b", "gpu": "H100-SXM", "input_tokens": 2048, "output_tokens": 256}


def test_each_latency_and_the_moe_constant_are_the_pages_fit():
    lam, moe, scores, moe_rows = serve_tpot_fit.fit()
    for engine, value in lam.items():
        assert ENGINES[engine].allreduce_s_per_doubling == pytest.approx(value, abs=1e-12), engine
        assert ENGINES[engine].allreduce_s_per_doubling > 0
    moe_now = C.SERVE_MOE_STEP_S_PER_LAYER
    assert moe_now == pytest.approx(moe, abs=0.05e-6)
    assert moe_rows == 87 and scores["tensorrt-llm"][0] == 1134


@pytest.mark.parametrize("engine", ["tensorrt-llm", "vllm", "sglang"])
def test_the_term_is_in_the_step_and_the_prefill_and_grows_as_log2_tp(engine):
    inp = ServeInputs(**SERVICE, engine=engine)
    tp = np.array([1, 2, 4, 8])
    with_it = evaluate(inp, tp, tp, [32] * 4)
    with serve_tpot_fit.constants({engine: 0.0}, C.SERVE_MOE_STEP_S_PER_LAYER):
        without = evaluate(inp, tp, tp, [32] * 4)
    spec = ENGINES[engine]
    sync = 2 * get_preset("llama3-70b").layers * spec.allreduce_s_per_doubling * np.log2(tp)
    assert with_it["t_step"] == pytest.approx(
        without["t_step"] + spec.decode_step_factor * sync, rel=1e-12
    )
    assert with_it["t_prefill"] == pytest.approx(without["t_prefill"] + sync, rel=1e-12)
    assert with_it["t_step"][0] == without["t_step"][0]  # TP 1: nothing changes
    # at TP 8 it is a fifth of the step or more on this 70B model (3 doublings, 160 all-reduces)
    assert sync[-1] > 0.2 * without["t_step"][-1] / spec.decode_step_factor


def test_the_planner_sizes_with_it():
    """`clusterplan serve`, the Serve page and a portfolio size through plan_serving: a fixed TP 8
    replica's TPOT carries the term."""
    inp = ServeInputs(**SERVICE, users=32, gpus=8)
    plan = plan_serving(inp)
    with serve_tpot_fit.constants({"tensorrt-llm": 0.0}, C.SERVE_MOE_STEP_S_PER_LAYER):
        bare = plan_serving(inp)
    lam = ENGINES["tensorrt-llm"].allreduce_s_per_doubling
    sync = 2 * get_preset("llama3-70b").layers * lam * 3
    # TPOT = t_step + B · t_prefill / O: the term in both
    assert plan.tpot_ms - bare.tpot_ms == pytest.approx((sync + 32 * sync / 256) * 1e3, rel=1e-9)

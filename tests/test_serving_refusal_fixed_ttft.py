"""A TTFT objective under the engine build's fixed first-token time: the refusal says that no GPU,
count or layout can meet it on that build, what the time was measured on, and which other engine
on the GPU starts under it (models/serving/refusals.py)."""

from __future__ import annotations

import pytest

from models.errors import InputError
from models.serving import builds
from models.serving.plan import ServeInputs, plan_serving

GPT_OSS = {"model": "gpt-oss-120b", "gpu": "MI300X", "input_tokens": 1024, "output_tokens": 1024}


def _refusal(**fields) -> InputError:
    with pytest.raises(InputError) as exc:
        plan_serving(ServeInputs(**(GPT_OSS | {"users": 32, "ttft_ms": 800.0} | fields)))
    return exc.value


def test_the_builds_fixed_time_is_named_with_its_source_and_the_engine_that_starts_under_it():
    err = _refusal()
    vllm = builds.resolve("vllm", "MI300X", None, True)
    a = vllm.ttft[0] * 1e3
    assert a >= 800  # the premise: vLLM (ROCm) 0.7.3's fixed first token
    msg = str(err)
    assert err.field == "ttft_ms"
    assert f"the first token on vLLM (ROCm) {vllm.costs_version} carries a fixed {a:.0f} ms" in msg
    assert "measured on DeepSeek-R1 FP8, TP 8 (dstack, 2025-03-18)" in msg
    sglang = builds.resolve("sglang", "MI300X", None, True)
    named = f"SGLang (ROCm) {sglang.costs_version} {sglang.ttft[0] * 1e3:.0f} ms (engine sglang)"
    assert named in msg and "use a faster GPU" not in msg
    # the engine named does plan it under the objective
    plan = plan_serving(ServeInputs(**GPT_OSS, users=32, ttft_ms=800.0, engine="sglang"))
    assert plan.ttft_ms <= 800


def test_an_engine_that_cannot_serve_the_precision_is_not_offered():
    """SGLang does not serve FP4 weights on MI300X (weight-only): not named for an FP4 plan."""
    msg = str(_refusal(precision="fp4"))
    assert "carries a fixed" in msg and "(engine " not in msg
    with pytest.raises(InputError):
        plan_serving(ServeInputs(**GPT_OSS, users=32, precision="fp4", engine="sglang"))


def test_an_objective_over_the_fixed_time_keeps_the_general_advice():
    inp = ServeInputs(
        model="llama3-70b", gpu="H100-SXM", input_tokens=1024, output_tokens=1024, users=32,
        ttft_ms=50.0,
    )  # fmt: skip
    assert builds.own_first_token(inp)[0] * 1e3 < 50
    with pytest.raises(InputError) as exc:
        plan_serving(inp)
    msg = str(exc.value)
    assert "relax the SLOs, use a faster GPU or a lower precision" in msg
    assert "carries a fixed" not in msg

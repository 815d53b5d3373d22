"""The eighteenth amendment (docs/reference/serving-evidence.md): a MoE model's time to first token
reads its prefill m_e times the roofline's (its own and the others' it waits for), on every surface
that reads the CUDA engine's first token (the planner, the AIConfigurator scoring); a dense model
and a ROCm build's own constants take no factor. Each test sets a factor on a copy of the engine's
record, so it checks the wiring whatever the fitted value is."""

from __future__ import annotations

import dataclasses

import pytest

from models.serving import builds, engines
from models.serving.engines import ENGINES, first_token_s
from models.serving.plan import ServeInputs, evaluate, plan_serving
from models.validation import silicon


@pytest.fixture
def factor_two(monkeypatch):
    """TensorRT-LLM's and vLLM's records with m = 2 (the CUDA constants otherwise as they are)."""
    for engine in ("tensorrt-llm", "vllm"):
        spec = dataclasses.replace(ENGINES[engine], ttft_moe_prefill_factor=2.0)
        monkeypatch.setitem(engines.ENGINES, engine, spec)
    return ENGINES["tensorrt-llm"]


def test_the_factor_scales_a_moe_prefill_its_own_and_the_others(factor_two):
    spec = factor_two
    a, k, w = spec.ttft_fixed_s, spec.ttft_prefill_factor, spec.ttft_wave_share
    prefill, step = 0.040, 0.010
    moe = first_token_s("tensorrt-llm", prefill, step, 33, moe=True)
    dense = first_token_s("tensorrt-llm", prefill, step, 33)
    assert moe == pytest.approx(a + 2.0 * prefill * (k + w * 32) + step, rel=1e-12)
    assert dense == pytest.approx(a + prefill * (k + w * 32) + step, rel=1e-12)
    # a ROCm build's own constants take no factor (the seventeenth amendment's fit stands)
    rocm = first_token_s("vllm", prefill, step, 33, (0.5, 3.0, 1.0), moe=True)
    assert rocm == pytest.approx(0.5 + prefill * (3.0 + 1.0 * 32) + step, rel=1e-12)


def _deepseek_row(**changes) -> dict:
    """An aggregated DeepSeek-R1 row on H200 (TP 8, experts over the 8 GPUs, 32 in flight)."""
    row = dict.fromkeys(silicon.load_rows()[0], "")
    row |= {
        "id": "test-moe",
        "backend": "trtllm",
        "model_path": "deepseek-ai/DeepSeek-R1",
        "system": "h200_sxm",
        "precision": "fp8",
        "mode": "agg",
        "isl": "1024",
        "osl": "1024",
        "batch_size": "32",
        "tp_size": "8",
        "pp_size": "1",
        "attention_dp_size": "1",
        "moe_tp_size": "1",
        "moe_ep_size": "8",
        "silicon_ttft_ms": "300",
        "silicon_tpot_ms": "20",
    }
    return row | changes


def test_a_measured_moe_rows_first_token_takes_the_factor_and_its_tpot_does_not(factor_two):
    spec = factor_two
    row = _deepseek_row()
    setup, why = silicon.expressible(row)
    assert why is None
    tpot, ttft, _, refused = silicon.predict(setup, row)
    f = evaluate(silicon._inputs(setup, row), [8], [8], [32])
    prefill, step = float(f["t_prefill"][0]), float(f["t_step"][0])
    a, k, w = spec.ttft_fixed_s, spec.ttft_prefill_factor, spec.ttft_wave_share
    assert refused == ""
    assert ttft == pytest.approx((a + 2.0 * prefill * (k + w * 31) + step) * 1e3, rel=1e-12)
    assert tpot == pytest.approx(float(f["tpot"][0]) * 1e3, rel=1e-12)


def test_the_planner_takes_the_factor_for_a_moe_model_and_not_for_a_dense_one(
    factor_two, monkeypatch
):
    # a service (users) takes the steady form (twenty-first amendment): its own first token is the
    # twenty-ninth amendment's MoE constants (fitted on MoE rows: no m), the factor m on the
    # prefill server's time the others queue for, none on a dense model
    moe = ServeInputs(model="qwen3-235b-a22b", gpu="H200", precision="fp8", input_tokens=2048,
                      output_tokens=256, users=32, gpus=8, slo_percentile=90)  # fmt: skip
    f = evaluate(moe, [8], [8], [32])
    prefill, step, cycle = f["t_prefill"][0], f["t_step"][0], f["tpot"][0] * 256
    expected = builds.service_first_token_s(moe, prefill, step, 32, cycle)
    spec = ENGINES["tensorrt-llm"]
    a, k = spec.own_first_token(True)
    assert (a, k) == next((x[1], x[2]) for x in spec.service_ttft if x[0] == "moe")
    own = a + k * prefill + step
    assert float(f["ttft"][0]) == pytest.approx(float(expected), rel=1e-12)
    assert float(expected) > own + 0.01  # the p90 wait for 31 others' prefills
    assert plan_serving(moe).ttft_ms == pytest.approx(float(expected) * 1e3, rel=1e-9)
    monkeypatch.setitem(  # the server's time halves with m = 1: the wait shrinks, own stays
        engines.ENGINES, "tensorrt-llm", dataclasses.replace(spec, ttft_moe_prefill_factor=1.0)
    )
    g = evaluate(moe, [8], [8], [32])
    assert own < float(g["ttft"][0]) < float(f["ttft"][0])
    monkeypatch.setitem(engines.ENGINES, "tensorrt-llm", spec)
    dense = ServeInputs(model="llama3-70b", gpu="H100-SXM", precision="fp8", input_tokens=2048,
                        output_tokens=256, users=32, gpus=4)  # fmt: skip
    g = evaluate(dense, [4], [4], [32])
    lone = builds.service_first_token_s(
        dense, g["t_prefill"][0], g["t_step"][0], 32, g["tpot"][0] * 256
    )
    assert float(g["ttft"][0]) == pytest.approx(float(lone), rel=1e-12)
    monkeypatch.setitem(
        engines.ENGINES, "tensorrt-llm", dataclasses.replace(spec, ttft_moe_prefill_factor=1.0)
    )
    assert float(evaluate(dense, [4], [4], [32])["ttft"][0]) == float(g["ttft"][0])


def test_a_rocm_build_takes_no_factor(factor_two, monkeypatch):
    inp = ServeInputs(model="qwen3-235b-a22b", gpu="MI300X", precision="fp8", input_tokens=2048,
                      output_tokens=256, users=32, gpus=8)  # fmt: skip
    with_factor = float(evaluate(inp, [8], [8], [32])["ttft"][0])
    monkeypatch.setitem(engines.ENGINES, "vllm", dataclasses.replace(ENGINES["vllm"],
                        ttft_moe_prefill_factor=1.0))  # fmt: skip
    assert float(evaluate(inp, [8], [8], [32])["ttft"][0]) == with_factor

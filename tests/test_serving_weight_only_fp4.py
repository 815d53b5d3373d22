"""FP4 weights on GPUs without FP4 tensor cores (docs/reference/serving-evidence.md, twenty-sixth
amendment): MXFP4 weights at 4.25 bits, BF16 arithmetic, read at the HBM rate of any weight, the
KV cache BF16 by default; refused, naming `precision`, where no engine serves it; nothing changes
where the GPU has FP4 tensor cores."""

from __future__ import annotations

import json

import pytest

from app.views import serve as serve_page
from models import constants as C
from models.errors import InputError
from models.hardware import get_gpu
from models.serving import roofline
from models.serving.plan import ServeInputs, evaluate, plan_serving
from models.serving.precision import WEIGHT_ONLY_TEXT
from models.shapes import get_preset
from models.units import BYTES_PER_GIB
from tests.builders import app, run_cli
from tests.readback import field_errors as errors
from tests.readback import metric_number as number

GPT_OSS = dict(model="gpt-oss-120b", input_tokens=1000, output_tokens=1000)


def gpt_oss(**kw) -> ServeInputs:
    return ServeInputs(**{**GPT_OSS, "gpu": "H100-SXM", "precision": "fp4", **kw})


def test_gpt_oss_in_fp4_on_h100_is_planned_at_4_25_bits_a_weight():
    plan = plan_serving(gpt_oss(engine="vllm", gpus=8, users=16))
    params = get_preset("gpt-oss-120b").params_total
    # memory check: every weight at 4 + 8/32 bits (MXFP4: 32 E2M1 values share one E8M0 scale)
    assert plan.weights_gib_per_gpu == pytest.approx(
        params * 4.25 / 8 / 8 / BYTES_PER_GIB, abs=0.01
    )
    assert plan.precision == "fp4" and plan.kv_precision == "bf16"  # the engines' `auto`
    assert plan.software_generation.endswith(WEIGHT_ONLY_TEXT["fp4"])
    assert plan.rule_of_thumb_tokens_per_s_per_gpu == pytest.approx(
        get_gpu("H100-SXM").hbm_bandwidth_tbyte_per_s * 1e12 / (params * 4.25 / 8) * 16
    )
    # an explicit FP8 KV cache is honoured (H100 has FP8 tensor cores)
    assert plan_serving(gpt_oss(engine="vllm", gpus=8, kv_precision="fp8")).kv_precision == "fp8"


def test_the_arithmetic_is_bf16s_and_the_weights_are_read_at_the_hbm_rate():
    """A compute-bound prefill (8k-token prompts) takes as long as with BF16 weights, whose GEMMs
    run at the same BF16 rate, and longer than with FP8 (twice the GEMM rate); the decode step
    at one sequence reads the weights at HBM_EFFICIENCY, not at Blackwell's measured FP4 share."""
    long = dict(input_tokens=8000, output_tokens=100, gpus=8)
    fp4, bf16, fp8 = (
        evaluate(gpt_oss(precision=p, kv_precision="bf16", **long), [8], [1], [1.0])
        for p in ("fp4", "bf16", "fp8")
    )
    assert fp4["t_prefill"][0] == pytest.approx(bf16["t_prefill"][0], rel=1e-9)
    assert fp4["t_prefill"][0] > 1.05 * fp8["t_prefill"][0]  # FP8 GEMMs at twice the rate
    su = roofline.setup(
        get_preset("gpt-oss-120b"), get_gpu("H100-SXM"), "fp4", "bf16", 8.0, 1.0, 1000, 1000
    )
    assert su.w_bytes == 4.25 / 8 and su.w_rate == su.hbm
    assert su.hbm == pytest.approx(3.35e12 * C.HBM_EFFICIENCY, rel=0.01)


def test_blackwell_fp4_is_unchanged():
    su = roofline.setup(get_preset("gpt-oss-120b"), get_gpu("B200"), "fp4", "fp8", 4.0, 1.0, 1, 1)
    assert su.w_bytes == 0.5
    assert su.w_rate == pytest.approx(8e12 * C.FP4_GEMM_WEIGHT_READ_SHARE_OF_HBM)
    plan = plan_serving(ServeInputs(**GPT_OSS, gpu="B200", precision="fp4", gpus=4, users=8))
    assert plan.kv_precision == "fp8" and WEIGHT_ONLY_TEXT["fp4"] not in plan.software_generation


def test_hopper_weight_only_decode_is_slower_than_blackwell_fp4_at_one_user():
    """At one user the step is bound by the weight read; H100 reads 4.25-bit weights over 3.35 TB/s
    against B200's 4-bit over 8 TB/s (at Blackwell's slower FP4 share for the dense weights)."""
    h100 = plan_serving(gpt_oss(engine="vllm", gpus=4, users=1))
    b200 = plan_serving(
        ServeInputs(**GPT_OSS, gpu="B200", precision="fp4", engine="vllm", gpus=4, users=1)
    )
    assert h100.tpot_ms > b200.tpot_ms
    assert h100.decode_bound == "memory"


@pytest.mark.parametrize(
    ("gpu", "engine", "allowed"),
    [
        ("H100-SXM", "tensorrt-llm", True),
        ("H200", "sglang", True),
        ("A100-80GB", "vllm", True),
        ("MI300X", "vllm", True),
        ("A100-80GB", "sglang", False),
        ("A100-80GB", "tensorrt-llm", False),
        ("MI300X", "sglang", False),
        ("L40S", "vllm", False),
    ],
)
def test_only_where_an_engine_serves_fp4_weights(gpu, engine, allowed):
    inp = gpt_oss(gpu=gpu, engine=engine, users=4)
    if allowed:
        assert plan_serving(inp).precision == "fp4"
        return
    with pytest.raises(InputError) as e:
        plan_serving(inp)
    assert e.value.field == "precision"
    assert "no FP4 tensor cores" in str(e.value) and engine in str(e.value)
    if gpu == "A100-80GB":  # it names the engine that does, and a precision the GPU has
        assert "engine vllm" in str(e.value) and "fp8" not in str(e.value)


def test_the_command_line_says_it():
    args = ("serve", "--model", "gpt-oss-120b", "--gpu", "H100-SXM", "--precision", "fp4")
    args += ("--input-tokens", "1000", "--output-tokens", "1000", "--engine", "vllm")
    rc, out, err = run_cli(*args)
    assert rc == 0, err
    assert "weights fp4, KV cache bf16" in out and WEIGHT_ONLY_TEXT["fp4"] in out
    rc, out, err = run_cli(*args, "--json")
    assert json.loads(out)["software_generation"].endswith(WEIGHT_ONLY_TEXT["fp4"])
    rc, out, err = run_cli(*args[:-1], "sglang", "--gpu", "A100-80GB")
    assert rc != 0 and "--precision" in out + err


def test_serve_page_plans_fp4_on_h100_and_says_weight_only():
    at = app("serve")
    at.selectbox(key="s_model").set_value("gpt-oss-120b").run()
    at.selectbox(key="s_engine").set_value("vllm").run()
    at.selectbox(key="s_precision").set_value("fp4").run()
    assert not at.exception and not errors(at), errors(at)
    captions = " ".join(c.value for c in at.caption)
    assert WEIGHT_ONLY_TEXT["fp4"] in captions and "KV cache BF16" in captions
    start = {k: v for k, v in serve_page.STARTING.items() if k not in ("users", "tokens_per_day")}
    plan = plan_serving(
        ServeInputs(**{**start, "model": "gpt-oss-120b", "engine": "vllm", "precision": "fp4"})
    )
    assert number(at, "TPOT") == pytest.approx(plan.tpot_ms, abs=0.05)
    assert number(at, "GPUs") == plan.gpus
    at.selectbox(key="s_gpu").set_value("L40S").run()  # no engine serves FP4 weights on Ada
    assert not at.exception and errors(at).startswith("precision:"), errors(at)

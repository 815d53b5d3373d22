"""INT4 weights as a serving precision (docs/reference/serving-evidence.md, thirty-sixth
amendment): weight-only on every GPU (4.5 bits a weight, BF16 arithmetic, read at the HBM rate of
any weight, the KV cache BF16 by default), where the engines serve it (NVIDIA Ampere and later;
SGLang also on MI300X/MI325X); refused, naming `precision` and the engines that would, elsewhere; on
every surface."""

from __future__ import annotations

import json

import pytest

from models import constants as C
from models.errors import InputError
from models.hardware import get_gpu
from models.portfolio.demand import size_workload
from models.portfolio.workloads import Serve
from models.serving import roofline
from models.serving.plan import ServeInputs, evaluate, plan_serving
from models.serving.precision import WEIGHT_ONLY_TEXT
from models.shapes import get_preset
from models.units import BYTES_PER_GIB
from tests.builders import app, run_cli
from tests.readback import field_errors as errors
from tests.readback import metric_number as number

LLAMA = dict(model="llama3-70b", input_tokens=2048, output_tokens=256)


def llama(**kw) -> ServeInputs:
    return ServeInputs(**{**LLAMA, "gpu": "H100-SXM", "precision": "int4", **kw})


def test_a_70b_model_in_int4_is_planned_at_4_5_bits_a_weight():
    plan = plan_serving(llama(gpus=2, users=16))
    params = get_preset("llama3-70b").params_total
    per_gpu = params * 4.5 / 8 / plan.tp / BYTES_PER_GIB  # INT4 with a 16-bit scale per 32
    assert plan.weights_gib_per_gpu == pytest.approx(per_gpu, abs=0.01)
    assert plan.precision == "int4" and plan.kv_precision == "bf16"
    assert plan.software_generation.endswith(WEIGHT_ONLY_TEXT["int4"])
    assert plan.rule_of_thumb_tokens_per_s_per_gpu == pytest.approx(
        get_gpu("H100-SXM").hbm_bandwidth_tbyte_per_s * 1e12 / (params * 4.5 / 8) * 16
    )
    assert plan_serving(llama(gpus=2, kv_precision="fp8")).kv_precision == "fp8"


def test_the_arithmetic_is_bf16s_on_blackwell_too():
    """INT4 never runs on tensor cores here: on B200 a compute-bound prefill takes as long as in
    BF16 and longer than in FP4 (Blackwell's FP4 tensor cores), and the step reads 4.5-bit weights
    at the HBM rate of any weight, not at the FP4 GEMM's measured share."""
    long = dict(input_tokens=8000, output_tokens=100, gpus=8, gpu="B200", kv_precision="bf16")
    int4, bf16, fp4 = (
        evaluate(llama(**{**long, "precision": p}), [8], [1], [1.0])
        for p in ("int4", "bf16", "fp4")
    )
    assert int4["t_prefill"][0] == pytest.approx(bf16["t_prefill"][0], rel=1e-9)
    assert int4["t_prefill"][0] > 1.5 * fp4["t_prefill"][0]
    su = roofline.setup(get_preset("llama3-70b"), get_gpu("B200"), "int4", "bf16", 8.0, 1.0, 1, 1)
    assert su.w_bytes == C.INT4_BITS_PER_WEIGHT / 8 == 0.5625 and su.w_rate == su.hbm


def test_int4_needs_fewer_gpus_than_fp8_for_a_model_that_fills_a_node():
    """Kimi-K2.5 (about 1T parameters): its FP8 weights need a whole 8-GPU H200 node or more, its
    INT4 weights about half the memory, so fewer GPUs hold a replica."""
    kimi = dict(model="kimi-k2.5", gpu="H200", input_tokens=1000, output_tokens=1000, users=8)
    fp8 = plan_serving(ServeInputs(**kimi, precision="fp8", engine="vllm"))
    int4 = plan_serving(ServeInputs(**kimi, precision="int4", engine="vllm"))
    assert int4.weights_gib_per_gpu * int4.tp == pytest.approx(
        fp8.weights_gib_per_gpu * fp8.tp * 4.5 / 8, rel=1e-6
    )
    assert int4.gpus < fp8.gpus


@pytest.mark.parametrize(
    ("gpu", "engine", "allowed"),
    [
        ("H100-SXM", "tensorrt-llm", True),
        ("H200", "vllm", True),
        ("A100-80GB", "vllm", True),
        ("L40S", "tensorrt-llm", True),
        ("B200", "vllm", True),
        ("H100-SXM", "sglang", True),
        ("MI300X", "sglang", True),
        ("MI300X", "vllm", False),
        ("MI250X", "vllm", False),
        ("MI250X", "sglang", False),
    ],
)
def test_only_where_an_engine_serves_int4_weights(gpu, engine, allowed):
    inp = llama(gpu=gpu, engine=engine, users=4)
    if allowed:
        assert plan_serving(inp).precision == "int4"
        return
    with pytest.raises(InputError) as e:
        plan_serving(inp)
    assert e.value.field == "precision"
    assert f"{engine} does not serve INT4 weights on {gpu}" in str(e.value)
    if gpu == "MI300X":  # it names the engine that does
        assert "use engine sglang, or precision fp8 or bf16" in str(e.value)
    else:  # no engine serves it on CDNA 2
        assert "engine" not in str(e.value).split(";")[1]


def test_the_command_line_and_a_portfolio_workload_take_it():
    args = ("serve", "--model", "llama3-70b", "--gpu", "H100-SXM", "--precision", "int4")
    args += ("--input-tokens", "2048", "--output-tokens", "256")
    rc, out, err = run_cli(*args)
    assert rc == 0, err
    assert "weights int4, KV cache bf16" in out and WEIGHT_ONLY_TEXT["int4"] in out
    rc, out, err = run_cli(*args, "--json")
    assert json.loads(out)["precision"] == "int4"
    rc, out, err = run_cli(*args[:4], "MI250X", *args[5:])
    assert rc != 0 and "--precision" in out + err
    # a portfolio's serve workload sizes the same service in fewer GPUs than at FP8
    kimi = dict(name="chat", model="kimi-k2.5", rps=0.5, duration_months=12, engine="vllm")
    int4 = size_workload(Serve(**kimi, precision="int4"), "H200")
    fp8 = size_workload(Serve(**kimi, precision="fp8"), "H200")
    assert max(int4.gpus_by_month) < max(fp8.gpus_by_month)
    with pytest.raises(InputError) as e:
        size_workload(Serve(**kimi, precision="int4"), "MI300X")  # vLLM: no INT4 on AMD
    assert e.value.field == "workloads[0].precision"


def test_serve_page_plans_int4_and_says_weight_only():
    at = app("serve")
    at.selectbox(key="s_precision").set_value("int4").run()
    assert not at.exception and not errors(at), errors(at)
    captions = " ".join(c.value for c in at.caption)
    assert WEIGHT_ONLY_TEXT["int4"] in captions and "KV cache BF16" in captions
    at.selectbox(key="s_gpu").set_value("MI250X").run()  # no engine serves INT4 on CDNA 2
    assert not at.exception and errors(at).startswith("precision:"), errors(at)
    at.selectbox(key="s_gpu").set_value("H100-SXM").run()
    at.selectbox(key="s_engine").set_value("vllm").run()
    assert not errors(at), errors(at)
    start = {k: v for k, v in STARTING().items() if k not in ("users", "tokens_per_day")}
    plan = plan_serving(ServeInputs(**{**start, "engine": "vllm", "precision": "int4"}))
    assert number(at, "TPOT") == pytest.approx(plan.tpot_ms, abs=0.05)


def STARTING() -> dict:
    from app.views import serve as serve_page

    return serve_page.STARTING


def test_the_pdf_names_each_services_weights(monkeypatch):
    """A portfolio PDF's workload list names a service's engine and the precision of its weights:
    the GPU's default (FP8 on H100) where none is chosen, INT4 and weight-only where chosen."""
    from app import report_pdf
    from models.scenario import Scenario
    from pricing.engine import compare
    from tests.builders import GENERATED, sample
    from tests.readback import flat, pdf_text

    monkeypatch.setattr(report_pdf, "charts_available", lambda *a, **k: False)
    seen = []
    for precision in (None, "int4"):
        data = sample("enterprise")
        for w in data["workloads"]:
            if w["kind"] == "serve":
                w |= {"precision": precision, "engine": "vllm"}
        c = compare(Scenario.model_validate(data))
        seen.append(flat(pdf_text(report_pdf.build_pdf(c, link="", generated=GENERATED))))
    assert flat("(serve, product; vLLM; FP8 weights)") in seen[0]
    assert flat("(serve, product; vLLM; INT4 weights (weight-only))") in seen[1]

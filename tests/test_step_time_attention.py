"""The attention core runs at its measured rate per GPU generation and kernel
(constants.ATTENTION_EFFICIENCY; docs/reference/training.md section 5): slower with FlashAttention-2
on Hopper than with FlashAttention-3 by the table's ratio, and unchanged on Ampere."""

from __future__ import annotations

import pytest

from models import constants as C
from models.errors import InputError
from models.hardware import get_gpu
from models.scenario import Scenario
from models.shapes import get_preset
from models.training.job import AttentionKernel, Job
from models.training.layouts import Layouts
from models.training.plan import plan_training
from models.training.step_time import step_breakdown

SEQ, BATCH = 8192, 64


def breakdown(gpu: str, kernel: AttentionKernel, recompute: str = "none") -> dict:
    job = Job(get_preset("llama3-8b"), get_gpu(gpu), SEQ, BATCH, flash_attention=kernel)
    lay = Layouts.single(BATCH, tp=1, pp=1, dp=8, micro_batch=1, recompute=recompute)
    return {k: float(v[0]) for k, v in step_breakdown(job, lay).items()}


def passes_time(fwd: float, bwd: float) -> float:
    """Forward plus backward (twice the forward's FLOPs) at the two rates, per unit of forward work."""
    return 1 / fwd + 2 / bwd


def test_fa2_on_hopper_is_slower_than_fa3_by_the_measured_ratio():
    fa2, fa3 = (breakdown("H100-SXM", k) for k in (AttentionKernel.FLASH2, AttentionKernel.FLASH3))
    hopper = C.ATTENTION_EFFICIENCY["hopper"]
    want = passes_time(*hopper[AttentionKernel.FLASH2]) / passes_time(
        *hopper[AttentionKernel.FLASH3]
    )
    assert fa2["attention"] / fa3["attention"] == pytest.approx(want, rel=1e-9)
    # the attention time is inside the step: the compute differs by exactly the attention difference
    assert fa2["compute"] - fa3["compute"] == pytest.approx(
        fa2["attention"] - fa3["attention"], rel=1e-9
    )


def test_recompute_repeats_the_forward_attention_at_the_forward_rate():
    none, selective = (
        breakdown("H100-SXM", AttentionKernel.FLASH3, r) for r in ("none", "selective")
    )
    fwd, bwd = C.ATTENTION_EFFICIENCY["hopper"][AttentionKernel.FLASH3]
    extra = selective["attention"] / none["attention"] - 1
    assert extra == pytest.approx((1 / fwd) / passes_time(fwd, bwd), rel=1e-9)
    # and the step pays it: a fused kernel stores no scores, so recompute adds only the attention core
    assert selective["compute"] - none["compute"] == pytest.approx(
        selective["attention"] - none["attention"], rel=1e-9
    )


def test_ampere_keeps_the_rule_the_calibration_rows_were_checked_with():
    gpu = get_gpu("A100-80GB")
    ampere = C.ATTENTION_EFFICIENCY[gpu.architecture]
    for kernel, eff in C.ATTENTION_RELATIVE_EFFICIENCY.items():
        assert ampere[kernel] == (eff, eff), kernel
    # the attention time is the FLOPs at the Ampere entry of the GEMM rate: 4·T·s·h, half of it causal
    shape = get_preset("llama3-8b")
    flops = 4 * SEQ * SEQ * shape.hidden * 0.5 * shape.layers * (BATCH // 8)
    rate = gpu.bf16_dense_tflops * 1e12 * gpu.matmul_fraction_of_peak * C.GEMM_SHARE_OF_MAMF
    fwd, bwd = ampere[AttentionKernel.FLASH2]
    a100 = breakdown("A100-80GB", AttentionKernel.FLASH2)
    assert a100["attention"] == pytest.approx(flops / rate * passes_time(fwd, bwd), rel=1e-9)
    # Transformer Engine runs FlashAttention-2 on Ampere: the same step to the last digit
    assert breakdown("A100-80GB", AttentionKernel.CUDNN) == a100


def test_fa3_is_refused_where_it_does_not_run():
    with pytest.raises(InputError) as err:
        breakdown("A100-80GB", AttentionKernel.FLASH3)
    assert err.value.field == "execution.attention" and "cudnn" in str(err.value)
    scenario = Scenario.model_validate(
        {
            "workload": {"model": "llama3-8b", "tokens": 1e12},
            "cluster": {"gpu": "A100-80GB", "gpus": 64},
            "execution": {"attention": "flash3"},
        }
    )
    with pytest.raises(InputError):
        plan_training(scenario)

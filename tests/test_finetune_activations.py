"""Fine-tuning activations: a frozen matrix keeps no input, the adapters keep their A·x, FP8 storage of
the SwiGLU input and of trainable GEMM inputs where the job says so, and validation at the row's
published recompute mode (heldout-scores.md Step 20)."""

from __future__ import annotations

import pytest

from models.finetune.plan import FinetuneInputs, frozen_gemm_inputs, job_for
from models.hardware import get_gpu
from models.shapes import get_preset
from models.training.job import Job
from models.training.layouts import Layouts
from models.training.memory import activation_bytes_per_token_layer
from models.validation import finetune as FV

SHAPE = get_preset("llama2-70b")  # h 8192, SwiGLU f 28672, GQA 8 of 64 heads
H, F = SHAPE.hidden, SHAPE.ffn_hidden
#: bytes per token per layer the training core keeps at TP1 (Korthikanti et al. generalised):
#: Q 2h, K/V 4h/8, attention output 2h, SwiGLU input 2·2f, fc2 input 2f; LN1, QKV, LN2, fc1 inputs 8h
TRAINING = 2 * H + 4 * H / 8 + 2 * H + 4 * F + 2 * F + 8 * H


def inp(**kw) -> FinetuneInputs:
    base = dict(
        model="llama2-70b",
        method="lora",
        gpu="B200",
        lora_rank=16,
        lora_targets=("q", "k", "v", "o"),
        tokens=1e9,
        seq_len=8192,
        global_batch_seqs=8,
        precision="fp8",
    )
    return FinetuneInputs(**{**base, **kw})


def kept(job: Job) -> float:
    lay = Layouts.single(8, tp=1, pp=1, dp=8, micro_batch=1, recompute="none")
    return float(activation_bytes_per_token_layer(job, lay)[0][0])


def job(**kw) -> Job:
    i = inp(**kw)
    return job_for(i, get_preset(i.model), get_gpu(i.gpu))


def test_training_keeps_what_it_kept():
    assert kept(Job(SHAPE, get_gpu("B200"), 8192, 8, "fp8")) == TRAINING
    # full SFT trains every weight: every GEMM input kept, no adapters
    assert kept(job(method="full")) == TRAINING


def test_lora_on_attention_keeps_no_mlp_gemm_inputs():
    """q k v o adapted: fc1 (2h) and fc2 (2f) inputs not kept; each of the 4 adapters keeps 2·r."""
    assert frozen_gemm_inputs(inp()) == {"fc1", "fc2"}
    assert kept(job()) == TRAINING - 2 * H - 2 * F + 4 * 2 * 16


def test_lora_keeps_an_input_while_any_matrix_it_feeds_is_adapted():
    assert frozen_gemm_inputs(inp(lora_targets=("q", "v"))) == {"o", "fc1", "fc2"}
    assert frozen_gemm_inputs(inp(lora_targets=("o", "down"))) == {"qkv", "fc1"}
    # QKV input (2h) and fc1 input (2h) gone; the attention output stays (attention's backward)
    assert kept(job(lora_targets=("o", "down"))) == TRAINING - 4 * H + 2 * 2 * 16
    # all-linear: nothing frozen, only the 7 adapters' A·x added
    assert kept(job(lora_targets=("q", "k", "v", "o", "gate", "up", "down"))) == TRAINING + 7 * 32


def test_fp8_activation_input_store_halves_the_swiglu_input():
    """Megatron-Core activation_func_fp8_input_store keeps the 2f-wide SwiGLU input in FP8."""
    off, on = job(), job(fp8_activation_input_store=True)
    assert kept(off) - kept(on) == 2 * F


def test_fp8_gemm_input_store_keeps_trainable_gemm_inputs_in_fp8():
    """Full SFT: QKV (h), fc1 (h), fc2 (f) inputs at 1 byte, plus TE's FP8 copy of the
    out-projection input (h) beside the attention output."""
    off, on = job(method="full"), job(method="full", fp8_gemm_input_store=True)
    assert kept(off) - kept(on) == H + H + F - H
    # LoRA: the frozen matrices keep nothing to store in FP8, the adapted inputs are the BF16
    # adapters'
    for targets in (("q", "k", "v", "o"), ("q", "v"), ("q", "k", "v", "o", "gate", "up", "down")):
        assert kept(job(lora_targets=targets, fp8_gemm_input_store=True)) == kept(
            job(lora_targets=targets)
        )


def _row(**kw) -> dict:
    row = {r["id"]: r for r in FV.load_rows()}["mlperf-v5.0-b200x8-llama2-70b-lora-memory"]
    return {**row, **kw}


def test_validation_scores_a_row_at_its_published_recompute():
    none, full, free = _row(), _row(recompute="full"), _row(recompute="")
    assert FV.predict(none)["recompute"] == "none" and FV.predict(full)["recompute"] == "full"
    assert FV.predict(none)["predicted"] > FV.predict(full)["predicted"] + 50  # GiB
    assert FV.predict(free)["recompute"] == "none"  # the fastest that fits, here the same


def test_validation_marks_a_published_mode_that_does_not_fit(monkeypatch):
    """On a 141 GiB H200 the run's no-recompute mode does not fit: scored at it, marked REJECTED,
    not switched to a mode that fits."""
    row = _row(gpu="H200")
    p = FV.predict(row)
    assert p["recompute"] == "none" and not p["fits"]
    monkeypatch.setattr(FV, "load_rows", lambda: [row])
    res = FV.validate.__wrapped__()
    assert res["rows"][0]["recompute"] == "none"
    assert "REJECTED by the memory model" in FV.report(res)
    monkeypatch.undo()
    real = FV.validate.__wrapped__()["rows"]  # every MLPerf row fits at its published mode
    assert all(r["fits"] for r in real if r["published_recompute"] and r["split"] == "seen")


@pytest.mark.parametrize("fp8_act,drop", [("1", 2 * F), ("0", 0)])
def test_validation_reads_fp8_act(fp8_act, drop):
    base = FV.predict(_row(fp8_act="0"))["predicted"]
    got = FV.predict(_row(fp8_act=fp8_act))["predicted"]
    assert base - got == pytest.approx(drop * 8192 * SHAPE.layers / 2**30)

"""torchtitan's per-op selective activation checkpointing as the recompute mode op_sac
(models/training/recompute.py): the saved matmuls follow torchtitan's counter, the recomputed work and the
kept activations of an 8B block lie between the model's selective and full recompute, and the
planner's search leaves the mode out."""

from __future__ import annotations

import numpy as np
import pytest

from models.errors import InputError
from models.hardware import get_gpu
from models.shapes import get_preset
from models.training import recompute as R
from models.training.job import Job
from models.training.layouts import RECOMPUTE_MODES, Layouts, enumerate_layouts
from models.training.memory import activation_bytes_per_token_layer, memory_breakdown
from models.training.step_time import step_breakdown

# torchtitan/models/llama3/model.py (820504e): the ops of one block in forward order
LLAMA_BLOCK_OPS = (
    "rmsnorm",
    "mm:wq",
    "mm:wk",
    "mm:wv",
    "rope",
    "sdpa",
    "mm:wo",
    "add",
    "rmsnorm",
    "mm:w1",
    "silu",
    "mm:w3",
    "mul",
    "mm:w2",
    "add",
)


def _torchtitan_policy(ops):
    """parallelize_llama.py _custom_policy: count aten.mm; save ops in _save_list (mm, SDPA)
    except an mm whose count is even; everything else PREFER_RECOMPUTE."""
    count, saved = 0, set()
    for op in ops:
        if op.startswith("mm:"):
            count += 1
        if (op.startswith("mm:") and count % 2 == 1) or op == "sdpa":
            saved.add(op.removeprefix("mm:"))
    return saved


def job_of():
    return Job(get_preset("llama3-8b"), get_gpu("H100-SXM"), 8192, 16, "bf16")


def _layouts(*modes, tp=1):
    return [
        Layouts.single(16, tp=tp, pp=1, dp=8 // tp, micro_batch=2, zero=3, recompute=m)
        for m in modes
    ]


def test_saved_matmuls_follow_torchtitans_counter():
    s = get_preset("llama3-8b")
    mms = R.block_matmuls(s.hidden, 2 * s.kv_heads * s.head_dim, s.ffn_hidden, s.gated_mlp)
    assert [m.name for m in mms] == [op[3:] for op in LLAMA_BLOCK_OPS if op.startswith("mm:")]
    saved = {m.name for m, kept in zip(mms, R.op_sac_saved(mms), strict=True) if kept}
    assert saved == _torchtitan_policy(LLAMA_BLOCK_OPS) - {"sdpa"}


def test_op_sac_kept_bytes_follow_the_save_list():
    """8B, no TP: block input + outputs of the saved matmuls + SDPA output and logsumexp."""
    job = job_of()
    s = job.shape
    h, kv, f = s.hidden, s.kv_heads * s.head_dim, s.ffn_hidden
    width = {"wq": h, "wk": kv, "wv": kv, "wo": h, "w1": f, "w3": f, "w2": h}
    saved = _torchtitan_policy(LLAMA_BLOCK_OPS) - {"sdpa"}
    expected = 2 * h + sum(2 * width[n] for n in saved) + 2 * h + 4 * s.heads
    (lay,) = _layouts("op_sac")
    stored, _ = activation_bytes_per_token_layer(job, lay)
    assert stored[0] == pytest.approx(expected)


def test_op_sac_lies_between_selective_and_full_for_an_8b_block():
    job = job_of()
    lays = _layouts("selective", "op_sac", "full")
    rec = [float(step_breakdown(job, x)["recompute"][0]) for x in lays]
    assert rec[0] < rec[1] < rec[2]
    kept = [float(activation_bytes_per_token_layer(job, x)[0][0]) for x in lays]
    assert kept[0] > kept[1] > kept[2]
    mem = [float(memory_breakdown(job, x)["total"][0]) for x in lays]
    assert mem[0] > mem[1] > mem[2]


def test_op_sac_recomputes_the_unsaved_matmuls_and_the_elementwise_ops(monkeypatch):
    """Without GEMM launch overhead and with element-wise kernels made free, op_sac's recompute is
    the forward of the matmuls torchtitan's counter does not save: their share of the block's
    multiply-accumulates times the linear forward (full recompute less the attention core, which is
    selective's recompute). The element-wise kernels then come on top."""
    from models import constants as C

    job = job_of()
    s = job.shape
    h, kv, f = s.hidden, s.kv_heads * s.head_dim, s.ffn_hidden
    macs = {
        "wq": h * h,
        "wk": h * kv,
        "wv": h * kv,
        "wo": h * h,
        "w1": h * f,
        "w3": h * f,
        "w2": f * h,
    }
    redo = set(macs) - _torchtitan_policy(LLAMA_BLOCK_OPS)
    share = sum(macs[n] for n in redo) / sum(macs.values())
    lays = _layouts("selective", "op_sac", "full")

    def recompute():
        return [float(step_breakdown(job, x)["recompute"][0]) for x in lays]

    with_elementwise = recompute()[1]
    monkeypatch.setattr(C, "HBM_EFFICIENCY", 1e12)
    assert with_elementwise > recompute()[1] * 1.02  # the element-wise kernels are recomputed
    monkeypatch.setattr(C, "GEMM_OVERHEAD_S", 0.0)
    sel, sac, full = recompute()
    assert sac == pytest.approx(share * (full - sel), rel=1e-6)


def test_search_leaves_op_sac_out():
    lay = enumerate_layouts(
        gpus=64, global_batch_seqs=64, layers=32, heads=32, experts=1, scaleup_domain_gpus=8
    )
    assert set(np.unique(lay.recompute)) == {
        RECOMPUTE_MODES.index(m) for m in ("none", "selective", "full")
    }


def test_op_sac_is_refused_for_moe():
    job = Job(get_preset("mixtral-8x7b"), get_gpu("H100-SXM"), 4096, 64, "bf16")
    (lay,) = _layouts("op_sac")
    with pytest.raises(InputError) as err:
        step_breakdown(job, lay)
    assert err.value.field == "recompute"

"""Amendment 6 of the fine-tuning model (docs/reference/finetune-model.md, 2026-12-02): tensor
parallelism beside FSDP under framework fsdp (TP within the scale-up domain, the TP shard fully
sharded over the data-parallel ranks), the planner's TP-1-first rule, the remapped AutoModel rows
and the refusal of a layout the framework does not run, by field."""

import numpy as np
import pytest

from models import constants as C
from models.errors import InputError
from models.finetune import fsdp_tp
from models.finetune.plan import (
    FinetuneInputs,
    _check,
    _layouts,
    breakdowns,
    job_for,
    plan_finetune,
)
from models.finetune.published import evaluate_layout
from models.training.job import stage_params
from models.training.layouts import Layouts
from models.validation import finetune as FV

REMAPPED = (
    "ft4-automodel2604-llama3.3-70b-lora-h100x8",
    "ft4-automodel2604-llama3.3-70b-lora-h100x16",
)


def _inputs(**kw) -> FinetuneInputs:
    base = dict(model="llama3-70b", method="full", gpu="H100-SXM", tokens=1e8, framework="fsdp")
    return FinetuneInputs(**{**base, **kw})


def _one(inp: FinetuneInputs, **layout):
    shape, gpu = _check(inp)
    job = job_for(inp, shape, gpu)
    lay = Layouts.single(inp.global_batch_seqs, recompute="full", **layout)
    mem, step = breakdowns(inp, job, lay)
    return job, lay, mem, step


@pytest.mark.parametrize("tp,dp", [(1, 8), (2, 4), (4, 2), (8, 1)])
def test_zero3_weights_per_gpu_are_params_over_tp_times_dp(tp, dp):
    """Full fine-tune, ZeRO-3: weights per GPU = layer parameters / (TP × DP) × 2 B (the embedding
    and output layer split over TP as the core's stage_params), gradients and Adam states too."""
    inp = _inputs(model="llama3-8b", gpus=8)
    job, lay, mem, _ = _one(inp, tp=tp, pp=1, dp=dp, zero=3, micro_batch=1)
    s = job.shape
    held = s.params_total  # pp 1: the whole model, untied embedding and output layer included
    want = held / (tp * dp)
    assert float(stage_params(job, lay)[0][0]) == pytest.approx(held / tp, rel=1e-3)  # TP split
    assert float(mem["weights"][0]) == pytest.approx(want * C.WEIGHT_BYTES, rel=1e-3)
    assert float(mem["gradients"][0]) == pytest.approx(want * C.GRAD_BYTES, rel=1e-3)
    assert float(mem["optimizer"][0]) == pytest.approx(want * C.OPTIMIZER_BYTES, rel=1e-3)


def test_lora_base_per_gpu_is_params_over_tp_times_dp():
    """LoRA under fsdp ZeRO-3: the frozen base held is parameters / (TP × DP) × 2 B."""
    inp = _inputs(method="lora", gpus=8, lora_rank=16)
    job, _, mem, _ = _one(inp, tp=2, pp=1, dp=4, zero=3, micro_batch=2)
    want = job.shape.params_total / 8 * C.WEIGHT_BYTES
    assert float(mem["base_weights"][0]) == pytest.approx(want, rel=1e-3)


def test_the_tp_collective_is_charged_and_grows_with_tp():
    """The per-layer TP reduce-scatter + all-gather is in the step (the core's tp_comm), zero at
    TP 1, as under megatron."""
    inp = _inputs(model="llama3-8b", gpus=8)
    tp_comm = {}
    for tp in (1, 2, 4):
        _, _, _, step = _one(inp, tp=tp, pp=1, dp=8 // tp, zero=3, micro_batch=1)
        tp_comm[tp] = float(step["tp_comm"][0])
    assert tp_comm[1] == 0.0
    assert 0.0 < tp_comm[2] < tp_comm[4]
    mega = _inputs(model="llama3-8b", gpus=8, framework="megatron")
    _, _, _, step_m = _one(mega, tp=2, pp=1, dp=4, zero=1, micro_batch=1)
    # the same collective bytes over the same link; only the stack's kernel rate may differ
    assert float(step_m["tp_comm"][0]) == pytest.approx(tp_comm[2], rel=0.25)


@pytest.mark.parametrize("row_id", REMAPPED)
def test_the_remapped_automodel_rows_fit_at_their_published_layout(row_id):
    row = next(r for r in FV.load_rows() if r["id"] == row_id)
    assert (row["framework"], row["zero"], row["tp"], row["pp"]) == ("fsdp", "3", "2", "1")
    p = FV.predict(row)
    assert p["fits"] and p["recompute"] == "full"
    n = int(row["gpus"])
    r = evaluate_layout(
        FV.inputs_of(row), tp=2, pp=1, cp=1, dp=n // 2, micro_batch=2, zero=3, recompute="full"
    )
    assert r["fits"] and r["memory_gib"] < 0.5 * 80  # the base sharded 8 or 16 ways, not 2


def test_no_other_automodel_row_is_remapped():
    """The TP 2 PP 4 AutoModel rows stay megatron (no PP under fsdp in amendment 6)."""
    fw = {r["id"]: r.get("framework") for r in FV.load_rows() if "automodel" in r["id"]}
    assert fw["automodel2510-llama3.3-70b-lora-h100x8"] == "megatron"
    assert fw["ft3-automodel2512-llama3.3-70b-lora-h100x16"] == "megatron"
    assert {k for k, v in fw.items() if v == "fsdp"} == {
        *REMAPPED,
        "ft3-automodel2512-llama3.1-8b-lora-h100x1",
    }


def test_the_search_keeps_tp1_when_it_fits_though_tp2_would_fit_too():
    """70B LoRA on 8 H100 under fsdp: TP 1 fits, so TP 1 is planned, even though a TP 2 layout
    fits as well (the rule, not the memory, decides)."""
    inp = _inputs(method="lora", gpus=8)
    plan = plan_finetune(inp)
    assert plan.layout.tp == 1
    alt = evaluate_layout(inp, tp=2, pp=1, cp=1, dp=4, micro_batch=2, zero=3, recompute="full")
    assert alt["fits"]


def test_the_search_takes_tp_when_no_tp1_layout_fits():
    """8B full, 64k-token sequences, 8 H100, no savings: no TP 1 layout fits (activations and
    logits), a TP ≥ 2 one does; the plan names it and its ZeRO-3."""
    inp = _inputs(
        model="llama3-8b",
        gpus=8,
        seq_len=65_536,
        **{k: False for k in FinetuneInputs.model_fields if k.endswith("offload")},
        optimizer_8bit=False,
        paged_optimizer=False,
        pure_bf16=False,
    )
    shape, gpu = _check(inp)
    job = job_for(inp, shape, gpu)
    lay = _layouts(inp, job, 8)
    tp1, tp_n = fsdp_tp.split_tp_first(lay)
    limit = C.MEMORY_HEADROOM * gpu.memory_gib * 2**30
    assert not (breakdowns(inp, job, tp1)[0]["total"] <= limit).any()
    plan = plan_finetune(inp)
    assert plan.layout.tp >= 2 and plan.layout.zero == 3 and plan.layout.pp == 1
    assert len(tp_n) and set(np.unique(tp_n.zero)) == {3}


def test_megatron_layouts_are_untouched():
    inp = _inputs(method="lora", gpus=8, framework="megatron")
    shape, gpu = _check(inp)
    lay = _layouts(inp, job_for(inp, shape, gpu), 8)
    assert set(np.unique(lay.zero)) == {0} and (lay.pp > 1).any()


@pytest.mark.parametrize(
    "layout,field",
    [
        (dict(tp=2, pp=1, cp=1, dp=4, zero=1), "zero"),
        (dict(tp=16, pp=1, cp=1, dp=1, zero=3), "tp"),
        (dict(tp=3, pp=1, cp=1, dp=2, zero=3), "tp"),
        (dict(tp=2, pp=2, cp=1, dp=2, zero=3), "pp"),
        (dict(tp=2, pp=1, cp=2, dp=2, zero=3), "cp"),
    ],
)
def test_a_bad_fsdp_layout_is_refused_naming_its_field(layout, field):
    inp = _inputs(method="lora", gpus=8)
    with pytest.raises(InputError) as exc:
        evaluate_layout(inp, micro_batch=1, **layout)
    assert exc.value.field == field
    assert field in str(exc.value) or "tensor parallel" in str(exc.value)

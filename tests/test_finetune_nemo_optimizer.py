"""NeMo's BF16 distributed Adam and FP8-only weights in the fine-tuning model (amendment 3 of
docs/reference/finetune-model.md): the bytes per parameter each source names, the 70B SFT row that
needs them, the bitsandbytes 32-bit paged AdamW's FP32 moments, and the input on the CLI, the page,
portfolio workloads and share links."""

import json

import numpy as np
import pytest

from app.scenario_files import EXAMPLE
from app.share_link import decode_link, encode
from models.errors import InputError
from models.finetune import savings
from models.finetune.plan import (
    FinetuneInputs,
    _check,
    _context,
    breakdowns,
    job_for,
    plan_finetune,
)
from models.finetune.published import evaluate_layout
from models.portfolio.demand import _size_finetune
from models.portfolio.workloads import Finetune
from models.scenario import Scenario
from models.training.layouts import Layouts
from models.validation import finetune as FV
from tests.builders import MEGATRON_70B, run_cli

ROW = "nemo2407-llama2-70b-sft-h100x16"


def _row(row_id: str = ROW) -> dict:
    return next(r for r in FV.load_rows() if r["id"] == row_id)


def _parts(inp: FinetuneInputs, recompute: str = "full") -> dict[str, float]:
    """Memory bytes by part of the 70B row's published layout (TP4 PP4 DP1, micro-batch 1)."""
    shape, gpu = _check(inp)
    job = job_for(inp, shape, gpu)
    lay = Layouts.single(32, recompute=recompute, tp=4, pp=4, cp=1, dp=1, micro_batch=1, zero=1)
    mem, step = breakdowns(inp, job, lay)
    combo = {k: bool(v) for k, v in inp.fixed_savings.items()}
    mem, _, _ = savings.apply(combo, mem, step, lay, _context(inp, job, lay))
    return {k: float(v[0]) for k, v in mem.items()}


def test_nemo_bf16_adam_and_fp8_weights_hold_the_sourced_bytes_per_parameter():
    """sft.yaml dtype bf16 / grad_sync_dtype bf16, fp8_params: weight 1, gradient 2, m + v 2 + 2 and
    NeMo's BF16 copy 2 (store_params), against the core's 2 + 1, 4 and 12; with DP 1 nothing is
    sharded, so each part is bytes × the stage's parameters."""
    row = FV.inputs_of(_row())
    assert row.pure_bf16 and row.fp8_params and row.framework == "megatron"
    off = _parts(row.model_copy(update={"pure_bf16": False, "fp8_params": False}))
    on = _parts(row)
    params = off["optimizer"] / 12  # the stage's trained parameters
    assert on["gradients"] == pytest.approx(2 * params, rel=1e-9)
    assert off["gradients"] == pytest.approx(4 * params, rel=1e-9)
    assert on["optimizer"] == pytest.approx(6 * params, rel=1e-9)
    # FP8 weights, the BF16 embedding (32,000 × 8,192 ÷ TP 4) at 2 B, against 3 B each
    emb = 32_000 * 8192 / 4
    assert on["weights"] == pytest.approx(params + emb, rel=1e-6)
    assert off["weights"] == pytest.approx(3 * params, rel=1e-9)  # BF16 and an FP8 copy
    # pure BF16 without FP8 weights: no BF16 copy in the optimizer (the weights are it)
    bf16_only = _parts(row.model_copy(update={"fp8_params": False}))
    assert bf16_only["optimizer"] == pytest.approx(4 * params, rel=1e-9)


def test_the_nemo_70b_sft_row_is_planned_with_its_settings_and_refused_without_them():
    rows = {r["id"]: r for r in FV.validate()["rows"]}
    assert rows[ROW]["fits"]
    row = FV.inputs_of(_row())
    ignored = row.model_copy(update={"pure_bf16": False, "fp8_params": False})
    kw = dict(tp=4, pp=4, cp=1, dp=1, micro_batch=1, zero=1, recompute="full")

    assert not evaluate_layout(ignored, **kw)["fits"]
    with_them = evaluate_layout(row, **kw)
    assert with_them["fits"] and with_them["memory_gib"] < 0.95 * 80
    # validate scores it at no recompute, which only the BF16 optimizer leaves room for: FP8
    # weights alone (FP32 master, gradients and moments) fit only with full recompute
    assert rows[ROW]["recompute"] == "none"
    kw["recompute"] = "none"
    assert evaluate_layout(row, **kw)["fits"]
    assert not evaluate_layout(row.model_copy(update={"pure_bf16": False}), **kw)["fits"]
    # the other NeMo SFT rows ran the same config and take the same settings; LoRA rows keep FP32
    for rid in ("nemo2407-llama2-7b-sft-h100x8", "nemo2407-llama2-13b-sft-h100x8"):
        assert FV.inputs_of(_row(rid)).pure_bf16
    lora = FV.inputs_of(_row("nemo2407-llama2-70b-lora-h100x8"))
    assert lora.fp8_params and not lora.pure_bf16


def test_pure_bf16_is_planned_under_megatron_and_its_step_bytes_follow_the_weights():
    base = dict(model="llama2-70b", method="full", gpu="H100-SXM", tokens=1e8, gpus=8)
    mega = plan_finetune(FinetuneInputs(framework="megatron", **base))
    assert mega.savings["pure_bf16"] and mega.savings_chosen_by == "planner"
    step = {"optimizer": 3.0}
    c = {k: False for k in savings.SAVINGS} | {"pure_bf16": True}
    per_byte = 3.0 / 30
    assert savings.seconds_by_saving(c, step, step)["pure_bf16"] == pytest.approx(-16 * per_byte)
    fp8 = savings.seconds_by_saving(c, step, step, fp8_params=True)["pure_bf16"]
    assert fp8 == pytest.approx(
        -15 * per_byte
    )  # the BF16 copy in the weight's place, the FP8 write


def test_bitsandbytes_paged_adamw_keeps_fp32_moments_over_bf16_weights():
    """Optimizer2State.init_state: optim_bits 32 -> float32 states (amendment 3 (c))."""
    off = {k: False for k in savings.SAVINGS}
    assert savings.optimizer_form(off | {"pure_bf16": True}) == (4, 14)
    assert savings.optimizer_form(off | {"pure_bf16": True, "paged_optimizer": True}) == (8, 22)
    eight = off | {"pure_bf16": True, "paged_optimizer": True, "optimizer_8bit": True}
    assert savings.optimizer_form(eight) == (2, 10)
    assert savings.optimizer_form(off | {"paged_optimizer": True}) == (12, 30)
    p = 1e9
    mem = {
        k: np.array([v]) for k, v in dict(weights=2 * p, gradients=4 * p, optimizer=12 * p).items()
    }
    mem["total"] = sum(mem.values())
    step = {"compute": np.array([1.0]), "optimizer": np.array([0.3])}
    step["total"] = step["compute"] + step["optimizer"]
    ctx = {
        "host": savings.host_link("A100-80GB"),
        "gpu_bytes": 1e15,
        "grad_bytes": 4,
        "layers_per_stage": np.array([80]),
    }
    lay = Layouts.single(8, tp=1, pp=1, dp=8, zero=3, micro_batch=1)
    m, s, _ = savings.apply(off | {"pure_bf16": True, "paged_optimizer": True}, mem, step, lay, ctx)
    assert float(m["optimizer"][0]) == pytest.approx(8 * p)
    assert float(s["optimizer"][0]) == pytest.approx(0.3 * 22 / 30)


def test_fp8_params_is_refused_outside_megatron_fp8_with_the_field_named():
    base = dict(model="llama2-7b", method="full", gpu="H100-SXM", tokens=1e8)
    for kw in (dict(framework="fsdp", precision="fp8"), dict(framework="megatron")):
        with pytest.raises(InputError) as exc:
            plan_finetune(FinetuneInputs(fp8_params=True, **base, **kw))
        assert exc.value.field == "fp8_params" and "megatron" in str(exc.value)


def test_cli_takes_fp8_params_and_pure_bf16_under_megatron():
    args = ("finetune", "--model", "llama2-70b", "--method", "full", "--tokens", "1e8")
    args += ("--gpu", "H100-SXM", "--gpus", "16", "--framework", "megatron", "--precision", "fp8")
    rc, out, err = run_cli(*args, "--pure-bf16", "--fp8-params", "--json")
    assert rc == 0, err
    inp = FinetuneInputs(**MEGATRON_70B, pure_bf16=True, fp8_params=True)

    data = json.loads(out)
    assert data["step_time_s"] == pytest.approx(plan_finetune(inp).step_time_s)
    assert (
        data["memory_gib_per_gpu"]
        != plan_finetune(inp.model_copy(update={"fp8_params": False})).memory_gib_per_gpu
    )
    rc, _, err = run_cli(*args[:-6], "--fp8-params")
    assert rc != 0 and "--fp8-params" in err and "megatron" in err and "Traceback" not in err


def test_portfolio_workloads_and_share_links_carry_fp8_params():
    w = Finetune(
        name="sft",
        model="llama2-70b",
        method="full",
        precision="fp8",
        framework="megatron",
        fp8_params=True,
    )
    with_it = _size_finetune(w, "H100-SXM")
    without = _size_finetune(w.model_copy(update={"fp8_params": False}), "H100-SXM")
    assert with_it.gpus_per_run < without.gpus_per_run  # FP8-only weights: 1 B, not 3
    with pytest.raises(InputError) as exc:
        _size_finetune(w.model_copy(update={"framework": "fsdp"}), "H100-SXM")
    assert exc.value.field == "fp8_params"
    inp = FinetuneInputs(
        model="llama2-70b",
        method="full",
        gpu="H100-SXM",
        tokens=1e8,
        framework="megatron",
        precision="fp8",
        fp8_params=True,
    )
    link = decode_link(encode(Scenario.model_validate(EXAMPLE), {"finetune": inp}))
    assert FinetuneInputs.model_validate(link.sections["finetune"]) == inp

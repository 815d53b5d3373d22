"""BF16 gradient buffers as a fine-tuning input (amendment 5 of docs/reference/finetune-model.md,
Megatron-Core grad_reduce_in_fp32 False): memory lower by exactly 2 B per trained parameter a GPU
holds, the data-parallel sync at 2 B, the FP32 optimizer kept, the two Megatron-Bridge SFT rows
planned at their published layouts, refused outside megatron with the field named, and the input on
the CLI, the Fine-tune page and portfolio workloads."""

import json

import pytest

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
from models.training import collectives as coll
from models.training.job import stage_params
from models.training.layouts import Layouts
from models.validation import finetune as FV
from tests.builders import app, run_cli
from tests.readback import field_errors as errors

SFT_ROWS = (
    "ft4-mbridge2606-llama3-70b-sft-fp8-gb200x32",
    "ft4-mbridge2606-llama3-70b-sft-fp8-h100x32",
)
BASE = dict(model="llama3-70b", tokens=1e8, gpu="H100-SXM", framework="megatron", precision="fp8")


def _row(row_id: str) -> dict:
    return next(r for r in FV.load_rows() if r["id"] == row_id)


def _layout_of(row: dict) -> dict:
    n, tp, pp = int(row["gpus"]), int(row["tp"]), int(row["pp"])
    return dict(tp=tp, pp=pp, cp=1, dp=n // (tp * pp), micro_batch=1, zero=int(row["zero"]))


def _memory(inp: FinetuneInputs, layout: dict):
    """(memory bytes by part, the job, the layout) of one layout with the inputs' savings."""
    shape, gpu = _check(inp)
    job = job_for(inp, shape, gpu)
    lay = Layouts.single(inp.global_batch_seqs, recompute="none", **layout)
    mem, step = breakdowns(inp, job, lay)
    combo = {k: bool(v) for k, v in inp.fixed_savings.items()}
    mem, _, _ = savings.apply(combo, mem, step, lay, _context(inp, job, lay))
    return {k: float(v[0]) for k, v in mem.items()}, job, lay


@pytest.mark.parametrize("method", ["full", "lora"])
def test_memory_is_lower_by_exactly_two_bytes_per_trained_parameter(method):
    """Full: the stage's parameters one TP rank holds (ZeRO 1 shards only the optimizer); LoRA: the adapters
    the GPU holds. Only the gradients move; the FP32 master and moments stay 12 B."""
    layout = dict(tp=4, pp=4, cp=1, dp=2, micro_batch=1, zero=1 if method == "full" else 0)
    inp = FinetuneInputs(method=method, gpus=32, **BASE)
    off, job, lay = _memory(inp, layout)
    on, job_on, _ = _memory(inp.model_copy(update={"bf16_grads": True}), layout)
    if method == "full":
        ne, ex = stage_params(job, lay)
        trained = float((ne + ex)[0])  # one TP rank's share of the stage (job.stage_params)
    else:
        trained = off["optimizer"] / 12  # the adapters this GPU holds (FP32 master + m + v)
    assert off["total"] - on["total"] == pytest.approx(2 * trained, rel=1e-9)
    assert on["gradients"] == pytest.approx(2 * trained, rel=1e-9)
    assert on["optimizer"] == off["optimizer"]  # the FP32 optimizer is unchanged
    assert {k: v for k, v in on.items() if k not in ("gradients", "total")} == {
        k: v for k, v in off.items() if k not in ("gradients", "total")
    }
    assert job_on.grad_bytes == 2 and job.grad_bytes == 4


def test_the_gradient_sync_moves_two_bytes_per_gradient(monkeypatch):
    """The core's reduce-scatter (full) and the adapters' all-reduce (LoRA) are asked to move half
    the bytes with the input on; the plan reports 2 B and its line says so."""
    seen: list[float] = []

    def spy(real):
        def wrapped(nbytes, *args):
            seen.append(float(max(nbytes.max() if hasattr(nbytes, "max") else nbytes, 0.0)))
            return real(nbytes, *args)

        return wrapped

    monkeypatch.setattr(coll, "reduce_scatter_s", spy(coll.reduce_scatter_s))
    monkeypatch.setattr(coll, "all_reduce_s", spy(coll.all_reduce_s))
    for method, layout in (
        ("full", dict(tp=4, pp=4, cp=1, dp=2, micro_batch=1, zero=1)),
        ("lora", dict(tp=4, pp=4, cp=1, dp=2, micro_batch=1, zero=0)),
    ):
        inp = FinetuneInputs(method=method, gpus=32, **BASE)
        sent = {}
        for on in (False, True):
            seen.clear()
            evaluate_layout(inp.model_copy(update={"bf16_grads": on}), recompute="none", **layout)
            sent[on] = max(seen)
        assert sent[True] == pytest.approx(sent[False] / 2, rel=1e-12), method
        plan = plan_finetune(inp.model_copy(update={"bf16_grads": True}))
        assert plan.bf16_grads and plan.grad_sync_bytes_per_param == 2
        assert plan.optimizer_bytes_per_param == 12


@pytest.mark.parametrize("row_id", SFT_ROWS)
def test_the_megatron_bridge_sft_rows_fit_their_layouts_with_it_and_not_without(row_id):
    row = _row(row_id)
    inp = FV.inputs_of(row)
    assert inp.bf16_grads and not inp.pure_bf16 and inp.framework == "megatron"
    layout = _layout_of(row) | {"recompute": row["recompute"]}
    assert evaluate_layout(inp, **layout)["fits"]
    assert not evaluate_layout(inp.model_copy(update={"bf16_grads": False}), **layout)["fits"]
    rows = {r["id"]: r for r in FV.validate()["rows"]}
    assert rows[row_id]["fits"]


def test_only_rows_whose_source_states_bf16_gradient_reduce_carry_it():
    rows = [r for r in FV.load_rows() if "bf16_grads" in (r.get("savings") or "").split()]
    assert {r["id"] for r in rows} == {
        *SFT_ROWS,
        "ft4-mbridge2606-llama3-70b-lora-fp8-gb200x8",
        "ft3-dgxc2502-llama3-8b-sft-bf16-h100x8",
        "ft3-dgxc2502-llama3-70b-sft-bf16-h100x32",
        "ft3-dgxc2502-llama3-70b-lora-bf16-h100x8",
    }
    assert all("grad_reduce_in_fp32 False" in r["notes"] for r in rows)


def test_a_bad_value_names_the_field():
    with pytest.raises(InputError) as exc:
        plan_finetune(
            FinetuneInputs(method="full", bf16_grads=True, **(BASE | {"framework": "fsdp"}))
        )
    assert exc.value.field == "bf16_grads" and "megatron" in str(exc.value)
    with pytest.raises(ValueError, match="bf16_grads"):
        FinetuneInputs(method="full", bf16_grads="sometimes", **BASE)


def test_the_planner_never_chooses_it():
    """Memory tight (70B full on 16 H100): the planner turns savings on, never BF16 buffers."""
    plan = plan_finetune(FinetuneInputs(method="full", gpus=16, **BASE))
    assert not plan.bf16_grads and "BF16 gradient buffers" not in json.dumps(plan.model_dump())


def test_cli_flag_plans_with_it_and_is_refused_under_fsdp():
    args = ("finetune", "--model", "llama3-70b", "--method", "full", "--tokens", "1e8")
    args += ("--gpu", "H100-SXM", "--gpus", "32", "--precision", "fp8")
    rc, out, err = run_cli(*args, "--framework", "megatron", "--bf16-grads", "--json")
    assert rc == 0, err
    data = json.loads(out)
    inp = FinetuneInputs(method="full", gpus=32, bf16_grads=True, **BASE)
    assert data["bf16_grads"] and data["grad_sync_bytes_per_param"] == 2
    assert (
        data["memory_gib_per_gpu"]
        == plan_finetune(inp).model_dump(mode="json")["memory_gib_per_gpu"]
    )
    rc, out, err = run_cli(*args, "--framework", "megatron", "--bf16-grads")
    assert rc == 0 and "gradients synced at 2 B each (BF16 gradient buffers)" in out
    assert savings.BF16_GRADS_CAVEAT in out
    rc, _, err = run_cli(*args, "--bf16-grads")
    assert rc != 0 and "--bf16-grads" in err and "megatron" in err and "Traceback" not in err


def test_the_finetune_page_has_the_control():
    at = app("finetune")
    at.selectbox(key="f_bf16_grads").set_value(True).run()
    assert not at.exception
    assert errors(at).startswith("bf16_grads:"), errors(at)  # fsdp: refused, named
    at.selectbox(key="f_framework").set_value("megatron").run()
    at.selectbox(key="f_method").set_value("full").run()
    assert not at.exception and not at.error, errors(at)
    text = " ".join(str(c.value) for c in at.caption) + " ".join(str(m.value) for m in at.markdown)
    assert "gradients synced at 2 B each (BF16 gradient buffers)" in text
    assert at.session_state["finetune_inputs"]["bf16_grads"] is True  # the share link's section


def test_portfolio_workloads_carry_it():
    w = Finetune(
        name="sft", model="llama3-70b", method="full", precision="fp8", framework="megatron"
    )
    on = _size_finetune(w.model_copy(update={"bf16_grads": True}), "H100-SXM")
    off = _size_finetune(w, "H100-SXM")
    assert on.gpus_per_run <= off.gpus_per_run
    assert Finetune.model_validate(w.model_dump() | {"bf16_grads": True}).bf16_grads

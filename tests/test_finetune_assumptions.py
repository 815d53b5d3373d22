"""What a fine-tune plan assumes of its weights, optimizer and gradient sync (issue 31, after
amendment 3 of docs/reference/finetune-model.md): typed plan fields the engine sets, shown on the
CLI (text and JSON) and the Fine-tune page; the reduce-scatter of a planner-chosen pure BF16 under
megatron moves BF16 gradients, as a buyer-set one does (amendment 3 (e)); and a portfolio fine-tune
with FP8-only weights through a share link and a scenario file into the capacity simulation."""

from __future__ import annotations

import json

import pytest

from app import share_link
from app.formatting import finetune_assumptions_text
from app.scenario_files import PORTFOLIOS, read_scenario
from app.views import finetune as finetune_page
from models.finetune.plan import FinetuneInputs, plan_finetune
from models.portfolio.capacity import simulate
from models.portfolio.demand import _size_finetune, derive_demand
from models.portfolio.workloads import Finetune
from models.scenario import Scenario
from tests.builders import MEGATRON_70B, app, run_cli
from tests.readback import field_errors as errors


def _args(inp: dict, *flags: str) -> list[str]:
    out = ["finetune", "--model", "llama3-8b"]  # a model in inp replaces it (argparse: the last)
    for k, v in inp.items():
        out += [f"--{k}", str(v)]
    return [*out, *flags]


def test_the_plan_says_whether_fp8_only_weights_and_the_bf16_optimizer_are_in_use():
    nemo = plan_finetune(FinetuneInputs(**MEGATRON_70B, pure_bf16=True, fp8_params=True))
    assert nemo.fp8_params and nemo.bf16_optimizer
    assert nemo.optimizer_bytes_per_param == 6.0  # m + v + the BF16 copy over FP8 weights, 2 B each
    assert nemo.grad_sync_bytes_per_param == 2.0  # grad_sync_dtype bf16
    plain = plan_finetune(
        FinetuneInputs(model="llama3-8b", method="full", tokens=1e8, gpu="H100-SXM")
    )
    assert not plain.fp8_params and not plain.bf16_optimizer
    assert (plain.optimizer_bytes_per_param, plain.grad_sync_bytes_per_param) == (12.0, 4.0)
    lora = plan_finetune(
        FinetuneInputs(**(MEGATRON_70B | {"method": "lora"}), pure_bf16=True, fp8_params=True)
    )
    assert (
        lora.bf16_optimizer and lora.grad_sync_bytes_per_param == 4.0
    )  # adapters: FP32 all-reduce


def test_a_planner_chosen_pure_bf16_under_megatron_reduces_bf16_gradients_as_a_buyer_set_one():
    """70B full on 16 H100 fits only with savings: the planner picks 8-bit and pure BF16 at DP 2.
    The same choice set by the buyer gives the same plan, data-parallel time included."""
    chosen = plan_finetune(FinetuneInputs(**MEGATRON_70B))
    assert chosen.savings_chosen_by == "planner" and chosen.savings["pure_bf16"]
    assert chosen.layout.dp > 1 and chosen.bf16_optimizer
    assert chosen.grad_sync_bytes_per_param == 2.0
    on = {k for k, v in chosen.savings.items() if v}
    set_ = plan_finetune(FinetuneInputs(**MEGATRON_70B, **dict.fromkeys(on, True)))
    assert set_.savings_chosen_by == "buyer" and set_.layout == chosen.layout
    assert chosen.step_breakdown_s["data_parallel"] == pytest.approx(
        set_.step_breakdown_s["data_parallel"], rel=1e-12
    )
    assert chosen.step_time_s == pytest.approx(set_.step_time_s, rel=1e-12)
    assert chosen.savings_step_s == pytest.approx(set_.savings_step_s, rel=1e-12)


def test_cli_text_and_json_show_what_the_plan_assumes():
    inp = FinetuneInputs(**MEGATRON_70B, pure_bf16=True, fp8_params=True)
    plan = plan_finetune(inp)
    flags = ("--pure-bf16", "--fp8-params")
    rc, out, err = run_cli(*_args(MEGATRON_70B, *flags))
    assert rc == 0, err
    layout = next(line for line in out.splitlines() if line.startswith("Layout"))
    assert layout.endswith(f"sequences; {finetune_assumptions_text(plan)}")
    assert "weights FP8 only" in layout and "NeMo's BF16 distributed Adam" in layout
    assert "6 B per trained parameter" in layout and "gradients synced at 2 B each" in layout
    rc, out, err = run_cli(*_args(MEGATRON_70B, *flags, "--json"))
    assert rc == 0, err
    data = json.loads(out)
    assert data["fp8_params"] is True and data["bf16_optimizer"] is True
    assert data["optimizer_bytes_per_param"] == 6.0 and data["grad_sync_bytes_per_param"] == 2.0
    rc, out, _ = run_cli(*_args({k: MEGATRON_70B[k] for k in ("method", "tokens", "gpu")}))
    assert rc == 0
    layout = next(line for line in out.splitlines() if line.startswith("Layout"))
    assert "weights not FP8-only; optimizer with an FP32 master copy, 12 B" in layout
    assert "gradients synced at 4 B each" in layout


def test_the_finetune_page_shows_what_the_plan_assumes():
    at = app("finetune")
    for key, value in (
        ("f_framework", "megatron"),
        ("f_precision", "fp8"),
        ("f_method", "full"),
        ("f_fp8_params", True),
        ("f_pure_bf16", True),
    ):
        at.selectbox(key=key).set_value(value).run()
    assert not at.exception and not at.error, errors(at)
    kw = dict(framework="megatron", precision="fp8", method="full", fp8_params=True, pure_bf16=True)
    plan = plan_finetune(FinetuneInputs(**(finetune_page.STARTING | kw)))
    layout = next(m.value for m in at.markdown if m.value.startswith("**Layout:**"))
    assert plan.fp8_params and plan.bf16_optimizer
    assert layout.endswith(f" · {finetune_assumptions_text(plan)}")
    assert "weights FP8 only" in layout and "NeMo's BF16 distributed Adam" in layout


def test_a_portfolio_fine_tune_with_fp8_params_round_trips_and_reaches_the_capacity_plan(
    tmp_path,
):
    w = Finetune(
        name="sft",
        model="llama2-70b",
        method="full",
        precision="fp8",
        framework="megatron",
        fp8_params=True,
        duration_months=1,
        jobs_per_month=1,
    )
    data = json.loads(PORTFOLIOS["enterprise"].read_text())  # H100-SXM, 36 months
    sc = Scenario.model_validate({**data, "workloads": [w.model_dump(mode="json")]})
    linked = share_link.decode(share_link.encode(sc))
    path = tmp_path / "s.json"
    path.write_text(sc.model_dump_json(exclude_defaults=True))  # as scenario files are written
    from_file = read_scenario(str(path))
    gpu = sc.cluster.gpu
    with_it = _size_finetune(w, gpu)
    without = _size_finetune(w.model_copy(update={"fp8_params": False}), gpu)
    assert with_it.gpus_per_run < without.gpus_per_run  # FP8-only weights: 16, not 24 H100
    for back in (linked, from_file):
        assert back.workloads[0].fp8_params is True
        d = derive_demand(back.workloads, gpu, back.term.months)
        assert max(d.peak_gpus_by_kind["finetune"]) == with_it.gpus_per_run
        r = simulate(d, [float(with_it.gpus_per_run)] * back.term.months)
        assert r.served_gpu_hours == pytest.approx(with_it.gpus_per_run * with_it.run_days * 24)

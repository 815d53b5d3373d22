"""`clusterplan finetune`: size a full, LoRA or QLoRA fine-tune (models/finetune/plan.py)."""

from __future__ import annotations

import argparse

from app.cli.common import (
    MODEL_HELP,
    add_term_argument,
    given,
    model_name,
    number,
    priced,
    print_json,
    sized,
)
from models.finetune.savings import BF16_GRADS_CAVEAT, LABELS, PURE_BF16_CAVEAT, SAVINGS
from models.hardware import gpu_ids
from models.shapes import load_presets


def register(sub) -> None:
    f = sub.add_parser(
        "finetune",
        help="size a fine-tune (full, LoRA, QLoRA): memory, step time, wall-clock, fewest GPUs",
    )
    f.add_argument(
        "--model", required=True, type=model_name, help=f"{MODEL_HELP}: {', '.join(load_presets())}"
    )
    f.add_argument("--method", required=True, help="full, lora or qlora")
    f.add_argument("--tokens", type=number, required=True, help="dataset tokens (one epoch)")
    f.add_argument("--epochs", type=number, help="passes over the dataset (default 1)")
    f.add_argument("--gpu", required=True, help=f"GPU: {', '.join(gpu_ids())}")
    f.add_argument("--gpus", type=int, help="fix the GPU count (default: the fewest that fit)")
    f.add_argument("--seq-len", type=int, help="tokens per sequence (default 4096)")
    f.add_argument("--batch", type=int, help="global batch in sequences (default 32)")
    f.add_argument("--rank", type=int, help="LoRA rank (default 16)")
    f.add_argument("--precision", help="bf16 (default) or fp8")
    f.add_argument(
        "--framework",
        help="fsdp (default: PyTorch FSDP / DeepSpeed ZeRO under Hugging Face, TRL, Axolotl, "
        "torchtune; tensor parallel within a node only where that alone does not fit) or megatron "
        "(NeMo / Megatron-Core: tensor, pipeline, context parallelism)",
    )
    for name in SAVINGS:
        f.add_argument(
            "--" + name.replace("_", "-"),
            action=argparse.BooleanOptionalAction,
            default=None,
            help=f"{LABELS[name]}: on or off (default: the planner turns it on only to fit)",
        )
    f.add_argument(
        "--fp8-params",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="weights held in FP8 only, no BF16 copy (NeMo fp8_params); megatron with --precision "
        "fp8 (default off)",
    )
    f.add_argument(
        "--bf16-grads",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="gradient buffers accumulated and reduced in BF16, 2 B per gradient, FP32 master and "
        "Adam states kept (Megatron-Core grad_reduce_in_fp32 False); megatron only (default "
        "off; never chosen by the planner)",
    )
    f.add_argument(
        "--jobs-per-month",
        type=_jobs_per_month,
        default=4.0,
        metavar="N",
        help="jobs started a month, for the cost per job on every option (default 4)",
    )
    add_term_argument(f, "the cost per job")
    f.add_argument("--json", action="store_true", help="print the plan as JSON")


def _jobs_per_month(text: str) -> float:
    """Jobs a month within a portfolio fine-tuning workload's bounds."""
    from models.portfolio.workloads import Finetune
    from models.scenario import field_bounds

    value = number(text)
    bounds = field_bounds(Finetune, "jobs_per_month")
    if not bounds["ge"] <= value <= bounds["le"]:
        raise argparse.ArgumentTypeError(
            f"{value:g} is not {bounds['ge']:.3g} (one job in ten years) to {bounds['le']:g}"
        )
    return value


FINETUNE_OPTION = {
    "model": "--model",
    "method": "--method",
    "tokens": "--tokens",
    "epochs": "--epochs",
    "gpu": "--gpu",
    "gpus": "--gpus",
    "seq_len": "--seq-len",
    "global_batch_seqs": "--batch",
    "lora_rank": "--rank",
    "precision": "--precision",
    "framework": "--framework",
    "fp8_params": "--fp8-params",
    "bf16_grads": "--bf16-grads",
} | {name: "--" + name.replace("_", "-") for name in SAVINGS}


def run(args: argparse.Namespace) -> int:
    from models.finetune.plan import FinetuneInputs, plan_finetune  # only this command needs it

    fields = given(args, FINETUNE_OPTION)
    inputs = sized("finetune", FINETUNE_OPTION, lambda: FinetuneInputs(**fields))
    plan = sized("finetune", FINETUNE_OPTION, lambda: plan_finetune(inputs))
    economics, problem = _economics(inputs, plan, args)
    if args.json:
        data = plan.model_dump(mode="json")
        data["economics"] = economics.model_dump(mode="json") if economics else None
        if problem:
            data["economics_problem"] = problem
        print_json("clusterplan finetune", data)
        return 0
    from app.formatting import finetune_assumptions_text, finetune_rule_text, sentence

    p, lay = plan, plan.layout
    mem = ", ".join(f"{k} {v:.1f}" for k, v in p.memory_gib_per_gpu.items() if k != "total" and v)
    adapter = f", rank {p.lora_rank} on {' '.join(p.lora_targets)}" if p.lora_rank else ""
    print(
        f"{p.model} {p.method}{adapter} on {p.gpu} ({p.precision})\n"
        f"Trainable       {p.trainable_params / 1e6:,.1f} M of {p.params_total / 1e9:,.2f} B parameters\n"
        f"GPUs            {p.gpus} ({p.nodes} node(s), {p.sizing}; {fewest_text(p)})\n"
        f"Layout          {p.framework}: TP{lay.tp} PP{lay.pp} DP{lay.dp} ZeRO-{lay.zero}, recompute "
        f"{lay.recompute}, micro-batch {lay.micro_batch} x {lay.microbatches}, batch "
        f"{lay.global_batch_seqs} sequences; {finetune_assumptions_text(p)}\n"
        f"Memory savings  {savings_line(p)}\n"
        f"Memory per GPU  {p.memory_gib_per_gpu['total']:.1f} of {p.memory_capacity_gib:g} GiB ({mem}); "
        f"activations {p.activations_gib_no_recompute:.1f} GiB without recompute, "
        f"{p.activations_gib_full_recompute:.1f} with full\n"
        f"Step            {p.step_time_s:.2f} s, {p.tokens_per_s:,.0f} tokens/s "
        f"({p.tokens_per_s_per_gpu:,.0f} per GPU)\n"
        f"Dataset         {p.dataset_tokens * p.epochs:,.0f} tokens in {p.steps:,} steps: "
        f"{p.train_hours:,.2f} h wall-clock, {p.gpu_hours:,.1f} GPU-hours\n"
        f"Rule of thumb   {sentence(finetune_rule_text(p, 'clusterplan validate'))}"
    )
    if economics is None:
        print(f"Cost per job: not priced: {problem}")
        return 0
    from app import serving_cost
    from app.report_text import text_table

    print(f"\nCost per job, every option ({economics.jobs_per_month:g} jobs a month):")
    print("\n".join(text_table(serving_cost.job_rows(economics))))
    print(serving_cost.job_caption(economics))
    for line in serving_cost.notes(economics):
        print(f"  {line}")
    return 0


def fewest_text(p) -> str:
    """The fewest GPUs that fit, and, where memory savings let fewer fit, that count too."""
    if p.min_gpus_with_savings < p.min_gpus:
        return (
            f"fewest that fit {p.min_gpus} without memory savings, "
            f"{p.min_gpus_with_savings} with them"
        )
    return f"fewest that fit {p.min_gpus}"


def savings_line(p) -> str:
    """Which memory savings the plan uses, who chose them and what each costs per step."""
    on = [k for k, v in p.savings.items() if v]
    grads = f"; {BF16_GRADS_CAVEAT}" if p.bf16_grads else ""
    if not on:
        return f"none (fewest GPUs with savings: {p.min_gpus_with_savings}){grads}"
    parts = [f"{LABELS[k]} {p.savings_step_s.get(k, 0.0):+.2f} s/step" for k in on]
    who = {"planner": "chosen by the planner to fit", "buyer": "as given"}.get(
        p.savings_chosen_by, p.savings_chosen_by
    )
    host = (
        f"; {p.host_memory_gib_per_gpu:.0f} GiB of CPU memory per GPU"
        if p.host_memory_gib_per_gpu
        else ""
    )
    caveat = f"; {PURE_BF16_CAVEAT}" if p.savings.get("pure_bf16") else ""
    return f"{', '.join(parts)} ({who}{host}){caveat}{grads}"


def _economics(inputs, plan, args: argparse.Namespace):
    """(the job's cost on every option, "") or (None, why the portfolio engine refuses it)."""
    from pricing.finetune_economics import economics

    return priced(
        lambda: economics(
            inputs, plan, term_months=args.term_months, jobs_per_month=args.jobs_per_month
        )
    )

"""`clusterplan finetune`: size a full, LoRA or QLoRA fine-tune (models/finetune/plan.py)."""

from __future__ import annotations

import argparse

from app.cli.common import given, number, print_json, sized
from models.hardware import gpu_ids
from models.shapes import load_presets


def register(sub) -> None:
    f = sub.add_parser(
        "finetune",
        help="size a fine-tune (full, LoRA, QLoRA): memory, step time, wall-clock, fewest GPUs",
    )
    f.add_argument("--model", required=True, help=f"model preset: {', '.join(load_presets())}")
    f.add_argument("--method", required=True, help="full, lora or qlora")
    f.add_argument("--tokens", type=number, required=True, help="dataset tokens (one epoch)")
    f.add_argument("--epochs", type=number, help="passes over the dataset (default 1)")
    f.add_argument("--gpu", required=True, help=f"GPU: {', '.join(gpu_ids())}")
    f.add_argument("--gpus", type=int, help="fix the GPU count (default: the fewest that fit)")
    f.add_argument("--seq-len", type=int, help="tokens per sequence (default 4096)")
    f.add_argument("--batch", type=int, help="global batch in sequences (default 32)")
    f.add_argument("--rank", type=int, help="LoRA rank (default 16)")
    f.add_argument("--precision", help="bf16 (default) or fp8")
    f.add_argument("--json", action="store_true", help="print the plan as JSON")


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
}


def run(args: argparse.Namespace) -> int:
    from models.finetune.plan import FinetuneInputs, plan_finetune  # only this command needs it

    fields = given(args, FINETUNE_OPTION)
    plan = sized("finetune", FINETUNE_OPTION, lambda: plan_finetune(FinetuneInputs(**fields)))
    if args.json:
        print_json("clusterplan finetune", plan.model_dump(mode="json"))
        return 0
    p, lay = plan, plan.layout
    mem = ", ".join(f"{k} {v:.1f}" for k, v in p.memory_gib_per_gpu.items() if k != "total")
    adapter = f", rank {p.lora_rank} on {' '.join(p.lora_targets)}" if p.lora_rank else ""
    print(
        f"{p.model} {p.method}{adapter} on {p.gpu} ({p.precision})\n"
        f"Trainable       {p.trainable_params / 1e6:,.1f} M of {p.params_total / 1e9:,.2f} B parameters\n"
        f"GPUs            {p.gpus} ({p.nodes} node(s), {p.sizing}; fewest that fit {p.min_gpus})\n"
        f"Layout          TP{lay.tp} PP{lay.pp} DP{lay.dp} ZeRO-{lay.zero}, recompute {lay.recompute}, "
        f"micro-batch {lay.micro_batch} x {lay.microbatches}, batch {lay.global_batch_seqs} sequences\n"
        f"Memory per GPU  {p.memory_gib_per_gpu['total']:.1f} of {p.memory_capacity_gib:g} GiB ({mem}); "
        f"activations {p.activations_gib_no_recompute:.1f} GiB without recompute, "
        f"{p.activations_gib_full_recompute:.1f} with full\n"
        f"Step            {p.step_time_s:.2f} s, {p.tokens_per_s:,.0f} tokens/s "
        f"({p.tokens_per_s_per_gpu:,.0f} per GPU)\n"
        f"Dataset         {p.dataset_tokens * p.epochs:,.0f} tokens in {p.steps:,} steps: "
        f"{p.train_hours:,.2f} h wall-clock, {p.gpu_hours:,.1f} GPU-hours\n"
        f"Rule of thumb   {p.rule_of_thumb_tokens_per_s:,.0f} tokens/s (MFU 40 %, 6 x params); "
        f"{p.rule_of_thumb_memory_gib_per_gpu:.1f} GiB per GPU (16/2/0.5 bytes per param)"
    )
    return 0

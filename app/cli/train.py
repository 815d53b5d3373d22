"""`clusterplan train`: size a training run (models/training/plan.py)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from pydantic import ValidationError

from app.cli.common import (
    MODEL_HELP,
    UsageError,
    explain_validation_error,
    model_name,
    number,
    plan_training,
    print_json,
    report_text,
    scenario_model,
    whole,
)
from models.constants import DEFAULT_SOFTWARE_STACK, SOFTWARE_STACKS
from models.errors import InputError
from models.hardware import gpu_ids
from models.shapes import load_presets

if TYPE_CHECKING:
    from models.scenario import Scenario

#: scenario field path -> CLI option, so validation messages name what the user typed
OPTION_FOR_FIELD = {
    "workload.model": "--model",
    "execution.software_stack": "--stack",
    "workload.params": "--params",
    "workload.active_params": "--active-params",
    "workload.tokens": "--tokens",
    "workload.seq_len": "--seq-len",
    "workload.global_batch_tokens": "--global-batch-tokens",
    "workload.precision": "--precision",
    "execution.fp8_params": "--fp8-params",
    "cluster.gpu": "--gpu",
    "cluster.gpus": "--gpus",
    "cluster.deadline_days": "--deadline-days",
    "gpus": "--gpus",
    "deadline_days": "--deadline-days",
    "precision": "--precision",
}


def register(sub) -> None:
    t = sub.add_parser(
        "train",
        help="size a training run: GPUs, layout, memory, step time, days with failures",
        description="Size a training run. Counts accept K/M/B/T suffixes (15T tokens, 405B params).",
    )
    which = t.add_mutually_exclusive_group(required=True)
    which.add_argument(
        "--model",
        type=model_name,
        metavar="PRESET|FILE.json",
        help=f"{MODEL_HELP}: " + ", ".join(load_presets()),
    )
    which.add_argument(
        "--params", type=number, metavar="N", help="total parameters of a custom model"
    )
    t.add_argument(
        "--active-params", type=number, metavar="N", help="active parameters per token (MoE)"
    )
    t.add_argument("--tokens", type=number, required=True, metavar="N", help="training tokens")
    t.add_argument(
        "--gpu", required=True, choices=gpu_ids(), metavar="ID", help="GPU: " + ", ".join(gpu_ids())
    )
    size = t.add_mutually_exclusive_group()
    size.add_argument("--gpus", type=whole, metavar="N", help="GPU count")
    size.add_argument(
        "--deadline-days",
        type=number,
        metavar="D",
        help="fewest GPUs whose first run ends within D days of the decision, provisioning "
        "included (of the option that can deliver first: build, rent, managed or cloud "
        "on-demand), as `clusterplan compare` and the portal size it",
    )
    t.add_argument("--seq-len", type=whole, metavar="N", help="sequence length (default 8192)")
    t.add_argument(
        "--global-batch-tokens", type=whole, metavar="N", help="tokens per optimizer step"
    )
    t.add_argument("--precision", choices=["bf16", "fp8"], default="bf16")
    t.add_argument(
        "--stack",
        choices=list(SOFTWARE_STACKS),
        default=DEFAULT_SOFTWARE_STACK,
        help="software stack class (docs/reference/software-stacks.md; default "
        f"{DEFAULT_SOFTWARE_STACK}: what a competent team gets today)",
    )
    t.add_argument(
        "--attention",
        choices=["cudnn", "flash3", "flash2", "flash1", "none"],
        default=None,
        help="attention kernel (default: the stack's; cudnn = Transformer Engine's cuDNN fused "
        "attention, FlashAttention-2 on Ampere; flash3 = FlashAttention-3, Hopper only)",
    )
    t.add_argument(
        "--tp-comm-overlap",
        action="store_true",
        help="overlap tensor-parallel collectives with GEMMs (Transformer Engine userbuffers)",
    )
    t.add_argument(
        "--grad-precision",
        choices=["fp32", "bf16"],
        default="fp32",
        help="gradients kept and reduced in fp32 (Megatron's default) or bf16",
    )
    t.add_argument(
        "--fp8-params",
        action="store_true",
        help="with --precision fp8: weights held and all-gathered in FP8 (1 byte), FP32 master "
        "weights in the optimizer, embedding in BF16 (Transformer Engine quantized_model_init, "
        "Megatron-Core fp8_param_gather; NVIDIA's MLPerf configs set FP8_PARAMS=True)",
    )
    t.add_argument("--curve", action="store_true", help="also show training time against GPU count")
    t.add_argument("--json", action="store_true", help="print JSON instead of tables")


def scenario_from_args(args: argparse.Namespace) -> Scenario:
    workload = {"tokens": args.tokens, "precision": args.precision}
    if args.model:
        workload["model"] = args.model
    else:
        workload["params"] = args.params
        if args.active_params is not None:
            workload["active_params"] = args.active_params
    if args.active_params is not None and args.model:
        raise UsageError("clusterplan train: --active-params goes with --params, not --model")
    if args.seq_len is not None:
        workload["seq_len"] = args.seq_len
    if args.global_batch_tokens is not None:
        workload["global_batch_tokens"] = args.global_batch_tokens
    cluster = {"gpu": args.gpu, "gpus": args.gpus, "deadline_days": args.deadline_days}
    execution = {
        "software_stack": args.stack,
        **({"attention": args.attention} if args.attention else {}),
        "tp_comm_overlap": args.tp_comm_overlap,
        "gradient_precision": args.grad_precision,
        "fp8_params": args.fp8_params,
    }
    try:
        return scenario_model.Scenario.model_validate(
            {"workload": workload, "cluster": cluster, "execution": execution}
        )
    except ValidationError as exc:
        field, msg = explain_validation_error(exc)[0]
        raise UsageError(
            f"clusterplan train: {OPTION_FOR_FIELD.get(field, field)}: {msg}"
        ) from None


def run(args: argparse.Namespace) -> int:
    scenario = scenario_from_args(args)
    answer = None
    try:
        if scenario.cluster.deadline_days is not None:  # one answer with compare's
            from pricing.deadline import answer as deadline_answer

            answer = deadline_answer(scenario)
        if answer is None:
            plan = plan_training(scenario, curve=args.curve)
        else:
            plan = answer.plan if args.curve else answer.plan.model_copy(update={"curve": None})
    except InputError as exc:
        raise UsageError(
            f"clusterplan train: {OPTION_FOR_FIELD.get(exc.field, exc.field)}: {exc}"
        ) from None
    if args.json:
        out = plan.model_dump(mode="json")
        if answer is not None:  # the option the deadline left room for, its ready and first days
            out["deadline"] = answer.model_dump(mode="json", exclude={"plan"})
        print_json("clusterplan train", out)
    else:
        print(report_text.training_report(plan, answer))
    return 0

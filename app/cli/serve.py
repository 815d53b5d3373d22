"""`clusterplan serve`: size an inference deployment (models/serving/plan.py)."""

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
from models.hardware import gpu_ids, gpus_with
from models.serving.precision import DEFAULT_PRECISION_TEXT
from models.shapes import load_presets


def register(sub) -> None:
    s = sub.add_parser(
        "serve",
        help="size inference serving: layout, KV cache, TTFT/TPOT, throughput, GPUs for a traffic",
    )
    s.add_argument(
        "--model", required=True, type=model_name, help=f"{MODEL_HELP}: {', '.join(load_presets())}"
    )
    s.add_argument("--gpu", required=True, help=f"GPU: {', '.join(gpu_ids())}")
    s.add_argument("--input-tokens", type=int, required=True, help="mean prompt tokens per request")
    s.add_argument("--output-tokens", type=int, required=True, help="mean output tokens")
    traffic = s.add_mutually_exclusive_group()
    traffic.add_argument("--rps", type=number, help="requests per second to carry")
    traffic.add_argument("--users", type=int, help="requests in flight (concurrency)")
    traffic.add_argument(
        "--tokens-per-day",
        type=number,
        help="input + output tokens a day, averaged over 24 h (carried as this / 86400 / "
        "tokens per request requests/s)",
    )
    s.add_argument(
        "--gpus", type=int, help="one replica of this many GPUs at --users in flight (a benchmark)"
    )
    s.add_argument("--ttft-ms", type=number, help="time-to-first-token objective, ms")
    s.add_argument("--tpot-ms", type=number, help="time-per-output-token objective, ms")
    s.add_argument(
        "--slo-percentile",
        type=int,
        help="50 (default), 90 or 99: the TTFT percentile, with the wait for a free slot (M/M/c)",
    )
    s.add_argument(
        "--precision",
        help=f"weights: bf16, fp8, fp4 or int4 (FP4 tensor cores: {', '.join(gpus_with('fp4'))}; "
        "elsewhere FP4 weights with BF16 arithmetic where the engine serves them: vLLM on "
        "Hopper, Ampere, MI300X/MI325X; SGLang, TensorRT-LLM on Hopper. int4: weight-only "
        "(AWQ, GPTQ) on NVIDIA Ampere and later, SGLang also on MI300X/MI325X); default "
        f"{DEFAULT_PRECISION_TEXT}",
    )
    s.add_argument(
        "--kv-precision",
        help="KV cache: bf16 or fp8 (default fp8 with fp8/fp4 weights; bf16 with weight-only "
        "fp4 or int4)",
    )
    s.add_argument(
        "--engine",
        help="serving engine NAME[:VERSION]: tensorrt-llm (the default on NVIDIA), vllm (the "
        "default on AMD: its ROCm build) or sglang, e.g. vllm:0.7.3; a release not measured uses "
        "the nearest measured one's costs, and the output says so",
    )
    s.add_argument(
        "--prefill-decode",
        help="auto (default: split only where it needs fewer GPUs), colocated, or split "
        "(separate prefill and decode pools; needs --rps or --tokens-per-day)",
    )
    add_term_argument(s, "the cost per million tokens")
    s.add_argument("--json", action="store_true", help="print the plan as JSON")


SERVE_OPTION = {
    "model": "--model",
    "gpu": "--gpu",
    "input_tokens": "--input-tokens",
    "output_tokens": "--output-tokens",
    "rps": "--rps",
    "users": "--users",
    "tokens_per_day": "--tokens-per-day",
    "gpus": "--gpus",
    "batch": "--users",
    "ttft_ms": "--ttft-ms",
    "tpot_ms": "--tpot-ms",
    "slo_percentile": "--slo-percentile",
    "precision": "--precision",
    "kv_precision": "--kv-precision",
    "engine": "--engine",
    "prefill_decode": "--prefill-decode",
}


def run(args: argparse.Namespace) -> int:
    from app.formatting import (
        batch_text,
        deployment_text,
        engine_text,
        fit_text,
        layout_text,
        prefill_decode_text,
        rule_of_thumb_text,
        sentence,
        waiting_text,
    )
    from app.serving_cost import accuracy_warning
    from models.serving.plan import ServeInputs, plan_serving  # only this command needs it
    from models.shapes import get_preset

    fields = given(args, SERVE_OPTION, aliases=frozenset({"batch"}))
    inputs = sized("serve", SERVE_OPTION, lambda: ServeInputs(**fields))
    plan = sized("serve", SERVE_OPTION, lambda: plan_serving(inputs))
    economics, problem = _economics(inputs, plan, args.term_months)
    if args.json:
        data = plan.model_dump(mode="json")
        data["economics"] = economics.model_dump(mode="json") if economics else None
        if problem:
            data["economics_problem"] = problem
        print_json("clusterplan serve", data)
        return 0
    p = plan
    print(
        f"{p.model} on {p.gpu}, weights {p.precision}, KV cache {p.kv_precision}, "
        f"{engine_text(p)}\n"
        f"Layout          {layout_text(p, ' ')} ({p.gpus_per_replica} GPUs per replica"
        + (f" over {p.nodes_per_replica} nodes" if p.nodes_per_replica else "")
        + "), "
        + batch_text(p, "decode replica" if p.prefill_decode == "split" else "replica")
        + f"; {prefill_decode_text(p)}\n"
        f"Memory per GPU  weights {p.weights_gib_per_gpu:.1f} GiB, KV cache {p.kv_cache_gib_per_gpu:.1f} GiB "
        f"({p.kv_bytes_per_token / 1024:.0f} KiB per token); {fit_text(p)}\n"
        f"Latency         TTFT {p.ttft_ms:,.0f} ms at p{p.slo_percentile} ({p.ttft_queue_ms:,.0f} ms queued), TPOT {p.tpot_ms:.1f} ms (decode {p.decode_bound}-bound)\n"
        f"Throughput/GPU  {p.output_tokens_per_s_per_gpu:,.0f} output tokens/s, prefill "
        f"{p.prefill_tokens_per_s_per_gpu:,.0f} tokens/s; {p.output_tokens_per_gpu_hour / 1e6:.2f} M output tokens per GPU-hour\n"
        f"Deployment      {deployment_text(p)}\n"
        f"Rule of thumb   {sentence(rule_of_thumb_text(p, 'clusterplan validate'))}\n"
        f"Software        {p.software_generation}"
    )
    if p.users_waiting:
        print(f"Waiting         {waiting_text(p)}")
    moe = get_preset(p.model).is_moe
    if warning := accuracy_warning(moe, p.engine, p.gpu, p.attention_dp > 1, p.pp):
        print(f"Accuracy        {warning}")
    print_economics(economics, problem)
    return 0


def _economics(inputs, plan, term_months: int):
    """(the service's cost per million tokens on every option, "") or (None, why it is not
    priced: no traffic, or a traffic the portfolio engine refuses)."""
    from pricing.serving_economics import economics

    result, problem = priced(lambda: economics(inputs, plan, term_months=term_months))
    if result is None and not problem:
        problem = "no traffic given (--rps, --users or --tokens-per-day)"
    return result, problem


def print_economics(economics, problem: str) -> None:
    from app import serving_cost
    from app.report_text import text_table

    if economics is None:
        print(f"Cost per million tokens: not priced: {problem}")
        return
    print("\nCost per million tokens, every option:")
    print("\n".join(text_table(serving_cost.rows(economics))))
    print(serving_cost.caption(economics))
    for line in serving_cost.notes(economics):
        print(f"  {line}")

"""`clusterplan`: the planner's engine from a shell, for people and scripts.

Bad input exits with status 2 and one line on stderr that names the option and what would work;
whatever the input held, that line is printable and bounded (`one_line`).
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib
import json
import math
import os
import pathlib
import re
import sys
import unicodedata
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from app import settings
from models.constants import DEFAULT_SOFTWARE_STACK, SOFTWARE_STACKS
from models.errors import InputError
from models.hardware import gpu_ids
from models.options import OPTIONS, Staffing
from models.shapes import load_presets

if TYPE_CHECKING:
    from models.scenario import Scenario
    from pricing.results import Comparison


class _Lazy:
    """A module imported on first use: `--help`, `decode` and `link` never load the engine, pandas
    or plotly (tests/test_cli.py checks; bench/bench_cli_start.py times them)."""

    def __init__(self, name: str):
        self._name = name

    def __getattr__(self, attr: str) -> Any:
        return getattr(importlib.import_module(self._name), attr)


exports = _Lazy("app.exports")
report_text = _Lazy("app.report_text")
scenario_files = _Lazy("app.scenario_files")
share_link = _Lazy("app.share_link")
_scenario = _Lazy("models.scenario")


def compare(*args, **kwargs):
    """pricing.engine.compare, imported when a command first compares."""
    return importlib.import_module("pricing.engine").compare(*args, **kwargs)


def load_catalogue(*args, **kwargs):
    return importlib.import_module("pricing.catalogue").load_catalogue(*args, **kwargs)


def plan_training(*args, **kwargs):
    return importlib.import_module("models.training.plan").plan_training(*args, **kwargs)


def explain_validation_error(exc: ValidationError):
    return _scenario.explain_validation_error(exc)


#: longest field path (an override's key is part of it) quoted back in an error
MAX_KEY_CHARS = 80
#: the sample portfolios `clusterplan example --portfolio` prints (app/scenario_files.py PORTFOLIOS;
#: named here so that building the parser reads no scenario code)
PORTFOLIO_NAMES = ("enterprise", "university", "lab")
#: longest unbroken run of characters printed whole: a long file path still fits, a 200 KB key not
MAX_WORD_CHARS = 256
#: longest line printed; the longest message of our own (an unknown override, followed by the list
#: of overridable names) is about 1,200 characters
MAX_LINE_CHARS = 2000
SUFFIXES = {"k": 1e3, "m": 1e6, "b": 1e9, "g": 1e9, "t": 1e12, "p": 1e15}
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


class UsageError(Exception):
    """One-line input error; exit status 2."""


def one_line(text: object, limit: int = MAX_LINE_CHARS) -> str:
    """`text` made safe to print as one line of a terminal; nothing in it is interpreted.

    Guarantees: no character of Unicode category C is left (C0 and C1 controls, DEL, format
    characters such as bidi overrides and zero-width spaces, lone surrogates): each becomes a space;
    every run of whitespace (line and paragraph separators too) becomes one space, and none is left
    at either end; an unbroken run longer than MAX_WORD_CHARS is cut to that length, ending in "…";
    the result is at most `limit` characters, ending in "…" when cut. Text with none of these
    (ordinary messages, file names, field paths) comes back unchanged.
    """
    clean = "".join(" " if unicodedata.category(ch)[0] == "C" else ch for ch in str(text))
    words = (
        w if len(w) <= MAX_WORD_CHARS else w[: MAX_WORD_CHARS - 1] + "…" for w in clean.split()
    )
    line = " ".join(words)
    return line if len(line) <= limit else line[: limit - 1] + "…"


def printable(text: str) -> str:
    """One line of a table: like `one_line`, but runs of spaces (the columns) are kept."""
    clean = "".join(" " if unicodedata.category(ch)[0] == "C" else ch for ch in text).rstrip()
    return clean if len(clean) <= MAX_LINE_CHARS else clean[: MAX_LINE_CHARS - 1] + "…"


def _not_finite(value: Any, path: str = "") -> str | None:
    """The path of the first number in `value` that is not finite (NaN, ±inf), or None."""
    if isinstance(value, float) and not math.isfinite(value):
        return path or "the value"
    if isinstance(value, dict):
        items = ((f"{path}.{k}" if path else str(k), v) for k, v in value.items())
    elif isinstance(value, list | tuple):
        items = ((f"{path}[{i}]", v) for i, v in enumerate(value))
    else:
        return None
    return next((p for k, v in items if (p := _not_finite(v, k)) is not None), None)


def print_json(prog: str, data: Any, **kwargs: Any) -> None:
    """`data` printed as strict JSON (what --json promises: no NaN or Infinity, which Python's
    json would write and other readers refuse); a number that is not finite prints nothing and is
    a one-line error naming its key."""
    bad = _not_finite(data)
    if bad is not None:
        raise UsageError(
            f"{prog}: --json: {one_line(bad, MAX_KEY_CHARS)} is not a finite number; "
            "nothing printed"
        )
    print(json.dumps(data, indent=2, allow_nan=False, **kwargs))


class Parser(argparse.ArgumentParser):
    def error(self, message: str):  # argparse's default prints the whole usage first
        raise UsageError(f"{self.prog}: {message}")


def number(text: str) -> float:
    """A positive-or-not real number, with an optional K/M/B/T suffix: 15T, 405B, 1e12."""
    t = text.strip().lower().replace("_", "").replace(",", "")
    scale = 1.0
    if t and t[-1] in SUFFIXES:
        t, scale = t[:-1], SUFFIXES[t[-1]]
    try:
        value = float(t) * scale
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number (e.g. 1e12 or 15T)") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number")
    return value


def whole(text: str) -> int:
    value = number(text)
    if value != int(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number")
    return int(value)


def iso_date(text: str) -> dt.date:
    """A calendar date written YYYY-MM-DD."""
    try:
        if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text.strip()):
            return dt.date.fromisoformat(text.strip())
    except ValueError:
        pass
    raise argparse.ArgumentTypeError(f"{text!r} is not a date written YYYY-MM-DD")


def build_parser() -> Parser:
    parser = Parser(prog="clusterplan", description="GPU Cluster Planner command line.")
    sub = parser.add_subparsers(dest="command", parser_class=Parser)
    t = sub.add_parser(
        "train",
        help="size a training run: GPUs, layout, memory, step time, days with failures",
        description="Size a training run. Counts accept K/M/B/T suffixes (15T tokens, 405B params).",
    )
    which = t.add_mutually_exclusive_group(required=True)
    which.add_argument(
        "--model",
        choices=list(load_presets()),
        metavar="PRESET",
        help="model preset: " + ", ".join(load_presets()),
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
        help="fewest GPUs that finish within D wall-clock days",
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

    e = sub.add_parser("example", help="print a sample scenario (JSON) comparing all four options")
    e.add_argument(
        "--portfolio",
        choices=sorted(PORTFOLIO_NAMES),
        help="print a sample portfolio (scenario version 2) instead",
    )
    sub.add_parser("schema", help="print the scenario's JSON Schema")
    c = sub.add_parser(
        "compare",
        help="cost and time of each option for a scenario file; 2 or 3 files side by side",
    )
    c.add_argument(
        "scenario",
        metavar="SCENARIO.json",
        nargs="+",
        help="scenario file ('-' for standard input); two or three compare them side by side",
    )
    fmt = c.add_mutually_exclusive_group()
    fmt.add_argument(
        "--json",
        action="store_true",
        help="print the whole comparison as JSON (several files: a list, in their order)",
    )
    fmt.add_argument("--csv", action="store_true", help="print one CSV row per option")
    r = sub.add_parser(
        "report",
        help="write a PDF report of a scenario file's comparison",
        description="Write the comparison of a scenario file as a PDF: recommendation, charts (they "
        "need Chromium; without it the tables hold every number), totals, every assumption "
        "with its source and date, and a share link that reopens the scenario.",
    )
    r.add_argument(
        "scenario", metavar="SCENARIO.json", help="scenario file ('-' for standard input)"
    )
    r.add_argument(
        "-o",
        "--output",
        required=True,
        metavar="OUT.pdf",
        help="where to write the PDF ('-': standard output)",
    )
    r.add_argument(
        "--link",
        metavar="URL",
        help="the portal's address for the share link (default: $"
        f"{settings.ENV_BASE_URL}, else base_url in .streamlit/secrets.toml, else "
        f"{settings.LOCAL_BASE_URL}); a whole share link (with s=) must open this same "
        "scenario, and is printed as it is",
    )
    r.add_argument(
        "--title", metavar="TEXT", help="the cover's title (default: model on GPU count × GPU)"
    )
    h = sub.add_parser(
        "hourly", help="all-in owned cost per GPU-hour against the catalogue's rental prices"
    )
    h.add_argument("--gpu", default="H100-SXM", choices=gpu_ids(), metavar="ID")
    h.add_argument(
        "--gpus", type=whole, default=1024, metavar="N", help="cluster size (default 1024)"
    )
    h.add_argument(
        "--months", type=whole, default=60, metavar="N", help="term in months (default 60)"
    )
    h.add_argument(
        "--utilisation",
        type=number,
        nargs="+",
        default=[100.0, 60.0],
        metavar="PCT",
        help="utilisations to price, percent (default 100 60)",
    )
    h.add_argument(
        "--json",
        action="store_true",
        help="print the owned cost and its lines per utilisation, and every rental price the "
        "catalogue has for the GPU, as JSON",
    )
    cat = sub.add_parser("catalogue", help="maintain the price catalogue (pricing/data/)")
    cat_sub = cat.add_subparsers(
        dest="catalogue_command", metavar="ACTION", parser_class=Parser, required=True
    )
    imp = cat_sub.add_parser(
        "import-skypilot",
        help="rental prices from SkyPilot's catalog (<cloud>/vms.csv) into rental_prices.csv",
        description="Read SkyPilot's published catalog (one vms.csv, or a folder of "
        "<cloud>/vms.csv as in skypilot-org/skypilot-catalog catalogs/v8), take for each GPU the "
        "catalogue carries the price per GPU-hour (Price / AcceleratorCount, and SpotPrice for "
        "spot), its median over instance types per provider and region, and show what would "
        "change in rental_prices.csv. --write merges them in, after checking that the merged "
        "catalogue loads. A price per GPU-hour outside 0.01..1000 USD, a provider or region name "
        "outside letters, digits, spaces and - _ . , ( ), a file over 20 MiB or 200,000 rows, or "
        "a price moving more than 10x refuses the whole import.",
    )
    imp.add_argument("path", metavar="PATH", help="a vms.csv, or a folder of <cloud>/vms.csv")
    imp.add_argument(
        "--write",
        action="store_true",
        help="write the merged rental_prices.csv (default: only report what would change)",
    )
    imp.add_argument(
        "--allow-large-changes",
        action="store_true",
        help="accept a price more than 10x above or below the catalogue's (refused by default, "
        "as a unit slip or a broken file)",
    )
    imp.add_argument(
        "--as-of",
        type=iso_date,
        metavar="YYYY-MM-DD",
        help="the date of the prices (default: today)",
    )
    imp.add_argument(
        "--cloud",
        metavar="NAME",
        help="the cloud of a single vms.csv (default: the name of its folder), e.g. aws",
    )
    imp.add_argument(
        "--data-dir",
        metavar="DIR",
        help="the catalogue folder to compare with and write to (default pricing/data)",
    )
    k = sub.add_parser(
        "link", help="print a share link (URL) that opens a scenario file in the portal"
    )
    k.add_argument(
        "scenario", metavar="SCENARIO.json", help="scenario file ('-' for standard input)"
    )
    k.add_argument(
        "--base-url",
        metavar="URL",
        help=f"the portal's address (default: ${settings.ENV_BASE_URL}, else base_url in "
        f".streamlit/secrets.toml, else {settings.LOCAL_BASE_URL})",
    )
    d = sub.add_parser(
        "decode",
        help="print the scenario JSON (and any Serve / Fine-tune inputs) inside a share link",
    )
    d.add_argument("url", metavar="URL", help="a share link, or just its s= token")
    v = sub.add_parser(
        "validate",
        help="the model against published runs and benchmarks (models/data/validation/runs.csv)",
    )
    v.add_argument(
        "--json", action="store_true", help="print every row and the error summary as JSON"
    )
    add_serve_parser(sub)
    add_finetune_parser(sub)
    return parser


def add_finetune_parser(sub) -> None:
    """`clusterplan finetune`: size a full, LoRA or QLoRA fine-tune (models/finetune/plan.py)."""
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


def add_serve_parser(sub) -> None:
    """`clusterplan serve`: size an inference deployment (models/serving/plan.py)."""
    s = sub.add_parser(
        "serve",
        help="size inference serving: layout, KV cache, TTFT/TPOT, throughput, GPUs for a traffic",
    )
    s.add_argument("--model", required=True, help=f"model preset: {', '.join(load_presets())}")
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
        "--precision", default="bf16", help="weights: bf16, fp8 or fp4 (if the GPU has it)"
    )
    s.add_argument(
        "--kv-precision", help="KV cache: bf16 or fp8 (default fp8 with fp8/fp4 weights)"
    )
    s.add_argument(
        "--prefill-decode",
        help="auto (default: split only where it needs fewer GPUs), colocated, or split "
        "(separate prefill and decode pools; needs --rps or --tokens-per-day)",
    )
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
    "prefill_decode": "--prefill-decode",
}


def _given(fields: dict) -> dict:
    """The flags the user gave (argparse leaves the others None; the record's defaults apply)."""
    return {k: v for k, v in fields.items() if v is not None}


def _sized(command: str, flags: dict[str, str], size):
    """`size()` (build a core's input record and plan it), its refusal restated as one line
    naming the flag (`flags`: record field -> command-line option)."""
    try:
        return size()
    except ValidationError as exc:
        err = exc.errors()[0]
        name = str(err["loc"][0]) if err["loc"] else ""
        msg = err["msg"].removeprefix("Value error, ")
        raise UsageError(
            f"clusterplan {command}: {flags.get(name, name or 'input')}: {one_line(msg)}"
        ) from None
    except InputError as exc:
        raise UsageError(
            f"clusterplan {command}: {flags.get(exc.field, exc.field)}: {one_line(exc)}"
        ) from None


def run_serve(args: argparse.Namespace) -> int:
    from app.formatting import deployment_text, prefill_decode_text
    from models.serving.plan import ServeInputs, plan_serving  # only this command needs it

    fields = {
        "model": args.model,
        "gpu": args.gpu,
        "input_tokens": args.input_tokens,
        "output_tokens": args.output_tokens,
        "rps": args.rps,
        "users": args.users,
        "tokens_per_day": args.tokens_per_day,
        "gpus": args.gpus,
        "ttft_ms": args.ttft_ms,
        "tpot_ms": args.tpot_ms,
        "slo_percentile": args.slo_percentile,
        "precision": args.precision,
        "kv_precision": args.kv_precision,
        "prefill_decode": args.prefill_decode,
    }
    plan = _sized("serve", SERVE_OPTION, lambda: plan_serving(ServeInputs(**_given(fields))))
    if args.json:
        print_json("clusterplan serve", plan.model_dump(mode="json"))
        return 0
    p = plan
    print(
        f"{p.model} on {p.gpu}, weights {p.precision}, KV cache {p.kv_precision}\n"
        f"Layout          TP{p.tp}"
        + (f" EP{p.ep}" if p.ep > 1 else "")
        + f" ({p.gpus_per_replica} GPUs per replica), {p.batch} sequences in flight per "
        f"{'decode ' if p.prefill_decode == 'split' else ''}replica; {prefill_decode_text(p)}\n"
        f"Memory per GPU  weights {p.weights_gib_per_gpu:.1f} GiB, KV cache {p.kv_cache_gib_per_gpu:.1f} GiB "
        f"({p.kv_bytes_per_token / 1024:.0f} KiB per token); {p.max_sequences_per_replica:,} sequences fit\n"
        f"Latency         TTFT {p.ttft_ms:,.0f} ms at p{p.slo_percentile} ({p.ttft_queue_ms:,.0f} ms queued), TPOT {p.tpot_ms:.1f} ms (decode {p.decode_bound}-bound)\n"
        f"Throughput/GPU  {p.output_tokens_per_s_per_gpu:,.0f} output tokens/s, prefill "
        f"{p.prefill_tokens_per_s_per_gpu:,.0f} tokens/s; {p.output_tokens_per_gpu_hour / 1e6:.2f} M output tokens per GPU-hour\n"
        f"Deployment      {deployment_text(p)}\n"
        f"Rule of thumb   {p.rule_of_thumb_tokens_per_s_per_gpu:,.0f} tokens/s per GPU (HBM bandwidth / weight bytes x batch)\n"
        f"Software        {p.software_generation}"
    )
    return 0


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


def run_finetune(args: argparse.Namespace) -> int:
    from models.finetune.plan import FinetuneInputs, plan_finetune  # only this command needs it

    fields = {
        "model": args.model,
        "method": args.method,
        "tokens": args.tokens,
        "epochs": args.epochs,
        "gpu": args.gpu,
        "gpus": args.gpus,
        "seq_len": args.seq_len,
        "global_batch_seqs": args.batch,
        "lora_rank": args.rank,
        "precision": args.precision,
    }
    plan = _sized(
        "finetune", FINETUNE_OPTION, lambda: plan_finetune(FinetuneInputs(**_given(fields)))
    )
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


def run_validate(args: argparse.Namespace) -> int:
    # imported here: only this command needs it
    from models.validation import finetune as FV
    from models.validation import memory as MV
    from models.validation import serving as SV
    from models.validation.training import (
        TARGETS,
        UNITS,
        band_summary,
        heldout_report,
        modes_report,
        modes_summary,
        source_layout_report,
        validate,
        validate_heldout,
        validate_heldout_source_layout,
    )

    try:
        result = validate()
        result_heldout = validate_heldout()
        serving, finetune = SV.validate(), FV.validate()
        memory = MV.validate_memory()
    except (OSError, ValueError, KeyError) as exc:
        raise UsageError(f"clusterplan validate: validation data: {exc}") from None
    if args.json:
        print_json(
            "clusterplan validate",
            {
                **result,
                "heldout_whole_runs": result_heldout,
                "band": band_summary(),
                "inference": serving,
                "finetune": finetune,
                "memory": memory,
                "modes": modes_summary(result, result_heldout),
            },
            default=str,
        )
        return 0
    mfu = result["rule_of_thumb_mfu"]
    print(
        f"{'row':34} {'inputs':40} {'layout':36} {'published':>11} {'model':>11} {'error':>7} {'rule':>7}  unit"
    )
    for r in result["rows"]:
        gpus = f"{r['gpus']:,}{'*' if r['gpus_assumed'] else ''}"
        inputs = f"{r['model']} {gpus}x{r['gpu']} s{r['seq_len']} b{r['global_batch_seqs']} {r['precision']}"
        layout = r["layout"] + ("" if r["layout_fits"] else " #")
        print(
            f"{r['id']:34} {inputs:40} {layout:36} {r['published']:>11.4g} {r['predicted']:>11.4g} "
            f"{r['error']:>+7.1%} {r['rule_error']:>+7.1%}  {UNITS[r['unit']]}{'' if r['scored'] else '  [not scored]'}"
        )
    print(
        f"\nerrors per kind (|predicted / published - 1|); rule of thumb = 6ND at {mfu:.1%} MFU, "
        f"/{result['rule_of_thumb_goodput']:g} goodput for whole runs, MFU picked after the fact"
    )
    for title, key in (
        ("scored rows", "by_kind"),
        ("held-out rows (scored, not used to set any constant)", "by_kind_held_out"),
        ("all rows, [not scored] included", "by_kind_all_rows"),
    ):
        print(
            f"{title}:\n{'kind':12} {'rows':>4} {'model median':>13} {'model worst':>12} {'beyond':>7} "
            f"{'rule median':>12} {'rule worst':>11}"
        )
        for kind, s in result[key].items():
            m, t = s["model"], s["rule_of_thumb"]
            print(
                f"{kind:12} {m['rows']:>4} {m['median_abs_error']:>13.1%} {m['worst_abs_error']:>12.1%} "
                f"{len(m['beyond_worst_target']):>7} {t['median_abs_error']:>12.1%} {t['worst_abs_error']:>11.1%}"
            )
    print(
        f"by source, every row (bias = mean error in speed, + = the model optimistic: faster or cheaper):\n"
        f"{'source':46} {'rows':>4} {'scored':>6} {'median':>7} {'worst':>7} {'bias':>7}"
    )
    for g in result["by_source"]:
        print(
            f"{g['source']:46} {g['rows']:>4} {g['scored_rows']:>6} {g['median_abs_error']:>7.1%} "
            f"{g['worst_abs_error']:>7.1%} {g['bias']:>+7.1%}"
        )
    targets = ", ".join(f"{k} {m:.0%}/{w:.0%}" for k, (m, w) in TARGETS.items())
    print(f"targets (median/worst): {targets}; beyond: rows over the worst-case target")
    print(
        "[not scored]: the row's notes in models/data/validation/runs.csv say why; *: GPU count not published, "
        "the count shown is assumed (the row's notes say why); #: the source ran this layout, the "
        "memory model says it does not fit"
    )
    print(
        f"{len(result['skipped'])} published figures not used (models/data/validation/skipped.csv says why)"
    )
    m = result["misses"]
    print(
        "\nscored rows beyond the worst-case target, read against the rows beside them (models/data/validation/misses.csv):"
    )
    for e in m["explained"]:
        others = ", ".join(
            f"{o['id']} {o['error']:+.1%}" for o in e["compare_with"] if o["error"] is not None
        )
        print(
            f"- {e['id']} {e['error']:+.1%} (memory model: {e['memory_share']:.0%} of HBM); beside: {others}\n"
            f"  differs: {e['what_differs']}\n  likely cause: {e['likely_cause']}"
        )
    if m["unexplained"]:
        print(
            f"- not explained in models/data/validation/misses.csv: {', '.join(m['unexplained'])}"
        )
    print(heldout_report(result_heldout))
    print(source_layout_report(validate_heldout_source_layout()))
    print(modes_report(modes_summary(result, result_heldout), band_summary()))
    print(MV.memory_report(memory))
    print("\n== Inference serving (models/data/validation/inference.csv) ==")
    print(SV.report(serving))
    print("\n== Fine-tuning (models/data/validation/finetune.csv) ==")
    print(FV.report(finetune))
    return 0


def run_link(args: argparse.Namespace) -> int:
    try:
        if args.base_url is None:
            base_url = settings.base_url()
        else:
            base_url = settings.check_base_url(args.base_url, "--base-url")
    except settings.BaseUrlError as exc:
        raise UsageError(f"clusterplan link: {exc}") from None
    try:
        data = scenario_files.read_scenario_data(args.scenario)
        print(share_link.link_url(data, base_url))
    except (scenario_files.ScenarioInputError, share_link.LinkError) as exc:
        raise UsageError(f"clusterplan link: {exc}") from None
    return 0


def report_link(scenario: Scenario, url: str | None) -> str:
    """The share link printed in a report: the scenario's own link at `url` (a portal address,
    by default the configured one), or `url` itself when it is already a share link, which must
    open this same scenario. Either address is checked (settings.check_base_url): BaseUrlError
    naming `--link` or the setting."""
    if url is None:
        return share_link.link_url(scenario, settings.base_url())
    url = settings.check_base_url(url, "--link")
    if re.search(r"[?&]s=", url):
        linked = share_link.decode(share_link.token_from_url(url))
        if linked.model_dump(mode="json") != scenario.model_dump(mode="json"):
            raise share_link.LinkError(
                "the share link opens a different scenario from the report's; give the portal's "
                "address without s=, or this scenario's own link (clusterplan link SCENARIO.json)"
            )
        return url
    return share_link.link_url(scenario, url)


def check_output(path: str) -> None:
    """Refuses an -o/--output that the PDF could not be written to, before any work on the PDF."""
    if path == "-":
        return
    target = pathlib.Path(path)
    folder = target.parent
    try:
        if target.is_dir():
            problem = "it is a directory"
        elif target.exists():  # overwritten in place (a file, /dev/stdout): the file's permission
            if os.access(target, os.W_OK):
                return
            problem = "permission denied"
        elif not folder.is_dir():
            problem = f"{'not a directory' if folder.exists() else 'no such directory'}: {folder}"
        elif not os.access(folder, os.W_OK | os.X_OK):
            problem = "permission denied"
        else:
            return
    except OSError as exc:
        problem = exc.strerror or exc.__class__.__name__
    raise UsageError(f"clusterplan report: -o/--output: cannot write {path}: {problem}")


def refused_input(prog: str, path: str, exc: InputError) -> UsageError:
    """The one-line usage error for a scenario file the engine refuses: the file, the field (cut
    to MAX_KEY_CHARS) and the engine's message."""
    return UsageError(f"{prog}: {path}: {one_line(exc.field, MAX_KEY_CHARS)}: {exc}")


def run_report(args: argparse.Namespace) -> int:
    from app import report_pdf  # fpdf2 and the browser only for this command

    check_output(args.output)
    try:
        scenario = scenario_files.read_scenario(args.scenario)
        link = report_link(scenario, args.link)
        comparison = compare(scenario)
        report = report_pdf.build_report(comparison, link=link, title=args.title)
    except scenario_files.ScenarioInputError as exc:
        raise UsageError(f"clusterplan report: {exc}") from None
    except share_link.LinkError as exc:
        raise UsageError(f"clusterplan report: --link: {exc}") from None
    except settings.BaseUrlError as exc:  # it names --link or the setting
        raise UsageError(f"clusterplan report: {exc}") from None
    except InputError as exc:
        raise refused_input("clusterplan report", args.scenario, exc) from None
    except report_pdf.ReportError as exc:
        raise UsageError(f"clusterplan report: {exc}") from None
    try:
        if args.output == "-":
            sys.stdout.buffer.write(report.data)
            sys.stdout.flush()
        else:
            with open(args.output, "wb") as f:
                f.write(report.data)
    except OSError as exc:
        raise UsageError(
            f"clusterplan report: cannot write {args.output}: "
            f"{exc.strerror or exc.__class__.__name__}"
        ) from None
    if not report.charts:
        print(f"clusterplan report: {report.charts_note}", file=sys.stderr)
    where = "standard output" if args.output == "-" else args.output
    print(
        one_line(f"{where}: {report.pages} pages"),
        file=sys.stderr if args.output == "-" else sys.stdout,
    )
    return 0


def run_decode(args: argparse.Namespace) -> int:
    """The scenario JSON, with the Serve / Fine-tune sections the link carries (as in the link, with
    their `version`); a section that fails its checks is left out, named on stderr, status 1."""
    try:
        link = share_link.decode_link(share_link.token_from_url(args.url))
    except share_link.LinkError as exc:
        raise UsageError(f"clusterplan decode: {exc}") from None
    sections = {k: share_link.section_data(k, v) for k, v in link.sections.items()}
    print_json("clusterplan decode", {**link.scenario, **sections})
    for problem in link.problems.values():
        print(one_line(f"clusterplan decode: {problem}"), file=sys.stderr)
    return 1 if link.problems else 0


#: the option `hourly` prices: owned hardware run by the buyer's own staff (the registry's build)
OWNED_STAFFED = next(s.id for s in OPTIONS if s.staffing is Staffing.OWNED)
RENTAL_OPTIONS = [s.id for s in OPTIONS if s.price_key and not s.managed]


def run_hourly(args: argparse.Namespace) -> int:
    rows = []
    for util in args.utilisation:
        data = {
            "workload": {"model": "llama3-70b", "tokens": 1e12},
            "cluster": {"gpu": args.gpu, "gpus": args.gpus},
            "usage": {"mode": "utilisation", "utilisation_pct": util},
            "term": {"months": args.months},
            # the owned option first (the report reads it), then the options the rental
            # figures price, so an offer the cluster's size rules out is shown as not offered
            "options": {"compare": [OWNED_STAFFED, *RENTAL_OPTIONS]},
        }
        try:
            scenario = _scenario.Scenario.model_validate(data)
            comparison = compare(scenario, decision=False)
        except ValidationError as exc:
            field, msg = explain_validation_error(exc)[0]
            raise UsageError(f"clusterplan hourly: {field}: {msg}") from None
        except InputError as exc:
            raise UsageError(f"clusterplan hourly: --{exc.field}: {exc}") from None
        rows.append((util, comparison))
    if args.json:
        rentals = load_catalogue().rentals(args.gpu)  # the catalogue compare() priced with
        data = report_text.hourly_data(args.gpu, args.gpus, args.months, rows, rentals)
        print_json("clusterplan hourly", data)
    else:
        print(report_text.hourly_report(args.gpu, args.gpus, args.months, rows))
    return 0


def run_catalogue(args: argparse.Namespace) -> int:
    # imported here: only this command reads SkyPilot files
    from pricing import skypilot_import as sky

    prog = f"clusterplan catalogue {args.catalogue_command}"
    data_dir = pathlib.Path(args.data_dir) if args.data_dir else None
    try:
        parsed = sky.parse(args.path, args.cloud)
        rows = sky.to_rows(parsed, as_of=args.as_of)
        _, current = sky.read_rentals(data_dir)
        changes = sky.diff(rows, current)
        sky.check_changes(changes, parsed, args.allow_large_changes)
        written = sky.write(rows, data_dir) if args.write else None
    except InputError as exc:
        raise UsageError(f"{prog}: {exc}") from None
    except OSError as exc:
        raise UsageError(f"{prog}: {exc.strerror or exc.__class__.__name__}") from None
    for line in sky.report_lines(changes, parsed):  # columns kept; the file's text made safe
        print(printable(line))
    tail = (
        f"wrote {written.path}: {written.rows} rows ({written.replaced} replaced, "
        f"{written.added} added; it loads)"
        if written
        else "nothing written (--write merges them in)"
    )
    print(one_line(f"{sky.summary(changes, parsed)}; {tail}"))
    return 0


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
        return _scenario.Scenario.model_validate(
            {"workload": workload, "cluster": cluster, "execution": execution}
        )
    except ValidationError as exc:
        field, msg = explain_validation_error(exc)[0]
        raise UsageError(
            f"clusterplan train: {OPTION_FOR_FIELD.get(field, field)}: {msg}"
        ) from None


def run_train(args: argparse.Namespace) -> int:
    scenario = scenario_from_args(args)
    try:
        plan = plan_training(scenario, curve=args.curve)
    except InputError as exc:
        raise UsageError(
            f"clusterplan train: {OPTION_FOR_FIELD.get(exc.field, exc.field)}: {exc}"
        ) from None
    if args.json:
        print_json("clusterplan train", plan.model_dump(mode="json"))
    else:
        print(report_text.training_report(plan))
    return 0


#: most scenario files `compare` takes (models/scenario_set.py MAX_SCENARIOS; named here so that
#: building the parser reads no scenario code)
MAX_COMPARE_FILES = 3


def run_compare(args: argparse.Namespace) -> int:
    files = args.scenario
    if len(files) > 1:
        return run_side_by_side(args, files)
    args.scenario = files[0]
    comparison = compare_file(args.scenario)
    if args.json:
        print(exports.comparison_json(comparison))
    elif args.csv:
        sys.stdout.write(report_text.comparison_csv(comparison))
    else:
        print(report_text.comparison_report(comparison))
    return 0


def compare_file(path: str) -> Comparison:
    """The comparison of one scenario file; a file or input the engine refuses is a one-line
    usage error naming the file (and the field)."""
    try:
        return compare(scenario_files.read_scenario(path))
    except scenario_files.ScenarioInputError as exc:
        raise UsageError(f"clusterplan compare: {exc}") from None
    except InputError as exc:
        raise refused_input("clusterplan compare", path, exc) from None


def run_side_by_side(args: argparse.Namespace, files: list[str]) -> int:
    """`compare A.json B.json [C.json]`: each file compared as one file is, then side by side
    (app/side_by_side.py); with --json, the list of the comparisons in the files' order."""
    prog = "clusterplan compare"
    if len(files) > MAX_COMPARE_FILES:
        raise UsageError(
            f"{prog}: {len(files)} scenario files given; it compares one file, or 2 to "
            f"{MAX_COMPARE_FILES} side by side"
        )
    if args.csv:
        raise UsageError(f"{prog}: --csv takes one scenario file; use --json for several")
    if files.count("-") > 1:
        raise UsageError(f"{prog}: standard input ('-') can be read only once")
    sbs_core = importlib.import_module("pricing.side_by_side")
    sbs_app = importlib.import_module("app.side_by_side")
    comparisons = [compare_file(path) for path in files]
    if args.json:
        print(sbs_app.comparisons_json(comparisons))
        return 0
    names = sbs_app.file_names(files)
    result = sbs_core.side_by_side(list(zip(names, comparisons, strict=True)))
    for line in sbs_app.report(result).splitlines():
        print(printable(line))
    return 0


COMMANDS = {
    "train": run_train,
    "compare": run_compare,
    "report": run_report,
    "hourly": run_hourly,
    "catalogue": run_catalogue,
    "link": run_link,
    "decode": run_decode,
    "validate": run_validate,
    "serve": run_serve,
    "finetune": run_finetune,
    "example": lambda args: print(scenario_files.example_json(args.portfolio)) or 0,
    "schema": lambda args: (
        print_json("clusterplan schema", _scenario.Scenario.model_json_schema()) or 0
    ),
}


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if args.command is None:
            parser.print_help()
            return 0
        return COMMANDS[args.command](args)
    except UsageError as exc:
        print(one_line(exc), file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())

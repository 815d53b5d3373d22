"""The fine-tuning model against published measurements (`models/data/validation/finetune.csv`).

Each row is predicted with its published settings (model, method, GPU, GPUs, TP, PP, CP, micro-batch,
global batch, sequence length, precision, LoRA rank and targets, FP8 SwiGLU-input store `fp8_act`);
the recompute mode is the row's `recompute` where its source's config gives it (a mode the memory
model says does not fit is scored anyway and reported "REJECTED by the memory model", as the
training rows are), else the fastest that fits. Kinds: `throughput` (tokens/s per GPU), `time_to_train_min` (the row's samples, else 3,072, × length ÷ tokens/s),
`memory` (peak GiB per GPU; a row with bound `upper` passes when the model is at or under it),
`memory_total` (all GPUs, bound `lower`) and `trainable_params`. No row sets a constant: all are held
out. Rows with split `added` were entered after the model's form was fixed
(docs/reference/finetune-model.md) and are scored apart, per method (`added_scores`); rows with
split `gpus-added` (AMD MLPerf rows entered with the MI300X/MI325X catalogue rows on 2026-12-02,
before their errors were seen) are scored apart too (`by_kind_gpus_added`); the levels `by_kind`
are the seen rows'. Each row runs with its own framework (empty: megatron) and the memory
savings its source names (column `savings`, which also names `fp8_params`, FP8-only weights, and `bf16_grads`, BF16 gradient buffers; the rest off), on its published ZeRO stage (`zero`). Beside the model, the rule of thumb: tokens/s = 40 % MFU × dense peak ÷ (6 × parameters), and
memory = 16 / 2 / 0.5 bytes per parameter (full / LoRA / QLoRA) ÷ GPUs.
"""

from __future__ import annotations

import csv
import functools
import statistics

from models import DATA_DIR
from models.finetune.plan import (
    RULE_OF_THUMB_BYTES_PER_PARAM,
    RULE_OF_THUMB_MFU,
    FinetuneInputs,
    lora_params,
)
from models.finetune.published import evaluate_layout
from models.finetune.savings import SAVINGS
from models.hardware import get_gpu
from models.shapes import get_preset
from models.units import BYTES_PER_GB, BYTES_PER_GIB

ROWS = DATA_DIR / "validation" / "finetune.csv"
#: samples of 8,192 tokens an MLPerf Llama 2 70B LoRA run trains on to the target (median of the
#: runs in the rows' logs) where a time-to-train row gives no `samples` (its runs' median)
MLPERF_SAMPLES = 3072


#: the rows entered with their GPUs, scored apart (`by_kind_gpus_added`), as reports name them
GPUS_ADDED = "AMD rows added 2026-12-02, scored apart"
#: the batches of rows added after the model's form was fixed, in the order they were entered:
#: (split, result key, label); each scored apart, per method, and shown side by side
ADDED_BATCHES = (
    ("added", "added", "before amendment 2"),
    ("after-amendment", "after_amendment", "after amendment 2"),
    ("after-amendment3", "after_amendment3", "after amendment 3 (in-sample since 5)"),
    ("after-amendment4", "after_amendment4", "after amendment 4 (in-sample since 5, 6)"),
)
#: batches entered in files of their own (sealed until the lead wired them for their one scoring)
ADDED_FILES = (DATA_DIR / "validation" / "finetune_sealed4.csv",)


def load_rows() -> list[dict]:
    """finetune.csv's rows, then each later batch's file (ADDED_FILES), in the order entered."""
    rows = []
    for path in (ROWS, *ADDED_FILES):
        with path.open(newline="") as f:
            rows += list(csv.DictReader(f))
    return rows


def inputs_of(row: dict) -> FinetuneInputs:
    return FinetuneInputs(
        model=row["model"],
        method=row["method"],
        gpu=row["gpu"],
        gpus=int(row["gpus"]),
        lora_rank=int(row["lora_rank"] or 16),
        lora_targets=tuple(row["lora_targets"].split()) or ("q", "v"),
        tokens=1e9,
        seq_len=int(row["seq_len"]),
        global_batch_seqs=int(row["global_batch_seqs"]),
        precision=row["precision"],
        fp8_activation_input_store=row.get("fp8_act") == "1",
        # the row's framework (empty: the MLPerf/NeMo rows, megatron) and its memory savings, each
        # on where the source says so and off otherwise (the run's own choices, not the planner's)
        framework=row.get("framework") or "megatron",
        **{k: k in (row.get("savings") or "").split() for k in SAVINGS},
        # FP8-only weights where the run's config set them (amendment 3), named in `savings` too
        fp8_params="fp8_params" in (row.get("savings") or "").split(),
        # BF16 gradient buffers where the config sets grad_reduce_in_fp32 False (amendment 5)
        bf16_grads="bf16_grads" in (row.get("savings") or "").split(),
    )


def predict(row: dict) -> dict:
    inp = inputs_of(row)
    shape, gpu = get_preset(inp.model), get_gpu(inp.gpu)
    n, tp, pp = int(row["gpus"]), int(row["tp"]), int(row["pp"])
    cp = int(row.get("cp") or 1)  # context parallelism as published (empty: none)
    kind = row["kind"]
    if kind == "trainable_params":
        return {"predicted": lora_params(shape, inp.lora_rank, inp.lora_targets), "rule": None}
    # the source's recompute mode where published (empty: the fastest that fits)
    mode = {"recompute": row["recompute"]} if row.get("recompute") else {}
    r = evaluate_layout(
        inp,
        tp=tp,
        pp=pp,
        cp=cp,
        dp=n // (tp * pp * cp),
        micro_batch=int(row["micro_batch"]),
        zero=int(row.get("zero") or 0),
        **mode,
    )
    fit = {"recompute": r["recompute"], "fits": r["fits"]}
    tps_gpu = r["tokens_per_s"] / n
    rule_tps = RULE_OF_THUMB_MFU * gpu.peak_tflops(inp.precision) * 1e12 / (6 * shape.params_total)
    rule_mem = RULE_OF_THUMB_BYTES_PER_PARAM[inp.method] * shape.params_total / n
    if kind == "throughput":
        return {"predicted": tps_gpu, "rule": rule_tps, **fit}
    if kind == "time_to_train_min":
        tokens = float(row.get("samples") or MLPERF_SAMPLES) * inp.seq_len
        return {
            "predicted": tokens / (tps_gpu * n) / 60,
            "rule": tokens / (rule_tps * n) / 60,
            **fit,
        }
    gib = row["unit"].startswith("GiB")
    unit = BYTES_PER_GIB if gib else BYTES_PER_GB
    mem = r["memory_gib"] * BYTES_PER_GIB / unit
    if kind == "memory_total":
        return {"predicted": mem * n, "rule": rule_mem * n / unit, **fit}
    return {"predicted": mem, "rule": rule_mem / unit, **fit}


@functools.cache
def validate() -> dict:
    out = []
    for row in load_rows():
        p = predict(row)
        pub = float(row["published"])
        err = p["predicted"] / pub - 1
        bound = row["bound"]
        ok = (err <= 0) if bound == "upper" else (err >= 0) if bound == "lower" else None
        out.append(
            {
                "id": row["id"],
                "kind": row["kind"],
                "unit": row["unit"],
                "bound": bound,
                "published": pub,
                "predicted": p["predicted"],
                "error": err,
                "rule_of_thumb": p["rule"],
                "rule_error": None if p["rule"] is None else p["rule"] / pub - 1,
                "within_bound": ok,
                "recompute": p.get("recompute"),
                "published_recompute": row.get("recompute") or None,
                "fits": p.get("fits", True),
                "source": row["source"],
                "split": row.get("split") or "seen",
                "method": row["method"],
                "framework": row.get("framework") or "megatron",
            }
        )
    seen = [r for r in out if r["split"] == "seen"]
    gpus_added = [r for r in out if r["split"] == "gpus-added"]
    return {
        "rows": out,
        "by_kind": _by_kind(seen),
        "by_kind_gpus_added": _by_kind(gpus_added),
        **{key: added_scores(out, split) for split, key, _ in ADDED_BATCHES},
    }


def _by_kind(rows: list[dict]) -> dict:
    """Median and worst |error| of the model and the rule of thumb per kind, rows without a bound."""
    by_kind = {}
    for kind in ("throughput", "time_to_train_min", "memory"):
        sel = [r for r in rows if r["kind"] == kind and not r["bound"]]
        if sel:
            by_kind[kind] = {
                "rows": len(sel),
                "median_abs_error": statistics.median(abs(r["error"]) for r in sel),
                "worst_abs_error": max(abs(r["error"]) for r in sel),
                "rule_median_abs_error": statistics.median(abs(r["rule_error"]) for r in sel),
                "rule_worst_abs_error": max(abs(r["rule_error"]) for r in sel),
            }
    return by_kind


def added_scores(rows: list[dict], split: str = "added") -> dict:
    """Tokens/s per GPU on one batch of rows added after the model's form was fixed
    (docs/reference/finetune-model.md; `split` names the batch, ADDED_BATCHES), by method and over
    all: median |error|, signed median error (positive: the model is optimistic), the rule of
    thumb's median |error| and the rows the memory model rejects at their published settings."""
    sel = [r for r in rows if r["split"] == split and r["kind"] == "throughput"]
    groups = {"all": sel} | {
        m: [r for r in sel if r["method"] == m]
        for m in ("full", "lora", "qlora")
        if any(r["method"] == m for r in sel)
    }
    return {
        name: {
            "rows": len(g),
            "median_abs_error": statistics.median(abs(r["error"]) for r in g),
            "signed_median_error": statistics.median(r["error"] for r in g),
            "rule_median_abs_error": statistics.median(abs(r["rule_error"]) for r in g),
            "rejected": [r["id"] for r in g if not r["fits"]],
        }
        for name, g in groups.items()
        if g
    }


def report(result: dict) -> str:
    lines = [f"{'row':44} {'published':>11} {'model':>11} {'error':>7} {'rule':>7}  unit"]
    for r in result["rows"]:
        rule = "" if r["rule_error"] is None else f"{r['rule_error']:+7.0%}"
        bound = (
            f" ({r['bound']} bound: {'met' if r['within_bound'] else 'MISSED'})"
            if r["bound"]
            else ""
        )
        # a memory figure depends on what the model recomputes (the fastest mode that fits)
        mode = (
            f" (recompute: {r['recompute']}, {'published' if r['published_recompute'] else 'model'})"
            if r["kind"] == "memory"
            else ""
        )
        mode += "" if r["fits"] else "  REJECTED by the memory model"
        lines.append(
            f"{r['id']:44} {r['published']:>11.4g} {r['predicted']:>11.4g} {r['error']:>+7.1%} "
            f"{rule:>7}  {r['unit']}{bound}{mode}"
        )
    lines.append(
        "scored rows without a bound (all held out: no row sets a constant); rule of thumb = 40 % MFU "
        "x dense peak / 6N, memory 16/2/0.5 bytes per parameter:\n"
        f"{'kind':18} {'rows':>4} {'model median':>13} {'model worst':>12} {'rule median':>12} {'rule worst':>11}"
    )
    for kind, s in result["by_kind"].items():
        lines.append(
            f"{kind:18} {s['rows']:>4} {s['median_abs_error']:>13.1%} {s['worst_abs_error']:>12.1%} "
            f"{s['rule_median_abs_error']:>12.1%} {s['rule_worst_abs_error']:>11.1%}"
        )
    for kind, s in result["by_kind_gpus_added"].items():
        lines.append(
            f"{kind + '*':18} {s['rows']:>4} {s['median_abs_error']:>13.1%} "
            f"{s['worst_abs_error']:>12.1%} {s['rule_median_abs_error']:>12.1%} "
            f"{s['rule_worst_abs_error']:>11.1%}  (*: {GPUS_ADDED})"
        )
    lines += _batches_report(result)
    return "\n".join(lines)


def _batches_report(result: dict) -> list[str]:
    """The batches of rows added after the form was fixed, side by side, one line per method:
    rows, median |error|, signed median, the rule of thumb's median, rows rejected."""
    head = "".join(f" | {label:^44}" for _, _, label in ADDED_BATCHES)
    sub = "".join(
        f" | {'rows':>4} {'median':>7} {'signed':>7} {'rule':>6}  {'rejected':<16}"
        for _ in ADDED_BATCHES
    )
    lines = [
        "rows added after the model's form was fixed (docs/reference/finetune-model.md), "
        "batch by batch, tokens/s per GPU; signed: + = the model is optimistic:",
        f"{'method':8}{head}",
        f"{'':8}{sub}",
    ]
    for name in ("all", "full", "lora", "qlora"):
        cells = ""
        for _, key, _ in ADDED_BATCHES:
            s = result[key].get(name)
            if s is None:
                cells += f" | {'-':>4} {'':>7} {'':>7} {'':>6}  {'':<16}"
                continue
            rejected = ", ".join(s["rejected"]) or "none"
            cells += (
                f" | {s['rows']:>4} {s['median_abs_error']:>7.1%} "
                f"{s['signed_median_error']:>+7.1%} {s['rule_median_abs_error']:>6.1%}  {rejected:<16}"
            )
        lines.append(f"{name:8}{cells}".rstrip())
    return [x.rstrip() for x in lines]


if __name__ == "__main__":
    print(report(validate()))

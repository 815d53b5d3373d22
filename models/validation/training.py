"""The model against published runs and benchmarks (`models/data/validation/runs.csv`, each row with its source).

Kinds of row:
- `step_time`: seconds per step with the published layout (Korthikanti et al. 2022 Table 5, read from
  `models/data/korthikanti_table5.csv`, not copied);
- `throughput`: per-GPU throughput (tokens/s, the source's TFLOP/s or MFU) with the published layout;
  fields a source does not publish (micro-batch, interleave, recompute) are left to the search, which
  keeps the fastest fitting layout among those that match the published fields;
- `gpu_hours`: a whole run, GPU-hours with failures, restarts and checkpointing for the published
  GPU count and tokens (the same planner `plan_training` uses); one row (OPT-175B) publishes a
  failure-free time and is compared with the failure-free plan.

A row with `scored` = 0 is predicted and shown but kept out of the per-kind errors; its notes start
with "NOT SCORED:" and say why, and `by_kind_all_rows` gives the errors with it included. The
calibration rows (CALIBRATION_PREFIXES) set GEMM_SHARE_OF_MAMF and CONSTANT_SOURCE_IDS the FP8 GEMM
efficiency; `by_kind_held_out` gives the errors on the scored rows that set nothing.

Beside the model runs the rule of thumb it must beat: time = 6·N·D / (GPUs · peak · MFU) (and / 0.9
goodput for whole runs), with one MFU for all rows chosen after the fact to minimise its median error.

This module puts the results together (validate, validate_heldout, band_summary, modes_summary); the
rows are read in training_rows.py, predicted in training_predict.py, scored in training_scores.py and
printed by `clusterplan validate` from training_report.py.
"""

from __future__ import annotations

import functools
import math
import statistics

from models.constants import (  # noqa: F401
    BAND_BASE_CLASSES,
    BAND_COVERAGE,
    BAND_MIN_RUNS,
    BAND_SIZE_CLASSES,
    DEFAULT_SOFTWARE_STACK,
    GPU_HOURS_ERROR_BY_SIZE,
    GPU_HOURS_ERROR_HIGH,
    GPU_HOURS_ERROR_LOW,
    SOFTWARE_STACKS,
)
from models.hardware import get_gpu
from models.training.plan import size_class
from models.units import SECONDS_PER_HOUR
from models.validation.training_predict import (
    RULE_GOODPUT,
    plan_heldout_run,
    plan_heldout_source_layout,
    predict_run,
    predict_step,
)
from models.validation.training_rows import (
    load_heldout_runs,
    load_misses,
    load_runs,
    load_skipped,
    shape_of,
)
from models.validation.training_scores import (
    band_coverage,
    band_from_errors,
    best_rule_mfu,
    leave_one_out_coverage,
    relative_error,
    rescaling_floor,
    summarise,
)

KINDS = ("step_time", "throughput", "gpu_hours")
#: The fidelity targets (issue 7): (median, worst) absolute error per kind.
TARGETS = {"step_time": (0.08, 0.15), "throughput": (0.08, 0.15), "gpu_hours": (0.10, 0.30)}
#: issue 16's targets on the held-out whole runs planned by the planner: median, worst |error|
HELDOUT_TARGETS = (0.12, 0.30)
#: Rows GEMM_SHARE_OF_MAMF is fitted on (models/constants.py).
CALIBRATION_PREFIXES = ("korthikanti-", "nara-")
#: Rows another constant was read from: FP8_GEMM_RELATIVE_EFFICIENCY comes from NeMo's Llama 3 70B FP8
#: figure (24.12: 1,524 tokens/s/GPU), the same measurement as this row (24.07: 1,533). These and the
#: calibration rows are `calibration` in the results; every other row is held out.
CONSTANT_SOURCE_IDS = ("nemo-llama3-70b-64",)
#: Units that measure time or cost (more is slower); the others are rates (more is faster).
TIME_UNITS = ("s_per_step", "gpu_hours", "gpu_hours_no_failures")
#: Where each row comes from, by id prefix (first match wins), for the errors per source.
SOURCE_GROUPS = (
    ("korthikanti-", "Korthikanti 2022 Table 5 (Megatron-LM, A100)"),
    ("nara-", "Narayanan 2021 (Megatron-LM, A100)"),
    ("nemo-", "NeMo 24.07 performance summary (H100, FP8)"),
    ("llama3-t4-", "Llama 3 paper Table 4 (H100)"),
    ("bloom-", "BLOOM 176B (A100, Megatron-DeepSpeed)"),
    ("lf-a100-40-", "llm-foundry A100-40GB (FSDP)"),
    ("lf-a100-", "llm-foundry A100-80GB (FSDP)"),
    ("lf-h100-", "llm-foundry H100 (FSDP)"),
    ("tt-", "torchtitan (PyTorch FSDP2, H100 96GB 500 W)"),
    ("trainy-", "torchtitan on H200 (Trainy, PyTorch FSDP2)"),
    ("mlperf-v5.0-h100-", "MLPerf v5.0 Llama 3.1 405B (NeMo, H100)"),
    ("mlperf-v5.0-gb200-", "MLPerf v5.0 Llama 3.1 405B (NeMo, GB200)"),
    ("mlperf-v4.", "MLPerf v4.0/4.1 GPT-3 175B (NeMo, H100/B200)"),
    ("nemotron4-", "Nemotron-4 15B / 340B reports Table 2 (Megatron-Core, H100, BF16)"),
    ("dgxc-", "NVIDIA DGX Cloud benchmarking recipes (NeMo 25.02/25.04, H100/GB200)"),
    ("run-", "whole training runs"),
    (
        "frontier-tt-",
        "torchtitan on Frontier (MI250X; one practitioner's figure, added 2026-12-02)",
    ),
    (
        "swissai-gh200-",
        "swiss-ai Megatron-LM on CSCS Alps (GH200; a pull request's figures, added 2026-12-02)",
    ),
)
UNITS = {
    "s_per_step": "s/step",
    "tokens_per_s_per_gpu": "tokens/s/GPU",
    "tflops_per_gpu_megatron": "TFLOP/s/GPU (Megatron formula)",
    "mfu_pct": "% MFU",
    "gpu_hours": "GPU-hours",
    "gpu_hours_no_failures": "GPU-hours (no failures)",
}


def training_days_band(plan) -> tuple[float, float]:
    """(low, high) wall-clock days for a TrainingPlan: its days corrected by the spread of the
    planner's errors on held-out whole runs of its model's size class (GPU_HOURS_ERROR_BY_SIZE in
    models/constants.py, band_summary), as plan_training stores them."""
    return plan.train_days_low, plan.train_days_high


@functools.cache
def validate() -> dict:
    """Every row predicted, the rule of thumb beside it, and the median/worst error per kind."""
    out = []
    for row in load_runs():
        pred = predict_run(row) if row["kind"] == "gpu_hours" else predict_step(row)
        out.append(
            {
                "id": row["id"],
                "kind": row["kind"],
                "model": row["model"],
                "gpu": row["gpu"],
                "gpus": int(row["gpus"]),
                "gpus_assumed": row.get("gpus_assumed") == "1",
                "seq_len": int(row["seq_len"]),
                "global_batch_seqs": int(row["global_batch_seqs"]),
                "precision": row["precision"],
                "tokens": float(row["tokens"]) if row.get("tokens") else None,
                "layout": pred["layout"],
                "layout_fits": pred["fits"],
                "memory_share": pred["memory_share"],
                "unit": row["unit"],
                "published": float(row["published"]),
                "predicted": pred["predicted"],
                "scored": row.get("scored", "1") != "0",
                "calibration": row["id"].startswith(CALIBRATION_PREFIXES)
                or row["id"] in CONSTANT_SOURCE_IDS,
                "source": row["source"],
                "notes": row.get("notes", ""),
                "_rule": pred["rule"],
            }
        )
    mfu = best_rule_mfu([r for r in out if r["scored"]])
    for r in out:
        r["rule_of_thumb"] = r.pop("_rule")(mfu)
        r["error"] = relative_error(r["predicted"], r["published"])
        r["rule_error"] = relative_error(r["rule_of_thumb"], r["published"])

    def per_kind(rows: list[dict]) -> dict:
        out_kind = {}
        for kind in KINDS:
            sel = [r for r in rows if r["kind"] == kind]
            if not sel:
                continue
            model = summarise([r["error"] for r in sel])
            model["beyond_worst_target"] = [
                r["id"] for r in sel if abs(r["error"]) > TARGETS[kind][1]
            ]
            out_kind[kind] = {
                "model": model,
                "rule_of_thumb": summarise([r["rule_error"] for r in sel]),
            }
        return out_kind

    held_out = [r for r in out if r["scored"] and not r["calibration"]]
    scored = per_kind([r for r in out if r["scored"]])
    beyond = [i for s in scored.values() for i in s["model"]["beyond_worst_target"]]
    return {
        "rows": out,
        "by_kind": scored,
        "by_kind_all_rows": per_kind(out),
        "by_kind_held_out": per_kind(held_out),
        "rule_of_thumb_mfu": mfu,
        "rule_of_thumb_goodput": RULE_GOODPUT,
        "skipped": load_skipped(),
        "misses": misses(out, beyond),
        "by_source": by_source(out),
    }


def source_of(row_id: str) -> str:
    return next((label for prefix, label in SOURCE_GROUPS if row_id.startswith(prefix)), "other")


def speed_error(row: dict) -> float:
    """The error as predicted speed over published speed − 1: + means the model is optimistic (faster
    or cheaper) whatever the row's unit (a time's error e becomes 1/(1+e) − 1)."""
    return 1 / (1 + row["error"]) - 1 if row["unit"] in TIME_UNITS else row["error"]


def by_source(rows: list[dict]) -> list[dict]:
    """Errors per source (SOURCE_GROUPS), every row included: rows and scored rows, median and worst
    absolute error in the rows' units, and the bias: the mean speed error (+ = the model optimistic)."""
    groups: dict[str, list[dict]] = {}
    for r in rows:
        groups.setdefault(source_of(r["id"]), []).append(r)
    return [
        {
            "source": label,
            "rows": len(sel),
            "scored_rows": sum(r["scored"] for r in sel),
            **summarise([r["error"] for r in sel]),
            "bias": statistics.fmean(speed_error(r) for r in sel),
        }
        for label, sel in groups.items()
    ]


def misses(rows: list[dict], beyond: list[str]) -> dict:
    """The explained misses with their errors and those of the rows they are read against, plus the
    rows in `beyond` (scored, beyond their kind's worst-case target) that misses.csv does not explain
    and the entries no longer beyond it."""
    by_id = {r["id"]: r for r in rows}
    entries = load_misses()
    explained = []
    for e in entries:
        r = by_id.get(e["id"])
        others = [
            {"id": o, "error": by_id[o]["error"] if o in by_id else None}
            for o in e["compare_with"].split()
        ]
        explained.append(
            {
                **e,
                "compare_with": others,
                "error": r["error"] if r else None,
                "memory_share": r["memory_share"] if r else None,
            }
        )
    listed = {e["id"] for e in entries}
    return {
        "explained": explained,
        "unexplained": [i for i in beyond if i not in listed],
        "stale": [i for i in listed if i not in beyond],
    }


def calibration_worst_error() -> float:
    """Worst |predicted / published − 1| over the calibration rows, with the constants as they are now
    (uncached: the GEMM_SHARE_OF_MAMF search in bench/calibration.py and the tests change them)."""
    return max(
        abs(r["error"])
        for r in validate.__wrapped__()["rows"]
        if r["id"].startswith(CALIBRATION_PREFIXES)
    )


@functools.cache
def validate_heldout_source_layout() -> list[dict]:
    """The held-out runs whose source publishes its layout, at that layout (plan_heldout_source_layout)
    beside the planner's choice (validate_heldout)."""
    chosen = {r["id"]: r for r in validate_heldout()["rows"]}
    out = []
    for row in load_heldout_runs():
        got = plan_heldout_source_layout(row, {"software_stack": row_stack(row)})
        if got is None:
            continue
        published = float(row["published_gpu_hours"])
        out.append(
            {
                "id": row["id"],
                "stack_class": row["stack_class"],
                "published": published,
                **got,
                "error": relative_error(got["predicted"], published),
                "planner_error": chosen[row["id"]]["error"],
            }
        )
    return out


#: What a held-out row's published GPU-hours cover (`scope` column, from the source's own wording):
#: the pre-training run only; all training of the model (pre-training plus context extension,
#: annealing, post-training), in proportions the source does not give; or not split by the source.
HELDOUT_SCOPES = ("pre-training", "all training", "not split")

#: The held-out runs split by where their GPU count comes from: (label, gpus_chosen).
GPU_COUNT_GROUPS = (("count published", False), ("count sized (+)", True))


def row_stack(row: dict) -> str:
    """The software stack class a row's source names; `not-stated` runs with the default."""
    cls = row["stack_class"]
    return cls if cls in SOFTWARE_STACKS else DEFAULT_SOFTWARE_STACK


@functools.cache
def validate_heldout(stack: str | None = None) -> dict:
    """Every held-out whole run planned as a buyer would plan it (plan_heldout_run) with the stack
    class its source names (row_stack; `stack` forces one for every row), its GPU-hours error beside
    the rule of thumb (6·N·D at one MFU picked after the fact on these rows, / 0.9 goodput), with
    the errors summarised overall and per stack class."""
    out = []
    for row in load_heldout_runs():
        plan = plan_heldout_run(row, {"software_stack": stack or row_stack(row)})
        shape = shape_of(row["model"])
        peak = get_gpu(row["gpu"]).peak_tflops(row["precision"].replace("fp16", "bf16")) * 1e12
        rule_hours = 6 * shape.params_active * float(row["tokens"]) / peak / SECONDS_PER_HOUR
        out.append(
            {
                "id": row["id"],
                "model": row["model"],
                "gpu": row["gpu"],
                "stack_class": row["stack_class"],
                "scope": row["scope"],
                "size_class": size_class(shape.params_active),
                "params_total": shape.params_total,
                "params_active": shape.params_active,
                "year": int(row["year"]),
                "published": float(row["published_gpu_hours"]),
                **plan,
                "_rule": lambda mfu, h=rule_hours: h / mfu / RULE_GOODPUT,
            }
        )
    for r in out:
        r["error"] = relative_error(r["predicted"], r["published"])
    mfu = best_rule_mfu(out)
    for r in out:
        r["rule_of_thumb"] = r.pop("_rule")(mfu)
        r["rule_error"] = relative_error(r["rule_of_thumb"], r["published"])
    classes = sorted({r["stack_class"] for r in out})
    return {
        "rows": out,
        "model": summarise([r["error"] for r in out]),
        "rule_of_thumb": summarise([r["rule_error"] for r in out]),
        "rule_of_thumb_mfu": mfu,
        "rescaling_floor": rescaling_floor(
            [r["predicted"] for r in out], [r["published"] for r in out]
        ),
        "rescaling_floor_by_scope": {
            c: rescaling_floor(
                [r["predicted"] for r in out if r["scope"] == c],
                [r["published"] for r in out if r["scope"] == c],
            )
            for c in HELDOUT_SCOPES
            if any(r["scope"] == c for r in out)
        },
        "by_stack_class": {
            c: summarise([r["error"] for r in out if r["stack_class"] == c]) for c in classes
        },
        "by_size_class": {
            c: summarise([r["error"] for r in out if r["size_class"] == c])
            for c, _ in BAND_SIZE_CLASSES
        },
        "by_gpu_count": {
            label: summarise([r["error"] for r in out if r["gpus_chosen"] == chosen])
            for label, chosen in GPU_COUNT_GROUPS
            if any(r["gpus_chosen"] == chosen for r in out)
        },
        "by_scope": {
            c: summarise([r["error"] for r in out if r["scope"] == c])
            for c in HELDOUT_SCOPES
            if any(r["scope"] == c for r in out)
        },
    }


def _band(name: str, errors: list[float], low: float, high: float) -> dict:
    return {
        "size_class": name,
        "runs": len(errors),
        "low": low,
        "high": high,
        "derived": band_from_errors(errors),
        "coverage": band_coverage(errors, low, high),
        "days_factor_low": 1 / (1 + high),
        "days_factor_high": 1 / (1 + low) if low > -1 else math.inf,
    }


def band_summary() -> dict:
    """The bands plans use, per size class (GPU_HOURS_ERROR_BY_SIZE) and over all runs
    (GPU_HOURS_ERROR_LOW/HIGH): each with the band today's held-out errors give and the share of
    that class's held-out whole runs inside it; `coverage` is the share of all runs inside their own
    class's band (what a plan shows, in sample), `leave_one_out_coverage` the share inside the band
    the rule gives without them (what to expect on a new run). The one source of the coverage the
    CLI, the Validation page and the PDF print."""
    rows = validate_heldout()["rows"]
    errors = [r["error"] for r in rows]
    classes = [
        _band(c, [r["error"] for r in rows if r["size_class"] == c], *GPU_HOURS_ERROR_BY_SIZE[c])
        for c, _ in BAND_SIZE_CLASSES
    ]
    overall = _band("all sizes", errors, GPU_HOURS_ERROR_LOW, GPU_HOURS_ERROR_HIGH)
    inside = [GPU_HOURS_ERROR_BY_SIZE[r["size_class"]] for r in rows]
    return {
        **overall,
        "classes": classes,
        "overall": overall,
        "coverage": sum(lo <= r["error"] <= hi for r, (lo, hi) in zip(rows, inside, strict=True))
        / len(rows),
        "min_runs_per_class": BAND_MIN_RUNS,
        "leave_one_out_coverage": leave_one_out_coverage(rows),
    }


#: The two ways the model is scored, as `modes_summary` lists them: the published execution plan
#: (validation/runs.csv: layout, batch and count as published) and the planner's own plan (held-out
#: whole runs: the planner chooses the layout, and the count where none is published).
MODES = ("published plan", "planner's plan")


def modes_summary(result: dict | None = None, heldout: dict | None = None) -> list[dict]:
    """Both modes side by side, each kind with the model's and the rule of thumb's median and worst
    absolute errors: the published plan per kind over its scored rows (`calibration_rows` of them
    set a constant), and the planner's plan on the held-out whole runs, overall and split by
    whether the GPU count was published; the band's coverage goes with the planner's plan."""
    result = validate() if result is None else result
    heldout = validate_heldout() if heldout is None else heldout
    out = []
    for kind, s in result["by_kind"].items():
        sel = [r for r in result["rows"] if r["scored"] and r["kind"] == kind]
        out.append(
            {
                "mode": MODES[0],
                "kind": kind,
                "rows": s["model"]["rows"],
                "calibration_rows": sum(r["calibration"] for r in sel),
                "model_median": s["model"]["median_abs_error"],
                "model_worst": s["model"]["worst_abs_error"],
                "rule_median": s["rule_of_thumb"]["median_abs_error"],
                "rule_worst": s["rule_of_thumb"]["worst_abs_error"],
            }
        )
    groups = [("gpu_hours (held-out whole runs)", heldout["rows"])] + [
        (f"gpu_hours, {label}", [r for r in heldout["rows"] if r["gpus_chosen"] == chosen])
        for label, chosen in GPU_COUNT_GROUPS
    ]
    for kind, rows in groups:
        if not rows:
            continue
        m = summarise([r["error"] for r in rows])
        t = summarise([r["rule_error"] for r in rows])
        out.append(
            {
                "mode": MODES[1],
                "kind": kind,
                "rows": m["rows"],
                "calibration_rows": 0,
                "model_median": m["median_abs_error"],
                "model_worst": m["worst_abs_error"],
                "rule_median": t["median_abs_error"],
                "rule_worst": t["worst_abs_error"],
            }
        )
    return out

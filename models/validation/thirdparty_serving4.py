"""The serving model against a fourth independent serving set, dense models at a fixed concurrency:
NVIDIA NIM's Llama 3.3 70B on 2 H100 (TensorRT-LLM; TTFT and ITL per concurrency), dstack's Llama
3.1 405B FP8 on 8 H100 (vLLM, offline batches) and SGLang's Qwen3.6-27B cells (counted, not
expressible) (models/data/validation/thirdparty_serving4.csv; docs/reference/serving-evidence.md,
twenty-seventh amendment: the rows, the mapping, the classes and the rule were committed before
the first score).

Every row is unseen: nothing is fitted on it, now or later. A row marked expressible is predicted
by the planner's own `serve` path exactly as the twenty-second and twenty-fifth amendments' rows
are (`thirdparty_moe.inputs_of`: `plan_serving` with one replica of the row's GPUs at the
benchmark's concurrency, `clusterplan serve --gpus N --users C`, the layout the planner chooses; a
service with users takes the twenty-first amendment's steady TTFT at p50). A row not expressible
is counted, with its reason, and not predicted. Error = predicted / measured − 1 of TPOT, TTFT
and output tokens/s per GPU; a blank measurement is not scored. Summaries are
models/validation/inferencemax.py's (median |error|, signed median, share within 40 %; issue 29's
targets), for all scored rows and per source × engine × GPU."""

from __future__ import annotations

import csv
import functools

from models import DATA_DIR
from models.validation import inferencemax, thirdparty_moe

ROWS = DATA_DIR / "validation" / "thirdparty_serving4.csv"
#: (metric, the row's measured column): the twenty-second amendment's
METRICS = thirdparty_moe.METRICS
CLASS_FIELDS = ("source_id", "engine", "gpu")
#: a source's short name in the report's class lines
SHORT = {
    "nvidia-nim-bench-2025": "NIM 70B",
    "dstack-405b-h100-2024": "dstack 405B",
    "sglang-cookbook-qwen36-2026": "SGLang Qwen3.6-27B",
}


@functools.cache
def load_rows() -> tuple[dict, ...]:
    with ROWS.open(newline="") as f:
        return tuple(csv.DictReader(f))


def expressible(row: dict) -> bool:
    return row["expressible"] == "yes"


@functools.cache
def _predicted(row_id: str) -> tuple[dict[str, float] | None, str]:
    row = next(r for r in load_rows() if r["id"] == row_id)
    return inferencemax.planned(thirdparty_moe.inputs_of(row), METRICS)


def predict(row: dict) -> dict[str, float] | None:
    """The planner's TPOT ms, TTFT ms and output tokens/s per GPU for the row; None if refused."""
    return _predicted(row["id"])[0]


def refusal(row: dict) -> str:
    """Why the planner refuses the row ("" when it does not)."""
    return _predicted(row["id"])[1]


def errors(row: dict) -> dict[str, float | None]:
    """predicted / measured − 1 per metric (None where refused or not measured)."""
    return inferencemax.relative_errors(predict(row), row, METRICS)


@functools.cache
def as_json() -> dict:
    """Scored rows: all of them and per source × engine × GPU; the rows not expressible and the
    refusals, each with its reason."""
    rows = load_rows()
    scored = [r for r in rows if expressible(r)]
    return {
        "rows": len(rows),
        "scored": len(scored),
        "not_expressible": [
            {"id": r["id"], "reason": r["not_expressible_reason"]}
            for r in rows
            if not expressible(r)
        ],
        "refused": [{"id": r["id"], "reason": refusal(r)} for r in scored if predict(r) is None],
        "targets": {
            "median_abs": inferencemax.TARGET_MEDIAN,
            "band": inferencemax.BAND,
            "share_within_band": inferencemax.TARGET_SHARE,
        },
        "all": inferencemax.entry({}, scored, errors, predict),
        "classes": inferencemax.classes(scored, CLASS_FIELDS, errors, predict),
    }


def report_lines() -> list[str]:
    data = as_json()
    lines = [
        "Third-party serving, fourth set, dense at a fixed concurrency (models/data/validation/"
        "thirdparty_serving4.csv; docs/reference/serving-evidence.md, twenty-seventh amendment): "
        "every row unseen, never fitted; the NIM rows' TTFT is the twenty-first amendment's "
        "steady TTFT on unseen rows",
        f"{data['rows']} rows, {data['scored']} scored, {len(data['not_expressible'])} not "
        f"expressible (no Qwen3.6-27B preset), {len(data['refused'])} refused",
        "median |error|, signed median, share within 40 % (* meets issue 29's targets: median "
        "<= 20 %, >= 80 % within 40 %)",
        inferencemax.HEADER,
        inferencemax.line("all scored rows", data["all"]),
    ]
    for c in data["classes"]:
        lines.append(inferencemax.line(f"{SHORT[c['source_id']]} {c['engine']} {c['gpu']}", c))
    return lines

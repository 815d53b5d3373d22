"""The serving model against third-party DeepSeek-R1 serving runs (models/data/validation/
thirdparty_moe.csv; docs/reference/serving-evidence.md, twenty-second amendment: the rows, the
mapping, the classes and the rule were committed before the first score).

Every row is unseen: nothing is fitted on it, now or later. A row marked expressible is predicted
by the planner's own `serve` path, `plan_serving` with one replica of the row's GPUs at the
benchmark's concurrency (`clusterplan serve --model deepseek-v3-like --gpus N --users C`), the
layout the planner chooses for those GPUs (the published one is recorded, not forced). A row not
expressible is counted, with its reason, and not predicted. Error = predicted / measured − 1 of
TPOT, TTFT (the planner's 50th percentile) and output tokens/s per GPU, against the row's
statistic (its `statistic` column: median or mean); a blank measurement is not scored.
Summaries are models/validation/inferencemax.py's (median |error|, signed median, share within
40 %; issue 29's targets)."""

from __future__ import annotations

import csv
import functools

from models import DATA_DIR
from models.serving.plan import ServeInputs
from models.validation import amd, inferencemax

ROWS = DATA_DIR / "validation" / "thirdparty_moe.csv"
#: (metric, the row's measured column); the metrics are inferencemax's
METRICS = (
    ("tpot_ms", "tpot_ms"),
    ("ttft_ms", "ttft_ms"),
    ("output_tokens_per_s_per_gpu", "output_tokens_per_s_per_gpu"),
)
CLASS_FIELDS = ("source_id", "engine", "gpu")


@functools.cache
def load_rows() -> tuple[dict, ...]:
    with ROWS.open(newline="") as f:
        return tuple(csv.DictReader(f))


def expressible(row: dict) -> bool:
    return row["expressible"] == "yes"


def inputs_of(row: dict) -> ServeInputs:
    """The row's service as `clusterplan serve --gpus N --users C` takes it (amd.inputs_of, the
    replica's GPUs fixed at the row's GPU count)."""
    return ServeInputs.model_validate(
        amd.inputs_of(row).model_dump(exclude_unset=True) | {"gpus": int(row["gpus"])}
    )


@functools.cache
def _predicted(row_id: str) -> tuple[dict[str, float] | None, str]:
    row = next(r for r in load_rows() if r["id"] == row_id)
    return inferencemax.planned(inputs_of(row), METRICS)


def predict(row: dict) -> dict[str, float] | None:
    """The planner's TPOT ms, TTFT ms and output tokens/s per GPU for the row; None if refused."""
    return _predicted(row["id"])[0]


def refusal(row: dict) -> str:
    """Why the planner refuses the row ("" when it does not)."""
    return _predicted(row["id"])[1]


def errors(row: dict) -> dict[str, float | None]:
    """predicted / measured − 1 per metric (None where refused or not measured)."""
    return inferencemax.relative_errors(predict(row), row, METRICS)


def as_json() -> dict:
    """Scored rows: all of them, and per source x engine x GPU; the rows not expressible, with
    their reasons."""
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
        "Third-party DeepSeek-R1 serving (models/data/validation/thirdparty_moe.csv; "
        "docs/reference/serving-evidence.md, twenty-second amendment): every row unseen, never "
        "fitted",
        f"{data['rows']} rows, {data['scored']} scored, {len(data['not_expressible'])} not "
        "expressible (TensorRT-LLM: precision unknown; prefix-cached runs)",
        "median |error|, signed median, share within 40 % (* meets issue 29's targets: median "
        "<= 20 %, >= 80 % within 40 %)",
        inferencemax.HEADER,
        inferencemax.line("all scored rows", data["all"]),
    ]
    for c in data["classes"]:
        label = f"{c['source_id'].split('-')[0]} {c['engine']} {c['gpu']}"
        lines.append(inferencemax.line(label, c))
    return lines

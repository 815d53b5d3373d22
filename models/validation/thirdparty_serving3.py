"""The serving model against a third independent serving set: gpt-oss-120b on H100, H200 and B200
(vLLM, SGLang), Qwen3-235B-A22B on B200 (vLLM) and Llama 3.1 405B FP8 on 8 MI300X (vLLM)
(models/data/validation/thirdparty_serving3.csv; docs/reference/serving-evidence.md, twenty-fifth
amendment: the rows, the mapping, the classes and the rule were committed before the first score).

Every row is unseen: nothing is fitted on it, now or later. A row marked expressible is predicted
by the planner's own `serve` path exactly as the twenty-second amendment's rows are
(`thirdparty_moe.inputs_of`: `plan_serving` with one replica of the row's GPUs at the benchmark's
concurrency, `clusterplan serve --gpus N --users C`, the layout the planner chooses). A row not
expressible is counted, with its reason, and not predicted. Error = predicted / measured − 1 of
TPOT, TTFT (the planner's 50th percentile) and output tokens/s per GPU; a blank measurement is not
scored. Summaries are models/validation/inferencemax.py's (median |error|, signed median, share
within 40 %; issue 29's targets), per family (dense, MoE) and per family × source × engine × GPU."""

from __future__ import annotations

import csv
import functools

from models import DATA_DIR
from models.validation import inferencemax, thirdparty_moe

ROWS = DATA_DIR / "validation" / "thirdparty_serving3.csv"
#: (metric, the row's measured column): the twenty-second amendment's
METRICS = thirdparty_moe.METRICS
FAMILY_FIELDS = ("family",)
CLASS_FIELDS = ("family", "source_id", "engine", "gpu")
#: a source's short name in the report's class lines
SHORT = {
    "inferencex-issue828-2026": "InferenceX",
    "lmsys-gptoss-2025": "LMSYS",
    "dstack-405b-mi300x-2024": "dstack 405B",
    "dstack-pd-gptoss-h200-2025": "dstack split",
    "vllm-pr43232-2026": "vLLM PR 43232",
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
    """Scored rows: all of them, per family, and per family × source × engine × GPU; the rows
    not expressible and the refusals, each with its reason."""
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
        "families": inferencemax.classes(scored, FAMILY_FIELDS, errors, predict),
        "classes": inferencemax.classes(scored, CLASS_FIELDS, errors, predict),
    }


def report_lines() -> list[str]:
    data = as_json()
    lines = [
        "Third-party serving, third set (models/data/validation/thirdparty_serving3.csv; "
        "docs/reference/serving-evidence.md, twenty-fifth amendment): every row unseen, never "
        "fitted",
        f"{data['rows']} rows, {data['scored']} scored, {len(data['not_expressible'])} not "
        f"expressible (split prefill/decode pools; MI350X), {len(data['refused'])} refused",
        "median |error|, signed median, share within 40 % (* meets issue 29's targets: median "
        "<= 20 %, >= 80 % within 40 %)",
        inferencemax.HEADER,
        inferencemax.line("all scored rows", data["all"]),
    ]
    lines += [inferencemax.line(c["family"], c) for c in data["families"]]
    for c in data["classes"]:
        label = f"{c['family']} {SHORT[c['source_id']]} {c['engine']} {c['gpu']}"
        lines.append(inferencemax.line(label, c))
    return lines

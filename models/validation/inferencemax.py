"""The serving model against SemiAnalysis InferenceMAX's Llama 3.3 70B rows
(models/data/validation/inferencemax.csv; docs/reference/serving-evidence.md, twentieth amendment:
the rows, the mapping, the classes and the rule were committed before the first score).

Every row is unseen: nothing is fitted on it, now or later. Each row is predicted by the planner's
own `serve` path, `plan_serving` with one replica of TP GPUs at the benchmark's concurrency
(`clusterplan serve --gpus TP --users C`), the row's engine and version as the planner maps them.
Error = predicted / measured − 1 of TPOT (against the median TPOT), TTFT (the planner's 50th
percentile against the median TTFT) and output tokens/s per GPU (against total tokens/s per GPU
× Ō / (Ī + Ō), the lengths' means). Summaries: median |error|, signed median and the share within
40 % (issue 29's targets: median ≤ 20 %, ≥ 80 % of rows within 40 %)."""

from __future__ import annotations

import csv
import functools
import statistics
from collections.abc import Iterable

from models import DATA_DIR
from models.errors import InputError
from models.serving.plan import ServeInputs, plan_serving
from models.validation import amd
from models.validation.summaries import pct

ROWS = DATA_DIR / "validation" / "inferencemax.csv"
#: issue 29's targets: the median |error| at most this, and at least TARGET_SHARE within BAND
TARGET_MEDIAN = 0.20
BAND = 0.40
TARGET_SHARE = 0.80
#: (metric, the row's measured column)
METRICS = (
    ("tpot_ms", "tpot_ms_median"),
    ("ttft_ms", "ttft_ms_median"),
    ("output_tokens_per_s_per_gpu", "output_tokens_per_s_per_gpu"),
)


@functools.cache
def load_rows() -> tuple[dict, ...]:
    with ROWS.open(newline="") as f:
        return tuple(csv.DictReader(f))


def inputs_of(row: dict) -> ServeInputs:
    """The row's service as `clusterplan serve --gpus TP --users C` takes it (amd.inputs_of, the
    replica's GPUs fixed at the row's TP)."""
    return ServeInputs.model_validate(
        amd.inputs_of(row).model_dump(exclude_unset=True) | {"gpus": int(row["tp"])}
    )


def planned(inp: ServeInputs, metrics=None) -> tuple[dict[str, float] | None, str]:
    """The planner's figures for one measured service (`plan_serving`, the path `clusterplan serve`
    takes), by metric name (`metrics`: (metric, measured column) pairs, METRICS by default), and
    "" ; or None and the refusal ("field: message") where the planner refuses it."""
    try:
        p = plan_serving(inp)
    except InputError as exc:
        return None, f"{exc.field}: {exc}"
    return {m: float(getattr(p, m)) for m, _ in metrics or METRICS}, ""


def relative_errors(predicted: dict[str, float] | None, row: dict, metrics=None) -> dict:
    """predicted / measured − 1 per metric (None where refused or the row has no measurement)."""
    return {
        m: None if predicted is None or not row[col] else predicted[m] / float(row[col]) - 1
        for m, col in metrics or METRICS
    }


@functools.cache
def _predicted(row_id: str) -> tuple[dict[str, float] | None, str]:
    return planned(inputs_of(next(r for r in load_rows() if r["id"] == row_id)))


def predict(row: dict) -> dict[str, float] | None:
    """The planner's TPOT ms, TTFT ms and output tokens/s per GPU for the row; None if refused."""
    return _predicted(row["id"])[0]


def refusal(row: dict) -> str:
    """Why the planner refuses the row ("" when it does not)."""
    return _predicted(row["id"])[1]


def errors(row: dict) -> dict[str, float | None]:
    """predicted / measured − 1 per metric (None where refused)."""
    return relative_errors(predict(row), row)


def summary(errs: Iterable[float | None]) -> dict:
    """{rows, median_abs, signed_median, within_band}: within_band the share with |error| ≤ BAND."""
    e = [x for x in errs if x is not None]
    if not e:
        return {"rows": 0, "median_abs": None, "signed_median": None, "within_band": None}
    return {
        "rows": len(e),
        "median_abs": statistics.median(abs(x) for x in e),
        "signed_median": statistics.median(e),
        "within_band": sum(abs(x) <= BAND for x in e) / len(e),
    }


def meets(s: dict) -> bool:
    """Issue 29's targets: median |error| ≤ 20 % and ≥ 80 % of rows within 40 %."""
    return s["rows"] > 0 and s["median_abs"] <= TARGET_MEDIAN and s["within_band"] >= TARGET_SHARE


def entry(key: dict, members: list[dict], errors_of=None, predict_of=None) -> dict:
    """key plus rows, refused and per metric the summary (and whether it meets the targets);
    errors_of and predict_of: a set's own (this module's `errors` and `predict` by default)."""
    errors_of, predict_of = errors_of or errors, predict_of or predict
    errs = [errors_of(r) for r in members]
    out = key | {"rows": len(members), "refused": sum(predict_of(r) is None for r in members)}
    for m, _ in METRICS:
        out[m] = summary(e[m] for e in errs)
        out[m]["meets_targets"] = meets(out[m])
    return out


def classes(
    rows: Iterable[dict], fields: tuple[str, ...], errors_of=None, predict_of=None
) -> list[dict]:
    """One `entry` per distinct value of `fields`, sorted."""
    groups: dict[tuple, list[dict]] = {}
    for r in rows:
        groups.setdefault(tuple(r[f] for f in fields), []).append(r)
    return [
        entry(dict(zip(fields, k, strict=True)), v, errors_of, predict_of)
        for k, v in sorted(groups.items())
    ]


@functools.cache
def as_json() -> dict:
    """Per class (engine x GPU x precision x lengths), per engine x GPU x precision, and all rows."""
    rows = load_rows()
    return {
        "rows": len(rows),
        "targets": {"median_abs": TARGET_MEDIAN, "band": BAND, "share_within_band": TARGET_SHARE},
        "all": entry({}, list(rows)),
        "by_engine_gpu_precision": classes(rows, ("engine", "gpu", "precision")),
        "classes": classes(rows, ("engine", "gpu", "precision", "lengths")),
    }


def _cell(s: dict) -> str:
    return (
        f"{pct(s['median_abs']):>5} {pct(s['signed_median'], True):>6} "
        f"{pct(s['within_band']):>5}{'*' if s['meets_targets'] else ' '}"
    )


def line(label: str, c: dict) -> str:
    """A class's report line: label, rows, refused, and per metric its cell."""
    cells = "  ".join(_cell(c[m]) for m, _ in METRICS)
    return f"  {label:34} {c['rows']:>4} {c['refused']:>4}  {cells}".rstrip()


HEADER = (
    f"  {'class':34} {'rows':>4} {'ref.':>4}  {'TPOT':^19}  {'TTFT':^19}  {'output tok/s/GPU':^19}"
).rstrip()


def report_lines() -> list[str]:
    data = as_json()
    lines = [
        "SemiAnalysis InferenceMAX, Llama 3.3 70B (models/data/validation/inferencemax.csv; "
        "docs/reference/serving-evidence.md, twentieth amendment): never fitted; TPOT and tok/s "
        "unseen, TTFT in-sample for the twenty-first and twenty-ninth amendments (unseen: 157 %)",
        "median |error|, signed median, share within 40 % (* meets issue 29's targets: median "
        "<= 20 %, >= 80 % within 40 %)",
        HEADER,
    ]
    lines.append(line("all rows", data["all"]))
    for c in data["by_engine_gpu_precision"]:
        lines.append(line(f"{c['engine']} {c['gpu']} {c['precision']}", c))
    for c in data["classes"]:
        lines.append(line(f"{c['engine']} {c['gpu']} {c['precision']} {c['lengths']}", c))
    return lines

"""Amendment 4 of the fine-tuning model (docs/reference/finetune-model.md, 2026-12-02): a
per-framework-class efficiency η_c, fitted and scored leave-one-source-out on the throughput rows of
models/data/validation/finetune.csv.

Fit, per class c: log η_c = weighted median of log(published ÷ physics tokens/s per GPU) over the
class's rows, each row weighted 1 ÷ (rows of its source in the class), so every source weighs 1;
η rounded to two decimals; a class with no rows keeps 1. Physics = the model's prediction ÷ the η
committed in models/finetune/framework_class.py (so the fit does not feed on itself). Scored: each
source's rows with η fitted on every other source; median |error| and signed median, over all and
per method, class and batch, beside the current model (η = 1). Adoption rule (fixed before the
fit): the leave-one-source-out median |error| improves by ≥ 2.0 points, the signed median is within
±5 %, and no row is newly rejected by the memory model.
"""

from __future__ import annotations

import functools
import math
import re
import statistics

from models.finetune.framework_class import FRAMEWORK_CLASS, framework_class
from models.validation.finetune import load_rows, validate

#: the rule's thresholds (amendment 4)
MIN_GAIN = 0.02
MAX_SIGNED = 0.05
#: the splits in finetune.csv when amendment 4 was written: the rows it fits on (a later batch is
#: not fitted on; it is the evidence)
FIT_SPLITS = ("seen", "added", "gpus-added", "after-amendment", "after-amendment3")

_GITHUB = re.compile(r"github\.com/([\w.-]+/[\w.-]+) @ ([0-9a-f]{7})")
_MLPERF = re.compile(r"MLPerf Training (v\d+\.\d+)")
_SUBMITTER_PATH = re.compile(r": (\w+)/results/")
_SUBMITTER_WORD = re.compile(r"MLPerf Training v\d+\.\d+, (\w+) ")


def source_key(source: str) -> str:
    """One publisher's publication: an MLPerf round and its submitter, or a repository at a commit."""
    m = _MLPERF.match(source)
    if m:
        sub = _SUBMITTER_PATH.search(source) or _SUBMITTER_WORD.match(source)
        return f"MLPerf Training {m.group(1)} {sub.group(1) if sub else '?'}"
    g = _GITHUB.search(source)
    return f"{g.group(1)} @ {g.group(2)}" if g else source


def weighted_median(values: list[float], weights: list[float]) -> float:
    """The first sorted value whose cumulative weight reaches half the total (exactly half: the mean
    of it and the next)."""
    pairs = sorted(zip(values, weights, strict=True))
    half, acc = sum(weights) / 2, 0.0
    for i, (v, w) in enumerate(pairs):
        acc += w
        if math.isclose(acc, half) and i + 1 < len(pairs):
            return (v + pairs[i + 1][0]) / 2
        if acc >= half:
            return v
    raise ValueError("no values")


@functools.cache
def physics_rows() -> tuple[dict, ...]:
    """The throughput rows with their source, class, published value and physics prediction."""
    sources = {r["id"]: r["source"] for r in load_rows()}
    res = validate()
    return tuple(
        {
            "id": r["id"],
            "source": source_key(sources[r["id"]]),
            "cls": framework_class(r["framework"]),
            "method": r["method"],
            "split": r["split"],
            "fits": r["fits"],
            "published": r["published"],
            "physics": r["predicted"],
        }
        for r in res["rows"]
        if r["kind"] == "throughput" and r["split"] in FIT_SPLITS
    )


def fit(rows) -> dict[str, float]:
    """η per class from the rows (amendment 4's estimator), rounded to two decimals."""
    eta = {}
    for cls in sorted(set(FRAMEWORK_CLASS.values())):
        sel = [r for r in rows if r["cls"] == cls]
        count = {}
        for r in sel:
            count[r["source"]] = count.get(r["source"], 0) + 1
        if not sel:
            eta[cls] = 1.0
            continue
        logs = [math.log(r["published"] / r["physics"]) for r in sel]
        med = weighted_median(logs, [1 / count[r["source"]] for r in sel])
        eta[cls] = round(math.exp(med), 2)
    return eta


def _summary(errors: list[float]) -> dict:
    return {
        "rows": len(errors),
        "median_abs_error": statistics.median(abs(e) for e in errors),
        "signed_median_error": statistics.median(errors),
    }


#: how the report names each grouping
LABELS = {"method": "method", "cls": "class", "split": "batch"}


def _groups(rows, errors) -> dict:
    keyed = {"all": lambda r: True}
    for field in ("method", "cls", "split"):
        for value in sorted({r[field] for r in rows}):
            keyed[f"{LABELS[field]} {value}"] = lambda r, f=field, v=value: r[f] == v
    out = {}
    for name, pick in keyed.items():
        sel = [e for r, e in zip(rows, errors, strict=True) if pick(r)]
        if sel:
            out[name] = _summary(sel)
    return out


@functools.cache
def leave_one_source_out() -> dict:
    """The fit on all rows, the leave-one-source-out errors and the adoption rule's verdict."""
    rows = physics_rows()
    before = [r["physics"] / r["published"] - 1 for r in rows]
    after = []
    folds = {}
    for r in rows:
        if r["source"] not in folds:
            folds[r["source"]] = fit([x for x in rows if x["source"] != r["source"]])
        after.append(r["physics"] * folds[r["source"]][r["cls"]] / r["published"] - 1)
    b, a = _groups(rows, before), _groups(rows, after)
    gain = b["all"]["median_abs_error"] - a["all"]["median_abs_error"]
    newly_rejected = []  # η scales the step only: memory, hence fits, is what it was
    adopted = (
        gain >= MIN_GAIN - 1e-12
        and abs(a["all"]["signed_median_error"]) <= MAX_SIGNED
        and not newly_rejected
    )
    return {
        "fit_all": fit(rows),
        "folds": folds,
        "before": b,
        "after": a,
        "gain": gain,
        "adopted": adopted,
        "sources": len(folds),
    }


def report_lines(result: dict | None = None) -> list[str]:
    """`clusterplan validate`'s lines for amendment 4: the fit, the verdict and the
    leave-one-source-out figures before (the current model) and after (with η), per group."""
    r = result or leave_one_source_out()
    fitted = ", ".join(f"{c} {v:.2f}" for c, v in r["fit_all"].items())
    verdict = "ADOPTED" if r["adopted"] else "NOT ADOPTED (the model keeps no framework factor)"
    lines = [
        "amendment 4 (docs/reference/finetune-model.md): a per-framework-class efficiency on "
        f"tokens/s, fitted on {r['before']['all']['rows']} throughput rows from {r['sources']} "
        f"sources (each weighted equally): {fitted}",
        f"{verdict}; rule: leave one source out, the median |error| better by at least "
        f"{MIN_GAIN * 100:.1f} points, the signed median within +-{MAX_SIGNED:.0%} and none newly "
        f"rejected; measured: {r['gain'] * 100:+.1f} points",
        f"{'leave one source out':26} {'rows':>4} | {'current model':^16} | {'with the class factor':^22}",
        f"{'':26} {'':>4} | {'median':>7} {'signed':>8} | {'median':>7} {'signed':>8}",
    ]
    for name, b in r["before"].items():
        a = r["after"][name]
        lines.append(
            f"{name:26} {b['rows']:>4} | {b['median_abs_error']:>7.1%} "
            f"{b['signed_median_error']:>+8.1%} | {a['median_abs_error']:>7.1%} "
            f"{a['signed_median_error']:>+8.1%}"
        )
    return [x.rstrip() for x in lines]


if __name__ == "__main__":
    print("\n".join(report_lines()))

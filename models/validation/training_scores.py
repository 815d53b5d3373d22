"""How the training model's predictions are scored (models/validation/training.py): the error, the
rule of thumb's MFU picked after the fact, the rescaling floor, the error summaries, and the
split-conformal band of GPU-hours errors with its size classes and coverage.
"""

from __future__ import annotations

import math
import statistics

import numpy as np

from models.constants import BAND_BASE_CLASSES, BAND_COVERAGE, BAND_MIN_RUNS

#: the factors `rescaling_floor` tries: x0.25 to x4 on a log grid (steps of 0.07 %)
RESCALING_FACTORS = np.geomspace(0.25, 4.0, 4001)


def relative_error(pred: float, pub: float) -> float:
    return pred / pub - 1


def best_rule_mfu(rows: list[dict]) -> float:
    """The one MFU that minimises the rule of thumb's median absolute error over all rows."""
    grid = np.round(np.arange(0.20, 0.701, 0.005), 3)
    med = [
        statistics.median(abs(relative_error(r["_rule"](m), r["published"])) for r in rows)
        for m in grid
    ]
    return float(grid[int(np.argmin(med))])


def rescaling_floor(predicted: list[float], published: list[float]) -> dict[str, float]:
    """What no single correction of the model reaches on these rows: the predictions times one
    factor k (RESCALING_FACTORS) picked after the fact on the very rows it is scored on, at its
    best median |k·predicted/published − 1| and, with its own k, at its best worst. A target
    under these can only be met with something known per row, which the scoring forbids."""
    ratio = np.asarray(predicted, dtype=float) / np.asarray(published, dtype=float)
    err = np.abs(np.outer(RESCALING_FACTORS, ratio) - 1.0)
    median, worst = np.median(err, axis=1), err.max(axis=1)
    i, j = int(np.argmin(median)), int(np.argmin(worst))
    return {
        "median_abs_error": float(median[i]),
        "median_factor": float(RESCALING_FACTORS[i]),
        "worst_abs_error": float(worst[j]),
        "worst_factor": float(RESCALING_FACTORS[j]),
    }


def summarise(errors: list[float]) -> dict[str, float]:
    a = [abs(e) for e in errors]
    return {
        "rows": len(a),
        "median_abs_error": statistics.median(a),
        "worst_abs_error": max(a),
        "min_error": min(errors),
        "max_error": max(errors),
    }


def band_from_errors(errors: list[float], coverage: float = BAND_COVERAGE) -> tuple[float, float]:
    """(low, high), split-conformal with equal tails (constants.BAND_COVERAGE): of the n sorted
    signed errors, the ⌊(n+1)·α/2⌋-th and the ⌈(n+1)·(1 − α/2)⌉-th, α = 1 − coverage, rounded
    outward to a whole percent; a side whose rank falls outside 1…n is unbounded (−inf / +inf)."""
    e = sorted(errors)
    n, tail = len(e), (1 - coverage) / 2
    k_lo = math.floor(round((n + 1) * tail, 9))
    k_hi = math.ceil(round((n + 1) * (1 - tail), 9))
    lo = e[k_lo - 1] if k_lo >= 1 else -math.inf
    hi = e[k_hi - 1] if k_hi <= n else math.inf
    return (
        math.floor(round(lo * 100, 6)) / 100 if math.isfinite(lo) else lo,
        math.ceil(round(hi * 100, 6)) / 100 if math.isfinite(hi) else hi,
    )


def band_coverage(errors: list[float], low: float, high: float) -> float:
    """Share of runs whose error lies within [low, high]: their published GPU-hours within the band."""
    return sum(low <= e <= high for e in errors) / len(errors)


def _billions(x: float) -> str:
    return f"{x / 1e9:g}B"


def size_classes(params_totals: list[float]) -> tuple[tuple[str, float], ...]:
    """The band's size classes for runs of these (active) parameter counts: BAND_BASE_CLASSES, the
    smallest class (the highest on ties) with fewer than BAND_MIN_RUNS runs merged into the class
    below it (the lowest into the one above) until none is left or one class remains."""
    uppers = [u for _, u in BAND_BASE_CLASSES]
    while len(uppers) > 1:
        counts = [
            sum((lo <= p < u) for p in params_totals)
            for lo, u in zip([0.0, *uppers[:-1]], uppers, strict=True)
        ]
        small = [i for i, c in enumerate(counts) if c < BAND_MIN_RUNS]
        if not small:
            break
        i = max(small, key=lambda j: (-counts[j], j))
        del uppers[i - 1 if i > 0 else 0]  # drop the boundary to the class below (or above)
    if len(uppers) == 1:
        return (("all sizes", math.inf),)
    names = [f"under {_billions(uppers[0])}"] + [
        f"{_billions(lo)} and over" if math.isinf(u) else f"{_billions(lo)} to {_billions(u)}"
        for lo, u in zip(uppers[:-1], uppers[1:], strict=True)
    ]
    return tuple(zip(names, uppers, strict=True))


def _class_of(params_total: float, classes: tuple[tuple[str, float], ...]) -> str:
    return next(name for name, upper in classes if params_total < upper)


def leave_one_out_coverage(rows: list[dict]) -> float:
    """Share of held-out runs inside the band the whole rule gives without them: size classes merged
    (size_classes) and the band derived (band_from_errors) from the other runs only, the run then
    checked against its class's band (the in-sample coverage counts each run in the band it helped
    set)."""
    inside = 0
    for i, r in enumerate(rows):
        others = [o for j, o in enumerate(rows) if j != i]
        classes = size_classes([o["params_active"] for o in others])
        mine = _class_of(r["params_active"], classes)
        low, high = band_from_errors(
            [o["error"] for o in others if _class_of(o["params_active"], classes) == mine]
        )
        inside += low <= r["error"] <= high
    return inside / len(rows)

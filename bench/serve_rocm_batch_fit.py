"""Fits the thirty-third amendment's step term for vLLM's ROCm 0.10 release line by the rule
docs/reference/serving-evidence.md fixed before the fit: over the line's tuning rows with TPOT
that the model does not refuse (models/data/validation/amd_serving.csv; the split of amd.py
`held_out`; held-out rows are not read), each candidate form's (k, s, term) on the grid
(models/validation/step_fit.py `fit_term`: F1 m · B · layers, F2 c · the step's arithmetic), the
form with the lower objective (a tie: F1), and two verdicts: the thirty-third amendment's (its
median |TPOT error| at least `GAIN` below the constants the build had before it, `BEFORE`) and the
thirty-fourth's, which decides (the fit's objective, median + 90th percentile, at least `GAIN`
below `BEFORE`'s); both ask the rows at batches of 4 or less to keep a median of at most
`LOW_BATCH_LIMIT`.

Run: python -m bench.serve_rocm_batch_fit"""

from __future__ import annotations

import functools

import numpy as np

from models.serving import builds
from models.validation import amd, step_fit
from models.validation.summaries import error_summary, p90

ENGINE, VERSION = "vllm", "0.10.2"
#: 0.10.2's (k, s, m, c) as the thirty-second amendment adopted them, before this fit
BEFORE = (1.00, 0.0, 0.0, 0.0)
GAIN = 0.10
LOW_BATCH = 4
LOW_BATCH_LIMIT = 0.10


def line_rows() -> list[dict]:
    """The release line's tuning rows with TPOT (dense), refused or not."""
    return [
        r
        for r in amd.load_rows()
        if amd.line_of(r) == (ENGINE, "dense", builds.release_line(VERSION))
        and not amd.held_out(r)
        and r["tpot_ms"]
    ]


def rows() -> list[dict]:
    """The release line's tuning rows with TPOT that the model does not refuse (dense)."""
    return [r for r in line_rows() if amd.figures(r, 1.0, 0.0) is not None]


def medians(fit_rows: list[dict], k: float, s: float, m: float, c: float) -> tuple[float, ...]:
    """(median |TPOT error| over the rows, median + p90 of it, the median over the rows at batches
    of LOW_BATCH or less)."""
    err = {
        r["id"]: amd.figures(r, k, s, None, m, c)["tpot_ms"] / float(r["tpot_ms"]) - 1
        for r in fit_rows
    }
    low = [err[r["id"]] for r in fit_rows if float(r["concurrency"]) <= LOW_BATCH]
    every = error_summary(list(err.values()))
    objective = every["median_abs"] + p90(np.abs(list(err.values())))
    return every["median_abs"], objective, error_summary(low)["median_abs"]


@functools.cache
def verdict() -> dict:
    """Both forms' fits, the chosen form, and whether it is adopted (the rule)."""
    fit_rows = rows()
    fits = {form: step_fit.fit_term(fit_rows, form) for form in ("F1", "F2")}
    chosen = min(fits, key=lambda f: (fits[f][3], f))  # a tie: F1
    k, s, term, _ = fits[chosen]
    m, c = (term, 0.0) if chosen == "F1" else (0.0, term)
    fitted, objective, low = medians(fit_rows, k, s, m, c)
    before, before_objective, before_low = medians(fit_rows, *BEFORE)
    guard = low <= LOW_BATCH_LIMIT
    return {
        "rows": len(fit_rows),
        "refused": [r["id"] for r in line_rows() if r not in fit_rows],
        "fits": fits,
        "chosen": chosen,
        "constants": (k, s, m, c),
        "median": fitted,
        "median_low_batch": low,
        "before": before,
        "before_low_batch": before_low,
        "objective": objective,
        "before_objective": before_objective,
        "adopt_33rd": fitted <= before - GAIN and guard,
        "adopt": objective <= before_objective - GAIN and guard,
    }


def main() -> None:
    v = verdict()
    print(f"vLLM (ROCm) {VERSION} line, dense: {v['rows']} tuning rows with TPOT, not refused")
    for rid in v["refused"]:
        print(f"  refused by the memory model (fits nothing): {rid}")
    for form, (k, s, term, obj) in v["fits"].items():
        unit = (
            f"m = {term * 1e6:.2f} µs per sequence and layer" if form == "F1" else f"c = {term:.2f}"
        )
        print(f"  {form}: k = {k:.2f}, s = {s * 1e6:.0f} µs, {unit}; median + p90 {obj:.4f}")
    print(
        f"  chosen {v['chosen']}: median |TPOT error| {v['median']:.1%} (batches <= {LOW_BATCH}: "
        f"{v['median_low_batch']:.1%}) against {v['before']:.1%} ({v['before_low_batch']:.1%}) "
        f"with the constants before the amendment: thirty-third's rule "
        + ("ADOPT" if v["adopt_33rd"] else "not adopted")
    )
    print(
        f"  thirty-fourth's rule (decides): median + p90 {v['objective']:.3f} against "
        f"{v['before_objective']:.3f}: " + ("ADOPT" if v["adopt"] else "not adopted")
    )


if __name__ == "__main__":
    main()

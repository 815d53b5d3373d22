"""The error summaries the validation reports share: over a list of relative errors
(predicted / measured − 1), the row count, the median absolute error, the signed median (negative:
the model is too fast or too low) and, where a report asks, the worst absolute error; and a
percentage as those reports print it; and the one 90th percentile they
all take (`p90`)."""

from __future__ import annotations

import statistics
from collections.abc import Iterable

import numpy as np


def error_summary(errors: Iterable[float]) -> dict:
    """{rows, median_abs, worst_abs, signed_median} of the errors (None figures when there are
    none)."""
    e = list(errors)
    if not e:
        return {"rows": 0, "median_abs": None, "worst_abs": None, "signed_median": None}
    return {
        "rows": len(e),
        "median_abs": statistics.median(abs(x) for x in e),
        "worst_abs": max(abs(x) for x in e),
        "signed_median": statistics.median(e),
    }


def p90(values, axis=None):
    """The 90th percentile of `values` (along `axis`; None: all of them), linearly interpolated
    between the two nearest ranks (numpy's default): the one percentile every validation report and
    every fit rule reading "the 90th percentile" takes. A float when `axis` is None."""
    out = np.percentile(np.asarray(values, dtype=float), 90, axis=axis)
    return float(out) if axis is None else out


def pct(x: float | None, signed: bool = False) -> str:
    """0.123 -> "12%" (signed: "+12%"); None -> "-"."""
    if x is None:
        return "-"
    return f"{x:+.0%}" if signed else f"{x:.0%}"

"""The error summaries the validation reports share: over a list of relative errors
(predicted / measured − 1), the row count, the median absolute error, the signed median (negative:
the model is too fast or too low) and, where a report asks, the worst absolute error; and a
percentage as those reports print it."""

from __future__ import annotations

import statistics
from collections.abc import Iterable


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


def pct(x: float | None, signed: bool = False) -> str:
    """0.123 -> "12%" (signed: "+12%"); None -> "-"."""
    if x is None:
        return "-"
    return f"{x:+.0%}" if signed else f"{x:.0%}"

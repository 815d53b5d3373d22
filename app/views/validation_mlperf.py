"""The Validation page's section on MLPerf Inference Offline results (models/validation/
mlperf.py; docs/reference/mlperf-serving-evidence.md): per benchmark and GPU, the median, worst
and signed errors in percent. Every figure is a field of `mlperf.as_json()`; nothing is
recomputed here."""

from __future__ import annotations

import pandas as pd

from app.views.evidence_table import pct, render_evidence
from models.validation import mlperf


def mlperf_table(data: dict) -> pd.DataFrame:
    """One row per benchmark and GPU of `mlperf.as_json()`: rows and the errors in percent."""

    return pd.DataFrame(
        [
            {
                "benchmark": c["benchmark"],
                "GPU": c["gpu"],
                "rows": c["rows"],
                "median %": pct(c["median_abs"]),
                "worst %": pct(c["worst_abs"]),
                "signed %": pct(c["signed_median"]),
            }
            for c in data["classes"]
        ]
    )


def render_mlperf() -> None:
    data = mlperf.as_json()
    a = data["all"]
    caption = (
        f"{data['rows']} published Offline results (MLPerf Inference v5.0 to v6.0, closed, one node; "
        "models/data/validation/mlperf_offline.csv), each against the model's best layout on the "
        "submission's node at the benchmark's mean lengths. Every row is held out; the split, the "
        "lengths and the precision rule were written before the first score "
        f"(docs/reference/mlperf-serving-evidence.md). Median error {100 * a['median_abs']:.0f} %, "
        f"{a['within_target']} of {a['rows']} rows within {100 * mlperf.TARGET:.0f} %."
    )
    render_evidence("Serving, MLPerf Inference Offline", caption, mlperf_table(data))

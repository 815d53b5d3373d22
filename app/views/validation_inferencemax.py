"""The Validation page's section on SemiAnalysis InferenceMAX's rows (models/validation/
inferencemax.py; docs/reference/serving-evidence.md, twentieth amendment): per engine, GPU,
precision and lengths, each metric's median |error|, signed median and share within 40 %, beside
issue 29's targets. Every figure is a field of `inferencemax.as_json()`; nothing is recomputed
here."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from app.views.forms import pinned_table
from models.validation import inferencemax

METRICS = {"tpot_ms": "TPOT", "ttft_ms": "TTFT", "output_tokens_per_s_per_gpu": "output tok/s/GPU"}


def _pct(x: float | None) -> float | None:
    return None if x is None else 100 * x


def inferencemax_table(data: dict) -> pd.DataFrame:
    """One row for all rows, then one per engine, GPU, precision and lengths: rows, refused, and
    per metric the median |error|, the signed median and the share within 40 %, in percent."""
    rows = []
    for c in [data["all"] | {"engine": "all rows"}, *data["classes"]]:
        row = {k: c.get(k, "") for k in ("engine", "gpu", "precision", "lengths")}
        row |= {"rows": c["rows"], "refused": c["refused"]}
        for key, name in METRICS.items():
            row[f"{name} median |error| %"] = _pct(c[key]["median_abs"])
            row[f"{name} signed %"] = _pct(c[key]["signed_median"])
            row[f"{name} within 40 % (share %)"] = _pct(c[key]["within_band"])
        rows.append(row)
    return pd.DataFrame(rows)


def render_inferencemax() -> None:
    data = inferencemax.as_json()
    st.subheader("Serving, third party: SemiAnalysis InferenceMAX")
    st.caption(
        f"{data['rows']} Llama 3.3 70B serving runs (models/data/validation/inferencemax.csv; "
        "InferenceMAX's results as of 2025-10-21) on H100, H200, B200, MI300X and MI325X, vLLM "
        "and TensorRT-LLM, FP8 and FP4, TP 1-8, concurrency 4-128, lengths 1k/1k, 1k/8k, 8k/1k. "
        "Every row is unseen and never fitted: the mapping and the rule were committed before the "
        "first score (docs/reference/serving-evidence.md, twentieth amendment). Issue 29's "
        "targets: median |error| at most 20 % and at least 80 % of rows within 40 %; signed + "
        "means the model predicts more than was measured."
    )
    table = inferencemax_table(data)
    pinned_table(
        table,
        hide_index=True,
        column_config={
            c: st.column_config.NumberColumn(format="%+.0f" if "signed" in c else "%.0f")
            for c in table.columns
            if c.endswith("%")
        },
    )

"""The Validation page's section on the fourth independent serving set (models/validation/
thirdparty_serving4.py; docs/reference/serving-evidence.md, twenty-seventh amendment): dense models
at a fixed concurrency, for all scored rows and per source, engine and GPU, each metric's median
|error|, signed median and share within 40 %, beside issue 29's targets, and the rows the planner
cannot express or refuses, with their reasons. Every figure is a field of
`thirdparty_serving4.as_json()`; nothing is recomputed here."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from app.views.evidence_table import TARGETS_NOTE, band_columns, class_table, render_evidence
from app.views.forms import pinned_table
from app.views.validation_inferencemax import METRICS
from models.validation import thirdparty_serving4


def thirdparty_serving4_table(data: dict) -> pd.DataFrame:
    """One row for all scored rows, then one per source, engine and GPU: rows, refused, and per
    metric the median |error|, the signed median and the share within 40 %, in percent."""
    fields = thirdparty_serving4.CLASS_FIELDS
    classes = [data["all"] | {fields[0]: "all scored rows"}, *data["classes"]]
    return class_table(classes, fields, ("rows", "refused"), band_columns(METRICS))


def render_thirdparty_serving4() -> None:
    data = thirdparty_serving4.as_json()
    caption = (
        f"{data['rows']} dense serving runs (models/data/validation/thirdparty_serving4.csv): "
        "NVIDIA's NIM benchmarking guide (Llama 3.3 70B, NIM 1.8.0 TensorRT-LLM, FP8, 2 H100, "
        "TTFT and ITL at 1 to 250 users), dstack (Llama 3.1 405B FP8, vLLM 0.6.3, 8 H100, offline "
        "batches; 2024-12) and SGLang's cookbook (Qwen3.6-27B on one H200 or B200; no preset, not "
        f"expressible); {data['scored']} scored, {len(data['refused'])} of them refused by the "
        "planner. The NIM rows' TTFT is the twenty-first amendment's steady TTFT on rows nobody "
        "here had seen. Every row is unseen and never fitted: the mapping and the rule were "
        "committed before the first score (docs/reference/serving-evidence.md, twenty-seventh "
        "amendment). " + TARGETS_NOTE
    )
    render_evidence(
        "Serving, third party: a fourth set (dense, latency at concurrency)",
        caption,
        thirdparty_serving4_table(data),
    )
    with st.expander("Rows the planner cannot express or refuses, and why"):
        pinned_table(pd.DataFrame(data["not_expressible"] + data["refused"]), hide_index=True)

"""The Validation page's section on the third independent serving set (models/validation/
thirdparty_serving3.py; docs/reference/serving-evidence.md, twenty-fifth amendment): per family
(dense, MoE) and per family, source, engine and GPU, each metric's median |error|, signed median
and share within 40 %, beside issue 29's targets, and the rows the planner cannot express or
refuses, with their reasons. Every figure is a field of `thirdparty_serving3.as_json()`; nothing
is recomputed here."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from app.views.evidence_table import TARGETS_NOTE, band_columns, class_table, render_evidence
from app.views.forms import pinned_table
from app.views.validation_inferencemax import METRICS
from models.validation import thirdparty_serving3


def thirdparty_serving3_table(data: dict) -> pd.DataFrame:
    """One row for all scored rows, one per family, then one per family, source, engine and GPU:
    rows, refused, and per metric the median |error|, the signed median and the share within
    40 %, in percent."""
    fields = thirdparty_serving3.CLASS_FIELDS
    classes = [
        data["all"] | {fields[0]: "all scored rows"},
        *data["families"],
        *data["classes"],
    ]
    return class_table(classes, fields, ("rows", "refused"), band_columns(METRICS))


def render_thirdparty_serving3() -> None:
    data = thirdparty_serving3.as_json()
    caption = (
        f"{data['rows']} serving runs (models/data/validation/thirdparty_serving3.csv): "
        "SemiAnalysis InferenceX issue 828 (gpt-oss-120b, vLLM, 8 H100; 2026-03), LMSYS "
        "(gpt-oss-120b at one user, SGLang 0.5.1, H100 and B200; 2025-08), dstack (Llama 3.1 "
        "405B FP8, vLLM 0.6.4, 8 MI300X, offline batches; 2024-12; gpt-oss-120b on split "
        "prefill/decode pools, SGLang, H200; 2025-09) and vLLM pull request 43232 (Qwen3-235B "
        f"FP8, 4 B200; 2026-06); {data['scored']} scored, {len(data['refused'])} of them refused "
        "by the planner, the rest not expressible (below). Every row is unseen and never fitted: "
        "the mapping and the rule were committed before the first score "
        "(docs/reference/serving-evidence.md, twenty-fifth amendment). " + TARGETS_NOTE
    )
    render_evidence(
        "Serving, third party: a third set (dense on MI300X, MoE on NVIDIA)",
        caption,
        thirdparty_serving3_table(data),
    )
    with st.expander("Rows the planner cannot express or refuses, and why"):
        pinned_table(pd.DataFrame(data["not_expressible"] + data["refused"]), hide_index=True)

"""The Validation page's section on third-party DeepSeek-R1 serving runs (models/validation/
thirdparty_moe.py; docs/reference/serving-evidence.md, twenty-second amendment): per source,
engine and GPU, each metric's median |error|, signed median and share within 40 %, beside issue
29's targets, and the rows the planner cannot express with their reasons. Every figure is a field
of `thirdparty_moe.as_json()`; nothing is recomputed here."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from app.views.evidence_table import TARGETS_NOTE, band_table, render_evidence
from app.views.forms import pinned_table
from app.views.validation_inferencemax import METRICS
from models.validation import thirdparty_moe


def thirdparty_moe_table(data: dict) -> pd.DataFrame:
    """One row for all scored rows, then one per source, engine and GPU: rows, refused, and per
    metric the median |error|, the signed median and the share within 40 %, in percent."""
    return band_table(data, thirdparty_moe.CLASS_FIELDS, "all scored rows", METRICS)


def render_thirdparty_moe() -> None:
    data = thirdparty_moe.as_json()
    caption = (
        f"{data['rows']} DeepSeek-R1 serving runs (models/data/validation/thirdparty_moe.csv): "
        "dstack on 8 H200 (SGLang, vLLM, TensorRT-LLM; 2025-03), SemiAnalysis InferenceX issue "
        "870 on 8 H200 (SGLang 0.5.7; 2026-03) and Tenstorrent issue 356 on 16 H100 (SGLang; "
        f"2025-07); {data['scored']} scored, the rest not expressible (below). Every row is "
        "unseen and never fitted: the mapping and the rule were committed before the first score "
        "(docs/reference/serving-evidence.md, twenty-second amendment). " + TARGETS_NOTE
    )
    render_evidence(
        "Serving, third party: DeepSeek-R1 (671B MoE)", caption, thirdparty_moe_table(data)
    )
    with st.expander("Rows the planner cannot express, and why"):
        pinned_table(pd.DataFrame(data["not_expressible"]), hide_index=True)

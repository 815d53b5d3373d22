"""The Validation page's section on SemiAnalysis InferenceMAX's rows (models/validation/
inferencemax.py; docs/reference/serving-evidence.md, twentieth amendment): per engine, GPU,
precision and lengths, each metric's median |error|, signed median and share within 40 %, beside
issue 29's targets. Every figure is a field of `inferencemax.as_json()`; nothing is recomputed
here."""

from __future__ import annotations

import pandas as pd

from app.views.evidence_table import TARGETS_NOTE, band_table, render_evidence
from models.validation import inferencemax

METRICS = {"tpot_ms": "TPOT", "ttft_ms": "TTFT", "output_tokens_per_s_per_gpu": "output tok/s/GPU"}


def inferencemax_table(data: dict) -> pd.DataFrame:
    """One row for all rows, then one per engine, GPU, precision and lengths: rows, refused, and
    per metric the median |error|, the signed median and the share within 40 %, in percent."""
    return band_table(data, ("engine", "gpu", "precision", "lengths"), "all rows", METRICS)


def render_inferencemax() -> None:
    data = inferencemax.as_json()
    caption = (
        f"{data['rows']} Llama 3.3 70B serving runs (models/data/validation/inferencemax.csv; "
        "InferenceMAX's results as of 2025-10-21) on H100, H200, B200, MI300X and MI325X, vLLM "
        "and TensorRT-LLM, FP8 and FP4, TP 1-8, concurrency 4-128, lengths 1k/1k, 1k/8k, 8k/1k. "
        "Every row is unseen and never fitted: the mapping and the rule were committed before the "
        "first score (docs/reference/serving-evidence.md, twentieth amendment). Their TTFT was "
        "157 % median when first scored; it motivated the twenty-first and twenty-ninth "
        "amendments, so the TTFT below is in-sample (TPOT and tokens/s are not). " + TARGETS_NOTE
    )
    render_evidence(
        "Serving, third party: SemiAnalysis InferenceMAX", caption, inferencemax_table(data)
    )

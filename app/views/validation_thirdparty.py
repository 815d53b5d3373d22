"""The Validation page's sections on the third-party serving sets (models/validation/
thirdparty_sets.py; docs/reference/serving-evidence.md, twenty-second, twenty-fifth,
twenty-seventh and thirty-first amendments): for all scored rows, per family where a set has families, and per
class (source, engine and GPU), each metric's median |error|, signed median and share within
40 %, beside issue 29's targets, and the rows the planner cannot express or refuses, with their
reasons. Every figure is a field of the set's `as_json()`; nothing is recomputed here. Each
section's words are a row of `SECTIONS`."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
import streamlit as st

from app.views.evidence_table import TARGETS_NOTE, band_columns, class_table, render_evidence
from app.views.forms import pinned_table
from app.views.validation_inferencemax import METRICS
from models.validation.thirdparty_sets import MOE, SERVING3, SERVING4, SERVING5, ServingSet


@dataclass(frozen=True)
class Section:
    """A set's section: its subheader, its caption (`{rows}`, `{scored}` and `{refused}` filled
    from `as_json()`, issue 29's targets appended) and the title of the expander that lists the
    rows not scored."""

    serving_set: ServingSet
    subheader: str
    caption: str
    expander: str


SECTIONS = (
    Section(
        MOE,
        "Serving, third party: DeepSeek-R1 (671B MoE)",
        "{rows} DeepSeek-R1 serving runs (models/data/validation/thirdparty_moe.csv): "
        "dstack on 8 H200 (SGLang, vLLM, TensorRT-LLM; 2025-03), SemiAnalysis InferenceX issue "
        "870 on 8 H200 (SGLang 0.5.7; 2026-03) and Tenstorrent issue 356 on 16 H100 (SGLang; "
        "2025-07); {scored} scored, the rest not expressible (below). Every row is "
        "unseen and never fitted: the mapping and the rule were committed before the first score "
        "(docs/reference/serving-evidence.md, twenty-second amendment). ",
        "Rows the planner cannot express, and why",
    ),
    Section(
        SERVING3,
        "Serving, third party: a third set (dense on MI300X, MoE on NVIDIA)",
        "{rows} serving runs (models/data/validation/thirdparty_serving3.csv): "
        "SemiAnalysis InferenceX issue 828 (gpt-oss-120b, vLLM, 8 H100; 2026-03), LMSYS "
        "(gpt-oss-120b at one user, SGLang 0.5.1, H100 and B200; 2025-08), dstack (Llama 3.1 "
        "405B FP8, vLLM 0.6.4, 8 MI300X, offline batches; 2024-12; gpt-oss-120b on split "
        "prefill/decode pools, SGLang, H200; 2025-09) and vLLM pull request 43232 (Qwen3-235B "
        "FP8, 4 B200; 2026-06); {scored} scored, {refused} of them refused "
        "by the planner, the rest not expressible (below). Every row is unseen and never fitted: "
        "the mapping and the rule were committed before the first score "
        "(docs/reference/serving-evidence.md, twenty-fifth amendment). ",
        "Rows the planner cannot express or refuses, and why",
    ),
    Section(
        SERVING4,
        "Serving, third party: a fourth set (dense, latency at concurrency)",
        "{rows} dense serving runs (models/data/validation/thirdparty_serving4.csv): "
        "NVIDIA's NIM benchmarking guide (Llama 3.3 70B, NIM 1.8.0 TensorRT-LLM, FP8, 2 H100, "
        "TTFT and ITL at 1 to 250 users), dstack (Llama 3.1 405B FP8, vLLM 0.6.3, 8 H100, offline "
        "batches; 2024-12) and SGLang's cookbook (Qwen3.6-27B on one H200 or B200; no preset, not "
        "expressible); {scored} scored, {refused} of them refused by the "
        "planner. The NIM rows' TTFT was first scored as the twenty-first amendment's steady TTFT "
        "on rows nobody here had seen (50 % median); they motivated the twenty-ninth amendment "
        "(a service's own first token), so their TTFT since is in-sample. Every row is unseen and "
        "never fitted: the mapping and the rule were "
        "committed before the first score (docs/reference/serving-evidence.md, twenty-seventh "
        "amendment). ",
        "Rows the planner cannot express or refuses, and why",
    ),
    Section(
        SERVING5,
        "Serving, third party: a fifth set (MoE on current engine builds)",
        "{rows} MoE serving runs on builds of late 2025 to 2026 "
        "(models/data/validation/thirdparty_serving5.csv): SemiAnalysis InferenceX issue 870 "
        "(DeepSeek-R1 FP4, SGLang 0.5.6, 8 B200; 2026-03), InferenceX pull request 1061 "
        "(gpt-oss-120b, vLLM 0.17.0, one MI300X; 2026-04), InferenceX issue 828's TP2 and TP4 "
        "runs (gpt-oss-120b, vLLM, H100; 2026-03) and NVIDIA's TensorRT-LLM recipe tables "
        "(GLM-4.7 on GB200 and H100, Qwen3-235B-A22B on GB200; no GLM-4.7 preset, GPU count not "
        "published: not expressible); {scored} scored, {refused} of them refused by the planner. "
        "Every row is unseen and never fitted: the mapping and the rule were committed before "
        "the first score (docs/reference/serving-evidence.md, thirty-first amendment). ",
        "Rows the planner cannot express or refuses, and why",
    ),
)


def thirdparty_table(serving_set: ServingSet, data: dict) -> pd.DataFrame:
    """One row for all scored rows, one per family (where the set has families), then one per
    class: rows, refused, and per metric the median |error|, the signed median and the share
    within 40 %, in percent."""
    fields = serving_set.class_fields
    classes = [
        data["all"] | {fields[0]: "all scored rows"},
        *data.get("families", ()),
        *data["classes"],
    ]
    return class_table(classes, fields, ("rows", "refused"), band_columns(METRICS))


def render_thirdparty(section: Section) -> None:
    """One set's section: subheader, caption, table, and the rows not scored with their reasons."""
    data = section.serving_set.as_json()
    refused = data.get("refused", [])
    caption = section.caption.format(rows=data["rows"], scored=data["scored"], refused=len(refused))
    render_evidence(
        section.subheader, caption + TARGETS_NOTE, thirdparty_table(section.serving_set, data)
    )
    with st.expander(section.expander):
        pinned_table(pd.DataFrame(data["not_expressible"] + refused), hide_index=True)

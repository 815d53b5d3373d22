"""The Validation page's section on NVIDIA AIConfigurator's measured serving rows
(models/validation/silicon.py; docs/reference/serving-evidence.md): per split, backend, GPU and
model class, per engine, and for replicas beyond one scale-up domain, the TPOT and TTFT errors in
percent. Every figure is a field of `silicon.as_json()`; nothing is recomputed here."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from app.views.evidence_table import class_table, pct, render_evidence
from app.views.forms import pinned_table
from models.validation import silicon


def measured_serving_table(data: dict) -> pd.DataFrame:
    """One row per split, backend, GPU and model class of `silicon.as_json()`: rows, refused, and
    the TPOT (the model's and the rule of thumb's) and TTFT errors in percent."""

    return pd.DataFrame(
        [
            {
                "split": c["split"],
                "backend": c["backend"],
                "GPU": c["gpu"],
                "class": c["model_class"],
                "rows": c["rows"],
                "refused": c["refused"],
                "TPOT median %": pct(c["tpot"]["median_abs"]),
                "TPOT p90 %": pct(c["tpot"]["p90_abs"]),
                "TPOT signed %": pct(c["tpot"]["signed_median"]),
                "rule TPOT median %": pct(c["tpot_rule_of_thumb"]["median_abs"]),
                "TTFT median %": pct(c["ttft"]["median_abs"]),
                "TTFT signed %": pct(c["ttft"]["signed_median"]),
            }
            for c in data["classes"]
        ]
    )


def _engine_row(c: dict) -> dict:
    """One split and backend of `silicon.as_json()["per_engine"]`, errors in percent."""
    tpot, ttft = c["tpot"], c["ttft"]
    return {"split": c["split"], "backend": c["backend"], "rows": c["rows"],
            "TPOT median %": pct(tpot["median_abs"]), "TPOT p90 %": pct(tpot["p90_abs"]),
            "TPOT signed %": pct(tpot["signed_median"]), "TTFT median %": pct(ttft["median_abs"]),
            "TTFT p90 %": pct(ttft["p90_abs"]), "TTFT signed %": pct(ttft["signed_median"]),
            "share": c["prefill_share_in_decode"]}  # fmt: skip


def render_serving_measured() -> None:
    data = silicon.as_json()
    caption = (
        f"NVIDIA AIConfigurator's {data['rows']:,} measured serving rows "
        "(models/data/validation/aiconfigurator_silicon.csv: TensorRT-LLM, SGLang and vLLM, each "
        "row a layout, a concurrency and the measured TTFT and TPOT). The held-out split, the "
        "model's form and the mapping were written down before the first score "
        "(docs/reference/serving-evidence.md); constants are fitted on tuning rows only. "
        f"{data['expressible']:,} rows are expressible today, {data['held_out']:,} held out. "
        "Signed: negative means the model is faster than measured."
    )
    render_evidence("Serving, measured at scale", caption, measured_serving_table(data))
    st.caption(
        "Per engine. Unseen: B300 and GB300, apart from the held-out rows. Share: of the others' "
        "prefills an aggregated decode pays (fifteenth amendment; 1 = each whole, serially)."
    )
    pinned_table(pd.DataFrame([_engine_row(c) for c in data["per_engine"]]), hide_index=True)
    st.caption(
        "Replicas beyond one scale-up domain (TP or attention-DP groups over several NVLink "
        "domains; docs/reference/serving-evidence.md, fourteenth amendment). Unseen: B300 and "
        "GB300, apart from the held-out rows."
    )
    beyond = class_table(
        data["beyond_domain"],
        ("split", "backend"),
        ("rows",),
        [
            ("TPOT median %", ("tpot", "median_abs")),
            ("TPOT p90 %", ("tpot", "p90_abs")),
            ("TPOT signed %", ("tpot", "signed_median")),
            ("TTFT median %", ("ttft", "median_abs")),
        ],
    )
    pinned_table(beyond, hide_index=True)
    with st.expander("Rows not expressible yet, and why"):
        pinned_table(
            pd.DataFrame([{"reason": k, "rows": n} for k, n in data["not_expressible"].items()]),
            hide_index=True,
        )

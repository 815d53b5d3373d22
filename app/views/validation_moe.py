"""The Validation page's MoE throughput section: the training model against Megatron-Bridge's
published MoE pre-training throughput, per model and per GPU, and every row
(models/validation/moe_throughput.py; docs/reference/training.md section 6.4)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from app.views.evidence_table import pct
from app.views.forms import pinned_table
from models.validation import moe_throughput as MT

PERCENT = {
    c: st.column_config.NumberColumn(format="%+.0f" if "signed" in c or c == "error %" else "%.0f")
    for c in ("median %", "worst %", "signed %", "error %")
}


def groups_table(data: dict) -> pd.DataFrame:
    """One row per model, then one per GPU, of `moe_throughput.as_json()`: rows and errors in %."""
    return pd.DataFrame(
        [
            {
                "group": c.get("model") or c.get("gpu"),
                "rows": c["rows"],
                "median %": pct(c["median_abs"]),
                "worst %": pct(c["worst_abs"]),
                "signed %": pct(c["signed_median"]),
            }
            for c in data["models"] + data["gpus"]
        ]
    )


def rows_table(data: dict) -> pd.DataFrame:
    """Every row: its GPUs, release, published and predicted tokens/s per GPU, error, layout."""
    return pd.DataFrame(
        [
            {
                "row": d["id"],
                "GPUs": d["gpus"],
                "release": d["release"],
                "published tok/s/GPU": d["published"],
                "model tok/s/GPU": d["predicted"],
                "error %": pct(d["error"]),
                "layout": d["layout"] or "not scored (rule in the row's notes)",
            }
            for d in data["detail"]
        ]
    )


def render_moe_throughput() -> None:
    data = MT.as_json()
    a = data["all"]
    st.subheader("MoE pre-training throughput (held out)")
    st.caption(
        f"{data['rows']} published rows ({data['scored']} scored) from Megatron-Bridge's "
        "performance tables (NeMo 26.02 and 25.09; models/data/validation/moe_throughput.csv), "
        "each at its published layout. Every row is held out and force-balanced (the load-"
        "imbalance term is 1 on them); the rows and the rule were written before the first score "
        f"(docs/reference/training.md 6.4). Median error {100 * a['median_abs']:.0f} %, signed "
        f"{100 * a['signed_median']:+.0f} % (+ means the model is faster than published)."
    )
    pinned_table(groups_table(data), hide_index=True, column_config=PERCENT)
    with st.expander("Every MoE throughput row"):
        pinned_table(rows_table(data), hide_index=True, column_config=PERCENT)

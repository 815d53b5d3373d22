"""Validation: the model's predictions against published runs and benchmarks, beside the rule of thumb."""

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from models.validation import KINDS, UNITS, validate

KIND_COLOURS = {"step_time": "#1f77b4", "throughput": "#ff7f0e", "gpu_hours": "#2ca02c"}


def scatter(rows: list[dict]) -> go.Figure:
    """Predicted against published on log axes (units differ by kind: each point is in its row's own
    unit), with the y = x line, the ±8 % and ±10 % bands, and one colour per kind."""
    fig = go.Figure()
    values = [v for r in rows for v in (r["predicted"], r["published"])]
    xs = [min(values) / 2, max(values) * 2]
    for band, dash in ((0.10, "dot"), (0.08, "dash")):
        for sign in (1, -1):
            fig.add_trace(go.Scatter(x=xs, y=[x * (1 + sign * band) for x in xs], mode="lines",
                                     line={"color": "grey", "dash": dash, "width": 1},
                                     name=f"±{band:.0%}", showlegend=sign == 1, hoverinfo="skip"))
    fig.add_trace(go.Scatter(x=xs, y=xs, mode="lines", line={"color": "black", "width": 1}, name="y = x"))
    for kind in KINDS:
        sel = [r for r in rows if r["kind"] == kind]
        fig.add_trace(go.Scatter(
            x=[r["published"] for r in sel], y=[r["predicted"] for r in sel], mode="markers",
            marker={"color": KIND_COLOURS[kind], "size": 9, "opacity": 0.8}, name=kind,
            text=[f"{r['id']}: {r['error']:+.1%} ({UNITS[r['unit']]})" for r in sel],
            hovertemplate="%{text}<br>published %{x:.4g}, predicted %{y:.4g}<extra></extra>",
        ))
    fig.update_xaxes(type="log", title="published")
    fig.update_yaxes(type="log", title="predicted")
    fig.update_layout(height=520, margin={"l": 10, "r": 10, "t": 30, "b": 10})
    return fig


def table(result: dict) -> pd.DataFrame:
    return pd.DataFrame([{
        "row": r["id"], "kind": r["kind"], "model": r["model"], "GPUs": f"{r['gpus']:,} x {r['gpu']}",
        "seq": r["seq_len"], "batch (seqs)": r["global_batch_seqs"], "precision": r["precision"],
        "layout": r["layout"], "unit": UNITS[r["unit"]], "published": r["published"],
        "predicted": r["predicted"], "error %": 100 * r["error"],
        "rule of thumb error %": 100 * r["rule_error"], "scored": r["scored"],
        "used for calibration": r["calibration"], "source": r["source"],
        "notes": r["notes"],
    } for r in result["rows"]])


def summary(result: dict) -> pd.DataFrame:
    out = []
    for scope, key in (("scored rows", "by_kind"), ("held out", "by_kind_held_out"), ("all rows", "by_kind_all_rows")):
        for kind, s in result[key].items():
            m, t = s["model"], s["rule_of_thumb"]
            out.append({"kind": kind, "rows": f"{m['rows']} ({scope})",
                        "model median %": 100 * m["median_abs_error"], "model worst %": 100 * m["worst_abs_error"],
                        "rule of thumb median %": 100 * t["median_abs_error"],
                        "rule of thumb worst %": 100 * t["worst_abs_error"]})
    return pd.DataFrame(out)


def render() -> None:
    st.title("Validation")
    st.caption("The model's predictions against published training runs and benchmarks "
               "(validation/runs.csv, each row with its source), beside the rule of thumb.")
    result = validate()
    st.subheader("Error per kind")
    st.dataframe(summary(result), hide_index=True, column_config={
        c: st.column_config.NumberColumn(format="%.1f") for c in
        ("model median %", "model worst %", "rule of thumb median %", "rule of thumb worst %")})
    st.caption(f"Rule of thumb: 6·N·D at a constant {result['rule_of_thumb_mfu']:.1%} MFU (the value that "
               f"minimises its own median error, picked after the fact), and "
               f"{result['rule_of_thumb_goodput']:.0%} goodput for whole runs. Targets: step time and "
               "throughput within 8 % median / 15 % worst; whole-run GPU-hours within 10 % / 30 %. "
               "All three are met on the scored rows and on the held-out rows (those used to set no "
               "constant; the step-time and Narayanan rows calibrate the GEMM efficiency). "
               "Rows marked not scored are predicted and shown; their notes say why they are left out.")
    st.plotly_chart(scatter(result["rows"]), use_container_width=True)
    st.subheader("Every row")
    st.dataframe(table(result), hide_index=True, column_config={
        "error %": st.column_config.NumberColumn(format="%+.1f"),
        "rule of thumb error %": st.column_config.NumberColumn(format="%+.1f"),
        "published": st.column_config.NumberColumn(format="%.4g"),
        "predicted": st.column_config.NumberColumn(format="%.4g")})
    with st.expander("Published figures not used, and why"):
        st.dataframe(pd.DataFrame(result["skipped"]), hide_index=True)

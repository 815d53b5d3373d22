"""The Serve page's chart: throughput and latency against the sequences in flight."""

from __future__ import annotations

from collections.abc import Mapping

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from app.charts.common import HOVER, SERVE_COLORS, THEMES, empty, figure, plain


def serve_curve(
    sweep: Mapping, plan: Mapping, ttft_slo: float | None, tpot_slo: float | None, dark=False
) -> go.Figure:
    """Output tokens/s per GPU (top) and TTFT and TPOT (bottom, log scale) against the sequences in
    flight per replica for the plan's layout (models.serving.sweep), the objectives as dashed lines
    and the plan's own point ringed. Everything is a trace: on log axes plotly places annotations
    in log units, so labelled shapes would land elsewhere."""
    layout = f"TP{plan['tp']}" + (f" EP{plan['ep']}" if plan["ep"] > 1 else "")
    if plan.get("prefill_decode") == "split":
        layout += ", prefill and decode split"
    fig = figure(
        "Throughput and latency against concurrency",
        f"{plain(plan['model'])} on {plain(plan['gpu'])}, {layout}, {plan['precision'].upper()}: "
        "output tokens/s per GPU (top), latency (bottom); objectives dashed, this plan ringed",
        dark,
        make_subplots(rows=2, cols=1, shared_xaxes=True, vertical_spacing=0.08),
    )
    b = list(sweep["batch"])
    if not b:
        return empty(fig, "no batch fits this layout")
    _sweep_traces(fig, sweep, b)
    _objectives(fig, plan, b, ttft_slo, tpot_slo)
    _this_plan(fig, plan, THEMES[dark]["fg"])
    fig.update_xaxes(type="log", row=1, col=1)
    fig.update_xaxes(type="log", title_text="Sequences in flight per replica (log scale)", row=2)
    fig.update_yaxes(title_text="Tokens/s per GPU", rangemode="tozero", row=1, col=1)
    fig.update_yaxes(type="log", title_text="ms (log scale)", row=2, col=1)
    # six legend entries wrap to two lines: below the plot, clear of the title
    fig.update_layout(height=640, legend={"y": -0.12, "yanchor": "top"}, margin={"b": 120})
    return fig


def _sweep_traces(fig: go.Figure, sweep: Mapping, b: list) -> None:
    """The sweep's throughput (top) and TTFT and TPOT (bottom) against the sequences in flight."""
    series = (
        ("throughput", "Output tokens/s per GPU", "output_tokens_per_s_per_gpu", 1, "tokens/s"),
        ("ttft", "Time to first token (ms)", "ttft_ms", 2, "ms TTFT"),
        ("tpot", "Time per output token (ms)", "tpot_ms", 2, "ms TPOT"),
    )
    for kind, name, field, row, unit in series:
        ys = sweep[field]
        fig.add_trace(
            go.Scatter(
                x=b,
                y=ys,
                mode="lines+markers",
                name=name,
                line={"color": SERVE_COLORS[kind], "width": 2.5 if row == 1 else 2},
                meta={"kind": kind},
                customdata=[
                    f"{x:,.0f} in flight: {y:,.1f} {unit}" for x, y in zip(b, ys, strict=True)
                ],
                hovertemplate=HOVER,
            ),
            row=row,
            col=1,
        )


def _objectives(
    fig: go.Figure, plan: Mapping, b: list, ttft_slo: float | None, tpot_slo: float | None
) -> None:
    """The TTFT and TPOT objectives set, as dashed lines across the bottom plot."""
    lo, hi = min(b + [plan["batch"]]), max(b + [plan["batch"]])
    for kind, slo in (("ttft", ttft_slo), ("tpot", tpot_slo)):
        if slo:
            fig.add_trace(
                go.Scatter(
                    x=[lo, hi],
                    y=[slo, slo],
                    mode="lines",
                    name=f"{kind.upper()} objective {slo:,.6g} ms",
                    line={"color": SERVE_COLORS[kind], "width": 1.5, "dash": "dash"},
                    meta={"kind": f"{kind}_slo"},
                    hoverinfo="skip",
                ),
                row=2,
                col=1,
            )


def _this_plan(fig: go.Figure, plan: Mapping, fg: str) -> None:
    """The plan's own point ringed on each of the three curves, one legend entry for the three."""
    points = (
        (1, plan["output_tokens_per_s_per_gpu"], "tokens/s per GPU"),
        (2, plan["ttft_ms"], "ms TTFT"),
        (2, plan["tpot_ms"], "ms TPOT"),
    )
    for i, (row, y, unit) in enumerate(points):
        fig.add_trace(
            go.Scatter(
                x=[plan["batch"]],
                y=[y],
                mode="markers",
                name=f"This plan: {plan['batch']:,} in flight",
                showlegend=i == 0,
                legendgroup="chosen",
                marker={
                    "size": 14,
                    "color": "rgba(0,0,0,0)",
                    "line": {"color": fg, "width": 2.5},
                },
                meta={"kind": "chosen"},
                customdata=[f"this plan, {plan['batch']:,} in flight: {y:,.1f} {unit}"],
                hovertemplate=HOVER,
            ),
            row=row,
            col=1,
        )

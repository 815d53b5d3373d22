"""Training time against cluster size (the Compare page and the PDF): days for one run and ideal
days by GPU count, the chosen count, the deadline and the scaling efficiency."""

from __future__ import annotations

import math
from collections.abc import Mapping

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from app.charts.common import HOVER, THEMES, as_comparison, empty, figure
from models.numbers import days, pct
from models.training.plan import CurvePoint
from pricing.results import Comparison


def scaling_curve(c: Comparison | Mapping, dark: bool = False) -> go.Figure:
    """Days for one run (and ideal days, dashed) against GPU count on a log axis, the chosen count
    and the deadline marked, scaling efficiency on the right axis."""
    c = as_comparison(c)
    t = THEMES[dark]
    fig = figure(
        "Training time against cluster size",
        "Whole-run days for one run (solid: the steady state × the whole-run factor), ideal "
        "days without failures or restarts (dashed); scaling efficiency on the right axis.",
        dark,
        make_subplots(specs=[[{"secondary_y": True}]]),
    )
    curve = sorted((p for p in c.training.curve if p.gpus and p.train_days), key=lambda p: p.gpus)
    if not curve:
        return empty(fig, "no scaling curve for this scenario")
    hover = [
        f"{p.gpus:,} GPUs: {days(p.train_days)} for one run (ideal {days(p.ideal_days)})"
        f"<br>scaling efficiency {pct(p.scaling_efficiency)}, MFU {pct(p.mfu)}, "
        f"{p.gpu_hours / 1e3:,.0f}k GPU-hours"
        for p in curve
    ]
    _curve_traces(fig, curve, hover, t)
    _chosen(fig, c, curve, hover, t)
    _deadline(fig, c, t)
    return _scaling_axes(fig, [p.gpus for p in curve])


def _curve_traces(fig: go.Figure, curve: list[CurvePoint], hover: list[str], t: dict) -> None:
    """Days for one run (solid), ideal days (dashed) and, on the right axis, scaling efficiency."""
    gpus = [p.gpus for p in curve]
    fig.add_trace(
        go.Scatter(
            x=gpus,
            y=[p.train_days for p in curve],
            mode="lines+markers",
            name="Days for one run",
            line={"color": t["fg"], "width": 2.5},
            meta={"kind": "train_days"},
            customdata=hover,
            hovertemplate=HOVER,
        )
    )
    fig.add_trace(
        go.Scatter(
            x=gpus,
            y=[p.ideal_days for p in curve],
            mode="lines",
            name="Ideal days",
            line={"color": t["fg"], "width": 1.5, "dash": "dash"},
            meta={"kind": "ideal_days"},
            hoverinfo="skip",
        )
    )
    eff = [p.scaling_efficiency for p in curve]
    fig.add_trace(
        go.Scatter(
            x=gpus,
            y=[None if e is None else 100 * e for e in eff],
            mode="lines",
            name="Scaling efficiency (%)",
            line={"color": t["muted"], "width": 1.5, "dash": "dot"},
            meta={"kind": "efficiency"},
            hoverinfo="skip",
        ),
        secondary_y=True,
    )


def _chosen(
    fig: go.Figure, c: Comparison, curve: list[CurvePoint], hover: list[str], t: dict
) -> None:
    """The chosen GPU count ringed on the curve, when the curve has it."""
    gpus = [p.gpus for p in curve]
    chosen = c.training.chosen_gpus or c.training.gpus
    if chosen in gpus:
        i = gpus.index(chosen)
        fig.add_trace(
            go.Scatter(
                x=[chosen],
                y=[curve[i].train_days],
                mode="markers+text",
                name="Chosen",
                marker={
                    "size": 14,
                    "color": "rgba(0,0,0,0)",
                    "line": {"color": t["fg"], "width": 2.5},
                },
                text=[f"{chosen:,} GPUs"],
                textposition="top right",
                meta={"kind": "chosen"},
                customdata=[f"chosen: {hover[i]}"],
                hovertemplate=HOVER,
            )
        )


def _deadline(fig: go.Figure, c: Comparison, t: dict) -> None:
    """The deadline as a line across the plot at the training days it leaves, labelled."""
    deadline = c.scenario.cluster.deadline_days
    # the training days the deadline leaves after provisioning (the engine sized for these)
    budget = c.training.train_days_budget if deadline else None
    if deadline:
        label = f"deadline: {days(deadline)}"
        if budget is not None:
            label = f"{label}, {days(budget)} to train after provisioning"
            deadline = budget
        fig.add_shape(
            type="line",
            xref="x domain",
            x0=0,
            x1=1,
            yref="y",
            y0=deadline,
            y1=deadline,
            line={"color": t["fg"], "width": 1.5, "dash": "dashdot"},
            name="deadline",
        )
        fig.add_annotation(
            xref="x domain",
            x=1,
            yref="y",
            y=deadline,
            text=label,
            showarrow=False,
            xanchor="right",
            yanchor="bottom",
            name="deadline",
        )


def _scaling_axes(fig: go.Figure, gpus: list[int]) -> go.Figure:
    """A log GPU axis ticked at powers of two (at most about ten), days and efficiency axes."""
    ticks = [g for g in gpus if int(g) & (int(g) - 1) == 0] or gpus
    ticks = ticks[:: math.ceil(len(ticks) / 10)]
    fig.update_xaxes(
        type="log",
        title_text="GPUs (log scale)",
        tickvals=ticks,
        ticktext=[f"{g:,}" for g in ticks],
    )
    fig.update_yaxes(title_text="Days for one run", rangemode="tozero", secondary_y=False)
    fig.update_yaxes(
        title_text="Scaling efficiency (%)",
        range=[0, 105],
        tickvals=[0, 25, 50, 75, 100],
        showgrid=False,
        zeroline=False,
        secondary_y=True,
    )
    return fig

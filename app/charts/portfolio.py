"""A portfolio's charts (scenario version 2): its monthly demand by team and by kind (the
Portfolio page), and its capacity against demand under each option's capacity plan (the Compare
page and the PDF)."""

from __future__ import annotations

from collections.abc import Mapping

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from app.charts.common import (
    HEIGHT_PX,
    HOVER,
    THEMES,
    as_comparison,
    empty,
    figure,
    kind_color,
    option_color,
    pale,
    team_colors,
    user_text,
)
from app.formatting import capacity_size
from pricing.results import Comparison, OptionResult


def _field(record, name: str):
    return record[name] if isinstance(record, Mapping) else getattr(record, name)


def portfolio_demand(demand, dark: bool = False) -> go.Figure:
    """A portfolio's monthly demand, unconstrained, in GPU-hours: stacked by team (top) and by
    workload kind (bottom). `demand` is a models.demand.Demand, the comparison's PortfolioDemand,
    or the dict of either; the figure draws their `gpu_hours_by_team` and `gpu_hours_by_kind`."""
    by_team = _field(demand, "gpu_hours_by_team")
    by_kind = _field(demand, "gpu_hours_by_kind")
    months = int(_field(demand, "months"))
    total = float(_field(demand, "demanded_gpu_hours"))
    fig = make_subplots(
        rows=2,
        cols=1,
        shared_xaxes=True,
        vertical_spacing=0.12,
        subplot_titles=("By team", "By kind of work"),
    )
    fig = figure(
        "Monthly demand of the portfolio",
        f"GPU-hours each month if every run started when released; {total:,.0f} GPU-hours "
        f"over {months} months",
        dark,
        fig,
    )
    x = list(range(1, months + 1))
    teams = team_colors(by_team)
    for row, groups, colour in (
        (1, by_team, lambda _, t: teams[t]),
        (2, by_kind, lambda _, k: kind_color(k)),
    ):
        for i, (name, hours) in enumerate(groups.items()):
            fig.add_trace(
                go.Bar(
                    x=x,
                    y=hours,
                    name=user_text(name),
                    legendgroup=f"row{row}",
                    legendgrouptitle={"text": "Team" if row == 1 else "Kind"} if i == 0 else None,
                    marker={"color": colour(i, name)},
                    meta={"group": "team" if row == 1 else "kind", "name": name},
                    customdata=[
                        f"{user_text(name)}, month {m}: {h:,.0f} GPU-hours"
                        for m, h in zip(x, hours, strict=True)
                    ],
                    hovertemplate=HOVER,
                ),
                row=row,
                col=1,
            )
    # teams and kinds in two titled groups: right of the plots, clear of the title and subtitle
    fig.update_layout(
        barmode="stack",
        height=HEIGHT_PX + 140,
        legend={
            "groupclick": "toggleitem",
            "orientation": "v",
            "x": 1.02,
            "xanchor": "left",
            "y": 1,
            "yanchor": "top",
        },
    )
    fig.update_yaxes(title_text="GPU-hours", rangemode="tozero")
    fig.update_xaxes(title_text="Month of the term", row=2, col=1)
    return fig


def _gpu_hours(x: float) -> str:
    """GPU-hours as 1.2M, 350k, 912 (no currency sign)."""
    for div, suffix in ((1e9, "B"), (1e6, "M"), (1e3, "k")):
        if abs(x) >= div:
            return f"{x / div:,.3g}{suffix}"
    return f"{x:,.0f}"


#: why a kind of scenario (models/scenario.py `Scenario.kind`) has no capacity plan to draw
NO_CAPACITY_PLAN = {"run": "Capacity plans are made for a portfolio of workloads (version 2)"}


def capacity_demand(c: Comparison | Mapping, option: str, dark: bool = False) -> go.Figure:
    """A portfolio's monthly capacity against its demand under one option's capacity plan: the
    GPU-hours served and held idle each month stacked (together the capacity held,
    `served_gpu_hours_by_month` + `idle_gpu_hours_by_month`), the unconstrained demand
    (`demand_gpu_hours`) as a line; the term's queued and beyond-term GPU-hours in the subtitle.
    A version-1 scenario, an option not compared or not available gives the empty state."""
    c = as_comparison(c)
    o = c.option(option)
    label = o.label if o is not None else user_text(str(option)[:60])
    fig = figure(f"Capacity against demand: {label}", "", dark)
    if why := NO_CAPACITY_PLAN.get(c.scenario.kind):
        return empty(fig, why)
    if o is None or not o.available or not o.capacity_gpus:
        why = "was not compared" if o is None else "is not available for this scenario"
        return empty(fig, f"{label} {why}")
    months = list(range(1, len(o.demand_gpu_hours) + 1))
    fig.update_layout(
        title_subtitle_text=(
            f"{capacity_size(o, ' GPUs')}; GPU-hours each month: served and idle stack to the "
            "capacity held, the line is the demand.<br>Over the term: "
            f"{_gpu_hours(o.demanded_gpu_hours or 0)} demanded, "
            f"{_gpu_hours(o.served_gpu_hours or 0)} served, "
            f"{_gpu_hours(o.queued_gpu_hours or 0)} queued, "
            f"{_gpu_hours(o.beyond_term_gpu_hours or 0)} beyond the term, "
            f"{_gpu_hours(o.idle_gpu_hours or 0)} idle."
        )
    )
    _capacity_traces(fig, o, months, THEMES[dark])
    return _capacity_layout(fig, len(months))


#: how much of the option's colour the idle bars keep, laid over the background
IDLE_SHARE = 0.3


def _capacity_traces(fig: go.Figure, o: OptionResult, months: list[int], theme: dict) -> None:
    """GPU-hours served and held idle each month, stacked bars in the option's colour (idle in a
    pale solid colour, so its legend swatch is pale too), and the demand as a line."""
    color = option_color(o.option)
    fg = theme["fg"]
    for name, values, fill in (
        ("Served", o.served_gpu_hours_by_month, color),
        ("Idle", o.idle_gpu_hours_by_month, pale(color, theme["bg"], IDLE_SHARE)),
    ):
        fig.add_trace(
            go.Bar(
                x=months,
                y=values,
                name=name,
                marker={"color": fill, "line": {"width": 0}},
                meta={"option": o.option, "kind": name.lower()},
                customdata=[
                    f"Month {m}: {name.lower()} {_gpu_hours(v)} GPU-hours; {gpus:,.1f} GPUs held"
                    for m, v, gpus in zip(months, values, o.capacity_gpus, strict=True)
                ],
                hovertemplate=HOVER,
            )
        )
    fig.add_trace(
        go.Scatter(
            x=months,
            y=o.demand_gpu_hours,
            mode="lines",
            name="Demand",
            line={"color": fg, "width": 2, "shape": "hvh"},
            meta={"option": o.option, "kind": "demand"},
            customdata=[
                f"Month {m}: demand {_gpu_hours(v)} GPU-hours"
                for m, v in zip(months, o.demand_gpu_hours, strict=True)
            ],
            hovertemplate=HOVER,
        )
    )


def _capacity_layout(fig: go.Figure, term: int) -> go.Figure:
    """Stacked bars, the legend below the plot and month and GPU-hours axes over `term` months."""
    # a two-line subtitle: the legend goes below the plot, clear of it
    fig.update_layout(
        barmode="stack",
        bargap=0.15,
        hovermode="x unified",
        legend={
            "traceorder": "normal",
            "orientation": "h",
            "y": -0.2,
            "yanchor": "top",
            "x": 0,
            "xanchor": "left",
        },
        margin={"b": 110},
    )
    fig.update_xaxes(
        title_text="Month of the term",
        range=[0.5, term + 0.5],
        dtick=6 if term > 24 else 3 if term > 12 else 1,
    )
    fig.update_yaxes(title_text="GPU-hours per month", rangemode="tozero")
    return fig

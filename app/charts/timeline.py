"""The Compare page's timeline: the provisioning Gantt of each option, phases in lanes, then one
training run (time to first result) or, for a portfolio, the phases only (time to capacity)."""

from __future__ import annotations

from collections.abc import Mapping

import plotly.graph_objects as go

from app.charts.common import (
    HEIGHT_PX,
    HOVER,
    THEMES,
    as_comparison,
    empty,
    figure,
    option_color,
    plain,
)
from models.numbers import days, on_day
from pricing.results import Comparison, OptionResult


def _lanes(intervals: list[tuple[float, float]]) -> list[int]:
    """Greedy interval packing: a lane for each (start, end) so that no two in a lane overlap."""
    ends: list[float] = []
    lanes = [0] * len(intervals)
    for i in sorted(range(len(intervals)), key=lambda i: intervals[i]):
        start, end = intervals[i]
        lane = next((k for k, e in enumerate(ends) if e <= start + 1e-9), len(ends))
        ends[lane : lane + 1] = [end]
        lanes[i] = lane
    return lanes


#: room right of the latest day on the Gantt's axis, as a share of that day: the star's end label
#: ("day 1,203", 9 characters of 11 px text beside a 15 px star, about 85 px) on a plot about
#: 600 px wide (the PDF's column; the portal at 1440 px is wider)
GANTT_LABEL_ROOM = 0.16


def _run_drawn(o: OptionResult, first_run: bool) -> bool:
    """Whether an option's row draws its training run: asked for, and a run finishes."""
    return first_run and o.available and o.first_result_day is not None


def _gantt_ends(o: OptionResult, first_run: bool = True) -> list[float]:
    """The days a Gantt row reaches: its phases' ends and, when the run is drawn, its first result."""
    ends = [float(p.end_day) for p in o.timeline]
    if _run_drawn(o, first_run):
        ends.append(float(o.first_result_day))
    return ends


def provisioning_gantt(
    c: Comparison | Mapping, dark: bool = False, *, first_run: bool = True
) -> go.Figure:
    """Provisioning phases, then one training run, per option in days; phases that run in
    parallel (a build's facility) get a lane of their own. Without `first_run` (a portfolio, whose
    work is many workloads, not one run), the phases only."""
    c = as_comparison(c)
    fig = figure(
        "Time to first result" if first_run else "Time to capacity",
        "Provisioning phases (pale), then one training run (solid); "
        "\u2605 marks the day the first run finishes."
        if first_run
        else "Provisioning phases of each option; its capacity serves the demand from the end of "
        "the last one.",
        dark,
    )
    if not c.options:
        return empty(fig, "No option to show")
    y, tickvals, ticktext = 0.0, [], []
    for o in c.options:
        n_lanes = _gantt_row(fig, o, y, dark, first_run)
        tickvals.append(y - (n_lanes - 1) / 2)
        ticktext.append(o.label if o.available else f"{o.label} (unavailable)")
        y -= n_lanes + 0.4
    return _gantt_layout(fig, c, y, tickvals, ticktext, first_run)


def _gantt_items(o: OptionResult, first_run: bool) -> list[tuple[str, float, float, str]]:
    """(text, start day, end day, note) of each bar of an option's row: its phases, then its
    training run when drawn."""
    items = [
        (plain(p.phase), float(p.start_day), float(p.end_day), plain(p.note)) for p in o.timeline
    ]
    if _run_drawn(o, first_run):
        items.append(
            (
                "training",
                o.ready_day if o.work_start_day is None else o.work_start_day,  # on a bridge
                o.first_result_day,
                f"one run: {days(o.train_days)}",
            )
        )
    return items


def _gantt_row(fig: go.Figure, o: OptionResult, y: float, dark: bool, first_run: bool) -> int:
    """Draws an option's row from `y` down (its phases' bars, its run's bar and star, or a note
    when no run is drawn) and returns how many lanes it takes."""
    t = THEMES[dark]
    items = _gantt_items(o, first_run)
    lanes = _lanes([(s, e) for _, s, e, _ in items])
    ys = [y - lane for lane in lanes]
    for kind, idx in (
        ("phase", range(len(o.timeline))),
        ("training", range(len(o.timeline), len(items))),
    ):
        if idx:
            fig.add_trace(_gantt_bars(o, kind, [items[i] for i in idx], [ys[i] for i in idx], t))
    if _run_drawn(o, first_run):
        fig.add_trace(_first_result_star(o, ys[-1], t))
    elif o.available or o.note:
        fig.add_annotation(
            x=o.ready_day if o.available else 0,
            y=y,
            showarrow=False,
            xanchor="left",
            text=plain(o.note) if not o.available else "no run finishes within the term",
            xshift=6,
            font={"color": t["muted"], "size": 11},
            name="note",
        )
    return max(lanes, default=0) + 1


def _gantt_bars(
    o: OptionResult, kind: str, items: list[tuple[str, float, float, str]], ys: list[float], t: dict
) -> go.Bar:
    """One trace of an option's bars of `kind` ('phase', pale, or 'training', solid) at `ys`."""
    return go.Bar(
        orientation="h",
        y=ys,
        base=[item[1] for item in items],
        x=[item[2] - item[1] for item in items],
        width=0.72,
        showlegend=False,
        name=f"{o.label} {kind}",
        meta={"option": o.option, "kind": kind},
        marker={
            "color": option_color(o.option),
            "opacity": 1.0 if kind == "training" else 0.45,
            "line": {"width": 1.5, "color": t["bg"]},
        },
        text=[item[0] for item in items],
        textposition="inside",
        insidetextanchor="middle",
        insidetextfont={"size": 11} if kind == "training" else {"size": 11, "color": t["fg"]},
        customdata=[
            f"{o.label}: {text}, {on_day(start)} to {on_day(end)}" + (f"<br>{note}" if note else "")
            for text, start, end, note in items
        ],
        hovertemplate=HOVER,
    )


def _first_result_star(o: OptionResult, y: float, t: dict) -> go.Scatter:
    """The star on the day an option's first run finishes, the day written right of it."""
    return go.Scatter(
        x=[o.first_result_day],
        y=[y],
        mode="markers+text",
        showlegend=False,
        name=f"{o.label} first result",
        meta={"option": o.option, "kind": "first_result"},
        marker={
            "symbol": "star",
            "size": 15,
            "color": option_color(o.option),
            "line": {"color": t["fg"], "width": 1},
        },
        text=[on_day(o.first_result_day)],
        textposition="middle right",
        customdata=[f"{o.label}: first run finishes on {on_day(o.first_result_day)}"],
        hovertemplate=HOVER,
    )


def _gantt_layout(
    fig: go.Figure,
    c: Comparison,
    y: float,
    tickvals: list[float],
    ticktext: list[str],
    first_run: bool,
) -> go.Figure:
    """The Gantt's height for its rows (down to `y`), the options' names on the y axis and a day
    axis with room for the last star's label."""
    fig.update_layout(
        barmode="overlay",
        uniformtext={"minsize": 9, "mode": "hide"},
        height=max(HEIGHT_PX, int(40 * -y + 140)),
    )
    # autorange leaves no room for the text right of the last star ("day 203" read "day 20")
    last = max((e for o in c.options for e in _gantt_ends(o, first_run)), default=1.0)
    fig.update_xaxes(
        title_text="Days from the decision to go ahead", range=[0, last * (1 + GANTT_LABEL_ROOM)]
    )
    fig.update_yaxes(
        tickvals=tickvals, ticktext=ticktext, range=[y + 0.3, 0.7], showgrid=False, zeroline=False
    )
    return fig

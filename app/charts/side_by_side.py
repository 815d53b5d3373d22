"""The Side by side page's chart (and its PDF's): cumulative cost of 2-3 scenarios on one chart."""

from __future__ import annotations

import plotly.graph_objects as go

from app.charts.common import (
    HEIGHT_PX,
    HOVER,
    cumulative_axes,
    empty,
    figure,
    fmt_usd,
    option_color,
    user_text,
)

#: line dash of each scenario of a side-by-side comparison, in order (the option keeps its colour)
SCENARIO_DASHES = ("solid", "dash", "dot")


def side_by_side_cost(sbs, dark: bool = False) -> go.Figure:
    """Cumulative nominal cost of each available option of 2-3 named scenarios on one chart
    (pricing/side_by_side.py SideBySide): an option's colour as everywhere, one dash per scenario."""
    fig = figure(
        "Cumulative cost, scenarios side by side",
        "Nominal USD at the end of each month; colour: option; line style: scenario ("
        + ", ".join(
            f"{user_text(s.name)} {dash}"
            for s, dash in zip(sbs.scenarios, SCENARIO_DASHES, strict=False)
        )
        + ").",
        dark,
    )
    lines = [
        (s, dash, o)
        for s, dash in zip(sbs.scenarios, SCENARIO_DASHES, strict=False)
        for o in s.options
        if o.available
    ]
    if not lines:
        return empty(fig, "No option is available in these scenarios")
    for s, dash, o in lines:
        cum = o.cumulative_usd
        name = f"{user_text(s.name)} · {o.label}"
        fig.add_trace(
            go.Scatter(
                x=list(range(1, len(cum) + 1)),
                y=cum,
                mode="lines",
                name=name if o.completes_workload else f"{name} (incomplete)",
                line={"color": option_color(o.option), "width": 2.2, "dash": dash},
                meta={"scenario": s.name, "option": o.option, "kind": "cumulative"},
                customdata=[f"{name}: {fmt_usd(v)}" for v in cum],
                hovertemplate=HOVER,
            )
        )
    term = max(len(o.cumulative_usd) for _, _, o in lines)
    # up to 15 lines: the legend goes right of the plot, where it cannot cover the subtitle
    fig.update_layout(
        hovermode="x unified",
        height=HEIGHT_PX + 60,
        legend={"orientation": "v", "x": 1.02, "xanchor": "left", "y": 1, "yanchor": "top"},
    )
    return cumulative_axes(fig, term, [v for _, _, o in lines for v in o.cumulative_usd])

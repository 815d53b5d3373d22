"""The Compare page's cost charts (TCO): the cumulative cost of each option over the term, with
its breakeven months, and the cost breakdown by category with the net total."""

from __future__ import annotations

from collections.abc import Mapping

import plotly.graph_objects as go

from app.charts.common import (
    CATEGORY_COLORS,
    HEIGHT_PX,
    HOVER,
    THEMES,
    as_comparison,
    available_options,
    category_color,
    cumulative_axes,
    empty,
    figure,
    fmt_usd,
    option_color,
    text_color,
    usd_axis,
)
from pricing.results import Comparison


def cumulative_cost(c: Comparison | Mapping, dark: bool = False) -> go.Figure:
    """Cumulative nominal cost of each available option by month, breakeven months marked."""
    c = as_comparison(c)
    fig = figure(
        "Cumulative cost over the term",
        "Nominal USD at the end of each month; "
        "\u25c6 marks the month from which an option stays cheaper than another (named in the legend).",
        dark,
    )
    options = available_options(c)
    if not options:
        return empty(fig, "No option is available for this scenario")
    by_id = {o.option: o for o in options}
    for o in options:
        color, cum = option_color(o.option), o.cumulative_usd
        fig.add_trace(
            go.Scatter(
                x=list(range(1, len(cum) + 1)),
                y=cum,
                mode="lines",
                legendgroup=o.option,
                name=o.label if o.completes_workload else f"{o.label} (incomplete)",
                line={"color": color, "width": 2.5},
                meta={"option": o.option, "kind": "cumulative"},
                customdata=[f"{o.label}: {fmt_usd(v)}" for v in cum],
                hovertemplate=HOVER,
            )
        )
        hits: dict[int, list[str]] = {}
        pairs: dict[int, list[str]] = {}
        for other, month in o.breakeven_month.items():
            if month is not None and 1 < month <= len(cum) and other in by_id:
                hits.setdefault(month, []).append(
                    f"{o.label} breaks even with {by_id[other].label} in month {month}"
                )
                pairs.setdefault(month, []).append(by_id[other].label)
        # one legend entry per marker, naming the pair: labels on the plot ran into each other
        for m in sorted(hits):
            fig.add_trace(
                go.Scatter(
                    x=[m],
                    y=[cum[m - 1]],
                    mode="markers",
                    legendgroup=o.option,
                    name=f"month {m}: {o.label} < {', '.join(pairs[m])}",
                    meta={"option": o.option, "kind": "breakeven", "pair": pairs[m]},
                    marker={
                        "symbol": "diamond",
                        "size": 12,
                        "color": color,
                        "line": {"color": THEMES[dark]["bg"], "width": 1.5},
                    },
                    customdata=["<br>".join(hits[m])],
                    hovertemplate=HOVER,
                )
            )
    term = max(len(o.cumulative_usd) for o in options)
    # the options and their breakevens wrap to several rows: below the plot, clear of the subtitle
    rows = 1 + len(fig.data) // 2  # legend rows at about two entries a row (a PDF column)
    fig.update_layout(
        hovermode="x unified",
        height=HEIGHT_PX + 22 * rows,
        margin={"b": 90 + 22 * rows},
        legend={"yref": "container", "y": 0, "yanchor": "bottom", "x": 0, "xanchor": "left"},
    )
    return cumulative_axes(fig, term, [v for o in options for v in o.cumulative_usd])


def cost_breakdown(c: Comparison | Mapping, dark: bool = False) -> go.Figure:
    """Cost categories stacked per available option, residual value below zero, net total marked."""
    c = as_comparison(c)
    fig = figure(
        "Cost breakdown over the term",
        "Nominal USD by category; resale value at the end "
        "of the term is shown below zero and \u25c6 marks the net total.",
        dark,
    )
    options = available_options(c)
    if not options:
        return empty(fig, "No option is available for this scenario")
    labels = [o.label for o in options]
    seen = {k for o in options for k, v in o.breakdown_usd.items() if v != 0}
    for cat in [k for k in CATEGORY_COLORS if k in seen] + sorted(seen - set(CATEGORY_COLORS)):
        ys = [o.breakdown_usd.get(cat, 0.0) for o in options]
        fig.add_trace(
            go.Bar(
                x=labels,
                y=ys,
                name=cat[:1].upper() + cat[1:],
                meta={"category": cat, "kind": "category"},
                marker={
                    "color": category_color(cat),
                    "line": {"width": 0},
                    "pattern": {"shape": "/" if cat == "residual value" else ""},
                },
                customdata=[
                    f"{o.label}, {cat}: {fmt_usd(v)}" for o, v in zip(options, ys, strict=True)
                ],
                hovertemplate=HOVER,
            )
        )
    fig.add_trace(
        go.Scatter(
            x=labels,
            y=[o.total_usd for o in options],
            mode="markers",
            name="Net total",
            marker={
                "symbol": "diamond",
                "size": 13,
                "color": [option_color(o.option) for o in options],
                "line": {"color": THEMES[dark]["fg"], "width": 1.5},
            },
            meta={"kind": "total", "options": [o.option for o in options]},
            customdata=[f"{o.label}, net total: {fmt_usd(o.total_usd)}" for o in options],
            hovertemplate=HOVER,
        )
    )
    tops = [sum(v for v in o.breakdown_usd.values() if v > 0) for o in options]
    for o, top in zip(options, tops, strict=True):
        fig.add_annotation(
            x=o.label,
            y=max(top, o.total_usd),
            text=f"<b>{fmt_usd(o.total_usd)}</b>",
            showarrow=False,
            yshift=12,
            font={"color": text_color(o.option, dark)},
            name="total",
        )
    lows = [sum(v for v in o.breakdown_usd.values() if v < 0) for o in options]
    fig.update_layout(
        barmode="relative",
        bargap=0.35,
        height=460,
        margin={"b": 120},
        legend={"y": -0.2, "yanchor": "top", "x": 0.5, "xanchor": "center"},
    )
    fig.update_xaxes(title_text="Option", showgrid=False)
    fig.update_yaxes(
        title_text="Cost over the term (USD)", **usd_axis(lows + [0.0, 1.1 * max(tops)])
    )
    return fig

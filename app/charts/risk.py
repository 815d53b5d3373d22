"""How sure the recommendation is (the Compare page and the PDF): the tornado of the NPV gap
between the two cheapest options as each key input moves, and the uncertainty of each option's
NPV over random draws."""

from __future__ import annotations

from collections.abc import Mapping

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from app.charts.common import (
    HEIGHT_PX,
    HOVER,
    THEMES,
    USD_AXIS,
    as_comparison,
    empty,
    figure,
    fmt_usd,
    option_color,
    plain,
    usd_axis,
    vline,
)
from app.formatting import swing_ends
from models.numbers import pct
from pricing.results import Comparison, OptionResult, OptionUncertainty


def tornado(c: Comparison | Mapping, dark: bool = False) -> go.Figure:
    """The NPV gap between the two cheapest options with each key input moved down and up; the
    part of a bar past zero (where the runner-up becomes cheapest) takes the runner-up's colour."""
    c = as_comparison(c)
    s = c.sensitivity
    if s is None or not s.bars:
        fig = figure(
            "Sensitivity of the recommendation",
            "Needs decision support and two available options.",
            dark,
        )
        return empty(fig, "No sensitivity analysis for this comparison")
    labels = {o.option: o.label for o in c.options}
    bars, a, b = s.bars, s.cheapest, s.runner_up
    la, lb = labels.get(a, a), labels.get(b, b)
    base, swing = s.base_gap_usd, pct(s.swing)
    fig = figure(
        "Sensitivity of the recommendation",
        f"NPV gap between {lb} and {la} with each input "
        f"{swing} lower (\u25cb) or higher (\u25cf), or at its range's ends where it has one; "
        f"past zero, {lb} becomes the cheaper.",
        dark,
    )
    names = [plain(bar.label) for bar in bars]
    ends = [(bar.gap_low_usd, bar.gap_high_usd) for bar in bars]
    lo = [min(base if v is None else v for v in e) for e in ends]
    hi = [max(base if v is None else v for v in e) for e in ends]
    hover = []
    for n, bar, e in zip(names, bars, ends, strict=True):
        low, high = (plain(x) for x in swing_ends(bar, s.swing))
        hover.append(
            f"{n} (now {bar.base_value:,.4g} {plain(bar.unit)})<br>gap at {low}: "
            f"{fmt_usd(e[0], False)}, at {high}: {fmt_usd(e[1], False)} USD"
        )
    _tornado_bars(fig, (a, la), (b, lb), names, lo, hi, hover)
    _tornado_ends(fig, names, ends, swing, THEMES[dark])
    _gap_today(fig, base, THEMES[dark])
    # five legend entries wrap at a portal or PDF width: below the plot, clear of the subtitle
    fig.update_layout(
        barmode="overlay",
        bargap=0.35,
        height=max(HEIGHT_PX, 150 + 34 * len(bars)) + 60,
        margin={"b": 130},
        legend={"y": -0.16, "yanchor": "top", "x": 0, "xanchor": "left"},
    )
    fig.update_xaxes(
        title_text=f"NPV of {lb} minus NPV of {la} (USD)", **usd_axis(lo + hi + [0.0, base])
    )
    fig.update_yaxes(categoryorder="array", categoryarray=names[::-1], showgrid=False)
    return fig


def _tornado_bars(
    fig: go.Figure,
    cheapest: tuple[str, str],
    runner_up: tuple[str, str],
    names: list[str],
    lo: list[float],
    hi: list[float],
    hover: list[str],
) -> None:
    """Each input's bar from its low to its high gap: the part above zero in the cheapest option's
    colour, the part below (the runner-up becomes the cheaper) in the runner-up's."""
    (a, la), (b, lb) = cheapest, runner_up
    wins = [(max(x, 0.0), max(h, 0.0) - max(x, 0.0)) for x, h in zip(lo, hi, strict=True)]
    flips = [(x, min(h, 0.0) - x) if x < 0 else (0.0, 0.0) for x, h in zip(lo, hi, strict=True)]
    for opt, name, segs in ((a, f"{la} stays cheaper", wins), (b, f"{lb} becomes cheaper", flips)):
        fig.add_trace(
            go.Bar(
                orientation="h",
                y=names,
                base=[g[0] for g in segs],
                x=[g[1] for g in segs],
                name=name,
                marker={"color": option_color(opt), "line": {"width": 0}},
                meta={"option": opt, "kind": "tornado"},
                customdata=hover,
                hovertemplate=HOVER,
            )
        )


def _tornado_ends(fig: go.Figure, names: list[str], ends: list[tuple], swing: str, t: dict) -> None:
    """The gap with each input lower (open circles) and higher (filled), where it is known; the
    subtitle and each bar's hover say by how much (`swing_ends`)."""
    for i, (symbol, name) in enumerate(
        (
            ("circle-open", f"input lower (\u2212{swing} or its range's low end)"),
            ("circle", f"input higher (+{swing} or its range's high end)"),
        )
    ):
        pts = [(e[i], n) for e, n in zip(ends, names, strict=True) if e[i] is not None]
        fig.add_trace(
            go.Scatter(
                x=[p[0] for p in pts],
                y=[p[1] for p in pts],
                mode="markers",
                name=name,
                marker={
                    "symbol": symbol,
                    "size": 9,
                    "color": t["fg"],
                    "line": {"width": 2, "color": t["fg"]},
                },
                meta={"kind": "ends"},
                hoverinfo="skip",
            )
        )


def _gap_today(fig: go.Figure, base: float, t: dict) -> None:
    """Today's gap as a dashed vertical line, named in the legend by a line-only trace."""
    today = {"color": t["muted"], "dash": "dash", "width": 1.5}
    vline(fig, base, today)
    fig.add_trace(
        go.Scatter(
            x=[None],
            y=[None],
            mode="lines",
            line=today,
            name=f"gap today: {fmt_usd(base)}",
            meta={"kind": "today"},
            hoverinfo="skip",
        )
    )


def uncertainty(c: Comparison | Mapping, dark: bool = False) -> go.Figure:
    """Per option the P10-P90 range of NPV with the median, and how often it is the cheapest."""
    c = as_comparison(c)
    u = c.uncertainty
    stats = u.options if u is not None else {}
    rows = [
        (o, st)
        for o in c.options
        if (st := stats.get(o.option)) is not None
        and None not in (st.p10_usd, st.p50_usd, st.p90_usd)
    ]
    fig = figure(
        "Uncertainty of the cost",
        f"NPV over the term across {u.draws if u is not None else 0:,} random draws "
        "of the uncertain inputs: bar P10 to P90, \u25c6 median; right, how often each option "
        "is the cheapest.",
        dark,
        make_subplots(
            rows=1, cols=2, shared_yaxes=True, column_widths=[0.72, 0.28], horizontal_spacing=0.04
        ),
    )
    if not rows:
        return empty(fig, "No uncertainty analysis for this comparison")
    for o, st in rows:
        _uncertainty_row(fig, o, st, THEMES[dark])
    fig.update_layout(barmode="overlay", height=max(HEIGHT_PX, 150 + 44 * len(rows)))
    fig.update_xaxes(title_text="NPV over the term (USD)", row=1, col=1, **USD_AXIS)
    fig.update_xaxes(
        title_text="Cheapest in (% of draws)", range=[0, 115], ticksuffix=" %", row=1, col=2
    )
    fig.update_yaxes(
        categoryorder="array", categoryarray=[o.label for o, _ in rows][::-1], showgrid=False
    )
    return fig


def _uncertainty_row(fig: go.Figure, o: OptionResult, st: OptionUncertainty, t: dict) -> None:
    """An option's row: its P10-P90 bar and median diamond (left), and how often it is the
    cheapest (right)."""
    color, p10, p50, p90 = option_color(o.option), st.p10_usd, st.p50_usd, st.p90_usd
    text = (
        f"{o.label}: P10 {fmt_usd(p10, False)}, median {fmt_usd(p50, False)}, P90 {fmt_usd(p90, False)} USD"
        f"<br>completes the workload in {pct(st.probability_completes)} of draws"
    )
    meta = {"option": o.option}
    fig.add_trace(
        go.Bar(
            orientation="h",
            y=[o.label],
            base=[p10],
            x=[p90 - p10],
            width=0.5,
            name=o.label,
            marker={"color": color, "opacity": 0.45, "line": {"width": 0}},
            showlegend=False,
            meta=meta | {"kind": "range"},
            customdata=[text],
            hovertemplate=HOVER,
        ),
        row=1,
        col=1,
    )
    fig.add_trace(
        go.Scatter(
            x=[p50],
            y=[o.label],
            mode="markers",
            name=f"{o.label} median",
            showlegend=False,
            marker={
                "symbol": "diamond",
                "size": 13,
                "color": color,
                "line": {"color": t["fg"], "width": 1.5},
            },
            meta=meta | {"kind": "p50"},
            customdata=[text],
            hovertemplate=HOVER,
        ),
        row=1,
        col=1,
    )
    prob = 100 * st.probability_cheapest
    fig.add_trace(
        go.Bar(
            orientation="h",
            y=[o.label],
            x=[prob],
            width=0.5,
            name=f"{o.label} cheapest",
            marker={"color": color, "line": {"width": 0}},
            showlegend=False,
            text=[pct(st.probability_cheapest)],
            textposition="outside",
            cliponaxis=False,
            meta=meta | {"kind": "probability"},
            hovertemplate=HOVER,
            customdata=[f"{o.label} is the cheapest in {pct(st.probability_cheapest)} of draws"],
        ),
        row=1,
        col=2,
    )

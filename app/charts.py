"""Plotly figures for a comparison, shared by the portal (screen) and the PDF report.

One template (`clusterplan`, and `clusterplan_dark` for the dark theme) and one fixed colour per
option, so an option looks the same in every chart and what the buyer saw is what gets printed.
Every figure function takes a `Comparison` (or the dict `model_dump(mode="json")` makes of one)
and `dark`, and returns a `go.Figure` with `template=` set explicitly; the portal should draw it
with `st.plotly_chart(fig, theme=None)` so that Streamlit does not restyle it.

No string in a figure holds two dollar signs: plotly.js typesets text between two "$" as LaTeX
whenever MathJax is loaded (as in PDF export), so text with several amounts reads
"23.9M to 41.3M USD" and only a single amount reads "$23.9M".

A name the user typed (a team, a workload, a saved scenario) reaches a figure only through
`user_text`, which escapes what plotly.js would read as markup (its subset of HTML: links, styled
spans) or as LaTeX: the name is printed as typed, never interpreted.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping

import plotly.graph_objects as go
import plotly.io as pio
from plotly.subplots import make_subplots

from app.formatting import capacity_size
from models.numbers import days, on_day, pct
from models.options import OPTIONS
from models.validation.training import UNITS
from pricing.results import Comparison, OptionResult

TEMPLATE_NAME = "clusterplan"
DARK_TEMPLATE_NAME = "clusterplan_dark"
HEIGHT_PX = 420
FONT = "Inter, 'Helvetica Neue', Helvetica, Arial, sans-serif"

#: option id -> colour, from the option registry (Okabe-Ito, colour-blind safe; models/options.py)
OPTION_COLORS: dict[str, str] = {s.id: s.colour for s in OPTIONS}

#: cost categories of `breakdown_usd` (Paul Tol's muted and light palettes), in stacking order
CATEGORY_COLORS: dict[str, str] = {
    "hardware": "#332288",
    "lease": "#77AADD",
    "financing": "#88CCEE",
    "rent": "#117733",
    "managed service": "#AA4499",
    "compute": "#4477AA",
    "setup": "#EE8866",
    "facility upkeep": "#999933",
    "power": "#DDCC77",
    "colocation": "#44AA99",
    "staff": "#CC6677",
    "support and licences": "#882255",
    "support": "#EEDD88",
    "parts": "#BBCC33",
    "storage": "#99DDFF",
    "egress": "#FFAABB",
    "residual value": "#AAAAAA",
}
_SPARE_COLORS = ("#44BB99", "#AAAA00", "#EE7733", "#0077BB", "#EE3377", "#BBBBBB")

_THEMES = {
    False: {
        "fg": "#262730",
        "muted": "#6B7280",
        "grid": "#E5E7EB",
        "line": "#9CA3AF",
        "bg": "#FFFFFF",
        "hover": "#FFFFFF",
    },
    True: {
        "fg": "#FAFAFA",
        "muted": "#A3A8B8",
        "grid": "#31333F",
        "line": "#5C6070",
        "bg": "#0E1117",
        "hover": "#262730",
    },
}
#: USD axes: ticks like $1.2M, $350k, $1.5B
USD_AXIS = {"tickprefix": "$", "exponentformat": "B", "separatethousands": True}
_HOVER = "%{customdata}<extra></extra>"


def option_color(option_id: str) -> str:
    """The fixed colour of an option (a neutral grey for an id this module does not know)."""
    return OPTION_COLORS.get(option_id, "#7F7F7F")


#: the least contrast (WCAG 2 ratio) a text in an option's colour needs against the background;
#: below it (the pale yellow on white, black on the dark theme) the text takes the theme's ink
MIN_TEXT_CONTRAST = 3.0


def _luminance(color: str) -> float:
    """WCAG 2 relative luminance of a '#RRGGBB' colour."""
    rgb = [int(color[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def contrast(a: str, b: str) -> float:
    """WCAG 2 contrast ratio of two '#RRGGBB' colours (1 to 21)."""
    la, lb = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def text_color(option_id: str, dark: bool = False) -> str:
    """The option's colour for text when it is readable on the theme's background, else the ink."""
    color, t = option_color(option_id), _THEMES[dark]
    return color if contrast(color, t["bg"]) >= MIN_TEXT_CONTRAST else t["fg"]


def category_color(category: str) -> str:
    """The fixed colour of a cost category; an unknown category gets a stable spare colour."""
    if category in CATEGORY_COLORS:
        return CATEGORY_COLORS[category]
    return _SPARE_COLORS[sum(map(ord, category)) % len(_SPARE_COLORS)]


def template_name(dark: bool = False) -> str:
    return DARK_TEMPLATE_NAME if dark else TEMPLATE_NAME


def _make_template(dark: bool) -> go.layout.Template:
    t = _THEMES[dark]
    axis = {
        "showgrid": True,
        "gridcolor": t["grid"],
        "zeroline": True,
        "zerolinecolor": t["line"],
        "showline": True,
        "linecolor": t["line"],
        "ticks": "outside",
        "tickcolor": t["line"],
        "automargin": True,
        "title": {"standoff": 10, "font": {"size": 13}},
    }
    return go.layout.Template(
        layout=go.Layout(
            font={"family": FONT, "size": 13, "color": t["fg"]},
            separators=".,",
            title={
                "x": 0,
                "xref": "paper",
                "xanchor": "left",
                "font": {"size": 17},
                "subtitle": {"font": {"size": 12, "color": t["muted"]}},
            },
            margin={"l": 72, "r": 32, "t": 112, "b": 56},
            height=HEIGHT_PX,
            paper_bgcolor=t["bg"],
            plot_bgcolor=t["bg"],
            colorway=list(OPTION_COLORS.values()),
            xaxis=axis,
            yaxis=axis,
            hovermode="closest",
            legend={
                "orientation": "h",
                "x": 0,
                "xanchor": "left",
                "y": 1.02,
                "yanchor": "bottom",
                "bgcolor": "rgba(0,0,0,0)",
                "font": {"size": 12},
            },
            hoverlabel={
                "bgcolor": t["hover"],
                "bordercolor": t["line"],
                "align": "left",
                "font": {"family": FONT, "size": 12, "color": t["fg"]},
            },
        )
    )


pio.templates[TEMPLATE_NAME] = _make_template(False)
pio.templates[DARK_TEMPLATE_NAME] = _make_template(True)


def fmt_usd(x: float | None, sign: bool = True) -> str:
    """$1.2M, $65.5M, $350k, $1.25B ('n/a' for none); sign=False leaves out the dollar sign."""
    if x is None or not math.isfinite(x):
        return "n/a"
    v = abs(x)
    div, unit = next(((d, u) for d, u in ((1e9, "B"), (1e6, "M"), (1e3, "k")) if v >= d), (1.0, ""))
    q = v / div
    digits = 0 if q >= 100 or div == 1.0 else 2 if div == 1e9 and q < 10 else 1
    return ("\u2212" if x < 0 else "") + ("$" if sign else "") + f"{q:,.{digits}f}{unit}"


def _plain(text: str) -> str:
    """Text from the data, with any dollar sign spelled out (see the module docstring)."""
    return str(text).replace("$", "USD ")


#: what plotly.js reads in a label, and the entity it prints as the character instead
_USER_ESCAPES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", "$": "&#36;"})


def user_text(text: object) -> str:
    """A string the user typed (a team, a workload's or a scenario's name), safe in any plotly
    label, legend, axis, hover text, title or annotation: `<` and `>` (plotly.js renders `<a
    href>`, `<span style>`, `<b>`, ...), `&` (an entity) and `$` (two of them start LaTeX when
    MathJax is loaded) become HTML entities, which plotly.js prints as the characters themselves,
    so the name reads as typed. Every chart builder passes user strings through it; text of the
    app's own (option labels, amounts like "$1.2M") does not need it."""
    return str(text).translate(_USER_ESCAPES)


def _usd_axis(values: list[float]) -> dict:
    """USD axis settings; with negative values, explicit ticks (plotly would write "$-5M")."""
    lo, hi = min(values), max(values)
    if lo >= 0 or hi <= lo:
        return USD_AXIS
    raw = (hi - lo) / 6
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    ticks = [k * step for k in range(math.floor(lo / step), math.ceil(hi / step) + 1)]
    return {
        "tickvals": ticks,
        "ticktext": [re.sub(r"\.0+(?=[kMB]?$)", "", fmt_usd(v)) for v in ticks],
    }


def _as_comparison(c: Comparison | Mapping) -> Comparison:
    if isinstance(c, Comparison):
        return c
    if isinstance(c, Mapping):
        return Comparison.model_validate(dict(c))
    raise TypeError(f"expected a Comparison or its dict, got {type(c).__name__}")


def _figure(title: str, subtitle: str, dark: bool, fig: go.Figure | None = None) -> go.Figure:
    fig = fig if fig is not None else go.Figure()
    fig.update_layout(
        template=template_name(dark),
        height=HEIGHT_PX,
        title={"text": title, "subtitle": {"text": subtitle}},
    )
    return fig


def _empty(fig: go.Figure, text: str) -> go.Figure:
    """The empty state: the message in the middle, no axes."""
    fig.add_annotation(
        text=text,
        x=0.5,
        y=0.5,
        xref="paper",
        yref="paper",
        showarrow=False,
        font={"size": 14},
        name="empty",
    )
    fig.update_xaxes(visible=False)
    fig.update_yaxes(visible=False)
    return fig


def _available(c: Comparison) -> list[OptionResult]:
    return [o for o in c.options if o.available]


def cumulative_cost(c: Comparison | Mapping, dark: bool = False) -> go.Figure:
    """Cumulative nominal cost of each available option by month, breakeven months marked."""
    c = _as_comparison(c)
    fig = _figure(
        "Cumulative cost over the term",
        "Nominal USD at the end of each month; "
        "\u25c6 marks the month from which an option stays cheaper than another (named in the legend).",
        dark,
    )
    options = _available(c)
    if not options:
        return _empty(fig, "No option is available for this scenario")
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
                hovertemplate=_HOVER,
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
                        "line": {"color": _THEMES[dark]["bg"], "width": 1.5},
                    },
                    customdata=["<br>".join(hits[m])],
                    hovertemplate=_HOVER,
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
    return _cumulative_axes(fig, term, [v for o in options for v in o.cumulative_usd])


def _cumulative_axes(fig: go.Figure, term: int, values: list[float]) -> go.Figure:
    """Month-of-term and cumulative-USD axes of a cumulative cost chart over `term` months."""
    fig.update_xaxes(
        title_text="Month of the term",
        range=[0.5, term + 0.5],
        dtick=6 if term > 24 else 3 if term > 12 else 1,
    )
    fig.update_yaxes(title_text="Cumulative cost (USD)", **_usd_axis(values))
    return fig


def cost_breakdown(c: Comparison | Mapping, dark: bool = False) -> go.Figure:
    """Cost categories stacked per available option, residual value below zero, net total marked."""
    c = _as_comparison(c)
    fig = _figure(
        "Cost breakdown over the term",
        "Nominal USD by category; resale value at the end "
        "of the term is shown below zero and \u25c6 marks the net total.",
        dark,
    )
    options = _available(c)
    if not options:
        return _empty(fig, "No option is available for this scenario")
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
                hovertemplate=_HOVER,
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
                "line": {"color": _THEMES[dark]["fg"], "width": 1.5},
            },
            meta={"kind": "total", "options": [o.option for o in options]},
            customdata=[f"{o.label}, net total: {fmt_usd(o.total_usd)}" for o in options],
            hovertemplate=_HOVER,
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
        title_text="Cost over the term (USD)", **_usd_axis(lows + [0.0, 1.1 * max(tops)])
    )
    return fig


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


def _gantt_ends(o: OptionResult, first_run: bool = True) -> list[float]:
    """The days a Gantt row reaches: its phases' ends and, when the run is drawn, its first result."""
    ends = [float(p.end_day) for p in o.timeline]
    if first_run and o.available and o.first_result_day is not None:
        ends.append(float(o.first_result_day))
    return ends


def provisioning_gantt(
    c: Comparison | Mapping, dark: bool = False, *, first_run: bool = True
) -> go.Figure:
    """Provisioning phases, then one training run, per option in days; phases that run in
    parallel (a build's facility) get a lane of their own. Without `first_run` (a portfolio, whose
    work is many workloads, not one run), the phases only."""
    c = _as_comparison(c)
    t = _THEMES[dark]
    fig = _figure(
        "Time to first result" if first_run else "Time to capacity",
        "Provisioning phases (pale), then one training run (solid); "
        "\u2605 marks the day the first run finishes."
        if first_run
        else "Provisioning phases of each option; its capacity serves the demand from the end of "
        "the last one.",
        dark,
    )
    if not c.options:
        return _empty(fig, "No option to show")
    y, tickvals, ticktext = 0.0, [], []
    for o in c.options:
        color = option_color(o.option)
        items = [
            (_plain(p.phase), float(p.start_day), float(p.end_day), _plain(p.note))
            for p in o.timeline
        ]
        done = first_run and o.available and o.first_result_day is not None
        if done:
            items.append(
                (
                    "training",
                    o.ready_day,
                    o.first_result_day,
                    f"one run: {days(o.train_days)}",
                )
            )
        lanes = _lanes([(s, e) for _, s, e, _ in items])
        ys = [y - lane for lane in lanes]
        n_lanes = max(lanes, default=0) + 1
        tickvals.append(y - (n_lanes - 1) / 2)
        ticktext.append(o.label if o.available else f"{o.label} (unavailable)")
        for kind, idx in (
            ("phase", range(len(o.timeline))),
            ("training", range(len(o.timeline), len(items))),
        ):
            if not idx:
                continue
            fig.add_trace(
                go.Bar(
                    orientation="h",
                    y=[ys[i] for i in idx],
                    base=[items[i][1] for i in idx],
                    x=[items[i][2] - items[i][1] for i in idx],
                    width=0.72,
                    showlegend=False,
                    name=f"{o.label} {kind}",
                    meta={"option": o.option, "kind": kind},
                    marker={
                        "color": color,
                        "opacity": 1.0 if kind == "training" else 0.45,
                        "line": {"width": 1.5, "color": t["bg"]},
                    },
                    text=[items[i][0] for i in idx],
                    textposition="inside",
                    insidetextanchor="middle",
                    insidetextfont={"size": 11}
                    if kind == "training"
                    else {"size": 11, "color": t["fg"]},
                    customdata=[
                        f"{o.label}: {items[i][0]}, {on_day(items[i][1])} to {on_day(items[i][2])}"
                        + (f"<br>{items[i][3]}" if items[i][3] else "")
                        for i in idx
                    ],
                    hovertemplate=_HOVER,
                )
            )
        if done:
            fig.add_trace(
                go.Scatter(
                    x=[o.first_result_day],
                    y=[ys[-1]],
                    mode="markers+text",
                    showlegend=False,
                    name=f"{o.label} first result",
                    meta={"option": o.option, "kind": "first_result"},
                    marker={
                        "symbol": "star",
                        "size": 15,
                        "color": color,
                        "line": {"color": t["fg"], "width": 1},
                    },
                    text=[on_day(o.first_result_day)],
                    textposition="middle right",
                    customdata=[f"{o.label}: first run finishes on {on_day(o.first_result_day)}"],
                    hovertemplate=_HOVER,
                )
            )
        elif o.available or o.note:
            fig.add_annotation(
                x=o.ready_day if o.available else 0,
                y=y,
                showarrow=False,
                xanchor="left",
                text=_plain(o.note) if not o.available else "no run finishes within the term",
                xshift=6,
                font={"color": t["muted"], "size": 11},
                name="note",
            )
        y -= n_lanes + 0.4
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


def scaling_curve(c: Comparison | Mapping, dark: bool = False) -> go.Figure:
    """Days for one run (and ideal days, dashed) against GPU count on a log axis, the chosen count
    and the deadline marked, scaling efficiency on the right axis."""
    c = _as_comparison(c)
    t = _THEMES[dark]
    fig = _figure(
        "Training time against cluster size",
        "Wall-clock days for one run (solid), ideal "
        "days without failures or restarts (dashed); scaling efficiency on the right axis.",
        dark,
        make_subplots(specs=[[{"secondary_y": True}]]),
    )
    curve = sorted((p for p in c.training.curve if p.gpus and p.train_days), key=lambda p: p.gpus)
    if not curve:
        return _empty(fig, "no scaling curve for this scenario")
    gpus = [p.gpus for p in curve]
    hover = [
        f"{p.gpus:,} GPUs: {days(p.train_days)} for one run (ideal {days(p.ideal_days)})"
        f"<br>scaling efficiency {pct(p.scaling_efficiency)}, MFU {pct(p.mfu)}, "
        f"{p.gpu_hours / 1e3:,.0f}k GPU-hours"
        for p in curve
    ]
    fig.add_trace(
        go.Scatter(
            x=gpus,
            y=[p.train_days for p in curve],
            mode="lines+markers",
            name="Days for one run",
            line={"color": t["fg"], "width": 2.5},
            meta={"kind": "train_days"},
            customdata=hover,
            hovertemplate=_HOVER,
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
                hovertemplate=_HOVER,
            )
        )
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


def tornado(c: Comparison | Mapping, dark: bool = False) -> go.Figure:
    """The NPV gap between the two cheapest options with each key input moved down and up; the
    part of a bar past zero (where the runner-up becomes cheapest) takes the runner-up's colour."""
    c = _as_comparison(c)
    s = c.sensitivity
    if s is None or not s.bars:
        fig = _figure(
            "Sensitivity of the recommendation",
            "Needs decision support and two available options.",
            dark,
        )
        return _empty(fig, "No sensitivity analysis for this comparison")
    labels = {o.option: o.label for o in c.options}
    bars, a, b = s.bars, s.cheapest, s.runner_up
    la, lb = labels.get(a, a), labels.get(b, b)
    base, swing = s.base_gap_usd, pct(s.swing)
    fig = _figure(
        "Sensitivity of the recommendation",
        f"NPV gap between {lb} and {la} with each input "
        f"{swing} lower (\u25cb) or higher (\u25cf); past zero, {lb} becomes the cheaper.",
        dark,
    )
    names = [_plain(bar.label) for bar in bars]
    ends = [(bar.gap_low_usd, bar.gap_high_usd) for bar in bars]
    lo = [min(base if v is None else v for v in e) for e in ends]
    hi = [max(base if v is None else v for v in e) for e in ends]
    hover = [
        f"{n} (now {bar.base_value:,.4g} {_plain(bar.unit)})<br>gap at \u2212{swing}: "
        f"{fmt_usd(e[0], False)}, at +{swing}: {fmt_usd(e[1], False)} USD"
        for n, bar, e in zip(names, bars, ends, strict=True)
    ]
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
                hovertemplate=_HOVER,
            )
        )
    for i, (symbol, name) in enumerate(
        (("circle-open", f"input \u2212{swing}"), ("circle", f"input +{swing}"))
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
                    "color": _THEMES[dark]["fg"],
                    "line": {"width": 2, "color": _THEMES[dark]["fg"]},
                },
                meta={"kind": "ends"},
                hoverinfo="skip",
            )
        )
    today = {"color": _THEMES[dark]["muted"], "dash": "dash", "width": 1.5}
    fig.add_vline(x=base, line=today)
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
    # five legend entries wrap at a portal or PDF width: below the plot, clear of the subtitle
    fig.update_layout(
        barmode="overlay",
        bargap=0.35,
        height=max(HEIGHT_PX, 150 + 34 * len(bars)) + 60,
        margin={"b": 130},
        legend={"y": -0.16, "yanchor": "top", "x": 0, "xanchor": "left"},
    )
    fig.update_xaxes(
        title_text=f"NPV of {lb} minus NPV of {la} (USD)", **_usd_axis(lo + hi + [0.0, base])
    )
    fig.update_yaxes(categoryorder="array", categoryarray=names[::-1], showgrid=False)
    return fig


def uncertainty(c: Comparison | Mapping, dark: bool = False) -> go.Figure:
    """Per option the P10-P90 range of NPV with the median, and how often it is the cheapest."""
    c = _as_comparison(c)
    u = c.uncertainty
    stats = u.options if u is not None else {}
    rows = [
        (o, st)
        for o in c.options
        if (st := stats.get(o.option)) is not None
        and None not in (st.p10_usd, st.p50_usd, st.p90_usd)
    ]
    fig = _figure(
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
        return _empty(fig, "No uncertainty analysis for this comparison")
    for o, st in rows:
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
                hovertemplate=_HOVER,
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
                    "line": {"color": _THEMES[dark]["fg"], "width": 1.5},
                },
                meta=meta | {"kind": "p50"},
                customdata=[text],
                hovertemplate=_HOVER,
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
                hovertemplate=_HOVER,
                customdata=[
                    f"{o.label} is the cheapest in {pct(st.probability_cheapest)} of draws"
                ],
            ),
            row=1,
            col=2,
        )
    fig.update_layout(barmode="overlay", height=max(HEIGHT_PX, 150 + 44 * len(rows)))
    fig.update_xaxes(title_text="NPV over the term (USD)", row=1, col=1, **USD_AXIS)
    fig.update_xaxes(
        title_text="Cheapest in (% of draws)", range=[0, 115], ticksuffix=" %", row=1, col=2
    )
    fig.update_yaxes(
        categoryorder="array", categoryarray=[o.label for o, _ in rows][::-1], showgrid=False
    )
    return fig


def all_figures(c: Comparison | Mapping, dark: bool = False) -> dict[str, go.Figure]:
    """Every chart of the comparison, keyed as the portal and the PDF report place them. A
    portfolio's work is many workloads, not one run: its Gantt draws provisioning only and it has
    no scaling curve of one run (the portal's portfolio page shows the same)."""
    c = _as_comparison(c)
    portfolio = c.portfolio is not None
    figures = {
        "cumulative": cumulative_cost(c, dark),
        "breakdown": cost_breakdown(c, dark),
        "gantt": provisioning_gantt(c, dark, first_run=not portfolio),
        "scaling": scaling_curve(c, dark),
        "tornado": tornado(c, dark),
        "uncertainty": uncertainty(c, dark),
    }
    if portfolio:
        del figures["scaling"]
    return figures


#: one colour per validation kind (Okabe-Ito, as the options)
KIND_COLORS = {"step_time": "#0072B2", "throughput": "#E69F00", "gpu_hours": "#009E73"}


def validation_scatter(rows: list[dict], dark: bool = False) -> go.Figure:
    """Predicted against published on log axes (units differ by kind: each point is in its row's own
    unit), with the y = x line, the ±8 % and ±10 % bands, one colour per kind, and open markers for
    the rows that are shown but not scored (models.validation.validate()["rows"])."""
    return _predicted_vs_published(
        rows,
        (0.10, 0.08),
        "Predicted against published",
        KIND_COLORS,
        lambda r: UNITS[r["unit"]],
        560,
        dark,
    )


_PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00")


def benchmark_scatter(
    rows: list[dict], bands: tuple[float, ...], title: str, dark: bool = False
) -> go.Figure:
    """Predicted against published on log axes for the inference and fine-tuning validation rows: the
    y = x line, the target bands (e.g. ±15 % and ±35 %), one colour per kind; each point in its row's
    own unit (`unit` in the row) and open markers for rows that are shown but not scored."""
    kinds = list(dict.fromkeys(r["kind"] for r in rows))
    colors = dict(zip(kinds, _PALETTE * (len(kinds) // len(_PALETTE) + 1), strict=False))
    return _predicted_vs_published(
        rows, bands, title, colors, lambda r: _plain(r["unit"]), 520, dark
    )


def _predicted_vs_published(
    rows: list[dict],
    bands: tuple[float, ...],
    title: str,
    colors: Mapping[str, str],
    unit_text,
    height: int,
    dark: bool,
) -> go.Figure:
    """The scatter both validation charts draw: bands (widest dotted), y = x, then one marker
    trace per kind and scored/not scored (open markers), each point's error in its hover."""
    fig = _figure(title, "each point in its row's own unit; log axes", dark)
    values = [v for r in rows for v in (r["predicted"], r["published"])]
    xs = [min(values) / 2, max(values) * 2]
    line = _THEMES[dark]["line"]
    for band, dash in zip(sorted(bands, reverse=True), ("dot", "dash", "dashdot"), strict=False):
        for sign in (1, -1):
            fig.add_trace(
                go.Scatter(
                    x=xs,
                    y=[x * (1 + sign * band) for x in xs],
                    mode="lines",
                    line={"color": line, "dash": dash, "width": 1},
                    name=f"±{band:.0%}",
                    showlegend=sign == 1,
                    hoverinfo="skip",
                )
            )
    fig.add_trace(
        go.Scatter(
            x=xs,
            y=xs,
            mode="lines",
            line={"color": _THEMES[dark]["fg"], "width": 1},
            name="y = x",
            hoverinfo="skip",
        )
    )
    for kind, color in colors.items():
        for scored in (True, False):
            sel = [r for r in rows if r["kind"] == kind and r.get("scored", True) == scored]
            if not sel:
                continue
            fig.add_trace(
                go.Scatter(
                    x=[r["published"] for r in sel],
                    y=[r["predicted"] for r in sel],
                    mode="markers",
                    marker={
                        "color": color,
                        "size": 9,
                        "opacity": 0.85,
                        "symbol": "circle" if scored else "circle-open",
                    },
                    name=kind.replace("_", " ") + ("" if scored else " (not scored)"),
                    customdata=[
                        f"{_plain(r['id'])}: {r['error']:+.1%} ({unit_text(r)})<br>published "
                        f"{r['published']:.4g}, predicted {r['predicted']:.4g}"
                        for r in sel
                    ],
                    hovertemplate=_HOVER,
                )
            )
    fig.update_xaxes(type="log", title="published")
    fig.update_yaxes(type="log", title="predicted")
    fig.update_layout(height=height)
    return fig


#: serving and fine-tuning charts: one colour per series (Okabe-Ito, as the options)
SERVE_COLORS = {"throughput": "#0072B2", "ttft": "#D55E00", "tpot": "#009E73"}


def serve_curve(
    sweep: Mapping, plan: Mapping, ttft_slo: float | None, tpot_slo: float | None, dark=False
) -> go.Figure:
    """Output tokens/s per GPU (top) and TTFT and TPOT (bottom, log scale) against the sequences in
    flight per replica for the plan's layout (models.serving.sweep), the objectives as dashed lines
    and the plan's own point ringed. Everything is a trace: on log axes plotly places annotations
    in log units, so labelled shapes would land elsewhere."""
    t = _THEMES[dark]
    layout = f"TP{plan['tp']}" + (f" EP{plan['ep']}" if plan["ep"] > 1 else "")
    if plan.get("prefill_decode") == "split":
        layout += ", prefill and decode split"
    fig = _figure(
        "Throughput and latency against concurrency",
        f"{_plain(plan['model'])} on {_plain(plan['gpu'])}, {layout}, {plan['precision'].upper()}: "
        "output tokens/s per GPU (top), latency (bottom); objectives dashed, this plan ringed",
        dark,
        make_subplots(rows=2, cols=1, shared_xaxes=True, vertical_spacing=0.08),
    )
    b = list(sweep["batch"])
    if not b:
        return _empty(fig, "no batch fits this layout")
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
                hovertemplate=_HOVER,
            ),
            row=row,
            col=1,
        )
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
                    "line": {"color": t["fg"], "width": 2.5},
                },
                meta={"kind": "chosen"},
                customdata=[f"this plan, {plan['batch']:,} in flight: {y:,.1f} {unit}"],
                hovertemplate=_HOVER,
            ),
            row=row,
            col=1,
        )
    fig.update_xaxes(type="log", row=1, col=1)
    fig.update_xaxes(type="log", title_text="Sequences in flight per replica (log scale)", row=2)
    fig.update_yaxes(title_text="Tokens/s per GPU", rangemode="tozero", row=1, col=1)
    fig.update_yaxes(type="log", title_text="ms (log scale)", row=2, col=1)
    # six legend entries wrap to two lines: below the plot, clear of the title
    fig.update_layout(height=640, legend={"y": -0.12, "yanchor": "top"}, margin={"b": 120})
    return fig


METHOD_NAMES = {"full": "full fine-tune", "lora": "LoRA", "qlora": "QLoRA"}
#: fine-tuning memory parts, in the order a bar chart lists them
MEMORY_PARTS = {
    "weights": "Weights",
    "base_weights": "Frozen base weights",
    "adapter_weights": "Adapter weights",
    "gradients": "Gradients",
    "optimizer": "Optimizer states",
    "activations": "Activations",
    "overhead": "Framework and buffers",
    "zero3_gather": "ZeRO-3 gathered weights",
}


def finetune_memory(plan: Mapping, dark: bool = False) -> go.Figure:
    """Memory per GPU by part (models.finetune.FinetunePlan.memory_gib_per_gpu), horizontal bars in
    GiB, with the GPU's capacity as a dashed line."""
    mem, cap = plan["memory_gib_per_gpu"], plan["memory_capacity_gib"]
    fig = _figure(
        "Memory per GPU by part",
        f"{_plain(plan['model'])}, {METHOD_NAMES.get(plan['method'], plan['method'])} on {plan['gpus']:,} × {_plain(plan['gpu'])}: "
        f"{mem['total']:,.1f} of {cap:g} GiB",
        dark,
    )
    return _memory_bars(fig, mem, cap, dark)


def training_memory(plan: Mapping, dark: bool = False) -> go.Figure:
    """Memory per GPU by part of a training plan (models.training.TrainingPlan, its dump), in GiB,
    with the GPU's capacity as a dashed line: the Workload page's memory chart."""
    mem, cap, lay = plan["memory_gib_per_gpu"], plan["memory_capacity_gib"], plan["layout"]
    fig = _figure(
        "Memory per GPU by part",
        f"{_plain(plan['model']['name'])} on {plan['gpus']:,} × {_plain(plan['gpu'])}<br>"
        f"TP {lay['tp']} · PP {lay['pp']} · ZeRO-{lay['zero']}: {mem['total']:,.1f} of {cap:g} GiB",
        dark,
    )
    # it sits in a narrow column beside the inputs: the title starts at the figure's left edge, not
    # the plot's (the part names push that right), and the subtitle takes two lines
    fig.update_layout(title={"x": 0.02, "xref": "container"}, margin={"t": 96})
    return _memory_bars(fig, {k: v for k, v in mem.items() if k == "total" or v > 0.05}, cap, dark)


def _memory_bars(fig: go.Figure, mem: Mapping, cap: float, dark: bool) -> go.Figure:
    """Horizontal bars of GiB per GPU by part (MEMORY_PARTS' order and names) and the capacity."""
    t = _THEMES[dark]
    parts = [(k, v) for k, v in mem.items() if k != "total"]
    order = [k for k in MEMORY_PARTS if k in dict(parts)] + [
        k for k, _ in parts if k not in MEMORY_PARTS
    ]
    values = [mem[k] for k in order]
    labels = [MEMORY_PARTS.get(k, k.replace("_", " ")) for k in order]
    fig.add_trace(
        go.Bar(
            x=values,
            y=labels,
            orientation="h",
            marker={"color": SERVE_COLORS["throughput"]},
            text=[f"{v:,.1f} GiB" for v in values],
            textposition="outside",
            name="GiB per GPU",
            meta={"kind": "memory"},
            customdata=[f"{n}: {v:,.2f} GiB per GPU" for n, v in zip(labels, values, strict=True)],
            hovertemplate=_HOVER,
        )
    )
    fig.add_vline(
        x=cap,
        line={"color": t["fg"], "width": 1.5, "dash": "dash"},
        annotation={"text": f"GPU memory {cap:g} GiB", "font": {"size": 11}},
        annotation_position="top left",
        name="capacity",
    )
    top = max([cap, *values])
    fig.update_xaxes(title_text="GiB per GPU", rangemode="tozero", range=[0, top * 1.15])
    fig.update_yaxes(autorange="reversed", showgrid=False)
    fig.update_layout(showlegend=False, height=360)
    return fig


# ----------------------------------------------------------------- portfolios (scenario version 2)

#: workload kinds of a portfolio (models/portfolio/workloads.py WORKLOAD_KINDS), Okabe-Ito
WORKLOAD_KIND_COLORS = {
    "pretrain": "#0072B2",
    "finetune": "#E69F00",
    "serve": "#009E73",
    "steady": "#CC79A7",
}


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
    fig = _figure(
        "Monthly demand of the portfolio",
        f"GPU-hours each month if every run started when released; {total:,.0f} GPU-hours "
        f"over {months} months",
        dark,
        fig,
    )
    x = list(range(1, months + 1))
    for row, groups, colour in (
        (1, by_team, lambda i, _: _PALETTE[i % len(_PALETTE)]),
        (2, by_kind, lambda _, k: WORKLOAD_KIND_COLORS.get(k, "#7F7F7F")),
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
                    hovertemplate=_HOVER,
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


def capacity_demand(c: Comparison | Mapping, option: str, dark: bool = False) -> go.Figure:
    """A portfolio's monthly capacity against its demand under one option's capacity plan: the
    GPU-hours served and held idle each month stacked (together the capacity held,
    `served_gpu_hours_by_month` + `idle_gpu_hours_by_month`), the unconstrained demand
    (`demand_gpu_hours`) as a line; the term's queued and beyond-term GPU-hours in the subtitle.
    A version-1 scenario, an option not compared or not available gives the empty state."""
    c = _as_comparison(c)
    o = c.option(option)
    label = o.label if o is not None else user_text(str(option)[:60])
    fig = _figure(f"Capacity against demand: {label}", "", dark)
    if c.portfolio is None or not c.scenario.is_portfolio:
        return _empty(fig, "Capacity plans are made for a portfolio of workloads (version 2)")
    if o is None or not o.available or not o.capacity_gpus:
        why = "was not compared" if o is None else "is not available for this scenario"
        return _empty(fig, f"{label} {why}")
    months = list(range(1, len(o.demand_gpu_hours) + 1))
    color = option_color(o.option)
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
    for name, values, opacity in (
        ("Served", o.served_gpu_hours_by_month, 1.0),
        ("Idle", o.idle_gpu_hours_by_month, 0.3),
    ):
        fig.add_trace(
            go.Bar(
                x=months,
                y=values,
                name=name,
                marker={"color": color, "opacity": opacity, "line": {"width": 0}},
                meta={"option": o.option, "kind": name.lower()},
                customdata=[
                    f"Month {m}: {name.lower()} {_gpu_hours(v)} GPU-hours; {gpus:,.1f} GPUs held"
                    for m, v, gpus in zip(months, values, o.capacity_gpus, strict=True)
                ],
                hovertemplate=_HOVER,
            )
        )
    fig.add_trace(
        go.Scatter(
            x=months,
            y=o.demand_gpu_hours,
            mode="lines",
            name="Demand",
            line={"color": _THEMES[dark]["fg"], "width": 2, "shape": "hvh"},
            meta={"option": o.option, "kind": "demand"},
            customdata=[
                f"Month {m}: demand {_gpu_hours(v)} GPU-hours"
                for m, v in zip(months, o.demand_gpu_hours, strict=True)
            ],
            hovertemplate=_HOVER,
        )
    )
    term = len(months)
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


#: line dash of each scenario of a side-by-side comparison, in order (the option keeps its colour)
SCENARIO_DASHES = ("solid", "dash", "dot")


def side_by_side_cost(sbs, dark: bool = False) -> go.Figure:
    """Cumulative nominal cost of each available option of 2-3 named scenarios on one chart
    (pricing/side_by_side.py SideBySide): an option's colour as everywhere, one dash per scenario."""
    fig = _figure(
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
        return _empty(fig, "No option is available in these scenarios")
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
                hovertemplate=_HOVER,
            )
        )
    term = max(len(o.cumulative_usd) for _, _, o in lines)
    # up to 15 lines: the legend goes right of the plot, where it cannot cover the subtitle
    fig.update_layout(
        hovermode="x unified",
        height=HEIGHT_PX + 60,
        legend={"orientation": "v", "x": 1.02, "xanchor": "left", "y": 1, "yanchor": "top"},
    )
    return _cumulative_axes(fig, term, [v for _, _, o in lines for v in o.cumulative_usd])

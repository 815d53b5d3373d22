"""What every chart shares: THE plotly template (`clusterplan`, and `clusterplan_dark` for the
dark theme) the portal and the PDF both draw with, the fixed colours (one per option, one per cost
category), `user_text` (the one escape of a user's string on its way into a figure), the amount
formats and the layout helpers every builder of app/charts/ starts from (`figure`, `empty`).

No string in a figure holds two dollar signs: plotly.js typesets text between two "$" as LaTeX
whenever MathJax is loaded (as in PDF export), so text with several amounts reads
"23.9M to 41.3M USD" and only a single amount reads "$23.9M".
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping

import plotly.graph_objects as go
import plotly.io as pio

from models.options import OPTIONS
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
    "facility upgrade": "#661100",
    "power": "#DDCC77",
    "colocation": "#44AA99",
    "staff": "#CC6677",
    "support and licences": "#882255",
    "support": "#EEDD88",
    "parts": "#BBCC33",
    "storage": "#99DDFF",
    "egress": "#FFAABB",
    "residual value": "#AAAAAA",
    "past the term": "#EE7733",
    "past-term resale": "#CCCCCC",
}
_SPARE_COLORS = ("#44BB99", "#AAAA00", "#EE7733", "#0077BB", "#EE3377", "#BBBBBB")
#: validation kinds: series that are neither options nor cost categories (Okabe-Ito)
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00")
#: a portfolio's workload kinds (models/portfolio/workloads.py WORKLOAD_KINDS), Okabe-Ito: the
#: one place a kind's colour is decided, for every chart, page and the PDF
KIND_COLORS = {
    "pretrain": "#0072B2",
    "finetune": "#E69F00",
    "serve": "#009E73",
    "steady": "#CC79A7",
}
#: a portfolio's teams (Paul Tol's muted palette): no colour of KIND_COLORS, so a team's bar is
#: never read as a kind's in the chart that stacks both
TEAM_PALETTE = (
    "#332288",
    "#88CCEE",
    "#882255",
    "#999933",
    "#44AA99",
    "#DDCC77",
    "#CC6677",
    "#AA4499",
)
#: serving and fine-tuning charts: one colour per series (Okabe-Ito, as the options)
SERVE_COLORS = {"throughput": "#0072B2", "ttft": "#D55E00", "tpot": "#009E73"}

#: inks and backgrounds of the light (False) and the dark (True) theme
THEMES = {
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
#: every trace's hover: its customdata (text escaped by the builder), no trace-name box
HOVER = "%{customdata}<extra></extra>"


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
    color, t = option_color(option_id), THEMES[dark]
    return color if contrast(color, t["bg"]) >= MIN_TEXT_CONTRAST else t["fg"]


def kind_color(kind: str) -> str:
    """The fixed colour of a workload kind (a neutral grey for one this module does not know)."""
    return KIND_COLORS.get(kind, "#7F7F7F")


def team_colors(teams) -> dict[str, str]:
    """Each team's colour, decided by its place among the scenario's teams in name order, so that
    every chart of one scenario (whatever order its series come in) gives a team one colour."""
    return {t: TEAM_PALETTE[i % len(TEAM_PALETTE)] for i, t in enumerate(sorted(set(teams)))}


def pale(color: str, background: str, share: float) -> str:
    """`color` laid over `background` at `share` opacity, as one solid colour: bars drawn in it
    and their legend swatch look the same (a trace's marker opacity leaves the swatch solid)."""
    a, b = ([int(c[i : i + 2], 16) for i in (1, 3, 5)] for c in (color, background))
    return "#" + "".join(
        f"{round(share * x + (1 - share) * y):02X}" for x, y in zip(a, b, strict=True)
    )


def category_color(category: str) -> str:
    """The fixed colour of a cost category; an unknown category gets a stable spare colour."""
    if category in CATEGORY_COLORS:
        return CATEGORY_COLORS[category]
    return _SPARE_COLORS[sum(map(ord, category)) % len(_SPARE_COLORS)]


def template_name(dark: bool = False) -> str:
    return DARK_TEMPLATE_NAME if dark else TEMPLATE_NAME


def _make_template(dark: bool) -> go.layout.Template:
    t = THEMES[dark]
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


def plain(text: str) -> str:
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


def usd_axis(values: list[float]) -> dict:
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


def as_comparison(c: Comparison | Mapping) -> Comparison:
    """The `Comparison` a builder draws, from the object or the dict `model_dump(mode="json")`
    makes of one."""
    if isinstance(c, Comparison):
        return c
    if isinstance(c, Mapping):
        return Comparison.model_validate(dict(c))
    raise TypeError(f"expected a Comparison or its dict, got {type(c).__name__}")


def figure(title: str, subtitle: str, dark: bool, fig: go.Figure | None = None) -> go.Figure:
    """A new figure (or `fig`, made by make_subplots) on the shared template, at the standard
    height, with its title and subtitle: every builder starts from it."""
    fig = fig if fig is not None else go.Figure()
    fig.update_layout(
        template=template_name(dark),
        height=HEIGHT_PX,
        title={"text": title, "subtitle": {"text": subtitle}},
    )
    return fig


def vline(
    fig: go.Figure, x: float, line: dict, *, name: str | None = None, label: dict | None = None
) -> go.Figure:
    """A dashed-or-solid vertical line across a single-plot figure at `x`, with `label` (an
    annotation's text and font) at its top left: the shape and annotation plotly's
    `fig.add_vline(x=, line=, name=, annotation=label, annotation_position="top left")` makes,
    property for property (tests/test_charts_vline.py), without its subplot bookkeeping, which
    copies the layout and cost about 5 ms a line, on every rerun of a page that draws one."""
    shape = {"type": "line", "x0": x, "x1": x, "xref": "x", "y0": 0, "y1": 1, "yref": "y domain"}
    fig.add_shape(line=line, **shape, **({"name": name} if name is not None else {}))
    if label is not None:
        at = {"x": x, "xref": "x", "y": 1, "yref": "y domain"}
        fig.add_annotation(showarrow=False, xanchor="right", yanchor="top", **at, **label)
    return fig


def empty(fig: go.Figure, text: str) -> go.Figure:
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


def available_options(c: Comparison) -> list[OptionResult]:
    """The options of the comparison that are available, in its order."""
    return [o for o in c.options if o.available]


def cumulative_axes(fig: go.Figure, term: int, values: list[float]) -> go.Figure:
    """Month-of-term and cumulative-USD axes of a cumulative cost chart over `term` months."""
    fig.update_xaxes(
        title_text="Month of the term",
        range=[0.5, term + 0.5],
        dtick=6 if term > 24 else 3 if term > 12 else 1,
    )
    fig.update_yaxes(title_text="Cumulative cost (USD)", **usd_axis(values))
    return fig

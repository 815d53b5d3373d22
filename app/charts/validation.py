"""The Validation page's charts: predicted against published, on log axes, with the target
bands."""

from __future__ import annotations

from collections.abc import Mapping

import plotly.graph_objects as go

from app.charts.common import HOVER, PALETTE, THEMES, figure, plain
from models.validation.training import UNITS

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


def benchmark_scatter(
    rows: list[dict], bands: tuple[float, ...], title: str, dark: bool = False
) -> go.Figure:
    """Predicted against published on log axes for the inference and fine-tuning validation rows: the
    y = x line, the target bands (e.g. ±15 % and ±35 %), one colour per kind; each point in its row's
    own unit (`unit` in the row) and open markers for rows that are shown but not scored."""
    kinds = list(dict.fromkeys(r["kind"] for r in rows))
    colors = dict(zip(kinds, PALETTE * (len(kinds) // len(PALETTE) + 1), strict=False))
    return _predicted_vs_published(
        rows, bands, title, colors, lambda r: plain(r["unit"]), 520, dark
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
    fig = figure(title, "each point in its row's own unit; log axes", dark)
    values = [v for r in rows for v in (r["predicted"], r["published"])]
    xs = [min(values) / 2, max(values) * 2]
    line = THEMES[dark]["line"]
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
            line={"color": THEMES[dark]["fg"], "width": 1},
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
                        f"{plain(r['id'])}: {r['error']:+.1%} ({unit_text(r)})<br>published "
                        f"{r['published']:.4g}, predicted {r['predicted']:.4g}"
                        for r in sel
                    ],
                    hovertemplate=HOVER,
                )
            )
    fig.update_xaxes(type="log", title="published")
    fig.update_yaxes(type="log", title="predicted")
    fig.update_layout(height=height)
    return fig

"""The charts of a comparison as the Compare page and the PDF report place them."""

from __future__ import annotations

from collections.abc import Mapping

import plotly.graph_objects as go

from app.charts.common import as_comparison
from app.charts.cost import cost_breakdown, cumulative_cost
from app.charts.risk import tornado, uncertainty
from app.charts.scaling import scaling_curve
from app.charts.timeline import provisioning_gantt
from pricing.results import Comparison


def all_figures(c: Comparison | Mapping, dark: bool = False) -> dict[str, go.Figure]:
    """Every chart of the comparison, keyed as the portal and the PDF report place them. A
    portfolio's work is many workloads, not one run: its Gantt draws provisioning only and it has
    no scaling curve of one run (the portal's portfolio page shows the same)."""
    c = as_comparison(c)
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

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
    charts = {  # read when called: the builders as this module holds them then
        "cumulative": cumulative_cost,
        "breakdown": cost_breakdown,
        "gantt": provisioning_gantt,
        "phases": lambda c, dark: provisioning_gantt(c, dark, first_run=False),
        "scaling": scaling_curve,
        "tornado": tornado,
        "uncertainty": uncertainty,
    }
    return {name: charts[builder](c, dark) for name, builder in CHARTS_OF[c.scenario.kind]}


_MONEY = (("cumulative", "cumulative"), ("breakdown", "breakdown"))
_RISK = (("tornado", "tornado"), ("uncertainty", "uncertainty"))
#: the charts of each kind of scenario (models/scenario.py `Scenario.kind`), as placed, each as
#: (name, builder): a portfolio's work is many workloads, so its Gantt draws the provisioning
#: phases only and it has no scaling curve of one run
CHARTS_OF = {
    "run": (*_MONEY, ("gantt", "gantt"), ("scaling", "scaling"), *_RISK),
    "portfolio": (*_MONEY, ("gantt", "phases"), *_RISK),
}

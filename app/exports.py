"""Downloads of a comparison beside the PDF: monthly cash flows as CSV, the whole comparison as JSON.

No Streamlit here: the CLI and the portal call the same functions, so both give the same files.

`monthly_csv` is long format, one row per option, cost category and month (`option, label,
category, month, usd`), so a spreadsheet can pivot it either way and the rows of an option sum
to its `total_usd`. The rows are the engine's own monthly flows by category
(`OptionResult.monthly_by_category_usd`), nothing recomputed here, so a comparison made with
another catalogue exports that catalogue's flows. Options that are not available have no cash
flows, hence no rows.

For a portfolio (scenario version 2) the same long format gains a `team` and a `unit` column
(`option, label, category, team, month, value, unit`; PORTFOLIO_CSV_HEADER): the cash flows as
above (unit `usd`), then per option and month `capacity` (GPUs held, unit `gpus`), `demand`,
`served` and `idle` (unit `gpu_hours`), then per team its `chargeback` over the term (unit `usd`,
no month; the chargeback of an option sums to its total, so leave it out when summing cash
flows). Each value is the engine's own (`OptionResult.capacity_gpus`, `demand_gpu_hours`,
`served_gpu_hours_by_month`, `idle_gpu_hours_by_month`, `chargeback_usd`). An owned option with
a hardware refresh (`OptionResult.hardware_refreshes`) then has, per refresh, the rows
`refresh_gpus` (unit `gpus`), `refresh_order_day`, `refresh_ready_day` and
`refresh_replaced_sold_day` (unit `day`, days from the decision), each in the month of the term
its new hardware is ready in (counted from 1, as the monthly rows). A version-1 comparison's CSV
is as it always was.

`comparison_json` is strict JSON: any number that is not finite is written as null.
"""

from __future__ import annotations

import csv
import io
import json
import math
from typing import Any

from app.recommendation_text import recommendation_text
from app.report_text import term_month
from pricing.engine import Comparison

CSV_HEADER = ("option", "label", "category", "month", "usd")
PORTFOLIO_CSV_HEADER = ("option", "label", "category", "team", "month", "value", "unit")
#: a portfolio's monthly rows: category -> (OptionResult field, unit)
PORTFOLIO_MONTHLY = {
    "capacity": ("capacity_gpus", "gpus"),
    "demand": ("demand_gpu_hours", "gpu_hours"),
    "served": ("served_gpu_hours_by_month", "gpu_hours"),
    "idle": ("idle_gpu_hours_by_month", "gpu_hours"),
}


def _cell(text: str) -> str:
    """User text (a team name) as a spreadsheet shows it, never as a formula (OWASP CSV
    injection: a leading = + - @ tab or carriage return is escaped with a ')."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def monthly_csv(c: Comparison) -> str:
    """Long-format CSV of every option's monthly cash flows by category (USD, nominal); for a
    portfolio also its monthly capacity, demand, served and idle, and the chargeback by team
    (the module docstring: each kind of scenario its own columns)."""
    return _CSV_OF[c.scenario.kind](c)


def _run_csv(c: Comparison) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_HEADER)
    for o in c.options:
        for category, values in o.monthly_by_category_usd.items():
            for month, value in enumerate(values, start=1):
                w.writerow([o.option, o.label, category, month, repr(float(value))])
    return buf.getvalue()


def _portfolio_csv(c: Comparison) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(PORTFOLIO_CSV_HEADER)
    for o in c.options:
        for category, values in o.monthly_by_category_usd.items():
            for month, value in enumerate(values, start=1):
                w.writerow([o.option, o.label, category, "", month, repr(float(value)), "usd"])
    for o in c.options:
        for category, (name, unit) in PORTFOLIO_MONTHLY.items():
            for month, value in enumerate(getattr(o, name), start=1):
                w.writerow([o.option, o.label, category, "", month, repr(float(value)), unit])
    for o in c.options:
        for r in o.hardware_refreshes:
            month = term_month(r.ready_day)
            for category, (value, unit) in {
                "refresh_gpus": (r.gpus, "gpus"),
                "refresh_order_day": (r.order_day, "day"),
                "refresh_ready_day": (r.ready_day, "day"),
                "refresh_replaced_sold_day": (r.replaced_sold_day, "day"),
            }.items():
                w.writerow([o.option, o.label, category, "", month, repr(float(value)), unit])
    for o in c.options:
        for team, value in o.chargeback_usd.items():
            w.writerow(
                [o.option, o.label, "chargeback", _cell(team), "", repr(float(value)), "usd"]
            )
    return buf.getvalue()


#: the CSV writer of each kind of scenario (models/scenario.py `Scenario.kind`)
_CSV_OF = {"run": _run_csv, "portfolio": _portfolio_csv}


def _finite(value: Any) -> Any:
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value


def comparison_data(c: Comparison) -> dict:
    """The comparison as JSON data, with the recommendation in words as well as in facts (`why`,
    after `fastest_option`: app/recommendation_text.py writes it; the core returns facts only)."""
    data = _finite(c.model_dump(mode="json"))
    rec, words = data["recommendation"], recommendation_text(c.recommendation)
    keys = list(rec)
    at = keys.index("fastest_option") + 1 if "fastest_option" in keys else len(keys)
    data["recommendation"] = {
        **dict(list(rec.items())[:at]),
        "why": words,
        **dict(list(rec.items())[at:]),
    }
    return data


def comparison_json(c: Comparison) -> str:
    """The whole comparison (scenario, training, options, decision support, assumptions)."""
    return json.dumps(comparison_data(c), indent=2, allow_nan=False)

"""Downloads of a comparison beside the PDF: monthly cash flows as CSV, the whole comparison as JSON.

No Streamlit here: the CLI and the portal call the same functions, so both give the same files.

`monthly_csv` is long format, one row per option, cost category and month (`option, label,
category, month, usd`), so a spreadsheet can pivot it either way and the rows of an option sum
to its `total_usd`. The comparison keeps only each option's monthly total and each category's
total over the term, so the per-month split by category is recomputed here with the engine's
own cash-flow functions for the same scenario; if that does not add up to the comparison's
monthly totals (a comparison made with another catalogue), each month gets one `total` row
instead. Options that are not available have no cash flows, hence no rows.

`comparison_json` is strict JSON: any number that is not finite is written as null.
"""

from __future__ import annotations

import csv
import io
import json
import math
from typing import Any

import numpy as np

from models.scenario import Scenario
from pricing.engine import Comparison, base_params, evaluate
from pricing.inputs import build_inputs

CSV_HEADER = ("option", "label", "category", "month", "usd")


def _monthly_by_category(c: Comparison) -> dict[str, dict[str, list[float]]]:
    """{option: {category: [usd per month]}} for the available options, recomputed."""
    options = [o for o in c.options if o.available]
    if not options:
        return {}
    inp = build_inputs(Scenario.model_validate(c.scenario))
    flows = evaluate(inp, base_params(inp), [o.option for o in options])
    out: dict[str, dict[str, list[float]]] = {}
    for o in options:
        months = len(o.monthly_usd)
        split = {
            k: np.broadcast_to(np.asarray(v, dtype=float), (1, months))[0]
            for k, v in flows[o.option][0].items()
        }
        summed = np.sum(list(split.values()), axis=0) if split else np.zeros(months)
        if np.allclose(summed, o.monthly_usd, rtol=1e-9, atol=1e-6):
            out[o.option] = {k: v.tolist() for k, v in split.items()}
        else:
            out[o.option] = {"total": list(o.monthly_usd)}
    return out


def monthly_csv(c: Comparison) -> str:
    """Long-format CSV of every option's monthly cash flows by category (USD, nominal)."""
    split = _monthly_by_category(c)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_HEADER)
    for o in c.options:
        for category, values in split.get(o.option, {}).items():
            for month, value in enumerate(values, start=1):
                w.writerow([o.option, o.label, category, month, repr(float(value))])
    return buf.getvalue()


def _finite(value: Any) -> Any:
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value


def comparison_json(c: Comparison) -> str:
    """The whole comparison (scenario, training, options, decision support, assumptions)."""
    return json.dumps(_finite(c.model_dump(mode="json")), indent=2, allow_nan=False)

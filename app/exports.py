"""Downloads of a comparison beside the PDF: monthly cash flows as CSV, the whole comparison as JSON.

No Streamlit here: the CLI and the portal call the same functions, so both give the same files.

`monthly_csv` is long format, one row per option, cost category and month (`option, label,
category, month, usd`), so a spreadsheet can pivot it either way and the rows of an option sum
to its `total_usd`. The rows are the engine's own monthly flows by category
(`OptionResult.monthly_by_category_usd`), nothing recomputed here, so a comparison made with
another catalogue exports that catalogue's flows. Options that are not available have no cash
flows, hence no rows.

`comparison_json` is strict JSON: any number that is not finite is written as null.
"""

from __future__ import annotations

import csv
import io
import json
import math
from typing import Any

from pricing.engine import Comparison

CSV_HEADER = ("option", "label", "category", "month", "usd")


def monthly_csv(c: Comparison) -> str:
    """Long-format CSV of every option's monthly cash flows by category (USD, nominal)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_HEADER)
    for o in c.options:
        for category, values in o.monthly_by_category_usd.items():
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

"""The Validation page's section on measured runs of older CUDA engine releases
(models/validation/older_cuda.py; docs/reference/serving-evidence.md, thirtieth amendment): per
release line, its rows, the median |TPOT error| at the CUDA record's costs and at the line's own
fit, whether the adoption rule holds and whether the build is adopted. Every figure is a field of
`older_cuda.as_json()`; nothing is recomputed here."""

from __future__ import annotations

import pandas as pd

from app.views.evidence_table import class_table, render_evidence
from models.serving.engines import ENGINES
from models.validation import older_cuda

COLUMNS = [
    ("TPOT record median |error| %", ("record", "tpot_ms", "median_abs")),
    ("TPOT record signed %", ("record", "tpot_ms", "signed_median")),
    ("TPOT fit median |error| %", ("fitted", "tpot_ms", "median_abs")),
    ("TPOT fit signed %", ("fitted", "tpot_ms", "signed_median")),
]


def older_cuda_table(data: dict) -> pd.DataFrame:
    """One row per release line: engine, line, class, the build's version, rows, the fit's k and
    s, the errors at the record and at the fit, and the rule's verdict."""
    lines = [
        e
        | {
            "engine": ENGINES[e["engine"]].label,
            "k": round(e["fit"]["k"], 2),
            "s µs": round(e["fit"]["s_us"]),
            "sources": len(e["sources"]),
            "status": older_cuda.status(e),
        }
        for e in data["lines"]
    ]
    return class_table(
        lines,
        ("engine", "line", "class", "version", "status"),
        ("rows", "sources", "k", "s µs"),
        COLUMNS,
    )


def render_older_cuda() -> None:
    data = older_cuda.as_json()
    rule = data["adoption_rule"]
    caption = (
        f"{data['rows']} measured serving runs of vLLM and SGLang releases older than the ones "
        "AIConfigurator measured (models/data/validation/older_cuda_serving.csv), "
        f"{data['scored']} scored; the rows, the form and the rule were written before any fit or "
        "score (docs/reference/serving-evidence.md, thirtieth amendment). Record: the CUDA "
        "engine's costs, which every older release took before. Fit: the release line's own "
        "k · roofline step + layers · s, in-sample. A line is adopted with at least "
        f"{rule['rows']} rows at {rule['concurrencies']} concurrencies when its fit is "
        f"{100 * rule['gain']:.0f} points better in-sample and on each source left out; dstack's "
        "early-2025 runs stay unseen and are scored in the third-party sets below. Signed + means "
        "the model predicts more than was measured."
    )
    render_evidence("Serving on older CUDA releases, measured", caption, older_cuda_table(data))

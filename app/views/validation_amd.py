"""The Validation page's section on measured AMD serving rows (models/validation/amd.py;
docs/reference/serving-evidence.md, sixteenth and seventeenth amendments): per engine, the version
whose costs were used and the split, the errors before and after the ROCm builds (TTFT also with
their step costs and the CUDA engine's TTFT constants, the sixteenth amendment's form). Every figure is a field of
`amd.as_json()`; nothing is recomputed here."""

from __future__ import annotations

import pandas as pd

from app.views.evidence_table import Column, class_table, render_evidence
from models.validation import amd

METRICS = {"tpot_ms": "TPOT", "ttft_ms": "TTFT", "out_tps": "output tok/s"}


def _columns() -> list[Column]:
    """Per metric: median |error| before, (TTFT) the sixteenth amendment's, after, signed after."""
    columns: list[Column] = []
    for key, name in METRICS.items():
        columns.append((f"{name} before %", ("before", key, "median_abs")))
        if key == "ttft_ms":
            columns.append((f"{name} 16th amendment %", ("sixteenth", key, "median_abs")))
        columns.append((f"{name} after %", ("after", key, "median_abs")))
        columns.append((f"{name} signed %", ("after", key, "signed_median")))
    return columns


def amd_table(data: dict) -> pd.DataFrame:
    """One row per engine, version and split: rows, then each metric's median |error| before and
    after (TTFT: also the sixteenth amendment's), and the signed median after, in percent."""
    return class_table(data["classes"], ("engine", "version", "split"), ("rows",), _columns())


def render_amd() -> None:
    data = amd.as_json()
    caption = (
        f"{data['rows']} measured serving runs on MI300X (models/data/validation/amd_serving.csv: "
        "dstack's DeepSeek-R1 and Llama 3.1 405B runs, Oracle's 405B FP8 runs, SGLang's MI300X "
        "pull-request runs and AMD's performance-results tables for vLLM 0.9 to 0.11), each at "
        f"its engine, version, layout and concurrency; {data['held_out']} held out (an id-hash "
        "tenth and one whole source). The split and each form were written before their first "
        "score (docs/reference/serving-evidence.md, sixteenth, thirty-second and thirty-third "
        "amendments). Median |error| before (CUDA vLLM × 1.10, SGLang × 1.17) and after the ROCm "
        "builds' measured step costs (k × the roofline's step + a time per layer; vLLM 0.10.2 "
        "also a time per sequence and layer, the thirty-fourth amendment) and, where the "
        "seventeenth amendment adopted them, their own time-to-first-token constants (TTFT 16th "
        "amendment: the step costs with the CUDA engines' TTFT constants). A version with no "
        "build of its own shows the build it takes in brackets. Signed = predicted / measured − "
        "1: + on TPOT and TTFT means the model is slower than measured, + on output tok/s that "
        "it is optimistic."
    )
    render_evidence("Serving on AMD GPUs, measured", caption, amd_table(data))

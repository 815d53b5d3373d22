"""Fits the fixed time per MoE layer and step (models/constants.py SERVE_MOE_STEP_S_PER_LAYER) by the
rule docs/reference/serving-evidence.md fixed before the fit (fifth amendment): over the tuning rows
of models/data/validation/aiconfigurator_silicon.csv that are TensorRT-LLM, aggregated, of a MoE
model, at a batch of at most 4 and a TP size of at most 8, the median of (measured TPOT - the
model's TPOT without the term) / the model's MoE layers. Held-out rows are not read.
Run: python -m bench.serve_moe_step"""

from __future__ import annotations

import statistics

from models import constants as C
from models.shapes import get_preset
from models.validation import silicon

MAX_BATCH, MAX_TP = 4, 8


def rows() -> list[tuple[dict, dict]]:
    """(row, expressed setup) of every tuning row the rule reads."""
    out = []
    for row in silicon.load_rows(weight_only=False):
        if silicon.held_out(row) or row["backend"] != "trtllm" or row["mode"] != "agg":
            continue
        if row["model_path"] in silicon.TWELFTH_MODELS:  # mapped after this fit
            continue
        setup, _ = silicon.expressible(row)
        if setup is None or not get_preset(setup["model"]).is_moe:
            continue
        (pool,) = setup["pools"]
        if pool.batch <= MAX_BATCH and pool.tp <= MAX_TP:
            out.append((row, setup))
    return out


def fit() -> tuple[float, int]:
    """(seconds per MoE layer and step, rows): the model evaluated with the term at 0."""
    saved = C.SERVE_MOE_STEP_S_PER_LAYER
    C.SERVE_MOE_STEP_S_PER_LAYER = 0.0
    try:
        gaps = []
        for row, setup in rows():
            tpot_ms, _, _, refused = silicon.predict(setup, row)
            if refused:
                continue
            layers = get_preset(setup["model"]).moe_layers
            gaps.append((float(row["silicon_tpot_ms"]) - tpot_ms) / 1e3 / layers)
    finally:
        C.SERVE_MOE_STEP_S_PER_LAYER = saved
    return statistics.median(gaps), len(gaps)


def main() -> None:
    value, n = fit()
    print(f"SERVE_MOE_STEP_S_PER_LAYER = {value * 1e6:.1f} µs over {n} tuning rows "
          f"(TensorRT-LLM, aggregated, MoE, batch <= {MAX_BATCH}, TP <= {MAX_TP}); "
          f"models/constants.py has {C.SERVE_MOE_STEP_S_PER_LAYER * 1e6:.1f} µs")  # fmt: skip


if __name__ == "__main__":
    main()

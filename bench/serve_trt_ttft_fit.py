"""Fits, by the rule docs/reference/serving-evidence.md fixed before the fit (eighteenth
amendment), each engine's factor on a MoE model's prefill in the time to first token
(models/serving/engines.py `ttft_moe_prefill_factor`), with the ninth amendment's constants
refitted around it:

    TTFT = a + m · t_prefill · (k + w · (C − 1)) + t_step      (m = 1 for a dense model)

m on the grid 1.0 to 4.0 by 0.1 and, for each m, (a, k, w) on the ninth amendment's grid
(bench/serve_ttft_fit.py `fit`); the point minimising the median absolute TTFT error over the
engine's aggregated tuning rows of models/data/validation/aiconfigurator_silicon.csv that the model
expresses and does not refuse (every mapped model); the first minimum in the order m, a, k, w.
Adopted only if that median is at least 3 points below the engine's current constants' (m = 1 and
the ninth amendment's a, k, w) and the median over ALL its tuning rows (a disaggregated row's TTFT:
the prefill pool's first token at its in-flight requests, the decode pool's step, the K/V
transfer) does not rise. Held-out rows are not read: the split is filtered first.

t_prefill and t_step come from the model (models/serving/plan.py `evaluate` through
models/validation/silicon.py) and do not depend on these constants, so every grid point is
arithmetic. Run: python -m bench.serve_trt_ttft_fit"""

from __future__ import annotations

import numpy as np

from bench.serve_ttft_fit import fit
from models.serving.engines import ENGINE_OF_BACKEND, ENGINES
from models.shapes import get_preset
from models.validation import silicon

GRID_M = np.round(1 + np.arange(0, 31) * 0.1, 1)
#: the least gain, in points of the aggregated tuning rows' median |TTFT error|, that adopts a fit
MIN_GAIN = 0.03
#: the ninth amendment's (a s, k, w) per engine, which the rule compares against (with m = 1)
NINTH = {
    "tensorrt-llm": (0.120, 2.3, 0.045),
    "vllm": (0.015, 2.3, 0.090),
    "sglang": (0.145, 1.0, 0.440),
}


def _row(row: dict) -> tuple[float, ...] | None:
    """(t_prefill s, t_step s, C, measured TTFT s, MoE 0/1, K/V transfer s, aggregated 0/1) of a
    tuning row the model expresses and does not refuse, else None."""
    setup, _ = silicon.expressible(row)
    if setup is None:
        return None
    moe = float(get_preset(setup["model"]).is_moe)
    measured = float(row["silicon_ttft_ms"]) / 1e3
    c = silicon.in_flight(setup)
    try:
        if row["mode"] == "agg":
            (pool,) = setup["pools"]
            f = silicon._figures(setup, row, pool)
            if silicon._refusal(f, pool, "replica"):
                return None
            return (f["t_prefill"], f["t_step"], c, measured, moe, 0.0, 1.0)
        prefill, decode = setup["pools"]
        p, d = silicon._figures(setup, row, prefill), silicon._figures(setup, row, decode)
    except silicon.InputError:
        return None
    if silicon._refusal(p, prefill, "prefill") or silicon._refusal(d, decode, "decode"):
        return None
    return (p["t_prefill"], d["t_step"], c, measured, moe, p["t_kv"], 0.0)


def rows() -> dict[str, np.ndarray]:
    """Per engine, the columns of `_row` over its tuning rows (held-out rows filtered first)."""
    out: dict[str, list[tuple[float, ...]]] = {e: [] for e in ENGINES}
    for row in silicon.load_rows(weight_only=False):
        if silicon.held_out(row):
            continue
        cols = _row(row)
        if cols is not None:
            out[ENGINE_OF_BACKEND[row["backend"]]].append(cols)
    return {e: np.array(v) for e, v in out.items()}


def ttft(cols: np.ndarray, m: float, a: float, k: float, w: float) -> np.ndarray:
    """The form's TTFT of each row (module docstring)."""
    t_prefill, t_step, c, _, moe, t_kv, _ = cols.T
    scaled = np.where(moe > 0, m * t_prefill, t_prefill)
    return a + scaled * (k + w * np.maximum(c - 1, 0)) + t_step + t_kv


def median_error(cols: np.ndarray, constants: tuple[float, float, float, float]) -> float:
    return float(np.median(np.abs(ttft(cols, *constants) / cols[:, 3] - 1)))


def fit_engine(cols: np.ndarray) -> tuple[float, float, float, float, float]:
    """(m, a s, k, w, the median |error| there) over an engine's aggregated rows."""
    agg = cols[cols[:, 6] > 0]
    best = None
    for m in GRID_M:
        scaled = np.where(agg[:, 4] > 0, m * agg[:, 0], agg[:, 0])
        a, k, w, error = fit(np.column_stack([scaled, agg[:, 1], agg[:, 2], agg[:, 3]]))
        if best is None or error < best[4]:  # strict: the first minimum in the grid's order
            best = (float(m), a, k, w, error)
    assert best is not None
    return best


def main() -> None:
    for engine, cols in rows().items():
        spec = ENGINES[engine]
        current = (1.0, *NINTH[engine])
        agg = cols[cols[:, 6] > 0]
        m, a, k, w, error = fit_engine(cols)
        before, after = median_error(agg, current), median_error(agg, (m, a, k, w))
        all_before, all_after = median_error(cols, current), median_error(cols, (m, a, k, w))
        adopted = before - after >= MIN_GAIN and all_after <= all_before
        print(f"{engine:13} m = {m:.1f}  a = {a * 1e3:3.0f} ms  k = {k:.1f}  w = {w:.3f}  "
              f"aggregated {len(agg):,} rows {before:.1%} -> {after:.1%}; all tuning "
              f"{len(cols):,} rows {all_before:.1%} -> {all_after:.1%}; "
              f"{'adopted' if adopted else 'not adopted'}; engines.py has m = "
              f"{spec.ttft_moe_prefill_factor:.1f}, {spec.ttft_fixed_s * 1e3:.0f} ms, "
              f"{spec.ttft_prefill_factor:.1f}, {spec.ttft_wave_share:.3f}")  # fmt: skip


if __name__ == "__main__":
    main()

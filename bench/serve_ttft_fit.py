"""Fits each engine's time-to-first-token constants (models/serving/engines.py `ttft_fixed_s`,
`ttft_prefill_factor`, `ttft_wave_share`) by the rule docs/reference/serving-evidence.md fixed
before the fit (ninth amendment): for the form

    TTFT = a + t_prefill · (k + w · (C − 1)) + t_step

(C the requests in flight on the row's worker), the grid point (a from 0 to 300 ms by 5 ms, k from
1 to 6 by 0.1, w from 0 to 1 by 0.005) that minimises the median absolute TTFT error over the
engine's aggregated tuning rows of models/data/validation/aiconfigurator_silicon.csv that the
model expresses and does not refuse; the first minimum in the grid's order (a, then k, then w).
Held-out rows and disaggregated rows are not read. t_prefill and t_step are the model's
(models/serving/plan.py `evaluate`, t_step with the engine's decode factor).
Run: python -m bench.serve_ttft_fit"""

from __future__ import annotations

import numpy as np

from models.serving.engines import ENGINE_OF_BACKEND, ENGINES
from models.validation import silicon

GRID_A = np.arange(0, 61) * 5e-3  # seconds
GRID_K = 1 + np.arange(0, 51) * 0.1
GRID_W = np.arange(0, 201) * 0.005


def rows() -> dict[str, np.ndarray]:
    """Per engine, columns (t_prefill s, t_step s, requests in flight, measured TTFT s) of the
    aggregated tuning rows the model expresses and does not refuse."""
    out: dict[str, list[tuple[float, float, float, float]]] = {e: [] for e in ENGINES}
    for row in silicon.load_rows(weight_only=False):
        if (
            silicon.held_out(row)
            or row["mode"] != "agg"
            or row["model_path"] in silicon.TWELFTH_MODELS
        ):
            continue
        setup, _ = silicon.expressible(row)
        if setup is None:
            continue
        (pool,) = setup["pools"]
        try:
            f = silicon._figures(setup, row, pool)
        except silicon.InputError:
            continue
        if silicon._refusal(f, pool, "replica"):
            continue
        out[ENGINE_OF_BACKEND[row["backend"]]].append(
            (f["t_prefill"], f["t_step"], pool.batch, float(row["silicon_ttft_ms"]) / 1e3)
        )
    return {e: np.array(v) for e, v in out.items()}


def fit(
    cols: np.ndarray, grid_a=GRID_A, grid_k=GRID_K, grid_w=GRID_W
) -> tuple[float, float, float, float]:
    """(a s, k, w, the median absolute error there) of one engine's rows (module docstring), on
    these grids or others (bench/serve_lone_ttft_fit.py's)."""
    t_prefill, t_step, in_flight, measured = cols.T
    errors = np.empty((len(grid_a), len(grid_k), len(grid_w)))
    for j, w in enumerate(grid_w):
        prefill = t_prefill * (grid_k[None, :, None] + w * (in_flight - 1))  # (1, k, rows)
        predicted = grid_a[:, None, None] + prefill + t_step
        errors[:, :, j] = np.median(np.abs(predicted / measured - 1), axis=2)
    i, k, j = np.unravel_index(int(np.argmin(errors)), errors.shape)  # first minimum, C order
    return float(grid_a[i]), float(grid_k[k]), float(grid_w[j]), float(errors[i, k, j])


def main() -> None:
    for engine, cols in rows().items():
        a, k, w, error = fit(cols)
        spec = ENGINES[engine]
        print(f"{engine:13} a = {a * 1e3:5.0f} ms  k = {k:.1f}  w = {w:.3f}  over {len(cols):,} "
              f"tuning rows (median |error| {error:.1%}); engines.py has "
              f"{spec.ttft_fixed_s * 1e3:.0f} ms, {spec.ttft_prefill_factor:.1f}, "
              f"{spec.ttft_wave_share:.3f}")  # fmt: skip


if __name__ == "__main__":
    main()

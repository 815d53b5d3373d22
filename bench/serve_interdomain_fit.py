"""Fits each engine's effective rate for a decode step's activations between scale-up domains
(models/serving/engines.py `interdomain_gbyte_per_s`) by the rule docs/reference/serving-evidence.md
fixed before the fit (thirteenth amendment). For the form

    t_step = f_e · (roofline step + 2 · layers · λ_e · log2 TP + layers · B · hidden · 2 bytes / r_e)

on a replica whose TP × attention-DP GPUs span more than one scale-up domain, r_e is the grid point
(1 to 400 GB/s by 1 GB/s, or no term) with the smallest median absolute TPOT error over the
engine's tuning rows of models/data/validation/aiconfigurator_silicon.csv that the model expresses
and does not refuse and whose decode replica spans more than one domain (ties: no term first, then
the larger rate). Held-out rows are not read.

Each row is evaluated twice by the model (models/serving/plan.py `evaluate`, through
models/validation/silicon.py): without the term and at a probe rate. The term enters a decode step
additively (inside the engine's factor, beside the host's time, which a step takes when longer);
the prefill is unchanged, so every grid point is then arithmetic; the script checks the arithmetic
against the model at the rates it prints.
Run: python -m bench.serve_interdomain_fit"""

from __future__ import annotations

import contextlib
import dataclasses

import numpy as np

from models import constants as C
from models.hardware import get_gpu
from models.serving.engines import ENGINE_OF_BACKEND, ENGINES
from models.serving.roofline import ACTIVATION_BYTES
from models.shapes import get_preset
from models.units import BYTES_PER_GB
from models.validation import silicon

GRID_GBYTE_PER_S = np.arange(1, 401, dtype=float)
PROBE_GBYTE_PER_S = 0.01  # a term far above any step, so no row stays host-bound


@contextlib.contextmanager
def rates(gbyte_per_s: dict[str, float]):
    """The model with these rates (per engine; 0 = no term), then as it was."""
    saved = dict(ENGINES)
    try:
        for e, value in gbyte_per_s.items():
            ENGINES[e] = dataclasses.replace(ENGINES[e], interdomain_gbyte_per_s=value)
        yield
    finally:
        ENGINES.clear()
        ENGINES.update(saved)


def _rows() -> list[tuple[dict, dict]]:
    """(row, setup) of the tuning rows the rule reads: expressed, the decode replica's tp · dp
    GPUs beyond one scale-up domain."""
    out = []
    for row in silicon.load_rows():
        if silicon.held_out(row):
            continue
        setup, _ = silicon.expressible(row)
        if setup is None:
            continue
        pool = setup["pools"][-1]
        if pool.tp * pool.dp > get_gpu(setup["gpu"]).scaleup_domain_gpus:
            out.append((row, setup))
    return out


def _predictions(rows) -> list[tuple[float, float] | None]:
    """Per row, (TPOT s, the decode pool's t_step s), None where refused."""
    out = []
    for row, setup in rows:
        try:
            tpot, _, _, refused = silicon.predict(setup, row)
        except silicon.InputError:
            out.append(None)
            continue
        f = silicon._figures(setup, row, setup["pools"][-1])
        out.append(None if refused else (tpot / 1e3, f["t_step"]))
    return out


def columns() -> dict[str, dict[str, np.ndarray]]:
    """Per engine: the TPOT without the term, the GPU's step without it (over the factor), the
    host's time, the bytes a step moves between domains, the factor and the measured TPOT."""
    rows = _rows()
    with rates({e: 0.0 for e in ENGINES}):
        base = _predictions(rows)
    with rates({e: PROBE_GBYTE_PER_S for e in ENGINES}):
        probe = _predictions(rows)
    cols: dict[str, dict[str, list]] = {e: {} for e in ENGINES}
    for (row, setup), p0, pp in zip(rows, base, probe, strict=True):
        if p0 is None or pp is None:
            continue
        engine = ENGINE_OF_BACKEND[row["backend"]]
        shape, pool = get_preset(setup["model"]), setup["pools"][-1]
        factor = ENGINES[engine].decode_step_factor
        size = shape.layers * pool.batch * shape.hidden * ACTIVATION_BYTES
        host = pool.batch * C.SERVE_HOST_S_PER_SEQUENCE_STEP
        gpu0 = pp[1] / factor - size / (PROBE_GBYTE_PER_S * BYTES_PER_GB)
        values = {
            "tpot0": p0[0],
            "step0": p0[1],
            "gpu0": gpu0,
            "host": host,
            "bytes": size,
            "factor": factor,
            "measured": float(row["silicon_tpot_ms"]) / 1e3,
            "id": row["id"],
        }
        for k, v in values.items():
            cols[engine].setdefault(k, []).append(v)
    return {e: {k: np.array(v) for k, v in c.items()} for e, c in cols.items()}


def tpot(c: dict[str, np.ndarray], gbyte_per_s) -> np.ndarray:
    """TPOT of every row of `c` at rates `gbyte_per_s` (an array: one row of output each; 0 = no
    term)."""
    r = np.asarray(gbyte_per_s, dtype=float)[..., None]
    added = np.where(r > 0, c["bytes"] / np.where(r > 0, r, 1.0) / BYTES_PER_GB, 0.0)
    step = c["factor"] * np.maximum(c["gpu0"] + added, c["host"])
    return c["tpot0"] - c["step0"] + step


def fit_rate(c: dict[str, np.ndarray]) -> tuple[float, float, float]:
    """(rate GB/s, or 0 for no term; the median absolute TPOT error there; without the term)."""
    grid = np.concatenate([[0.0], GRID_GBYTE_PER_S[::-1]])  # ties: no term, then the larger rate
    errors = np.median(np.abs(tpot(c, grid) / c["measured"] - 1), axis=-1)
    i = int(np.argmin(errors))
    return float(grid[i]), float(errors[i]), float(errors[0])


def check(gbyte_per_s: dict[str, float], cols) -> float:
    """The largest relative difference between the arithmetic and the model's TPOT at these rates."""
    rows = {row["id"]: (row, setup) for row, setup in _rows()}
    worst = 0.0
    with rates(gbyte_per_s):
        for engine, c in cols.items():
            if not len(c.get("id", [])):
                continue
            mine = tpot(c, np.array(gbyte_per_s[engine]))
            model = [silicon.predict(rows[i][1], rows[i][0])[0] / 1e3 for i in c["id"]]
            worst = max(worst, float(np.max(np.abs(mine / np.array(model) - 1))))
    return worst


def main() -> None:
    cols = columns()
    fitted = {}
    for engine, c in cols.items():
        rate, error, before = fit_rate(c)
        fitted[engine] = rate
        print(f"{engine:13} interdomain_gbyte_per_s = {rate:5.0f} over {len(c['measured']):,} "
              f"tuning rows beyond one domain (median |TPOT error| {before:.1%} -> {error:.1%}); "
              f"engines.py has {ENGINES[engine].interdomain_gbyte_per_s:g}")  # fmt: skip
    print(f"the arithmetic against the model at these rates: {check(fitted, cols):.1e} at most")


if __name__ == "__main__":
    main()

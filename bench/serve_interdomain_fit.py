"""Fits, by the rules docs/reference/serving-evidence.md fixed before each fit, a decode step's
cost between scale-up domains: the fourteenth amendment's latency and rate per engine and class
(models/serving/engines.py `crossing`; `fit_crossing`), and, for the comparison its adoption
rule makes, the thirteenth's one rate per engine (`interdomain_gbyte_per_s`, `THIRTEENTH`). The
thirteenth's form

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
against the model at the constants it prints.

The fourteenth's form: tensor parallel beyond the domain (tp > its GPUs), layers · (α + B · hidden
· 2 bytes / r); attention-DP/EP beyond it, MoE layers · (α + B · top-k · hidden · 2 bytes / r); per
engine and class, (α, r) on α = 0-100 µs by 1 µs × r = none, 400-1 GB/s, minimising median + 90th
percentile of the absolute TPOT error (first minimum: the smaller α, no rate, the larger r); a
class without the engine's rows takes the fit over every engine's rows of it. Adopted per engine
where that objective over its rows beyond one domain beats the thirteenth's.
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
ALPHA_S = np.arange(0, 101) * 1e-6  # the fourteenth's latency grid, per layer
RATE_GRID = np.concatenate([[0.0], GRID_GBYTE_PER_S[::-1]])  # no rate, then 400 down to 1 GB/s
#: the thirteenth amendment's fitted rates, GB/s (docs/reference/serving-evidence.md), the
#: adoption rule's comparison
THIRTEENTH = {"tensorrt-llm": 3.0, "vllm": 2.0, "sglang": 5.0}
NONE = (0.0, 0.0, 0.0, 0.0)


@contextlib.contextmanager
def rates(gbyte_per_s: dict[str, float], crossing: dict | None = None):
    """The model with these thirteenth-amendment rates (per engine; 0 = no term) and fourteenth
    constants (per engine; absent: none), then as it was; every prefill whole in an aggregated
    TPOT (the fifteenth amendment's share came after this fit)."""
    saved = dict(ENGINES)
    crossing = crossing or {}
    try:
        for e in ENGINES:
            ENGINES[e] = dataclasses.replace(ENGINES[e], prefill_share_in_decode=1.0)
        for e, value in gbyte_per_s.items():
            ENGINES[e] = dataclasses.replace(
                ENGINES[e], interdomain_gbyte_per_s=value, crossing=crossing.get(e, NONE)
            )
        yield
    finally:
        ENGINES.clear()
        ENGINES.update(saved)


def _rows() -> list[tuple[dict, dict]]:
    """(row, setup) of the tuning rows the rule reads: expressed, the decode replica's tp · dp
    GPUs beyond one scale-up domain."""
    out = []
    for row in silicon.load_rows(weight_only=False):
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
    with rates(dict.fromkeys(ENGINES, 0.0)):
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
        tp_class = pool.tp > get_gpu(setup["gpu"]).scaleup_domain_gpus
        n = shape.layers if tp_class else shape.moe_layers
        crossing = size / shape.layers * n * (1 if tp_class else shape.experts_per_token)
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
            "tp_class": tp_class,
            "n": n,
            "crossing": crossing,
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


def _subset(c: dict[str, np.ndarray], mask: np.ndarray) -> dict[str, np.ndarray]:
    return {k: v[mask] for k, v in c.items()}


def _pooled(cols, tp_class: bool) -> dict[str, np.ndarray]:
    """Every engine's rows of one class together (each row keeps its engine's factor)."""
    parts = [_subset(c, c["tp_class"] == tp_class) for c in cols.values() if len(c.get("id", []))]
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}


def tpot_crossing(c: dict[str, np.ndarray], alpha_s, gbyte_per_s) -> np.ndarray:
    """TPOT of every row of `c` (one class) under the fourteenth's term at each latency of
    `alpha_s` (s per layer) and rate of `gbyte_per_s` (0 = no rate): shape (alphas, rates, rows)."""
    a = np.asarray(alpha_s, dtype=float)[:, None, None]
    r = np.asarray(gbyte_per_s, dtype=float)[None, :, None]
    by_rate = np.where(r > 0, c["crossing"] / np.where(r > 0, r, 1.0) / BYTES_PER_GB, 0.0)
    step = c["factor"] * np.maximum(c["gpu0"] + a * c["n"] + by_rate, c["host"])
    return c["tpot0"] - c["step0"] + step


def objective(errors: np.ndarray) -> np.ndarray:
    """Median + 90th percentile of the absolute error over the last axis (the fourteenth's rule)."""
    e = np.abs(errors)
    return np.median(e, axis=-1) + np.percentile(e, 90, axis=-1)


def fit_class(c: dict[str, np.ndarray]) -> tuple[float, float]:
    """(α µs per layer, r GB/s or 0): the first minimum of `objective` on the grid."""
    o = objective(tpot_crossing(c, ALPHA_S, RATE_GRID) / c["measured"] - 1)
    i, j = np.unravel_index(int(np.argmin(o)), o.shape)
    return round(float(ALPHA_S[i]) * 1e6, 6), float(RATE_GRID[j])


def fit_crossing(cols) -> dict[str, tuple[float, float, float, float]]:
    """Per engine, (α_tp, r_tp, α_ep, r_ep): its own rows of a class, else every engine's."""
    pooled = {k: fit_class(_pooled(cols, k)) for k in (True, False)}
    out = {}
    for engine, c in cols.items():
        per = []
        for k in (True, False):
            mask = c["tp_class"] == k if len(c.get("id", [])) else np.zeros(0, bool)
            per.extend(fit_class(_subset(c, mask)) if mask.any() else pooled[k])
        out[engine] = tuple(per)
    return out


def errors_crossing(c: dict[str, np.ndarray], constants) -> np.ndarray:
    """Every row's TPOT error (predicted / measured − 1) under one engine's fourteenth constants."""
    out = np.empty(len(c["measured"]))
    for k, (a, r) in ((True, constants[:2]), (False, constants[2:])):
        m = c["tp_class"] == k
        if m.any():
            sub = _subset(c, m)
            out[m] = tpot_crossing(sub, [a * 1e-6], [r])[0, 0] / sub["measured"] - 1
    return out


def adopted(cols, crossing) -> dict[str, tuple[float, float]]:
    """Per engine, (the thirteenth's objective, the fourteenth's) over its tuning rows beyond one
    domain; the fourteenth is adopted where the second is lower."""
    out = {}
    for engine, c in cols.items():
        if not len(c.get("id", [])):
            continue
        e13 = tpot(c, np.array(THIRTEENTH[engine])) / c["measured"] - 1
        out[engine] = (
            float(objective(e13)),
            float(objective(errors_crossing(c, crossing[engine]))),
        )
    return out


def check(crossing: dict, cols) -> float:
    """The largest relative difference between the arithmetic and the model's TPOT at these
    fourteenth constants."""
    rows = {row["id"]: (row, setup) for row, setup in _rows()}
    worst = 0.0
    with rates(dict.fromkeys(ENGINES, 0.0), crossing):
        for engine, c in cols.items():
            if not len(c.get("id", [])):
                continue
            mine = errors_crossing(c, crossing[engine]) + 1
            model = [silicon.predict(rows[i][1], rows[i][0])[0] / 1e3 for i in c["id"]]
            worst = max(worst, float(np.max(np.abs(mine * c["measured"] / np.array(model) - 1))))
    return worst


def main() -> None:
    cols = columns()
    crossing = fit_crossing(cols)
    for engine, (before, after) in adopted(cols, crossing).items():
        c = cols[engine]
        a_tp, r_tp, a_ep, r_ep = crossing[engine]
        print(f"{engine:13} crossing = ({a_tp:g}, {r_tp:g}, {a_ep:g}, {r_ep:g}) over "
              f"{int(c['tp_class'].sum())} TP and {int((~c['tp_class']).sum())} DP/EP tuning rows "
              f"beyond one domain; median + p90 |TPOT error| thirteenth {before:.1%}, fourteenth "
              f"{after:.1%}: {'adopted' if after < before else 'not adopted'}; engines.py has "
              f"{ENGINES[engine].crossing}")  # fmt: skip
    print(
        f"the arithmetic against the model at these constants: {check(crossing, cols):.1e} at most"
    )


if __name__ == "__main__":
    main()

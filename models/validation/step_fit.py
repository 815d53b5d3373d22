"""The grid fit of a build's decode-step costs (k, s) in t_step = k · roofline step + layers · s
(docs/reference/serving-evidence.md, sixteenth amendment's rule, also the thirtieth's): over the
rows given, the grid point k = 1.00 to 4.00 by 0.01, s = 0 to 400 µs by 5 µs that minimises the
median plus the 90th percentile (summaries.py `p90`) of the absolute TPOT error, each row's TPOT
with its engine's share φ_e of the others' prefills as the planner charges it (ties: the smaller
s, then the smaller k). Rows are in amd_serving.csv's schema (models/validation/amd.py): each is
evaluated once by the model (`amd.parts`); every grid point is then arithmetic."""

from __future__ import annotations

import numpy as np

from models.validation import amd
from models.validation.summaries import p90

K_GRID = np.round(np.arange(1.00, 4.0001, 0.01), 2)
S_GRID = np.arange(0, 401, 5) * 1e-6


def _columns(rows: list[dict]):
    """(parts, measured TPOT s, roofline step s, layers, the others' prefills per output token s)
    of the rows, each evaluated once by the model."""
    parts = [amd.parts(r) for r in rows]
    measured = np.array([float(r["tpot_ms"]) * 1e-3 for r in rows])
    raw = np.array([p.t_raw for p in parts])
    layers = np.array([p.layers for p in parts], dtype=float)
    phi = np.array([amd.prefill_share(r) for r in rows])  # the engine's share (fifteenth)
    wave = np.array(
        [f * p.batch * p.t_prefill / p.output_tokens for f, p in zip(phi, parts, strict=True)]
    )
    return parts, measured, raw, layers, wave


def fit(rows: list[dict]) -> tuple[float, float, float]:
    """(k, s, objective): the grid point of the rule over `rows`."""
    _, measured, raw, layers, wave = _columns(rows)
    k, s = np.meshgrid(K_GRID, S_GRID, indexing="ij")
    tpot = k[..., None] * raw + s[..., None] * layers + wave
    err = np.abs(tpot / measured - 1)
    med = np.median(err, axis=-1)
    obj = np.round(med + p90(err, axis=-1), 12)
    # ties: the smaller s, then the smaller k (argmin over s-major order)
    flat = np.argmin(obj.T.ravel())
    j, i = divmod(int(flat), len(K_GRID))
    return float(K_GRID[i]), float(S_GRID[j]), float(obj[i, j])


#: the thirty-third amendment's third term: m (F1, s per sequence and layer) or c (F2, a share)
TERM_GRIDS = {
    "F1": np.round(np.arange(0, 501) * 0.01, 2) * 1e-6,
    "F2": np.round(np.arange(0, 1001) * 0.01, 2),
}


def fit_term(rows: list[dict], form: str) -> tuple[float, float, float, float]:
    """(k, s, term, objective): the thirty-third amendment's grid over `rows` for form "F1" (m · B ·
    L) or "F2" (c · the step's arithmetic), the sixteenth's (k, s) grid times the term's; ties: the
    smaller term, then the smaller s, then the smaller k."""
    parts, measured, raw, layers, wave = _columns(rows)
    extra = np.array([p.batch * p.layers if form == "F1" else p.t_arith for p in parts])
    k, s = np.meshgrid(K_GRID, S_GRID, indexing="ij")
    base = k[..., None] * raw + s[..., None] * layers + wave
    best = (np.inf, 0.0, 0.0, 0.0)
    for term in TERM_GRIDS[form]:  # the smaller term first: a later one must be strictly better
        err = np.abs((base + term * extra) / measured - 1)
        obj = np.round(np.median(err, axis=-1) + p90(err, axis=-1), 12)
        flat = int(np.argmin(obj.T.ravel()))  # the smaller s, then the smaller k
        j, i = divmod(flat, len(K_GRID))
        if obj[i, j] < best[0]:
            best = (float(obj[i, j]), float(K_GRID[i]), float(S_GRID[j]), float(term))
    return best[1], best[2], best[3], best[0]

"""Fits, by the rule docs/reference/serving-evidence.md fixed before the fit (fifteenth
amendment), each engine's share φ_e of the others' prefills that an aggregated replica's decode
pays (models/serving/engines.py `prefill_share_in_decode`):

    TPOT = t_step + φ_e · B · t_prefill / O        (aggregated; φ_e = 1: the form before it)

φ_e is the grid point (0 to 1.5 by 0.01) minimising the median plus the 90th percentile of the
absolute TPOT error (predicted / measured − 1) over the engine's aggregated tuning rows of
models/data/validation/aiconfigurator_silicon.csv that the model expresses and does not refuse
(ties: the point closest to 1). It is adopted only where, over ALL the engine's tuning rows
(aggregated and disaggregated; a disaggregated row's TPOT is its decode pool's step and does not
move), median + p90 is lower with φ_e than with 1. Held-out rows are not read.

Each aggregated row is evaluated once by the model at φ = 1 (models/serving/plan.py `evaluate`,
through models/validation/silicon.py); φ scales the TPOT's second term only (t_step and t_prefill do
not depend on it), so every grid point is arithmetic; the script checks the arithmetic against the
model at the constants it prints.
Run: python -m bench.serve_prefill_share_fit"""

from __future__ import annotations

import contextlib
import dataclasses

import numpy as np

from models.serving.engines import ENGINE_OF_BACKEND, ENGINES
from models.validation import silicon

GRID = np.round(np.arange(0, 151) * 0.01, 2)


@contextlib.contextmanager
def shares(phi: dict[str, float]):
    """The model with these shares per engine (absent: 1, the form before the amendment), then as
    it was."""
    saved = dict(ENGINES)
    try:
        for e in ENGINES:
            ENGINES[e] = dataclasses.replace(ENGINES[e], prefill_share_in_decode=phi.get(e, 1.0))
        yield
    finally:
        ENGINES.clear()
        ENGINES.update(saved)


def tuning_tpot_parts(rows):
    """(row, setup, step, share) for each of `rows` the model expresses and does not refuse: an
    aggregated row's TPOT split into its step (s) and the others' prefills at the engine's share
    as the caller has set it (s); a disaggregated row's TPOT as its step and no share."""
    for row in rows:
        setup, _ = silicon.expressible(row)
        if setup is None:
            continue
        try:
            tpot_ms, _, _, refused = silicon.predict(setup, row)
        except silicon.InputError:
            continue
        if refused:
            continue
        if row["mode"] == "agg":
            f = silicon._figures(setup, row, setup["pools"][-1])
            yield row, setup, f["t_step"], f["tpot"] - f["t_step"]
        else:
            yield row, setup, tpot_ms / 1e3, 0.0


def columns() -> dict[str, dict[str, np.ndarray]]:
    """Per engine, over its tuning rows the model expresses and does not refuse: the TPOT's first
    term (`step`, s), its second at φ = 1 (`share`, s; 0 for a disaggregated row), the measured
    TPOT (s), whether aggregated, and the row's id."""
    cols: dict[str, dict[str, list]] = {e: {} for e in ENGINES}
    rows = [r for r in silicon.load_rows(weight_only=False) if not silicon.held_out(r)]
    with shares({}):
        for row, _, step, share in tuning_tpot_parts(rows):
            agg = row["mode"] == "agg"
            engine = ENGINE_OF_BACKEND[row["backend"]]
            values = {
                "step": step,
                "share": share,
                "measured": float(row["silicon_tpot_ms"]) / 1e3,
                "agg": agg,
                "id": row["id"],
            }
            for k, v in values.items():
                cols[engine].setdefault(k, []).append(v)
    return {e: {k: np.array(v) for k, v in c.items()} for e, c in cols.items()}


def objective(c: dict[str, np.ndarray], phi) -> np.ndarray:
    """Median + 90th percentile of the absolute TPOT error of `c`'s rows at each φ of `phi`."""
    phi = np.asarray(phi, dtype=float)[..., None]
    error = np.abs((c["step"] + phi * c["share"]) / c["measured"] - 1)
    return np.median(error, axis=-1) + np.percentile(error, 90, axis=-1)


def fit() -> dict[str, dict]:
    """Per engine: φ_e by the rule, its objective over the aggregated rows and over all the
    engine's tuning rows beside φ = 1's, and whether it is adopted."""
    out = {}
    for engine, c in columns().items():
        agg = {k: v[c["agg"]] for k, v in c.items()}
        values = objective(agg, GRID)
        best = values.min()
        ties = GRID[np.isclose(values, best, rtol=0, atol=1e-12)]
        phi = float(ties[np.argmin(np.abs(ties - 1.0))])
        before, after = (float(x) for x in objective(c, [1.0, phi]))
        out[engine] = {
            "phi": phi,
            "agg_rows": int(c["agg"].sum()),
            "rows": len(c["measured"]),
            "agg_objective": (float(objective(agg, [1.0])[0]), float(best)),
            "objective": (before, after),
            "adopted": after < before,
        }
    return out


def check(phi: dict[str, float]) -> float:
    """The largest relative difference between the arithmetic and the model's TPOT
    (models/validation/silicon.py `predict`) at these shares, over the rows the rule reads."""
    cols = columns()
    rows = {r["id"]: r for r in silicon.load_rows(weight_only=False)}
    worst = 0.0
    with shares(phi):
        for engine, c in cols.items():
            mine = c["step"] + phi.get(engine, 1.0) * c["share"]
            model = []
            for i in c["id"]:
                setup, _ = silicon.expressible(rows[i])
                model.append(silicon.predict(setup, rows[i])[0] / 1e3)
            worst = max(worst, float(np.max(np.abs(mine / np.array(model) - 1))))
    return worst


def main() -> None:
    fitted = fit()
    for engine, f in fitted.items():
        (a0, a1), (o0, o1) = f["agg_objective"], f["objective"]
        print(f"{engine:13} φ = {f['phi']:.2f} over {f['agg_rows']:,} aggregated tuning rows "
              f"(median + p90 {a0:.1%} → {a1:.1%}); over all {f['rows']:,} tuning rows "
              f"{o0:.1%} → {o1:.1%}: {'adopted' if f['adopted'] else 'not adopted'}; engines.py "
              f"has {ENGINES[engine].prefill_share_in_decode:.2f}")  # fmt: skip
    phi = {e: f["phi"] for e, f in fitted.items()}
    print(f"the arithmetic against the model at these shares: {check(phi):.1e} at most")


if __name__ == "__main__":
    main()

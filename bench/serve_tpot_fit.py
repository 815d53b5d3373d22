"""Fits each engine's all-reduce latency per doubling of the tensor-parallel group
(models/serving/engines.py `allreduce_s_per_doubling`) and refits the fixed time per MoE layer
(models/constants.py SERVE_MOE_STEP_S_PER_LAYER) by the rule docs/reference/serving-evidence.md
fixed before the fit (tenth amendment). For the form

    t_step = f_e · (roofline step + 2 · layers · λ_e · log2 TP),
    t_prefill = roofline prefill + 2 · layers · λ_e · log2 TP

λ_e is the grid point (0 to 20 µs by 0.1 µs; the first minimum) that minimises the median absolute
TPOT error over tuning rows of models/data/validation/aiconfigurator_silicon.csv that the model
expresses and does not refuse and whose (decode) TP group is within one scale-up domain, in this
order: (1) TensorRT-LLM over its dense rows; (2) the MoE constant by the fifth amendment's rule
(bench/serve_moe_step.py) with TensorRT-LLM's λ in place; (3) vLLM and SGLang over all their rows
with that constant. Held-out rows are not read.

Each row is evaluated twice by the model (models/serving/plan.py `evaluate`, through
models/validation/silicon.py): with λ and the MoE constant at 0, and at a probe value of each. Both
enter a step additively (inside the engine's factor, beside the host's time, which a step takes
when longer) and a prefill additively, so every grid point is then arithmetic; the script checks
the arithmetic against the model at the constants it prints.
Run: python -m bench.serve_tpot_fit"""

from __future__ import annotations

import contextlib
import dataclasses

import numpy as np

from bench import serve_moe_step
from models import constants as C
from models.hardware import get_gpu
from models.serving.engines import ENGINE_OF_BACKEND, ENGINES
from models.shapes import get_preset
from models.validation import silicon

GRID = np.arange(0, 201) * 0.1e-6  # seconds per doubling
#: the probe values the second evaluation takes (above anything fitted)
PROBE_LAMBDA, PROBE_MOE = 20e-6, 200e-6


@contextlib.contextmanager
def constants(lam: dict[str, float], moe: float):
    """The model with these latencies per doubling (per engine) and MoE constant, then as it was;
    without the thirteenth and fourteenth amendments' terms between scale-up domains and the
    fifteenth's share of the others' prefills, which came after this fit
    (docs/reference/serving-evidence.md: no other constant is refitted)."""
    saved_engines, saved_moe = dict(ENGINES), C.SERVE_MOE_STEP_S_PER_LAYER
    try:
        for e in ENGINES:
            ENGINES[e] = dataclasses.replace(
                ENGINES[e],
                interdomain_gbyte_per_s=0.0,
                crossing=(0.0, 0.0, 0.0, 0.0),
                prefill_share_in_decode=1.0,
            )
        for e, value in lam.items():
            ENGINES[e] = dataclasses.replace(ENGINES[e], allreduce_s_per_doubling=value)
        C.SERVE_MOE_STEP_S_PER_LAYER = moe
        yield
    finally:
        ENGINES.clear()
        ENGINES.update(saved_engines)
        C.SERVE_MOE_STEP_S_PER_LAYER = saved_moe


def _rows() -> list[tuple[dict, dict]]:
    """(row, setup) of the tuning rows the rule reads: expressed, decode TP within one domain."""
    out = []
    for row in silicon.load_rows(weight_only=False):
        if silicon.held_out(row) or row["model_path"] in silicon.TWELFTH_MODELS:
            continue  # the twelfth amendment's models came after this fit
        setup, _ = silicon.expressible(row)
        if setup is None:
            continue
        if setup["pools"][-1].tp > get_gpu(setup["gpu"]).scaleup_domain_gpus:
            continue
        out.append((row, setup))
    return out


def _figures(rows) -> list[dict | None]:
    """Per row, the decode pool's t_step and the pool's t_prefill (None where refused)."""
    out = []
    for row, setup in rows:
        pool = setup["pools"][-1]
        try:
            f = silicon._figures(setup, row, pool)
            refused = silicon.predict(setup, row)[3]
        except silicon.InputError:
            out.append(None)
            continue
        out.append(None if refused else f)
    return out


def columns() -> dict[str, dict[str, np.ndarray]]:
    """Per engine, the columns each grid point is computed from (module docstring)."""
    rows = _rows()
    every = {e: 0.0 for e in ENGINES}
    with constants(every, 0.0):
        base = _figures(rows)
    with constants({e: PROBE_LAMBDA for e in ENGINES}, PROBE_MOE):
        probe = _figures(rows)
    cols: dict[str, dict[str, list]] = {e: {} for e in ENGINES}
    for (row, setup), f0, fp in zip(rows, base, probe, strict=True):
        if f0 is None:
            continue
        engine = ENGINE_OF_BACKEND[row["backend"]]
        shape, pool = get_preset(setup["model"]), setup["pools"][-1]
        factor = ENGINES[engine].decode_step_factor
        x = 2 * shape.layers * np.log2(pool.tp)  # all-reduces × doublings
        moe_layers = shape.moe_layers if shape.is_moe else 0
        host = pool.batch * C.SERVE_HOST_S_PER_SEQUENCE_STEP
        # the GPU's step at λ = 0 and no MoE constant (a host-bound row: from the probe, or never)
        if f0["t_step"] / factor > host * (1 + 1e-12):
            gpu0 = f0["t_step"] / factor
        elif fp["t_step"] / factor > host * (1 + 1e-12):
            gpu0 = fp["t_step"] / factor - PROBE_LAMBDA * x - PROBE_MOE * moe_layers
        else:
            gpu0 = -np.inf
        agg = row["mode"] == "agg"
        values = {
            "gpu0": gpu0,
            "host": host,
            "factor": factor,
            "x": x,
            "moe_layers": moe_layers,
            "prefill0": f0["t_prefill"],
            # the others' prefills per output token (aggregated rows only)
            "share": pool.batch / int(row["osl"]) if agg else 0.0,
            "measured": float(row["silicon_tpot_ms"]) / 1e3,
            "moe": shape.is_moe,
            "id": row["id"],
        }
        for k, v in values.items():
            cols[engine].setdefault(k, []).append(v)
    return {e: {k: np.array(v) for k, v in c.items()} for e, c in cols.items()}


def tpot(c: dict[str, np.ndarray], lam, moe: float) -> np.ndarray:
    """TPOT of every row of `c` at latencies per doubling `lam` (an array: one row of output each)
    and the MoE constant `moe`."""
    lam = np.asarray(lam, dtype=float)[..., None]
    added = lam * c["x"] + moe * c["moe_layers"]
    step = c["factor"] * np.maximum(c["gpu0"] + added, c["host"])
    return step + c["share"] * (c["prefill0"] + added)


def fit_lambda(c: dict[str, np.ndarray], moe: float) -> tuple[float, float]:
    """(λ, the median absolute TPOT error there): the first minimum over GRID."""
    errors = np.median(np.abs(tpot(c, GRID, moe) / c["measured"] - 1), axis=-1)
    i = int(np.argmin(errors))
    return float(GRID[i]), float(errors[i])


def fit() -> tuple[dict[str, float], float, dict[str, tuple[int, float]], int]:
    """(λ per engine, the MoE constant, per engine (rows, median absolute error), the MoE rule's
    rows), in the rule's order."""
    cols = columns()
    trt = cols["tensorrt-llm"]
    dense = {k: v[~trt["moe"]] for k, v in trt.items()}
    lam = {"tensorrt-llm": fit_lambda(dense, 0.0)[0]}  # no MoE row: the constant plays no part
    with constants({"tensorrt-llm": lam["tensorrt-llm"]}, C.SERVE_MOE_STEP_S_PER_LAYER):
        moe, moe_rows = serve_moe_step.fit()
    for engine in ("vllm", "sglang"):
        lam[engine] = fit_lambda(cols[engine], moe)[0]
    scores = {}
    for engine, c in cols.items():
        error = np.median(np.abs(tpot(c, lam[engine], moe) / c["measured"] - 1))
        scores[engine] = (len(c["measured"]), float(error))
    return lam, moe, scores, moe_rows


def check(lam: dict[str, float], moe: float) -> float:
    """The largest relative difference between the arithmetic and the model's TPOT
    (models/validation/silicon.py `predict`) at these constants, over the rows the rule reads."""
    cols = columns()
    rows = {row["id"]: (row, setup) for row, setup in _rows()}
    worst = 0.0
    with constants(lam, moe):
        for engine, c in cols.items():
            mine = tpot(c, lam[engine], moe)
            model = [silicon.predict(rows[i][1], rows[i][0])[0] / 1e3 for i in c["id"]]
            worst = max(worst, float(np.max(np.abs(mine / np.array(model) - 1))))
    return worst


def main() -> None:
    lam, moe, scores, moe_rows = fit()
    for engine, value in lam.items():
        rows, error = scores[engine]
        print(f"{engine:13} allreduce_s_per_doubling = {value * 1e6:4.1f} µs over {rows:,} tuning "
              f"rows (median |TPOT error| {error:.1%}); engines.py has "
              f"{ENGINES[engine].allreduce_s_per_doubling * 1e6:.1f} µs")  # fmt: skip
    print(f"SERVE_MOE_STEP_S_PER_LAYER = {moe * 1e6:.1f} µs over {moe_rows} tuning rows (the fifth "
          f"amendment's rule, TensorRT-LLM's λ in place); models/constants.py has "
          f"{C.SERVE_MOE_STEP_S_PER_LAYER * 1e6:.1f} µs")  # fmt: skip
    print(f"the arithmetic against the model at these constants: {check(lam, moe):.1e} at most")


if __name__ == "__main__":
    main()

"""Fits each ROCm build's time-to-first-token constants (models/serving/builds.py `ROCM_BUILDS`:
a, k, w in TTFT = a + t_prefill · (k + w · (C − 1)) + t_step) by the rule docs/reference/
serving-evidence.md fixed before the fit (seventeenth amendment): per engine and measured
version, the grid point a = 0 to 1,000 ms by 10 ms, k = 1 to 10 by 0.1, w = 0 to 5 by 0.01 that
minimises the median absolute TTFT error over its tuning rows of models/data/validation/
amd_serving.csv that give TTFT and that the model does not refuse; the first minimum in the grid's
order (a, then k, then w); fewer than 3 rows: not fitted. Then the adoption rule: adopted only if
that median is below the current form's (the CUDA engine's constants around the build's step).
Held-out rows are not read. t_prefill is the roofline's and t_step the build's decode step
(models/validation/amd.py `_parts`, the sixteenth amendment's k and s); the script checks the
grid's arithmetic against models/validation/amd.py `figures` at the constants it prints.
Run: python -m bench.serve_rocm_ttft_fit"""

from __future__ import annotations

import numpy as np

from models.serving import builds
from models.serving.engines import ENGINES
from models.validation import amd

GRID_A = np.arange(0, 101) * 10e-3  # seconds
GRID_K = np.round(1 + np.arange(0, 91) * 0.1, 1)
GRID_W = np.round(np.arange(0, 501) * 0.01, 2)
MIN_ROWS = 3


def tuning_rows(engine: str, version: str) -> list[dict]:
    """The build's tuning rows that give TTFT and fit (the version its costs resolve to)."""
    out = []
    for r in amd.load_rows():
        if r["engine"] != engine or amd.held_out(r) or not r["ttft_ms"]:
            continue
        if (
            amd._build(r).costs_version == version
            and amd.same_line(r, version)
            and amd.figures(r, 1.0, 0.0) is not None
        ):
            out.append(r)
    return out


def columns(rows: list[dict], k_s: tuple[float, float] | None = None) -> np.ndarray:
    """(t_prefill s, t_step s, requests in flight, measured TTFT s) per row, t_step the build's
    (all its step terms; or at the step costs `k_s` given: a candidate build's,
    bench/serve_rocm_current_fit.py)."""
    cols = []
    for r in rows:
        p = amd.parts(r)
        own = amd.costs(r, "after") + amd.terms(r, "after")  # the build's (k, s, m, c)
        step = amd.step_s(p, *(k_s or own))
        cols.append((p.t_prefill, step, p.batch, float(r["ttft_ms"]) / 1e3))
    return np.array(cols)


def fit(cols: np.ndarray) -> tuple[float, float, float, float]:
    """(a s, k, w, the median absolute error there): the rule's grid point (module docstring)."""
    t_prefill, t_step, in_flight, measured = cols.T
    errors = np.empty((len(GRID_A), len(GRID_K), len(GRID_W)))
    for j, w in enumerate(GRID_W):
        prefill = t_prefill * (GRID_K[None, :, None] + w * (in_flight - 1))
        predicted = GRID_A[:, None, None] + prefill + t_step
        errors[:, :, j] = np.median(np.abs(predicted / measured - 1), axis=2)
    i, k, j = np.unravel_index(int(np.argmin(errors)), errors.shape)  # first minimum, C order
    return float(GRID_A[i]), float(GRID_K[k]), float(GRID_W[j]), float(errors[i, k, j])


def current_error(engine: str, cols: np.ndarray) -> float:
    """The median absolute TTFT error of the current form: the CUDA engine's constants."""
    spec = ENGINES[engine]
    t_prefill, t_step, in_flight, measured = cols.T
    share = spec.ttft_prefill_factor + spec.ttft_wave_share * (in_flight - 1)
    predicted = spec.ttft_fixed_s + t_prefill * share + t_step
    return float(np.median(np.abs(predicted / measured - 1)))


def main() -> None:
    for engine, versions in builds.ROCM_BUILDS.items():
        for build in versions:
            rows = tuning_rows(engine, build.version)
            if len(rows) < MIN_ROWS:
                print(f"{engine} {build.version}: {len(rows)} tuning rows with TTFT; not fitted")
                continue
            cols = columns(rows)
            a, k, w, error = fit(cols)
            before = current_error(engine, cols)
            check = [amd.figures(r, *amd.costs(r, "after"))["tpot_ms"] for r in rows]
            assert np.all(np.isfinite(check)), "a row the model refuses was fitted on"
            verdict = "adopt" if error < before else "keep the current form"
            print(
                f"{engine} {build.version}: a = {a * 1e3:.0f} ms, k = {k:.1f}, w = {w:.2f} "
                f"({len(rows)} tuning rows; median |TTFT error| {error:.1%} against {before:.1%} "
                f"with the CUDA engine's constants: {verdict}); committed: {getattr(build, 'ttft', None)}"
            )


if __name__ == "__main__":
    main()

"""The whole-run expectation: what a pre-training run costs beyond its steady state.

The steady state (step-time physics x steps, stretched by the modelled goodput) is scored at 4.7 %
median on published layouts; whole published runs take longer (restarts beyond the modelled failures,
evaluation and checkpoint pauses, data stalls, warm-up and schedule phases, an allocation not fully
used). No public source splits these, so one factor stands for all of them, its form fixed in writing
before it was fitted (docs/reference/whole-run-model.md, committed 2026-12-02):

    F(N_active, G) = max(1, exp(a + b · log10(N_active / 1e9) + c · log10(G)))
    whole-run GPU-hours = F · steady-state GPU-hours;  whole-run days = F · steady-state days

with N_active and G held inside the range of the fitted runs (WHOLE_RUN_RANGE; amendment 1 of the
form file). (a, b, c) = WHOLE_RUN_FIT (models/constants.py), fitted by least absolute deviations
(`fit_whole_run`) on the published whole runs of models/data/validation/whole_runs_heldout.csv;
`bench/whole_run_fit.py` reproduces the fit and its leave-one-out scores. The band on the days
(`whole_run_band`) is the split-conformal band of the leave-one-out errors, per size class by
ACTIVE parameters (a MoE is classed by what it computes per token, not by its total).
"""

from __future__ import annotations

import math

import numpy as np

from models.constants import (
    BAND_SIZE_CLASSES,
    WHOLE_RUN_BAND_BY_SIZE,
    WHOLE_RUN_FIT,
    WHOLE_RUN_RANGE,
)

#: IRLS iterations and the floor on |residual| in the weights (docs/reference/whole-run-model.md)
LAD_ITERATIONS = 200
LAD_EPSILON = 1e-6


def features(params_active: float, gpus: int) -> tuple[float, float, float]:
    """The fit's regressors of one run: (1, log10(N_active / 1e9), log10(G))."""
    return (1.0, math.log10(params_active / 1e9), math.log10(max(gpus, 1)))


def whole_run_factor(
    params_active: float, gpus: int, fit: tuple[float, float, float] = WHOLE_RUN_FIT
) -> float:
    """F = max(1, exp(a + b·log10(N_active/1e9) + c·log10(G))): whole-run over steady-state time,
    with N_active and G held inside the fitted runs' range (WHOLE_RUN_RANGE: no extrapolation)."""
    (n_lo, n_hi), (g_lo, g_hi) = WHOLE_RUN_RANGE
    x = features(min(max(params_active, n_lo), n_hi), min(max(gpus, g_lo), g_hi))
    return max(1.0, math.exp(sum(p * v for p, v in zip(fit, x, strict=True))))


def fit_whole_run(
    params_active: list[float], gpus: list[int], log_ratio: list[float]
) -> tuple[float, float, float]:
    """(a, b, c) minimising Σ|y − a − b·x1 − c·x2| with y = ln(published / steady-state GPU-hours):
    least absolute deviations (median regression) by iteratively reweighted least squares, weights
    1/max(|r|, LAD_EPSILON), LAD_ITERATIONS rounds from the ordinary least-squares start."""
    x = np.array([features(p, g) for p, g in zip(params_active, gpus, strict=True)])
    y = np.asarray(log_ratio, dtype=float)
    beta = np.linalg.lstsq(x, y, rcond=None)[0]
    for _ in range(LAD_ITERATIONS):
        w = 1.0 / np.maximum(np.abs(y - x @ beta), LAD_EPSILON)
        beta = np.linalg.solve(x.T @ (x * w[:, None]), x.T @ (w * y))
    return (float(beta[0]), float(beta[1]), float(beta[2]))


def size_class(params_active: float) -> str:
    """The band's size class of a model (constants.BAND_SIZE_CLASSES) by its ACTIVE parameters: the
    first class whose upper bound exceeds them (a 17B-active MoE of 109B total is under 20B)."""
    return next(name for name, upper in BAND_SIZE_CLASSES if params_active < upper)


def whole_run_band(params_active: float) -> tuple[float, float]:
    """(low, high) signed GPU-hours error of the whole-run expectation on published runs of this
    active-size class, leave one out (WHOLE_RUN_BAND_BY_SIZE)."""
    return WHOLE_RUN_BAND_BY_SIZE[size_class(params_active)]


def days_range(days: float, params_active: float) -> tuple[float, float]:
    """Likely wall-clock days: days / (1 + high) … days / (1 + low) of the model's active-size class."""
    low, high = whole_run_band(params_active)
    return days / (1 + high), (days / (1 + low) if low > -1 else math.inf)

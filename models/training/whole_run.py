"""The whole-run expectation: what a pre-training run costs beyond its steady state.

The steady state (step-time physics x steps, stretched by the modelled goodput) is scored at 4.7 %
median on published layouts; whole published runs take longer (restarts beyond the modelled failures,
evaluation and checkpoint pauses, data stalls, warm-up and schedule phases, an allocation not fully
used). No public source splits these, so one factor stands for all of them, its form fixed in writing
before it was fitted (docs/reference/whole-run-model.md, committed 2026-12-02):

    F = max(1, exp(a + b · log10(N_active / 1e9) + c · log10(G) + s · [stack = fsdp-zero]))
    whole-run GPU-hours = F · steady-state GPU-hours;  whole-run days = F · steady-state days

(form C9 of amendment 5: C3's regressors with each source group weighted equally in the fit, chosen
among five candidates by a rule fixed before any was fitted, which also requires whole-run days
that do not rise as the GPU count doubles),
with N_active and G held inside the range of the fitted runs (WHOLE_RUN_RANGE; amendments 1, 3, 5).
N_active: parameters active per token; G: the plan's GPU count; the indicator is 1 where the plan's
software stack is FSDP / ZeRO sharded data parallel (GENERIC_STACK). (a, b, c, s) = WHOLE_RUN_FIT
(models/constants.py), fitted by source-weighted least absolute deviations (`fit_whole_run`) on the
61 published whole runs of models/data/validation/whole_runs_heldout.csv and whole_runs_added.csv to
whole_runs_added4.csv; `bench/whole_run_fit.py --candidates` reproduces every candidate's fit and
leave-one-source-out scores. The band on the days (`whole_run_band`) is the split-conformal band of
the leave-one-source-out errors, per size class by ACTIVE parameters (a MoE is classed by what it computes per
token, not by its total).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from models.constants import (
    BAND_SIZE_CLASSES,
    WHOLE_RUN_BAND_BY_SIZE,
    WHOLE_RUN_FIT,
    WHOLE_RUN_FORM,
    WHOLE_RUN_RANGE,
)

#: IRLS iterations and the floor on |residual| in the weights (docs/reference/whole-run-model.md)
LAD_ITERATIONS = 200
LAD_EPSILON = 1e-6

#: The candidate forms of amendment 3 (docs/reference/whole-run-model.md): each form's regressors
#: after the constant, by name (FEATURES says how each is computed from what the plan knows).
FORMS = {
    "C0": ("params", "gpus"),
    "C1": ("gpus", "mfu"),
    "C2": ("params", "gpus", "mfu"),
    "C3": ("params", "gpus", "fsdp"),
    "C4": ("params", "gpus", "days"),
    # amendment 5: C8 and C9 are C0 and C3 fitted with each source weighted equally (WEIGHTED)
    "C8": ("params", "gpus"),
    "C9": ("params", "gpus", "fsdp"),
    "C10": ("params", "gpus", "a100"),
}
#: the forms fitted with equal weight per source group (amendment 5): each run weighs 1 / its group's
#: run count in the least-absolute-deviations fit
WEIGHTED = frozenset({"C8", "C9", "C10"})
#: the software stack whose plans get the C3 indicator
GENERIC_STACK = "fsdp-zero"
#: the GPUs of the A100 generation, whose plans get the C10 indicator (amendment 5)
A100_ERA = frozenset({"A100-40GB", "A100-80GB", "A800", "MI250X"})


class RunFeatures(NamedTuple):
    """What the plan knows at a GPU count: active parameters, the count, and the steady state the
    planner computed there (its MFU before goodput, its days with goodput, its software stack)."""

    params_active: float
    gpus: int
    mfu: float | None = None
    steady_days: float | None = None
    stack: str | None = None
    gpu: str | None = None


def _value(name: str, run: RunFeatures) -> float:
    if name == "params":
        return math.log10(run.params_active / 1e9)
    if name == "gpus":
        return math.log10(max(run.gpus, 1))
    if name == "fsdp":
        return float(run.stack == GENERIC_STACK)
    if name == "a100":
        return float(run.gpu in A100_ERA)
    raw = run.mfu if name == "mfu" else run.steady_days
    if raw is None or raw <= 0:
        raise ValueError(f"the whole-run form needs the plan's {name} (got {raw})")
    return math.log10(raw)


def held(run: RunFeatures, ranges: dict[str, tuple[float, float]]) -> RunFeatures:
    """The run with each continuous feature held inside `ranges` (no extrapolation: amendments 1, 3)."""

    def clip(name: str, v):
        if v is None or name not in ranges:
            return v
        lo, hi = ranges[name]
        return min(max(v, lo), hi)

    return run._replace(
        params_active=clip("params", run.params_active),
        gpus=clip("gpus", run.gpus),
        mfu=clip("mfu", run.mfu),
        steady_days=clip("days", run.steady_days),
    )


#: how each regressor reads in a formula (formula_text), `*` for the product
TERMS = {
    "params": "log10(N_active/1e9)",
    "gpus": "log10(GPUs)",
    "mfu": "log10(steady MFU)",
    "days": "log10(steady days)",
    "fsdp": f"[stack = {GENERIC_STACK}]",
    "a100": "[A100-era GPU]",
}


def formula_text(
    fit: tuple[float, ...] = WHOLE_RUN_FIT, form: str = WHOLE_RUN_FORM, digits: int = 4, times="*"
) -> str:
    """The committed F written out with its parameters: max(1, exp(a + b*x1 + ...))."""
    terms = [f"{fit[0]:+.{digits}f}"]
    terms += [
        f"{p:+.{digits}f}{times}{TERMS[n]}" for p, n in zip(fit[1:], FORMS[form], strict=True)
    ]
    return f"max(1, exp({' '.join(terms)}))"


def needs_steady_state(form: str = WHOLE_RUN_FORM) -> bool:
    """Whether the form reads the steady state at the count (its MFU or days), not only its inputs."""
    return bool({"mfu", "days"} & set(FORMS[form]))


def features(run: RunFeatures, form: str = WHOLE_RUN_FORM) -> tuple[float, ...]:
    """The fit's regressors of one run for a form: (1, then FORMS[form] in log10, or the indicator)."""
    return (1.0, *(_value(n, run) for n in FORMS[form]))


def whole_run_factor(
    run: RunFeatures,
    fit: tuple[float, ...] = WHOLE_RUN_FIT,
    form: str = WHOLE_RUN_FORM,
    ranges: dict[str, tuple[float, float]] = WHOLE_RUN_RANGE,
) -> float:
    """F = max(1, exp(β · x)) with x = features(run, form), whole-run over steady-state time, each
    continuous feature held inside the fitted runs' range (WHOLE_RUN_RANGE: no extrapolation)."""
    x = features(held(run, ranges), form)
    return max(1.0, math.exp(sum(p * v for p, v in zip(fit, x, strict=True))))


def fit_whole_run(
    runs: list[RunFeatures],
    log_ratio: list[float],
    form: str = WHOLE_RUN_FORM,
    weights: list[float] | None = None,
) -> tuple[float, ...]:
    """β minimising Σ wᵢ|yᵢ − β · xᵢ| with y = ln(published / steady-state GPU-hours): least absolute
    deviations (median regression) by iteratively reweighted least squares, weights
    wᵢ/max(|rᵢ|, LAD_EPSILON) (wᵢ = 1 unless given), LAD_ITERATIONS rounds from the weighted
    least-squares start."""
    x = np.array([features(r, form) for r in runs])
    y = np.asarray(log_ratio, dtype=float)
    v = np.ones(len(y)) if weights is None else np.asarray(weights, dtype=float)
    root = np.sqrt(v)
    beta = np.linalg.lstsq(x * root[:, None], y * root, rcond=None)[0]
    for _ in range(LAD_ITERATIONS):
        w = v / np.maximum(np.abs(y - x @ beta), LAD_EPSILON)
        beta = np.linalg.solve(x.T @ (x * w[:, None]), x.T @ (w * y))
    return tuple(float(b) for b in beta)


def size_class(params_active: float) -> str:
    """The band's size class of a model (constants.BAND_SIZE_CLASSES) by its ACTIVE parameters: the
    first class whose upper bound exceeds them (a 17B-active MoE of 109B total is under 20B)."""
    return next(name for name, upper in BAND_SIZE_CLASSES if params_active < upper)


def whole_run_band(params_active: float) -> tuple[float, float]:
    """(low, high) signed GPU-hours error of the whole-run expectation on published runs of this
    active-size class, leave one source out (WHOLE_RUN_BAND_BY_SIZE)."""
    return WHOLE_RUN_BAND_BY_SIZE[size_class(params_active)]


def days_range(days: float, params_active: float) -> tuple[float, float]:
    """Likely wall-clock days: days / (1 + high) … days / (1 + low) of the model's active-size class."""
    low, high = whole_run_band(params_active)
    return days / (1 + high), (days / (1 + low) if low > -1 else math.inf)

"""Fits, by the rule docs/reference/serving-evidence.md fixed before the fit (twenty-ninth
amendment), each CUDA engine's and model class's (dense, MoE) constants for a planned service's own
first token (models/serving/engines.py `service_ttft`):

    own = a + k · t_prefill + t_step

identified on AIConfigurator's aggregated tuning rows whose requests in flight on the prefill
server C are at most MAX_IN_FLIGHT, with the ninth amendment's form a + t_prefill · (k + w · (C − 1))
+ t_step, w held at the engine's fitted wave share (`ttft_wave_share`, identified over rows from 1
to 512 in flight; the amendment's correction before any score: with w free, the rows, most at C =
4, do not tell k from w): the grid point (a 0 to 300 ms by 5 ms, k 0.30 to 6.00 by 0.05)
minimising the median |TTFT error|, the first minimum in the order a, k. Adopted per engine and class only with at
least MIN_ROWS rows and a median at least MIN_GAIN below the current constants' (the ninth and
eighteenth amendments' form at each row's C). Held-out and unseen rows are not read: the split is
filtered first (bench/serve_trt_ttft_fit.py `_row`). Run: python -m bench.serve_lone_ttft_fit"""

from __future__ import annotations

import numpy as np

from bench.serve_trt_ttft_fit import _row, ttft
from bench.serve_ttft_fit import GRID_A, fit
from models.serving.engines import ENGINE_OF_BACKEND, ENGINES
from models.validation import silicon

GRID_K = np.round(0.30 + np.arange(0, 115) * 0.05, 2)
#: the rows that identify a lone request's prefill: at most this many requests in flight
MAX_IN_FLIGHT = 4
#: the least rows of a class, and the least gain in points of its median |TTFT error|, to adopt
MIN_ROWS = 20
MIN_GAIN = 0.03
CLASSES = ("dense", "moe")


def rows(split: str = "tuning") -> dict[tuple[str, str], np.ndarray]:
    """Per (engine, class), `_row`'s columns of the aggregated rows of `split` ("tuning", or after
    the constants were committed "held out" / "unseen": `score_once`) with C ≤ MAX_IN_FLIGHT (the
    split filtered first)."""
    out: dict[tuple[str, str], list] = {(e, c): [] for e in ENGINES for c in CLASSES}
    for row in silicon.load_rows(weight_only=False):
        if (
            silicon.split_name(row["system"], silicon.held_out(row)) != split
            or row["mode"] != "agg"
        ):
            continue
        cols = _row(row)
        if cols is not None and cols[2] <= MAX_IN_FLIGHT:
            out[(ENGINE_OF_BACKEND[row["backend"]], CLASSES[int(cols[4])])].append(cols)
    return {key: np.array(v) for key, v in out.items() if v}


def current_errors(engine: str, cols: np.ndarray) -> np.ndarray:
    """The current constants' TTFT errors (ninth and eighteenth amendments) on `_row` columns."""
    spec = ENGINES[engine]
    m, a = spec.ttft_moe_prefill_factor, spec.ttft_fixed_s
    return ttft(cols, m, a, spec.ttft_prefill_factor, spec.ttft_wave_share) / cols[:, 3] - 1


def fit_class(engine: str, cols: np.ndarray) -> tuple[float, float, float, float]:
    """(a s, k, w, median |error|) of one engine's and class's rows, w the engine's wave share
    (module docstring)."""
    w = np.array([ENGINES[engine].ttft_wave_share])
    return fit(cols[:, :4], GRID_A, GRID_K, w)


def adopted(rows_of_class: int, before: float, error: float) -> bool:
    """The rule: at least MIN_ROWS rows and MIN_GAIN below the current constants' median."""
    return rows_of_class >= MIN_ROWS and before - error >= MIN_GAIN


def main() -> None:
    for (engine, cls), cols in rows().items():
        a, k, w, error = fit_class(engine, cols)
        before = float(np.median(np.abs(current_errors(engine, cols))))
        verdict = "adopted" if adopted(len(cols), before, error) else "not adopted"
        print(f"{engine:13} {cls:5} {len(cols):4} rows: a = {a * 1e3:3.0f} ms  k = {k:.2f}  "
              f"w = {w:.3f}  median |TTFT error| {before:.1%} -> {error:.1%}  {verdict}")  # fmt: skip


def score_once() -> None:
    """The amendment's one score, after its constants were committed: per engine and class, the
    held-out and unseen aggregated rows with C ≤ MAX_IN_FLIGHT, the current constants against the
    adopted (a, k) with the engine's w, in the wave form (benchmark scores do not change)."""
    for split in ("held out", "unseen"):
        for (engine, cls), cols in rows(split).items():
            spec = ENGINES[engine]
            a, k = spec.own_first_token(cls == "moe")  # fitted on the class: no MoE factor
            after = ttft(cols, 1.0, a, k, spec.ttft_wave_share) / cols[:, 3] - 1
            before = current_errors(engine, cols)
            print(f"{split:8} {engine:13} {cls:5} {len(cols):4} rows: median |TTFT error| "
                  f"{np.median(np.abs(before)):.1%} -> {np.median(np.abs(after)):.1%}, signed "
                  f"{np.median(before):+.1%} -> {np.median(after):+.1%}")  # fmt: skip


if __name__ == "__main__":
    import sys

    score_once() if sys.argv[1:] == ["--score-once"] else main()

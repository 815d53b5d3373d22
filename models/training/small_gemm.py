"""Small models on large clusters: what the step model adds where the per-GPU work is small.

Three terms, their form written before scoring in docs/reference/training.md section 7, their
constants fixed on llm-foundry's measured MPT 125M-3B throughput (models/data/small_model_steps.csv,
mosaicml/llm-foundry scripts/train/benchmarking/README.md; `bench/small_model_fit.py`):

- GEMM size: a layer GEMM takes 1 + (D0 / d)^2 times its large-GEMM time, d = min(hidden / sqrt(tp),
  T), the geometric mean of its two weight dimensions under tensor parallelism capped by the tokens
  of one micro-batch on one GPU (tile and wave quantization: stas00/ml-engineering
  training/performance/README.md "Tile and wave quantization");
- under ZeRO-3 (FSDP) a fixed cost per micro-batch, c_mb · m (per-unit re-gather and hooks);
- a latency per hop of each data-parallel collective call, c_hop · 2⌈log2(dp·cp)⌉ · calls, with
  3 · layers on the stage · m calls under ZeRO-3 (all-gather forward, all-gather and reduce-scatter
  backward per layer unit) and 2 · layers on the stage otherwise (a reduce-scatter and an all-gather
  per layer-sized bucket, once a step: a planner assumption), counted as exposed.

`step_time.py` calls `gemm_size_factor` for its layer GEMMs and `fixed_per_step_s` for the step.
The terms are OFF by default (their constants 0; constants.SMALL_MODEL_TERMS_FITTED holds the
fitted values, `small_model_terms_on` applies them): see docs/reference/training.md section 7.
"""

from __future__ import annotations

import contextlib

import numpy as np

from models import constants as C
from models.training.job import Job
from models.training.layouts import Layouts


def gemm_size_factor(job: Job, lay: Layouts, tokens_per_microbatch) -> np.ndarray:
    """1 + (SMALL_GEMM_D0 / d)^2 per layout, d = min(hidden / sqrt(tp), T)."""
    d = np.minimum(job.shape.hidden / np.sqrt(lay.tp.astype(float)), tokens_per_microbatch)
    return 1.0 + (C.SMALL_GEMM_D0 / np.maximum(d, 1.0)) ** 2


def dp_collective_calls(lay: Layouts, layers_on_stage) -> np.ndarray:
    """Data-parallel collective calls per step: 3 · layers · m under ZeRO-3, else 2 · layers."""
    zero3 = lay.zero >= 3
    return np.where(zero3, 3.0 * layers_on_stage * lay.microbatches, 2.0 * layers_on_stage)


def fixed_per_step_s(job: Job, lay: Layouts, dp_ranks, layers_on_stage) -> np.ndarray:
    """Seconds per step that do not shrink with the per-GPU work: c_mb · m under ZeRO-3 plus
    c_hop · 2⌈log2(dp·cp)⌉ · calls (zero for a single data-parallel rank)."""
    n = np.asarray(dp_ranks, dtype=float)
    hops = np.where(n > 1, 2 * np.ceil(np.log2(np.maximum(n, 1))), 0.0)
    per_mb = np.where(lay.zero >= 3, C.ZERO3_MICROBATCH_FIXED_S * lay.microbatches, 0.0)
    latency = C.DP_COLLECTIVE_HOP_EXTRA_S * hops * dp_collective_calls(lay, layers_on_stage)
    return per_mb + latency + np.zeros(len(lay))


@contextlib.contextmanager
def small_model_terms_on():
    """The terms at their fitted values (constants.SMALL_MODEL_TERMS_FITTED), restored on exit:
    for the tests, the bench and a team's trial before the terms are turned on for everyone."""
    saved = {k: getattr(C, k) for k in C.SMALL_MODEL_TERMS_FITTED}
    try:
        for k, v in C.SMALL_MODEL_TERMS_FITTED.items():
            setattr(C, k, v)
        yield
    finally:
        for k, v in saved.items():
            setattr(C, k, v)

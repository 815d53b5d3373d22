"""Small models on large clusters: what the step model adds where the per-GPU work is small.

Three terms, their form written before scoring in docs/reference/training.md section 7, their
constants fixed on llm-foundry's measured MPT 125M-3B throughput (models/data/small_model_steps.csv,
mosaicml/llm-foundry scripts/train/benchmarking/README.md; `bench/small_model_fit.py`):

- GEMM size (second form, section 7.2): each of a layer's four linear GEMMs, M × K × N, takes
  1 + (D0 / d)^2 times its large-GEMM time with d = (M·N·K)^(1/3), the cube root of its volume,
  weighted by FLOPs over the four (tile and wave quantization: stas00/ml-engineering
  training/performance/README.md "Tile and wave quantization"); the first form's
  d = min(hidden / sqrt(tp), T) treated a TP-split GEMM of a large model as small;
- under ZeRO-3 (FSDP) a fixed cost per micro-batch, c_mb · m (per-unit re-gather and hooks);
- under ZeRO-3 only, a latency per hop of each data-parallel collective call,
  c_hop · 2⌈log2(dp·cp)⌉ · 3 · layers on the stage · m (all-gather forward, all-gather and
  reduce-scatter backward per layer unit), counted as exposed; other layouts keep the fabric's α
  (the first form's 2 · layers calls a step for them was a planner assumption no row measured).

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


def layer_gemm_dims(job: Job, lay: Layouts, tokens_per_microbatch) -> list[tuple]:
    """(M, K, N) of a layer's four linear GEMMs per micro-batch on one GPU, one array per dimension
    where it varies by layout: QKV T × h × (h + kv_width)/tp, attention output T × h/tp × h, MLP in
    T × h × f·(gate − 1)/tp, MLP out T × f/tp × h (the widths of step_time's `linear_flops`)."""
    s = job.shape
    h, tp = float(s.hidden), lay.tp.astype(float)
    T = np.asarray(tokens_per_microbatch, dtype=float)
    kv_width = 2 * s.kv_heads * s.head_dim
    f, gate = float(job.mlp_tokens_width), (3 if s.gated_mlp else 2)
    return [
        (T, h, (h + kv_width) / tp),
        (T, h / tp, h),
        (T, h, f * (gate - 1) / tp),
        (T, f / tp, h),
    ]


def gemm_size_factor(job: Job, lay: Layouts, tokens_per_microbatch) -> np.ndarray:
    """Per layout, the layer GEMMs' time over their large-GEMM time (training.md 7.2): each GEMM
    takes 1 + (SMALL_GEMM_D0 / d)^2 with d = (M·N·K)^(1/3), the cube root of its volume, and the
    layer's factor is the four weighted by their FLOPs (2·M·N·K each)."""
    volume = np.zeros(len(lay))
    slowed = np.zeros(len(lay))
    for m, k, n in layer_gemm_dims(job, lay, tokens_per_microbatch):
        v = m * k * n
        d = np.maximum(np.cbrt(v), 1.0)
        volume = volume + v
        slowed = slowed + v * (1.0 + (C.SMALL_GEMM_D0 / d) ** 2)
    return slowed / volume


def dp_collective_calls(lay: Layouts, layers_on_stage) -> np.ndarray:
    """Data-parallel collective calls per step that pay the extra per-hop latency: 3 · layers · m
    under ZeRO-3 (FSDP), 0 otherwise (training.md 7.2: no source row measured the other stacks)."""
    zero3 = lay.zero >= 3
    return np.where(zero3, 3.0 * layers_on_stage * lay.microbatches, 0.0)


def fixed_per_step_s(job: Job, lay: Layouts, dp_ranks, layers_on_stage) -> np.ndarray:
    """Seconds per step that do not shrink with the per-GPU work, ZeRO-3 layouts only:
    c_mb · m + c_hop · 2⌈log2(dp·cp)⌉ · 3 · layers · m (hops zero for a single data-parallel rank)."""
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

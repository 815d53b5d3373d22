"""Parallel layouts as columns of numpy arrays, and the enumeration of every valid one.

A layout is (tp, pp, dp, ep, zero, recompute, micro_batch, interleave, sequence_parallel, cp) with
tp·cp·pp·dp = GPUs. Validity rules (Megatron-LM conventions):
- tp is a power of two that divides the attention heads and stays inside the scale-up domain;
- pp ≤ layers; with interleaving v > 1, pp·v ≤ layers (uneven chunks allowed, the busiest stage
  gets ceil(L/(pp·v)) layers per chunk) and the micro-batches divide into pp;
- the global batch is m·dp·micro_batch sequences for a whole number m of micro-batches per pipeline,
  within BATCH_TOLERANCE of the batch asked for (practitioners round the batch to fit the layout,
  so a GPU count that does not divide it is not penalised beyond that rounding);
- ep divides both dp and the expert count;
- ZeRO-2/3 shard gradients and weights across data-parallel ranks, which pipelining forbids
  (DeepSpeed), so with pp > 1 only ZeRO 0/1 (Megatron's distributed optimizer) is allowed;
- context parallelism cp splits every sequence over cp ranks ("the total number of GPUs equals
  TPxCPxPPxDP", Megatron-LM docs/source/api-guide/context_parallel.rst): the candidates are given
  by the caller (search.context_parallel), 1 unless the sequence is long.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, fields
from enum import IntEnum

import numpy as np


class Recompute(IntEnum):
    """Activation recomputation, as the code stored in Layouts.recompute: none keeps every
    activation, selective recomputes the attention core, full repeats each layer's forward,
    op_sac is torchtitan's per-op selective checkpointing (every other matmul and every
    element-wise op recomputed, the attention output kept; models/training/recompute.py)."""

    NONE = 0
    SELECTIVE = 1
    FULL = 2
    OP_SAC = 3


#: the modes' names by code, as the scenario, the tables and the validation data write them
RECOMPUTE_MODES = tuple(mode.name.lower() for mode in Recompute)
#: the modes the planner's layout search (and a fine-tune's "fastest that fits") chooses among:
#: Megatron-Core's (--recompute-granularity selective/full). op_sac is torchtitan's and only a
#: published plan that names it uses it.
SEARCH_RECOMPUTE_MODES = ("none", "selective", "full")
MICRO_BATCHES = (1, 2, 4, 8, 16, 32)
INTERLEAVES = (1, 2, 3, 4, 6, 8)
ZERO_STAGES = (0, 1, 2, 3)
BATCH_TOLERANCE = 0.125


@dataclass(frozen=True)
class Layouts:
    """One layout per index; every field an int64 array of the same length."""

    tp: np.ndarray
    pp: np.ndarray
    dp: np.ndarray
    ep: np.ndarray
    zero: np.ndarray
    recompute: np.ndarray  # Recompute codes
    micro_batch: np.ndarray  # sequences per micro-batch
    interleave: np.ndarray
    sequence_parallel: np.ndarray  # 0/1
    microbatches: np.ndarray  # m per pipeline per step; global batch = m·dp·micro_batch sequences
    #: context-parallel ranks each sequence is split over (1: none); weights are replicated over
    #: them, so gradients are reduced over dp·cp ranks
    cp: np.ndarray | None = None

    def __post_init__(self):
        if self.cp is None:
            object.__setattr__(self, "cp", np.ones_like(self.tp))

    def __len__(self) -> int:
        return int(self.tp.shape[0])

    def take(self, index) -> Layouts:
        return Layouts(**{f.name: getattr(self, f.name)[index] for f in fields(self)})

    def row(self, i: int) -> dict:
        d = {f.name: int(getattr(self, f.name)[i]) for f in fields(self)}
        d["recompute"] = RECOMPUTE_MODES[d["recompute"]]
        d["sequence_parallel"] = bool(d["sequence_parallel"])
        d["global_batch_seqs"] = d["microbatches"] * d["dp"] * d["micro_batch"]
        return d

    @property
    def batch_seqs(self) -> np.ndarray:
        return self.microbatches * self.dp * self.micro_batch

    @classmethod
    def single(cls, global_batch_seqs: int, **values) -> Layouts:
        """One explicit layout, e.g. a published configuration to check the model against."""
        values = dict(values)
        values.setdefault("ep", 1)
        values.setdefault("zero", 0)
        values.setdefault("interleave", 1)
        values.setdefault("micro_batch", 1)
        values.setdefault("recompute", "none")
        if isinstance(values.get("recompute"), str):
            values["recompute"] = RECOMPUTE_MODES.index(values["recompute"])
        values.setdefault("sequence_parallel", int(values["tp"] > 1))
        values.setdefault("cp", 1)
        values["microbatches"] = global_batch_seqs // (values["dp"] * values["micro_batch"])
        return cls(**{k: np.array([int(v)], dtype=np.int64) for k, v in values.items()})


def _divisors(n: int, limit: int) -> np.ndarray:
    small = [d for d in range(1, int(n**0.5) + 1) if n % d == 0]
    both = set(small) | {n // d for d in small}
    return np.array(sorted(d for d in both if d <= limit), dtype=np.int64)


def _powers_of_two(limit: int) -> np.ndarray:
    return np.array([1 << i for i in range(0, 31) if (1 << i) <= limit], dtype=np.int64)


def enumerate_layouts(**kw) -> Layouts:
    """Every valid layout for this GPU count and global batch (`_enumerate`'s, cached: a portfolio's
    workloads of one model and GPU count search the same grid; the arrays are read-only)."""
    return _enumerate(**kw)


#: a few grids: one plan searches the same GPU count more than once (the smallest fitting count, then
#: the best layout); a MoE grid is up to about 10 MB, so at most about 80 MB are kept
@functools.lru_cache(maxsize=8)
def _enumerate(
    *,
    gpus: int,
    global_batch_seqs: int,
    layers: int,
    heads: int,
    experts: int,
    scaleup_domain_gpus: int,
    cp_candidates: tuple[int, ...] = (1,),
) -> Layouts:
    """Every valid layout for this GPU count and global batch, built and filtered with numpy."""
    tp_c = _powers_of_two(min(scaleup_domain_gpus, heads, gpus))
    tp_c = tp_c[heads % tp_c == 0]
    pp_c = _divisors(gpus, layers)
    ep_c = _divisors(experts, experts) if experts > 1 else np.array([1], dtype=np.int64)
    grids = np.meshgrid(
        tp_c,
        pp_c,
        ep_c,
        np.array(ZERO_STAGES),
        np.array([RECOMPUTE_MODES.index(mode) for mode in SEARCH_RECOMPUTE_MODES]),
        np.array(MICRO_BATCHES),
        np.array(INTERLEAVES),
        *([np.array(cp_candidates, dtype=np.int64)] if len(cp_candidates) > 1 else []),
        indexing="ij",
    )
    tp, pp, ep, zero, rec, mb, v, *cps = (g.ravel().astype(np.int64) for g in grids)
    cp = cps[0] if cps else cp_candidates[0]
    model_gpus = tp * pp * cp
    ok = gpus % model_gpus == 0
    dp = np.where(ok, gpus // np.maximum(model_gpus, 1), 0)
    ok &= dp >= 1
    per_m = np.maximum(dp * mb, 1)
    m = np.maximum(np.rint(global_batch_seqs / per_m), 1).astype(np.int64)
    ok &= np.abs(m * per_m - global_batch_seqs) <= BATCH_TOLERANCE * global_batch_seqs
    ok &= (dp % ep == 0) & (experts % ep == 0)
    ok &= (pp == 1) | (zero <= 1)
    ok &= (v == 1) | ((pp > 1) & (pp * v <= layers) & (m % pp == 0))
    keep = np.nonzero(ok)[0]
    lay = Layouts(
        tp=tp[keep],
        pp=pp[keep],
        dp=dp[keep],
        ep=ep[keep],
        zero=zero[keep],
        recompute=rec[keep],
        micro_batch=mb[keep],
        interleave=v[keep],
        sequence_parallel=(tp[keep] > 1).astype(np.int64),
        microbatches=m[keep],
        cp=cp[keep] if cps else np.full(len(keep), cp, dtype=np.int64),
    )
    for f in fields(lay):
        getattr(lay, f.name).flags.writeable = False
    return lay

"""Layout search: evaluate every valid layout for a GPU count at once, keep the fastest that fits."""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

import numpy as np

from models import constants as C
from models.training.job import Job
from models.training.layouts import Layouts, Recompute, enumerate_layouts
from models.training.memory import GIB, fits, memory_breakdown
from models.training.step_time import model_flops_per_token, step_breakdown


@dataclass(frozen=True)
class LayoutChoice:
    gpus: int
    layout: dict
    memory_gib: dict[str, float]
    step_s: dict[str, float]
    step_time_s: float
    tokens_per_s: float
    mfu: float
    model_tflops_per_gpu: float
    layouts_evaluated: int
    layouts_fitting: int
    seconds: float


class NoFittingLayout(ValueError):
    """No layout of the model fits this many GPUs."""


def context_parallel(job: Job) -> tuple[int, ...]:
    """Context-parallel degrees the search tries: 1 below CP_SEARCH_MIN_SEQ_LEN; from there the
    powers of two leaving at least CP_MIN_TOKENS_PER_RANK tokens per rank whose 2·cp chunks divide
    the sequence (Megatron's load-balanced causal split gives each rank two chunks)."""
    seq = job.seq_len
    if seq < C.CP_SEARCH_MIN_SEQ_LEN:
        return (1,)
    return tuple(
        c
        for c in (1 << i for i in range(16))
        if seq // c >= C.CP_MIN_TOKENS_PER_RANK and seq % (2 * c) == 0 or c == 1
    )


def all_layouts(job: Job, gpus: int, cp: tuple[int, ...] | None = None) -> Layouts:
    """Every valid layout of `gpus`; `cp` the context-parallel degrees (context_parallel by default).
    Tensor-parallel layouts use sequence parallelism where the job's software stack has it and run
    without it where the stack has none (the 2021-22 Megatron forks, before Korthikanti et al. 2022
    added sequence parallelism: the layer-norm and dropout activations replicated over the TP group),
    which stack_allows would otherwise refuse."""
    s = job.shape
    lay = enumerate_layouts(
        gpus=gpus,
        global_batch_seqs=job.global_batch_seqs,
        layers=s.layers,
        heads=s.heads,
        experts=s.experts,
        scaleup_domain_gpus=job.gpu.scaleup_domain_gpus,
        cp_candidates=context_parallel(job) if cp is None else cp,
    )
    if not C.SOFTWARE_STACKS[job.stack]["sequence_parallel"]:
        lay = replace(lay, sequence_parallel=np.zeros_like(lay.sequence_parallel))
    return lay


def stack_allows(job: Job, lay: Layouts) -> np.ndarray:
    """The layouts the job's software stack runs (constants.SOFTWARE_STACKS): its ZeRO stages,
    tensor/pipeline parallelism, sequence parallelism and selective recompute; context parallelism
    only on the stacks with sequence parallelism (Megatron-Core era: CP "requires Megatron-Core
    (>=0.5.0) and Transformer Engine (>=1.1)", Megatron-LM context_parallel.rst)."""
    st = C.SOFTWARE_STACKS[job.stack]
    ok = np.isin(lay.zero, st["zero"])
    if not st["tp_pp"]:
        ok &= (lay.tp == 1) & (lay.pp == 1)
    if not (st["tp_pp"] and st["sequence_parallel"]):
        ok &= lay.cp == 1
    if not st["sequence_parallel"]:
        ok &= ~lay.sequence_parallel.astype(bool)
    if not st["selective_recompute"]:
        ok &= lay.recompute != Recompute.SELECTIVE
    if st["pipeline_schedule"] != "1f1b":  # zero-bubble and DualPipe schedules are not interleaved
        ok &= lay.interleave == 1
    return ok


def evaluate(job: Job, lay: Layouts) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """(memory bytes, step seconds) breakdowns for every layout."""
    return memory_breakdown(job, lay), step_breakdown(job, lay)


def best_layout(job: Job, gpus: int) -> LayoutChoice:
    """The fitting layout with the most tokens per second (batches differ by their rounding);
    raises NoFittingLayout when none fits."""
    start = time.perf_counter()
    lay = all_layouts(job, gpus)
    lay = lay.take(np.nonzero(stack_allows(job, lay))[0])
    if len(lay) == 0:
        raise NoFittingLayout(
            f"no valid layout of {gpus} GPUs for a batch of {job.global_batch_seqs} sequences"
        )
    mem, step = evaluate(job, lay)
    ok = fits(job, mem["total"])
    if not ok.any():
        raise NoFittingLayout(f"the model does not fit on {gpus} {job.gpu.gpu_id}")
    candidates = np.nonzero(ok)[0]
    per_seq = step["total"][candidates] / lay.batch_seqs[candidates]
    i = int(candidates[np.argmin(per_seq)])
    return describe(
        job, gpus, lay, mem, step, i, len(lay), int(ok.sum()), time.perf_counter() - start
    )


def describe(job, gpus, lay, mem, step, i, evaluated, fitting, seconds) -> LayoutChoice:
    step_time = float(step["total"][i])
    tokens = int(lay.batch_seqs[i]) * job.seq_len
    flops = model_flops_per_token(job) * tokens
    achieved = flops / (gpus * step_time)
    return LayoutChoice(
        gpus=gpus,
        layout=lay.row(i),
        memory_gib={k: float(v[i]) / GIB for k, v in mem.items()},
        step_s={k: float(v[i]) for k, v in step.items()},
        step_time_s=step_time,
        tokens_per_s=tokens / step_time,
        mfu=achieved / (job.gpu.peak_tflops(job.precision) * 1e12),
        model_tflops_per_gpu=achieved / 1e12,
        layouts_evaluated=evaluated,
        layouts_fitting=fitting,
        seconds=seconds,
    )

"""Tensor parallelism beside FSDP under framework fsdp: a TP × DP layout (docs/reference/
finetune-model.md, amendment 6, 2026-12-02).

The model is split over TP ranks inside one scale-up domain (the core's stage_params divides every
layer's matrices by tp), and that TP shard is fully sharded over the DP ranks (ZeRO-3, FSDP2
`fully_shard` over the DP dimension of a 2-D DeviceMesh; PyTorch "Large Scale Transformer model
training with Tensor Parallel" tutorial and torchtitan docs/fsdp.md, read 2026-12-02; NeMo
AutoModel `strategy: fsdp2, tp_size 2, sequence_parallel: true` at 2013a4dd). So weights per GPU =
parameters / (TP × DP) × bytes per parameter; the TP collectives are the core's (as under
megatron), FSDP's all-gathers move the TP shard over DP (as the fsdp path does at TP 1).

Rules here: which enumerated layouts the framework runs (`allows`), the planner's order (TP 1
first; TP ≥ 2 only when no TP 1 layout fits: `split_tp_first`) and the check of an explicit layout
(`check_layout`), which names the field at fault. PP, CP and EP stay 1 under fsdp.
"""

from __future__ import annotations

import numpy as np

from models.errors import InputError
from models.hardware import GpuSpec
from models.training.job import Job
from models.training.layouts import Layouts
from models.training.search import stack_allows

#: the ZeRO stage a TP ≥ 2 layout runs under fsdp: FSDP FULL_SHARD (FSDP2 reshard_after_forward)
TP_ZERO = 3


def allows(job: Job, lay: Layouts) -> np.ndarray:
    """The layouts framework fsdp runs: the stack's own (TP 1, search.stack_allows) and the TP × DP
    ones: 2 ≤ tp ≤ the scale-up domain, sequence parallel on, PP, CP and EP 1, ZeRO-3, and
    otherwise what the stack runs (its recompute modes, no interleave)."""
    as_tp1 = Layouts(
        **{
            **lay.__dict__,
            "tp": np.ones_like(lay.tp),
            "sequence_parallel": np.zeros_like(lay.sequence_parallel),
        }
    )
    two_d = (
        (lay.tp > 1)
        & (lay.tp <= job.gpu.scaleup_domain_gpus)
        & (lay.sequence_parallel == 1)
        & (lay.pp == 1)
        & (lay.cp == 1)
        & (lay.ep == 1)
        & (lay.zero == TP_ZERO)
        & stack_allows(job, as_tp1)
    )
    return stack_allows(job, lay) | two_d


def with_sequence_parallel(lay: Layouts) -> Layouts:
    """The layouts with sequence parallelism on wherever tp ≥ 2 (all_layouts turns it off on the
    fsdp-zero stack, which has none at TP 1; AutoModel's fsdp2 + TP sets sequence_parallel true)."""
    return Layouts(**{**lay.__dict__, "sequence_parallel": (lay.tp > 1).astype(np.int64)})


def split_tp_first(lay: Layouts) -> tuple[Layouts, Layouts]:
    """(TP 1 layouts, TP ≥ 2 layouts), each in the enumeration's order: the planner tries the
    second only when nothing in the first fits (amendment 6's search rule)."""
    return lay.take(np.nonzero(lay.tp == 1)[0]), lay.take(np.nonzero(lay.tp > 1)[0])


def check_layout(gpu: GpuSpec, heads: int, *, tp: int, pp: int, cp: int, zero: int) -> None:
    """Raise InputError naming the field when an explicit fsdp layout is one the framework does not
    run: PP or CP past 1, or TP ≥ 2 that is not a power of two dividing the heads inside one
    scale-up domain, or not with ZeRO-3."""
    if pp != 1:
        raise InputError(
            "pp", f"framework fsdp runs no pipeline parallelism: pp must be 1, not {pp}"
        )
    if cp != 1:
        raise InputError(
            "cp", f"framework fsdp runs no context parallelism: cp must be 1, not {cp}"
        )
    if tp < 2:
        return
    domain = gpu.scaleup_domain_gpus
    if tp & (tp - 1) or tp > domain or heads % tp:
        raise InputError(
            "tp",
            f"tensor parallel {tp} under fsdp must be a power of two from 1 to {domain} (one "
            f"{gpu.gpu_id} scale-up domain) that divides the {heads} attention heads",
        )
    if zero != TP_ZERO:
        raise InputError(
            "zero",
            f"tensor parallel {tp} under fsdp runs with the TP shard fully sharded (ZeRO-3, FSDP2 "
            f"fully_shard): zero must be {TP_ZERO}, not {zero}",
        )


__all__ = ["TP_ZERO", "allows", "with_sequence_parallel", "split_tp_first", "check_layout"]

"""torchtitan's per-op selective activation checkpointing (Recompute.OP_SAC) on a Llama-style block.

Source: pytorch/torchtitan torchtitan/parallelisms/parallelize_llama.py at 9dec370 and
torchtitan/models/llama3/parallelize_llama.py at 820504e / e7c0cae (`_save_list`,
`_apply_ac_to_transformer_block`, `--activation_checkpoint.selective_ac_option op`). Each
Transformer block runs under `create_selective_checkpoint_contexts`; the policy returns MUST_SAVE
for ops in `_save_list` (aten.mm, the flash / memory-efficient SDPA ops, c10d
reduce_scatter_tensor, aten.max; aten.abs too at 9dec370) and PREFER_RECOMPUTE for every other op,
except that a per-block counter of aten.mm calls recomputes every second one (`count % 2 == 0`).
The block's matmuls run in the order of torchtitan's model.py (`self.wq(x), self.wk(x),
self.wv(x)`, SDPA, `self.wo`, `self.w2(F.silu(self.w1(x)) * self.w3(x))`): wq wk wv wo w1 w3 w2,
so wq, wv, w1, w2 are saved and wk, wo, w3 recomputed (fc1 fc2 without a gate: fc2 recomputed).

Float8 (torchao Float8Linear): the policy runs as a TorchDispatchMode, which PyTorch dispatches
before a tensor subclass's __torch_dispatch__, so the fp8 matmul reaches it as aten.mm on Float8
tensors, is counted and saved like a bf16 one; the amax (aten.max) it names "for low precision
training" is kept. The rule above therefore holds for fp8 as for bf16.

Defined for dense blocks only: MoE experts run grouped GEMMs the save list does not name.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from models.errors import InputError


class Matmul(NamedTuple):
    name: str
    n_in: float  # input width per token
    n_out: float  # output width per token
    row_parallel: bool  # under TP its output is a full-width partial sum (wo, w2), else split by tp


def block_matmuls(hidden: int, kv_width: float, mlp_width: float, gated: bool) -> tuple:
    """The block's matmuls in forward order; kv_width = K and V together (2·kv_heads·head_dim)."""
    h, kv, f = hidden, kv_width / 2, mlp_width
    attn = (
        Matmul("wq", h, h, False),
        Matmul("wk", h, kv, False),
        Matmul("wv", h, kv, False),
        Matmul("wo", h, h, True),
    )
    if gated:
        return attn + (
            Matmul("w1", h, f, False),
            Matmul("w3", h, f, False),
            Matmul("w2", f, h, True),
        )
    return attn + (Matmul("fc1", h, f, False), Matmul("fc2", f, h, True))


def op_sac_saved(matmuls: tuple) -> tuple[bool, ...]:
    """torchtitan's counter: the n-th aten.mm of a block (n from 1) is saved when n is odd."""
    return tuple(n % 2 == 1 for n in range(1, len(matmuls) + 1))


def check_dense(shape) -> None:
    if shape.is_moe:
        raise InputError(
            "recompute",
            "op_sac (torchtitan's per-op selective checkpointing) is defined for dense blocks only; "
            "choose none, selective or full for a mixture-of-experts model",
        )


def op_sac_recomputed_macs_per_token(hidden, kv_width, mlp_width, gated) -> tuple[float, int]:
    """Multiply-accumulates per token of the matmuls op_sac recomputes, and how many GEMMs."""
    mms = block_matmuls(hidden, kv_width, mlp_width, gated)
    redo = [m for m, kept in zip(mms, op_sac_saved(mms), strict=True) if not kept]
    return sum(m.n_in * m.n_out for m in redo), len(redo)


def op_sac_bytes_per_token(hidden, kv_width, mlp_width, gated, heads, tp, sp):
    """Bytes one token keeps per layer under op_sac, per GPU (bf16 tensors, fp32 logsumexp):
    the block input (the checkpoint's argument) 2h, the saved matmul outputs (column-parallel ones
    split by tp, row-parallel ones a full-width partial sum), the SDPA output 2h and its logsumexp
    4·heads, and with sequence parallelism the two reduce-scatter outputs 2·2h/tp."""
    mms = block_matmuls(hidden, kv_width, mlp_width, gated)
    col = sum(
        2.0 * m.n_out
        for m, kept in zip(mms, op_sac_saved(mms), strict=True)
        if kept and not m.row_parallel
    )
    row = sum(
        2.0 * m.n_out
        for m, kept in zip(mms, op_sac_saved(mms), strict=True)
        if kept and m.row_parallel
    )
    sdpa = 2.0 * hidden + 4.0 * heads
    layer_input = 2.0 * hidden
    split = np.asarray(sp, dtype=bool) & (np.asarray(tp) > 1)
    reduce_scatter = 2 * 2.0 * hidden
    return (
        (col + sdpa) / tp + row + np.where(split, (layer_input + reduce_scatter) / tp, layer_input)
    )

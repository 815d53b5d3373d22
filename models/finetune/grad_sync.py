"""The gradient dtype a fine-tune's data-parallel reduce moves, and what the plan assumes about its
weights and optimizer (docs/reference/finetune-model.md, amendment 3 (b) and (e)).

Under framework megatron, pure BF16 is NeMo's distributed_fused_adam with `dtype: bf16` and
`grad_sync_dtype: bf16` (NeMo-Framework-Launcher 24.07 `conf/peft/llama/sft.yaml` l. 249-262; Apex
distributed_fused_adam.py l. 310-313, 1117-1119: the gradient buffer is allocated in
grad_sync_dtype), so a full fine-tune's gradients are held and reduce-scattered at
PURE_BF16_GRAD_BYTES (2 B) instead of GRAD_BYTES (4 B), whether the buyer set it or the planner
chose it. With bf16_grads (Megatron-Core grad_reduce_in_fp32 False, amendment 5) a full
fine-tune's gradients and a LoRA/QLoRA's adapter gradients are held and reduced at 2 B with the
FP32 optimizer kept; otherwise LoRA/QLoRA adapters' all-reduce and framework fsdp keep GRAD_BYTES.
"""

from __future__ import annotations

import dataclasses

from models import constants as C
from models.finetune import savings
from models.training.job import Job


def job_grad_bytes(inp) -> float:
    """Bytes per gradient the core's job holds and reduces: PURE_BF16_GRAD_BYTES (2) with BF16
    gradient buffers (bf16_grads: Megatron-Core DistributedDataParallelConfig
    grad_reduce_in_fp32 False, the buffer allocated in the parameter's dtype; amendment 5) or with
    pure BF16 under megatron (NeMo grad_sync_dtype bf16, amendment 3); GRAD_BYTES (4) otherwise."""
    if inp.bf16_grads or (inp.pure_bf16 and inp.framework == "megatron"):
        return C.PURE_BF16_GRAD_BYTES
    return C.GRAD_BYTES


def adapter_grad_bytes(inp) -> float:
    """Bytes per LoRA/QLoRA adapter gradient, held and all-reduced: 2 with bf16_grads, else 4
    (pure BF16's adapters are rescaled by savings.apply, as before)."""
    return C.PURE_BF16_GRAD_BYTES if inp.bf16_grads else C.GRAD_BYTES


def bf16_grad_job(inp, job: Job) -> Job | None:
    """The core's job with BF16 gradients (reduce-scatter 2 B per gradient) for the layouts the
    planner tries with pure BF16 on, where the planner may choose it (full fine-tune, megatron,
    pure_bf16 left free) and the job does not already hold BF16 gradients; else None."""
    free = inp.pure_bf16 is None and inp.method == "full" and inp.framework == "megatron"
    if not free or job.grad_bytes == C.PURE_BF16_GRAD_BYTES:
        return None
    return dataclasses.replace(job, grad_bytes=C.PURE_BF16_GRAD_BYTES)


def assumptions(inp, combo: dict[str, bool], grad_bytes: float) -> dict:
    """The plan's fields on weights, optimizer and gradient sync (records.FinetunePlan): FP8-only
    weights (the buyer's input), the BF16 optimizer (pure BF16 on), the optimizer's bytes per
    trained parameter (savings.optimizer_form) and the bytes per gradient the data-parallel reduce
    moves (the job's grad_bytes for a full fine-tune; GRAD_BYTES for LoRA adapters)."""
    return {
        "fp8_params": inp.fp8_params,
        "bf16_optimizer": combo["pure_bf16"],
        "optimizer_bytes_per_param": float(savings.optimizer_form(combo, inp.fp8_params)[0]),
        "bf16_grads": inp.bf16_grads,
        "grad_sync_bytes_per_param": float(
            grad_bytes if inp.method == "full" else adapter_grad_bytes(inp)
        ),
    }


__all__ = ["job_grad_bytes", "adapter_grad_bytes", "bf16_grad_job", "assumptions"]

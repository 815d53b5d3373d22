"""A training job as the physics sees it (model shape, GPU, sequence, batch, precision), and the
per-layout quantities that memory and step time both need: micro-batch counts, layers per stage and
parameters held per GPU.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

import numpy as np

from models import constants as C
from models.errors import InputError
from models.hardware import GpuSpec
from models.shapes import ModelShape
from models.training.layouts import Layouts


class AttentionKernel(IntEnum):
    """Attention kernel (with the GPU architecture, the key of ATTENTION_EFFICIENCY in constants.py)."""

    NONE = 0  # s×s scores stored; the 2022 Megatron runs
    FLASH1 = 1  # FlashAttention-1 class: FlashAttention-1, xformers, Triton (2022–mid 2023)
    FLASH2 = 2  # FlashAttention-2 (also PyTorch SDPA's flash backend)
    FLASH3 = 3  # FlashAttention-3 (Hopper only)
    CUDNN = 4  # cuDNN fused attention via Transformer Engine (on Ampere TE runs FA2: FA2's rate)


@dataclass(frozen=True)
class Job:
    shape: ModelShape
    gpu: GpuSpec
    seq_len: int
    global_batch_seqs: int  # asked for; each layout rounds it (Layouts.batch_seqs)
    precision: str = "bf16"
    #: Attention kernel; fused kernels never store the scores, generation 1 runs at half the speed
    #: of 2. Default: the default stack's (Transformer Engine's cuDNN attention; FA2 on Ampere).
    flash_attention: AttentionKernel = AttentionKernel.CUDNN
    #: Bytes per gradient element held and reduced across data parallelism: 4 for Megatron's fp32
    #: main gradients, 2 when gradients are kept and synchronised in bf16 (NeMo grad_sync_dtype bf16).
    grad_bytes: int = C.GRAD_BYTES
    #: Tensor-parallel collectives split into chunks and overlapped with the neighbouring GEMMs
    #: (Transformer Engine userbuffers, NeMo ub_tp_comm_overlap); off in Megatron before 2023.
    tp_comm_overlap: bool = False
    #: Weight-gradient GEMMs run in backward (False for a frozen base under LoRA/QLoRA: backward then
    #: computes only activation gradients, one GEMM per linear layer instead of two; models/finetune/plan.py).
    weight_gradients: bool = True
    #: Software stack class (constants.SOFTWARE_STACKS): its data-parallel overlap and the layouts
    #: the planner may choose (search.best_layout).
    stack: str = C.DEFAULT_SOFTWARE_STACK
    #: The first and the last pipeline stages each hold one Transformer layer fewer, the input
    #: embedding and the output layer taking a layer's place (Dubey et al. 2024 Sec. 3.3.2; Megatron-LM
    #: --account-for-embedding-in-pipeline-split / --account-for-loss-in-pipeline-split), wherever the
    #: split has two spare layer slots so no stage gains a layer (memory.ends_trimmed). The planner
    #: uses it; a validation row only where its source publishes it (column pp_ends_trimmed).
    pp_ends_trimmed: bool = True
    #: FP8 training with the weights held only in FP8 (1 byte, constants.FP8_PARAM_BYTES) instead of
    #: BF16 plus an FP8 copy: Transformer Engine fp8_model_init, NeMo fp8_params / MLPerf
    #: FP8_PARAMS=True, Megatron-Core fp8_param_gather ("keep the compute param in fp8 ... and
    #: perform the param all-gather in fp8", DistributedDataParallelConfig). The embedding (and an
    #: untied output layer) are not Transformer Engine modules and stay BF16 (bf16_params_on_stage).
    #: Only with precision "fp8".
    fp8_params: bool = False
    #: GEMM inputs not kept for backward because the weights they feed are frozen (LoRA/QLoRA;
    #: models/finetune/plan.py job_for): any of "qkv", "o", "fc1", "fc2" (finetune.GEMM_INPUT_FEEDS).
    #: A linear layer saves its input only to form its weight gradient: Transformer Engine v2.2
    #: (c55e425ac5751c72bfa656560fc7c65ab7d895e9) pytorch/module/linear.py `backward_needs_input =
    #: is_grad_enabled and weight.requires_grad`, layernorm_linear.py saves `ln_out if
    #: weight.requires_grad else None`. Empty (every weight trainable): training unchanged.
    frozen_gemm_inputs: frozenset[str] = frozenset()
    #: Bytes per token per layer the LoRA adapters keep for their own backward (A·x, r wide, for
    #: B's weight gradient): 2·r per adapted matrix; 0 without adapters.
    adapter_bytes_per_token_layer: float = 0.0
    #: Kept inputs of trainable GEMMs stored as their FP8 cast (1 byte) instead of BF16: Transformer
    #: Engine in FP8 saves the quantized `inputmat` (linear.py v2.2, `saved_inputmat = inputmat`
    #: after `input_quantizer(inputmat)`); the out-projection then keeps that FP8 copy beside the
    #: attention output. Only with weight_gradients (under LoRA the adapted inputs are kept by the
    #: BF16 adapters). A job setting, default off (only where a source runs TE FP8 full training).
    fp8_gemm_input_store: bool = False
    #: The SwiGLU input kept in FP8 (1 byte) instead of BF16: Megatron-Core
    #: activation_func_fp8_input_store (megatron/core/fusions/fused_bias_swiglu.py @
    #: cbc89b322c454a2de46edcbd1fc708669aeafd59, tag 25.04-alpha.rc1: `input_for_backward =
    #: input.to(torch.float8_e4m3fn) if fp8_input_store else input`); MLPerf NeMo FP8_ACT=1. Default
    #: off: only where a row's config sets it.
    fp8_activation_input_store: bool = False
    #: How the run balances its experts' load, for the load-imbalance term (models/training/
    #: moe_cost.py, docs/reference/training.md 6.4): "" reads it from the stack (loss-free for
    #: DeepSeek-V3's, an auxiliary loss for every other), "forced" for benchmarks that force-balance
    #: the token distribution (no imbalance). Only validation rows set it; the planner never does.
    moe_balance: str = ""

    def __post_init__(self) -> None:
        if self.fp8_params and self.precision != "fp8":
            raise InputError("fp8_params", "FP8 parameters need precision fp8")
        if self.moe_balance not in ("", "forced"):
            raise InputError("moe_balance", "moe_balance is empty (the stack's) or 'forced'")

    @property
    def weight_bytes(self) -> int:
        """Bytes per weight held: BF16 (2), plus an FP8 copy (1) in FP8 training; FP8 only (1) with
        fp8_params."""
        if self.fp8_params:
            return C.FP8_PARAM_BYTES
        return C.WEIGHT_BYTES + (C.FP8_EXTRA_WEIGHT_BYTES if self.precision == "fp8" else 0)

    @property
    def param_gather_bytes(self) -> int:
        """Bytes per weight the distributed optimizer / ZeRO-3 all-gathers: BF16, FP8 with fp8_params."""
        return C.FP8_PARAM_BYTES if self.fp8_params else C.WEIGHT_BYTES

    @property
    def fused_attention(self) -> bool:
        """A fused kernel: causal masking skips half the scores and none are stored."""
        return self.flash_attention != AttentionKernel.NONE

    @property
    def mlp_tokens_width(self) -> float:
        """MLP intermediate width one token passes through, averaged over layers (MoE: k + shared)."""
        s = self.shape
        if not s.is_moe:
            return float(s.ffn_hidden)
        moe = (s.experts_per_token + s.shared_experts) * s.ffn_hidden
        dense_width = s.dense_ffn_hidden or s.ffn_hidden
        return (s.dense_layers * dense_width + s.moe_layers * moe) / s.layers


def layers_per_stage(job: Job, lay: Layouts) -> np.ndarray:
    """Layers on the busiest stage: v chunks of ceil(L/(pp·v)) layers (uneven splits load some stages)."""
    return -(-job.shape.layers // (lay.pp * lay.interleave)) * lay.interleave


def stage_params(job: Job, lay: Layouts) -> tuple[np.ndarray, np.ndarray]:
    """(non-expert, expert) parameters held by one GPU of the busiest stage, embeddings included.

    Layer weights split over tp; routed experts also over ep. The first stage holds the input
    embedding (V·h/tp) and, with pp = 1, the untied output layer too; the last stage holds the output
    layer, so the heavier of the two is counted.
    """
    s = job.shape
    lps = layers_per_stage(job, lay)
    dense_mlp = s.dense_mlp_params if s.is_moe else s.expert_params
    n_dense = s.layers - s.moe_layers
    per_layer_ne = (
        s.attention_params
        + 2 * s.hidden
        + (
            n_dense * dense_mlp
            + s.moe_layers * (s.shared_experts * s.expert_params + s.hidden * s.experts)
        )
        / s.layers
    )
    per_layer_e = s.moe_layers * s.experts * s.expert_params / s.layers
    emb = s.vocab * s.hidden
    emb_on_stage = np.where((lay.pp == 1) & (not s.tied_embeddings), 2 * emb, emb)
    non_expert = (lps * per_layer_ne + emb_on_stage) / lay.tp
    expert = lps * per_layer_e / (lay.tp * lay.ep)
    return non_expert, expert


def bf16_params_on_stage(job: Job, lay: Layouts) -> np.ndarray:
    """Parameters per GPU of the first stage that stay BF16 with fp8_params: the input embedding
    and, with pp = 1 and untied embeddings, the output layer (not Transformer Engine modules)."""
    s = job.shape
    emb = s.vocab * s.hidden
    return np.where((lay.pp == 1) & (not s.tied_embeddings), 2 * emb, emb) / lay.tp

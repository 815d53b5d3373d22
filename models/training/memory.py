"""Peak memory per GPU for each layout, in bytes, on the busiest pipeline stage.

- Weights, gradients, optimizer: 2 + 4 + 12 bytes per parameter (constants.py), the weights 3 in
  FP8 training (BF16 and an FP8 copy) and 1 with FP8 parameters (Job.fp8_params: Transformer
  Engine fp8_model_init holds only the FP8 copy; the embedding stays BF16); ZeRO-1 shards the
  optimizer over data-parallel ranks, ZeRO-2 also gradients, ZeRO-3 also weights (Rajbhandari et al.
  2020). Expert parameters shard over dp/ep ranks. With context parallelism the weights are
  replicated over the cp ranks too, and Megatron's distributed optimizer shards over dp·cp
  (megatron/core/parallel_state.py, get_data_parallel_group(with_context_parallel=True)).
- Context parallelism "partitions the network inputs and all activations along sequence dimension"
  and "each GPU only stores the KV of a sequence chunk" (Megatron-LM
  docs/source/api-guide/context_parallel.rst): activations and logits are those of seq/cp tokens.
- A GEMM input kept only for its weight gradient is not kept where that weight is frozen
  (Job.frozen_gemm_inputs: LoRA/QLoRA; Transformer Engine linear.py backward_needs_input); with
  Job.fp8_gemm_input_store the kept ones are FP8 (1 byte), with Job.fp8_activation_input_store the
  SwiGLU input is (Megatron-Core activation_func_fp8_input_store). All off: training as below.
- Activations per layer and token (Korthikanti et al. 2022, generalised to GQA, gated MLPs and MoE):
  tensors sharded by tp (Q, K, V, attention output, MLP intermediates) plus tensors only sequence
  parallelism shards (layer-norm and matmul inputs, dropout masks); 5·a·s bytes of attention scores
  without FlashAttention and without recompute; full recompute keeps only each layer's 2h input;
  op_sac keeps what torchtitan's per-op SAC saves (models/training/recompute.py op_sac_bytes_per_token).
- The first stage of a 1F1B pipeline holds min(pp, m) micro-batches in flight for its layers;
  interleaved, its warm-up model chunks, at most all m·v of them (in_flight_layers); the last stage
  holds one plus the fp32 logits. DualPipe (DeepSeek-V3 Table 2): PP + 1 micro-batches and two
  copies of the parameters.
- Ends trimmed (Dubey et al. 2024 'The Llama 3 Herd of Models' Sec. 3.3.2: "we reduce one
  Transformer layer each from the first and the last stages"; ends_trimmed): the first and last
  stages hold one layer fewer, so the busiest stage is the first (lps − 1 layers, the embedding) or
  the second (lps layers, the second-most warm-up micro-batches), whichever needs more.
"""

from __future__ import annotations

import numpy as np

from models import constants as C
from models.training import recompute as op_sac
from models.training.job import Job, bf16_params_on_stage, layers_per_stage, stage_params
from models.training.layouts import Layouts, Recompute
from models.units import BYTES_PER_GIB as GIB


def activation_bytes_per_token_layer(job: Job, lay: Layouts) -> np.ndarray:
    """Bytes one token leaves behind in one layer for the backward pass, per GPU."""
    s = job.shape
    h, f = s.hidden, job.mlp_tokens_width
    gate = 2 if s.gated_mlp else 1
    kv_ratio = s.kv_heads / s.heads
    frozen = job.frozen_gemm_inputs
    # bytes per kept GEMM-input element: FP8 only for trainable weights (under LoRA the adapted
    # inputs are the BF16 adapters')
    fp8_in = job.fp8_gemm_input_store and job.weight_gradients
    g = 1.0 if fp8_in else 2.0
    qkv_in = 0.0 if "qkv" in frozen else g * h
    fc1_in = 0.0 if "fc1" in frozen else g * h
    fc2_in = 0.0 if "fc2" in frozen else g * f
    # permuted tokens for the experts (the experts' fc1 input)
    routed = g * h * s.experts_per_token if s.is_moe and "fc1" not in frozen else 0.0
    # TE's FP8 copy of the out-projection input, beside the attention output attention keeps
    o_copy = h if fp8_in and "o" not in frozen else 0.0
    act_in = (1.0 if job.fp8_activation_input_store else 2.0) * f * gate  # activation-fn input
    sharded = 2 * h + 4 * h * kv_ratio + 2 * h + o_copy + act_in + fc2_in + routed
    # LN1 and LN2 inputs, QKV and fc1 inputs, dropout masks, the adapters' own r-wide tensors
    replicated = (
        4 * h + qkv_in + fc1_in + (2 * h if s.dropout else 0) + job.adapter_bytes_per_token_layer
    )
    scores = 0.0 if job.fused_attention else 5.0 * s.heads * job.seq_len
    tp, sp = lay.tp, lay.sequence_parallel.astype(bool)
    per = np.where(sp, (sharded + replicated) / tp, replicated + sharded / tp)
    rec = lay.recompute
    per = per + np.where(rec == 0, scores / tp, 0.0)
    layer_input = np.where(sp, 2 * h / tp, 2 * h)
    stored = np.where(rec == Recompute.FULL, layer_input, per)
    if (rec == Recompute.OP_SAC).any():
        op_sac.check_dense(s)
        kv_width = 2 * s.kv_heads * s.head_dim
        kept = op_sac.op_sac_bytes_per_token(h, kv_width, f, s.gated_mlp, s.heads, tp, sp)
        stored = np.where(rec == Recompute.OP_SAC, kept, stored)
    return stored, per


def in_flight_layers(job: Job, lay: Layouts, rank: int = 0) -> np.ndarray:
    """Layer-micro-batches whose activations pipeline rank `rank` holds at its peak (lps layers).

    1F1B: pp − 1 − rank warm-up forwards plus one, at most the m micro-batches of the step, of lps
    layers each. Interleaved (v > 1): 2(pp − 1 − rank) + (v − 1)·pp warm-up model-chunk forwards plus
    one, at most all m·v chunks (with m = pp every forward runs before the first backward), of lps/v
    layers each (Megatron-LM `forward_backward_pipelining_with_interleaving`, megatron/core/
    pipeline_parallel/schedules.py). Uncapped, rank 0 is Korthikanti et al. 2022's
    lps·pp·(1 + (pp − 1)/(pp·v)).
    """
    pp, v, m = lay.pp, lay.interleave, lay.microbatches
    lps = layers_per_stage(job, lay)
    chunks = np.minimum(2 * (pp - 1 - rank) + (v - 1) * pp + 1, m * v)
    # DualPipe holds PP + 1 micro-batches of activations (DeepSeek-V3 Table 2)
    extra = 1 if C.SOFTWARE_STACKS[job.stack]["pipeline_schedule"] == "dualpipe" else 0
    return np.where(v > 1, chunks * lps / v, np.minimum(pp - rank + extra, m) * lps)


def ends_trimmed(job: Job, lay: Layouts) -> np.ndarray:
    """Layouts whose first and last stages each hold one Transformer layer fewer.

    Dubey et al. 2024 Sec. 3.3.2 (Llama 3 405B: 126 layers + embedding + output = 128 slots over
    PP16): "we reduce one Transformer layer each from the first and the last stages"; Megatron-LM
    treats the input embedding and the loss each as a layer in the split (--account-for-embedding-
    in-pipeline-split, --account-for-loss-in-pipeline-split). Only where the ceil split leaves at least
    two spare layer slots (pp·lps − L ≥ 2), so no stage gains a layer; not with DualPipe (its stages
    hold chunks from both ends: no source for the combination).
    """
    if not job.pp_ends_trimmed or C.SOFTWARE_STACKS[job.stack]["pipeline_schedule"] == "dualpipe":
        return np.zeros(len(lay), dtype=bool)
    return (lay.pp > 1) & (lay.pp * layers_per_stage(job, lay) - job.shape.layers >= 2)


def memory_breakdown(job: Job, lay: Layouts) -> dict[str, np.ndarray]:
    """Bytes per GPU by category plus `total`, one value per layout."""
    s = job.shape
    non_expert, expert = stage_params(job, lay)
    cp = lay.cp if lay.cp.max(initial=1) > 1 else 1  # 1: no layout splits its sequences
    dp, ep, z = lay.dp * cp, lay.ep, lay.zero
    shard_ne, shard_e = dp, np.maximum(dp // ep, 1)

    weight_bytes = job.weight_bytes
    # fp8_params: the embedding (and an untied output layer at pp = 1) stays BF16 on the first stage
    bf16 = bf16_params_on_stage(job, lay) if job.fp8_params else np.zeros(len(lay))
    # DualPipe keeps two copies of the model parameters (DeepSeek-V3 Sec. 3.2.1, Table 2: "2x")
    copies = 2 if C.SOFTWARE_STACKS[job.stack]["pipeline_schedule"] == "dualpipe" else 1
    lps = layers_per_stage(job, lay)
    # ZeRO-3 gathers the next layers' full weights ahead of use: two layers in flight.
    per_layer_full = (non_expert + expert) / np.maximum(lps, 1)
    gather = np.where(z == 3, 2 * job.param_gather_bytes * per_layer_full, 0.0)

    tokens = lay.micro_batch * job.seq_len / cp
    stored, working = activation_bytes_per_token_layer(job, lay)
    trim = ends_trimmed(job, lay)
    # first stage: lps layers, or lps − 1 where the ends are trimmed (each held chunk one layer short
    # on average: its first chunk carries the embedding in a layer's place)
    first_layers = lps - trim
    first = stored * tokens * in_flight_layers(job, lay) * first_layers / lps
    logits = 4.0 * s.vocab * tokens / lay.tp  # fp32 logits for the loss, vocab-parallel
    last = stored * tokens * first_layers + logits
    acts = np.maximum(np.where(lay.pp == 1, first + logits, first), last)
    # Full recompute rebuilds one layer's activations at a time during backward; op_sac rebuilds
    # the part of one layer's activations it did not keep.
    recompute = np.select(
        [lay.recompute == Recompute.FULL, lay.recompute == Recompute.OP_SAC],
        [working * tokens, np.maximum(working - stored, 0.0) * tokens],
        0.0,
    )
    acts = acts + recompute
    emb = s.vocab * s.hidden / lay.tp
    per_layer_ne = (non_expert - emb) / np.maximum(lps, 1)
    first_ne = non_expert - trim * per_layer_ne
    first_e = expert - trim * expert / np.maximum(lps, 1)
    overhead = np.full(len(lay), C.FRAMEWORK_OVERHEAD_GIB * GIB)
    first_stage = _states(
        first_ne, first_e, shard_ne, shard_e, z, weight_bytes, copies, job.grad_bytes, bf16
    )
    first_stage.update(zero3_gather=gather, activations=acts, overhead=overhead)
    first_stage["total"] = sum(first_stage.values())
    # trimmed: the second stage holds lps layers (no embedding) and the second-most micro-batches
    second_stage = _states(
        non_expert - emb, expert, shard_ne, shard_e, z, weight_bytes, copies, job.grad_bytes
    )
    second_stage.update(
        zero3_gather=gather,
        activations=stored * tokens * in_flight_layers(job, lay, rank=1) + recompute,
        overhead=overhead,
    )
    second_stage["total"] = sum(second_stage.values())
    use_second = trim & (lay.pp > 2) & (second_stage["total"] > first_stage["total"])
    return {k: np.where(use_second, second_stage[k], first_stage[k]) for k in first_stage}


def _states(ne, e, shard_ne, shard_e, z, weight_bytes, copies, grad_bytes, bf16=0.0) -> dict:
    """Weights, gradients and optimizer states of ne non-expert and e expert parameters per GPU;
    bf16 of the ne weights are held in BF16 (WEIGHT_BYTES) instead of weight_bytes."""

    def sharded(bytes_per_param: float, from_stage: int) -> np.ndarray:
        return bytes_per_param * (
            np.where(z >= from_stage, ne / shard_ne, ne) + np.where(z >= from_stage, e / shard_e, e)
        )

    return {
        "weights": copies
        * (
            sharded(weight_bytes, 3)
            + (C.WEIGHT_BYTES - weight_bytes) * np.where(z >= 3, bf16 / shard_ne, bf16)
        ),
        "gradients": sharded(grad_bytes, 2),
        "optimizer": sharded(C.OPTIMIZER_BYTES, 1),
    }


def fits(job: Job, total_bytes: np.ndarray) -> np.ndarray:
    return total_bytes <= C.MEMORY_HEADROOM * job.gpu.memory_gib * GIB

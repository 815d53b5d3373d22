"""Time of one training step for each layout (vectorized), with its parts.

Per layer and micro-batch on one GPU:
- GEMMs: FLOPs / (peak · MAMF share · GEMM_SHARE_OF_MAMF) + GEMM_OVERHEAD_S per GEMM (small GEMMs lose efficiency);
  forward QKV 2Th(h+2·kv·d)/tp, output 2Th²/tp, MLP 2Th·f·(2 or 3)/tp; attention core 4Tsh/tp
  (half of it with causal FlashAttention) at ATTENTION_EFFICIENCY of the GEMM rate, by the GPU's
  architecture and the kernel, forward and backward each at its own measured rate (FlashAttention-2/3
  and cuDNN benchmarks; constants.py); backward twice forward (once for the GEMMs of frozen weights,
  Job.weight_gradients: activation gradients only).
- Element-wise kernels (norms, residuals, activations, dropout, softmax without FlashAttention) move
  bytes at HBM_EFFICIENCY of HBM bandwidth; h-wide ones split over tp only with sequence parallelism.
- TP: two all-reduces (or reduce-scatter + all-gather) of T·h bf16 values forward, two backward, two
  more for full recompute, on the scale-up link, not overlapped (Korthikanti 2022, Shoeybi 2019).
- MoE: two all-to-alls of the routed tokens forward and two backward per MoE layer; with routing
  limited to M devices or nodes a token is sent min(k, M) times across that many groups (DeepSeek-V2
  Sec. 2.2.2, V3 Sec. 3.2.2). The stack decides what hides them (`a2a_overlap`: the shared experts'
  GEMMs, DeepSeek-V2 Sec. 3.1.3; DualPipe's paired forward/backward chunk, DeepSeek-V3 Sec. 3.2.1).
- Recompute: full repeats the forward; selective repeats the attention core (Korthikanti 2022);
  op_sac (torchtitan's per-op SAC, models/training/recompute.py) repeats the matmuls it does not save (wk, wo,
  w3: every second one), every element-wise kernel and the TP all-gathers, not the attention core.
- TP with comm overlap (Transformer Engine userbuffers): each collective hides behind its GEMM.
- Context parallelism (cp > 1): each GPU holds seq/cp tokens of every sequence and attends them to
  all seq keys; K/V are gathered around a ring of the cp ranks (tp·cp consecutive GPUs) per layer,
  once forward and, with the K/V gradients, twice backward, overlapped with the attention core
  (Megatron-LM docs/source/api-guide/context_parallel.rst; Liu et al. 2023 "Ring Attention",
  arXiv 2310.01889). Gradients are reduced over dp·cp ranks.
A step is m stage slots plus the bubble, (pp−1)/v slots (1F1B with interleaving, Narayanan 2021), or
DeepSeek-V3 Table 2's (pp−1)(F+B−2W) for zero-bubble ZB1P and (pp/2−1)(F&B+B−3W) for DualPipe
(`pipeline_schedule`; W the weight-gradient GEMMs), plus pipeline p2p in
warm-up and drain, the exposed part of the data-parallel gradient and parameter collectives
(ZeRO-3 repeats its gathers every micro-batch; the share hidden is the software stack's
`dp_overlap`, constants.SOFTWARE_STACKS), and the memory-bound optimizer update. Hidden
communication still slows the compute it overlaps by OVERLAP_INTERFERENCE of its time. A DP group
with k ranks per scale-up domain uses k NICs at once (NCCL's one channel per NIC).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from models import constants as C
from models.errors import InputError
from models.hardware import GpuSpec
from models.training import collectives as coll
from models.training import moe_cost, small_gemm
from models.training import recompute as op_sac
from models.training.job import AttentionKernel, Job, layers_per_stage, stage_params
from models.training.layouts import Layouts, Recompute
from models.units import BITS_PER_BYTE, BYTES_PER_GB


def model_flops_per_token(job: Job) -> float:
    """6·N_active (input embedding excluded: a lookup) + 12·L·h·s attention (PaLM/Megatron MFU)."""
    s = job.shape
    lookup = 0 if s.tied_embeddings else s.vocab * s.hidden
    return 6 * (s.params_active - lookup) + 12 * s.layers * s.hidden * job.seq_len


def attention_efficiency(gpu: GpuSpec, kernel: AttentionKernel) -> tuple[float, float]:
    """(forward, backward) attention-core rate as a share of the GPU's GEMM rate: the measured table
    constants.ATTENTION_EFFICIENCY by architecture and kernel; a kernel the GPU cannot run is refused."""
    by_kernel = C.ATTENTION_EFFICIENCY[gpu.architecture]
    if int(kernel) not in by_kernel:
        raise InputError(
            "execution.attention",
            f"{kernel.name.lower()} does not run on {gpu.gpu_id} ({gpu.architecture}); choose one of: "
            + ", ".join(AttentionKernel(k).name.lower() for k in sorted(by_kernel)),
        )
    return by_kernel[int(kernel)]


def exposed(comm, window):
    """Communication time left after hiding it behind `window` seconds of compute, plus the slowdown
    the hidden part inflicts on that compute (NCCL kernels take SMs and HBM bandwidth)."""
    return np.maximum(0.0, comm - window) + C.OVERLAP_INTERFERENCE * np.minimum(comm, window)


class _Context(NamedTuple):
    """What every step of `step_breakdown` reads: the layouts' degrees as floats, the tokens of a
    micro-batch on one GPU, the model's widths and the job's achievable rates on its GPU."""

    tp: np.ndarray
    pp: np.ndarray
    v: np.ndarray  # interleaved chunks per stage
    sp: np.ndarray  # sequence parallelism on (bool)
    has_cp: bool  # any layout with context parallelism
    cp: np.ndarray | int  # context-parallel ranks (1: none in these layouts)
    dpc: np.ndarray  # dp·cp: the ranks gradients and the distributed optimizer span
    T: np.ndarray  # tokens of one micro-batch on one GPU: micro_batch·seq (/cp)
    f: int  # the MLP's token width (job.mlp_tokens_width)
    gate: int  # 3 gated MLP, 2 not
    kv_width: int  # 2·kv_heads·head_dim
    moe_share: float  # MoE layers / layers
    linear_peak: float  # FLOP/s of the linear layers' GEMMs (FP8 or BF16)
    attn_peak: float  # FLOP/s of the attention core, forward
    attn_peak_b: float  # and backward
    hbm: float  # bytes/s
    up_bw: float  # scale-up bytes/s per GPU
    out_bw: float  # scale-out bytes/s per GPU
    slow: float  # 1 / the stack's kernel efficiency (constants.SOFTWARE_STACKS)


def _context(job: Job, lay: Layouts) -> _Context:
    """The layouts' degrees, T = micro_batch·seq/cp tokens per GPU, and the rates: GEMMs at peak ·
    MAMF share · GEMM_SHARE_OF_MAMF (FP8 × FP8_GEMM_RELATIVE_EFFICIENCY), the attention core at
    ATTENTION_EFFICIENCY of the BF16 GEMM rate, HBM at HBM_EFFICIENCY, links at their efficiencies."""
    s, g = job.shape, job.gpu
    seq = job.seq_len
    tp, pp, v = lay.tp.astype(float), lay.pp.astype(float), lay.interleave.astype(float)
    sp = lay.sequence_parallel.astype(bool)
    has_cp = lay.cp.max(initial=1) > 1
    cp = lay.cp if has_cp else 1
    T = lay.micro_batch * seq / cp if has_cp else lay.micro_batch * seq
    gate = 3 if s.gated_mlp else 2

    bf16 = g.bf16_dense_tflops * 1e12
    gemm_eff = g.matmul_fraction_of_peak * C.GEMM_SHARE_OF_MAMF
    linear_peak = (
        g.peak_tflops("fp8") * 1e12 * C.FP8_GEMM_RELATIVE_EFFICIENCY
        if job.precision == "fp8"
        else bf16
    ) * gemm_eff
    attn_fwd_eff, attn_bwd_eff = attention_efficiency(g, job.flash_attention)
    attn_peak, attn_peak_b = bf16 * gemm_eff * attn_fwd_eff, bf16 * gemm_eff * attn_bwd_eff
    hbm = g.hbm_bandwidth_tbyte_per_s * 1e12 * C.HBM_EFFICIENCY
    up_bw = g.scaleup_bandwidth_gbyte_per_s * BYTES_PER_GB * C.SCALEUP_EFFICIENCY
    out_bw = g.scaleout_bandwidth_gbit_per_s / BITS_PER_BYTE * BYTES_PER_GB * C.SCALEOUT_EFFICIENCY
    return _Context(
        tp=tp,
        pp=pp,
        v=v,
        sp=sp,
        has_cp=has_cp,
        cp=cp,
        dpc=lay.dp * cp,
        T=T,
        f=job.mlp_tokens_width,
        gate=gate,
        kv_width=2 * s.kv_heads * s.head_dim,
        moe_share=s.moe_layers / s.layers,
        linear_peak=linear_peak,
        attn_peak=attn_peak,
        attn_peak_b=attn_peak_b,
        hbm=hbm,
        up_bw=up_bw,
        out_bw=out_bw,
        # the stack's measured kernel efficiency against this model (constants.SOFTWARE_STACKS)
        slow=1.0 / C.SOFTWARE_STACKS[job.stack]["kernel_efficiency"],
    )


def scaleup_rate(gpu, ranks) -> np.ndarray:
    """Bytes/s one GPU moves to a group of `ranks` GPUs inside its scale-up domain, at
    SCALEUP_EFFICIENCY: the whole aggregate on a switch, min(aggregate, (k − 1) · link) on a full
    mesh (GpuSpec.scaleup_group_gbyte_per_s; docs/reference/training.md 9)."""
    return gpu.scaleup_group_gbyte_per_s(ranks) * BYTES_PER_GB * C.SCALEUP_EFFICIENCY


def _link(job: Job, ctx: _Context, span, ranks=None):
    """Bandwidth and latency for a group of `ranks` GPUs (default: `span`) spread over `span`
    consecutive GPUs: the group's scale-up rate (scaleup_rate) inside one scale-up domain, the
    scale-out network past it."""
    inside = span <= job.gpu.scaleup_domain_gpus
    up = scaleup_rate(job.gpu, span if ranks is None else ranks)
    return np.where(inside, up, ctx.out_bw), np.where(
        inside, C.SCALEUP_LATENCY_S, C.SCALEOUT_LATENCY_S
    )


def _layer_compute(job: Job, lay: Layouts, ctx: _Context):
    """(mm_f, attn_f, attn_b, el_f, softmax_f): one layer's forward GEMMs, attention core forward and
    backward, element-wise kernels and softmax for one micro-batch. GEMMs: 2T·h(h + kv_width + h +
    f·gate)/tp FLOPs at the GEMM rate plus GEMM_OVERHEAD_S each; attention 4T·seq·h/tp (half with
    causal fused attention), backward twice; element-wise bytes at HBM speed."""
    s = job.shape
    h, seq, f, gate = s.hidden, job.seq_len, ctx.f, ctx.gate
    T, tp, sp, slow, hbm = ctx.T, ctx.tp, ctx.sp, ctx.slow, ctx.hbm
    kv_width, moe_share = ctx.kv_width, ctx.moe_share
    linear_flops = 2 * T * h * (h + kv_width + h + f * gate) / tp
    causal = 0.5 if job.fused_attention else 1.0
    attn_flops = 4 * T * seq * h / tp * causal
    gemms = 4 + moe_cost.extra_gemm_launches(job, lay) + (1 if job.fused_attention else 2)
    # the routed experts' grouped GEMMs below the large-GEMM rate (models/training/moe_cost.py)
    experts = moe_cost.expert_extra_s(job, lay, T, tp, ctx.linear_peak)
    # small GEMMs run below the large-GEMM rate (small_gemm.py, docs/reference/training.md 7;
    # off by default: constants.SMALL_MODEL_TERMS_FITTED)
    size = small_gemm.gemm_size_factor(job, lay, T)
    # the router's h × E GEMM and its FP32 scores (moe_cost.py; training.md 6.2)
    experts = experts + moe_cost.router_gemm_s(job, lay, T, tp, ctx.linear_peak)
    mm_f = (linear_flops / ctx.linear_peak * size + experts + gemms * C.GEMM_OVERHEAD_S) * slow
    attn_f = attn_flops / ctx.attn_peak * slow
    attn_b = 2 * attn_flops / ctx.attn_peak_b * slow  # backward: twice the forward's FLOPs

    h_bytes = (20 + (10 if s.dropout else 0)) * h + (
        8 * h * s.experts_per_token * moe_share if s.is_moe else 0
    )
    f_bytes = (2 * (gate - 1) + 2) * f
    score_bytes = 0.0 if job.fused_attention else (4 + (5 if s.dropout else 0)) * s.heads * seq
    el_f = T * (np.where(sp, h_bytes / tp, h_bytes) + f_bytes / tp) / hbm * slow
    el_f = el_f + moe_cost.router_score_bytes(job, lay, T, tp) / hbm * slow
    softmax_f = T * score_bytes / tp / hbm * slow
    return mm_f, attn_f, attn_b, el_f, softmax_f


def _layer_comm(job: Job, lay: Layouts, ctx: _Context):
    """(tp_coll, a2a): one layer's tensor-parallel collective (a reduce-scatter of T·h BF16 values
    and an all-gather of the next GEMM's input) and, for MoE, its all-to-all of the routed tokens,
    moe_share · all_to_all(T·min(k, M)·h·2 bytes over the links the group spans, moe_cost.py)."""
    s = job.shape
    h, T, tp, sp = s.hidden, ctx.T, ctx.tp, ctx.sp
    bw, lat = _link(job, ctx, tp)
    # each tensor-parallel all-reduce is a reduce-scatter of the BF16 output and an all-gather of the
    # next GEMM's input; with FP8 and sequence parallelism the gathers move FP8
    # (constants.FP8_TP_ALL_GATHER_BYTES; not under LoRA, whose adapters need the gathered BF16 input)
    fp8_gathers = job.precision == "fp8" and job.weight_gradients
    ag_bytes = np.where(sp & fp8_gathers, C.FP8_TP_ALL_GATHER_BYTES, 2.0)
    tp_coll = coll.reduce_scatter_s(T * h * 2.0, tp, bw, lat) + coll.all_gather_s(
        T * h * ag_bytes, tp, bw, lat
    )
    # routing limited to M devices or nodes: a token crosses to at most M of them, once each (on a
    # node, NVLink forwards it to its experts there), so its copies are min(k, M)
    copies = moe_cost.dispatch_copies(job, lay)
    routed = np.where(sp, T / tp, T) * copies * h * 2.0
    links = (ctx.up_bw, ctx.out_bw, C.SCALEUP_LATENCY_S, C.SCALEOUT_LATENCY_S)
    a2a = ctx.moe_share * moe_cost.all_to_all_s(job, lay, routed, tp, links) if s.is_moe else 0.0
    return tp_coll, a2a


def _context_parallel(job: Job, ctx: _Context, attn_f, attn_b):
    """(cp_coll, cp_f, cp_b): the ring's all-gather of this rank's K and V (T·kv_width·2/tp bytes
    from each of cp ranks), and what of it the attention core does not hide, once forward and twice
    backward; zeros without context parallelism."""
    if ctx.has_cp:
        tp, cp = ctx.tp, ctx.cp
        cp_bw, cp_lat = _link(job, ctx, tp * cp, cp)
        kv_bytes = (
            ctx.T * ctx.kv_width * 2.0 / tp
        )  # this rank's K and V (bf16), heads split over tp
        cp_coll = coll.all_gather_s(cp * kv_bytes, cp, cp_bw, cp_lat)
        cp_f, cp_b = exposed(cp_coll, attn_f), exposed(2 * cp_coll, attn_b)
    else:  # no context parallelism in these layouts (the common case: skip the arrays)
        cp_coll = cp_f = cp_b = 0.0
    return cp_coll, cp_f, cp_b


def _a2a_exposed(job: Job, ctx: _Context, a2a, mm_f, mm_b, attn_f, attn_b, el_f):
    """(a2a_f, a2a_b): the MoE dispatch and combine (2 · a2a each way) left after the stack's
    `a2a_overlap` hides them: behind the shared experts' GEMMs, behind DualPipe's paired chunk, or
    not at all."""
    s = job.shape
    h, T, gate, moe_share = s.hidden, ctx.T, ctx.gate, ctx.moe_share
    linear_peak, slow = ctx.linear_peak, ctx.slow
    stack = C.SOFTWARE_STACKS[job.stack]
    if (
        stack["a2a_overlap"] == "shared_experts"
    ):  # dispatch/combine beside the shared experts' GEMMs
        shared = moe_share * 2 * T * h * s.ffn_hidden * gate * s.shared_experts / linear_peak * slow
        a2a_f, a2a_b = exposed(2 * a2a, shared), exposed(2 * a2a, 2 * shared)
    elif stack["a2a_overlap"] == "paired_chunk":  # DualPipe: behind the paired chunk's compute
        a2a_f = exposed(2 * a2a, mm_b + attn_b + 2 * el_f)
        a2a_b = exposed(2 * a2a, mm_f + attn_f + el_f)
    else:
        a2a_f = a2a_b = 2 * a2a
    return a2a_f, a2a_b


def _recompute(job: Job, lay: Layouts, ctx: _Context, fwd, attn_f, softmax_f, el_f, tp_f):
    """(rec, is_op_sac): seconds recomputed per layer and micro-batch: the whole forward (full), the
    attention core and softmax (selective), or op_sac's unsaved matmuls (2T·macs/tp FLOPs plus
    GEMM_OVERHEAD_S each), every element-wise kernel, the attention core only off the fused SDPA op,
    and half of the forward TP collectives; 0 without recompute."""
    s = job.shape
    T, tp, slow = ctx.T, ctx.tp, ctx.slow
    is_op_sac = lay.recompute == Recompute.OP_SAC
    if is_op_sac.any():
        op_sac.check_dense(s)
        macs, redo_gemms = op_sac.op_sac_recomputed_macs_per_token(
            s.hidden, ctx.kv_width, ctx.f, s.gated_mlp
        )
        # the unsaved matmuls, all element-wise kernels, the attention core only off the fused
        # SDPA op (the math path is not in the save list), and the all-gathers: half of forward TP
        op_sac_f = (
            (2 * T * macs / tp / ctx.linear_peak + redo_gemms * C.GEMM_OVERHEAD_S) * slow
            + el_f
            + (0.0 if job.fused_attention else attn_f + softmax_f)
            + tp_f / 2
        )
    else:
        op_sac_f = 0.0
    rec = np.select(
        [lay.recompute == Recompute.FULL, lay.recompute == Recompute.SELECTIVE, is_op_sac],
        [fwd, attn_f + softmax_f, op_sac_f],
        0.0,
    )
    return rec, is_op_sac


class _Layer(NamedTuple):
    """Seconds of one layer's work for one micro-batch on one GPU, one value per layout."""

    mm_f: np.ndarray  # forward GEMMs
    attn_f: np.ndarray  # attention core, forward
    attn_b: np.ndarray  # and backward
    tp_coll: np.ndarray  # one tensor-parallel collective (reduce-scatter + all-gather)
    cp_coll: np.ndarray | float  # the ring's K/V all-gather (0 without context parallelism)
    fwd: np.ndarray  # forward with what its communication leaves exposed
    bwd: np.ndarray  # backward likewise
    rec: np.ndarray  # recomputed
    is_op_sac: np.ndarray  # layouts with op_sac recompute (bool)
    moe_a2a: np.ndarray | float = 0.0  # the expert all-to-all left exposed, forward and backward


def _layer(job: Job, lay: Layouts, ctx: _Context) -> _Layer:
    """One layer, one micro-batch: forward = GEMMs + attention + element-wise + softmax + the exposed
    TP, MoE and CP communication; backward = GEMMs ×2 (×1 with frozen weights) + attention backward
    + element-wise and softmax ×2 + exposed communication; plus what recompute repeats."""
    mm_f, attn_f, attn_b, el_f, softmax_f = _layer_compute(job, lay, ctx)
    tp_coll, a2a = _layer_comm(job, lay, ctx)
    cp_coll, cp_f, cp_b = _context_parallel(job, ctx, attn_f, attn_b)

    # backward GEMMs: activation gradients, plus weight gradients unless the weights are frozen
    mm_b = (2.0 if job.weight_gradients else 1.0) * mm_f
    if job.tp_comm_overlap:  # each collective pipelined with its neighbouring GEMM
        tp_f, tp_b = exposed(2 * tp_coll, mm_f), exposed(2 * tp_coll, mm_b)
    else:
        tp_f = tp_b = 2 * tp_coll
    a2a_f, a2a_b = _a2a_exposed(job, ctx, a2a, mm_f, mm_b, attn_f, attn_b, el_f)
    fwd = mm_f + attn_f + el_f + softmax_f + tp_f + a2a_f + cp_f
    bwd = mm_b + attn_b + 2 * (el_f + softmax_f) + tp_b + a2a_b + cp_b
    rec, is_op_sac = _recompute(job, lay, ctx, fwd, attn_f, softmax_f, el_f, tp_f)
    return _Layer(mm_f, attn_f, attn_b, tp_coll, cp_coll, fwd, bwd, rec, is_op_sac, a2a_f + a2a_b)


def _pipeline(job: Job, lay: Layouts, ctx: _Context, layer: _Layer, lps):
    """(compute, bubble, p2p): m stage slots of lps layers plus the logits, the schedule's bubble
    ((pp−1)/v slots for 1F1B, (pp−1)(F+B−2W) for ZB1P, (pp/2−1)(F&B+B−3W) for DualPipe) and the
    pipeline's p2p sends in warm-up and drain."""
    s = job.shape
    h, T, tp, pp, v, sp = s.hidden, ctx.T, ctx.tp, ctx.pp, ctx.v, ctx.sp
    linear_peak, hbm, slow = ctx.linear_peak, ctx.hbm, ctx.slow
    fwd, bwd, rec, mm_f = layer.fwd, layer.bwd, layer.rec, layer.mm_f
    stack = C.SOFTWARE_STACKS[job.stack]
    logits_flops = 2 * T * h * s.vocab / tp
    logit_gemms = 3 if job.weight_gradients else 2
    logits = (
        logit_gemms * (logits_flops / linear_peak + C.GEMM_OVERHEAD_S)
        + 3 * T * s.vocab * 4 / tp / hbm
    ) * slow
    stage = lps * (fwd + bwd + rec) + logits
    m = lay.microbatches
    compute = m * stage
    # W: the weight-gradient GEMMs of a backward chunk (zero-bubble and DualPipe fill the bubble with it)
    w = (lps * mm_f if job.weight_gradients else 0.0) + (
        logits_flops / linear_peak * slow if job.weight_gradients else 0.0
    )
    back = lps * (bwd + rec)
    schedule = stack["pipeline_schedule"]
    if schedule == "zb1p":
        bubble = (pp - 1) * (stage - 2 * w)
    elif schedule == "dualpipe":
        bubble = np.maximum(pp / 2 - 1, 0.0) * (stage + back - 3 * w)
    else:
        bubble = (pp - 1) / v * stage
    p2p_bw, p2p_lat = _link(job, ctx, tp * ctx.dpc * pp, 2)  # a send uses one link
    p2p_bytes = T * h * 2.0 / np.where(sp, tp, 1.0)
    p2p = np.where(pp > 1, 2 * (pp - 1) * v * coll.p2p_s(p2p_bytes, p2p_bw, p2p_lat), 0.0)
    if stack["a2a_overlap"] == "paired_chunk":  # "all-to-all and PP communication ... fully hidden"
        p2p = exposed(p2p, stage)
    return compute, bubble, p2p


def _data_parallel(job: Job, lay: Layouts, ctx: _Context, fwd_mb, bwd_mb):
    """(data_parallel, optimizer): the exposed part of the gradient reduce-scatter (all-reduce
    without ZeRO) and parameter all-gather over dp·cp ranks (dp·cp/ep for expert weights), hidden
    behind the stack's `dp_overlap` of the micro-batch's compute (ZeRO-3 repeats both every
    micro-batch); and the memory-bound optimizer update of the parameters this GPU holds."""
    g = job.gpu
    tp, dpc, out_bw, up_bw = ctx.tp, ctx.dpc, ctx.out_bw, ctx.up_bw
    m = lay.microbatches
    ne, ex = stage_params(job, lay)
    dp_bw, dp_lat = _link(job, ctx, tp * dpc, dpc)
    # k ranks of a DP group share one scale-up domain, each with its own NIC: NCCL runs k channels,
    # one per NIC, so the group's bandwidth is k NICs, capped by the k ranks' scale-up rate (one
    # rank alone in the domain: no hop inside it, the aggregate; training.md 9)
    k = np.clip(g.scaleup_domain_gpus // tp, 1, dpc)
    cap = np.where(k > 1, scaleup_rate(g, k), up_bw)
    dp_bw = np.where(tp * dpc > g.scaleup_domain_gpus, np.minimum(k * out_bw, cap), dp_bw)
    dpe = np.maximum(dpc // lay.ep, 1)
    rs = coll.reduce_scatter_s(job.grad_bytes * ne, dpc, dp_bw, dp_lat) + (
        coll.reduce_scatter_s(job.grad_bytes * ex, dpe, dp_bw, dp_lat)
    )
    # the updated weights, BF16, or FP8 with fp8_params (Megatron-Core fp8_param_gather; the BF16
    # embedding counted at FP8 width too)
    ag = coll.all_gather_s(job.param_gather_bytes * ne, dpc, dp_bw, dp_lat) + (
        coll.all_gather_s(job.param_gather_bytes * ex, dpe, dp_bw, dp_lat)
    )
    dp_overlap = C.SOFTWARE_STACKS[job.stack]["dp_overlap"]
    hide_f, hide_b = dp_overlap * fwd_mb, dp_overlap * bwd_mb
    z = lay.zero
    data_parallel = np.select(
        [z == 0, z <= 2],
        [
            exposed(2 * rs, hide_b),  # ZeRO-0: all-reduce of the gradients
            exposed(rs, hide_b) + exposed(ag, hide_f),
        ],
        m * (exposed(ag, hide_f) + exposed(ag + rs, hide_b)),
    )
    opt_params = np.where(z >= 1, ne / dpc + ex / dpe, ne + ex)
    optimizer = opt_params * C.OPTIMIZER_STEP_BYTES / ctx.hbm
    return data_parallel, optimizer


def _small_gemm_extra(job: Job, lay: Layouts, ctx: _Context) -> np.ndarray:
    """Seconds one layer and micro-batch spend on the small-GEMM slowdown: the layer GEMMs' time ×
    (factor − 1), forward, backward (×2, ×1 with frozen weights) and a full recompute's forward."""
    s = job.shape
    linear = 2 * ctx.T * s.hidden * (2 * s.hidden + ctx.kv_width + ctx.f * ctx.gate) / ctx.tp
    extra = linear / ctx.linear_peak * ctx.slow * (small_gemm.gemm_size_factor(job, lay, ctx.T) - 1)
    passes = 1.0 + (2.0 if job.weight_gradients else 1.0) + (lay.recompute == Recompute.FULL)
    return extra * passes


def step_breakdown(job: Job, lay: Layouts) -> dict[str, np.ndarray]:
    """Seconds per step by part plus `total`, one value per layout: total = compute + pipeline
    bubble + pipeline p2p + exposed data-parallel communication + optimizer update + the fixed
    per-step costs (small_gemm.py); besides them, already inside `compute`, the TP communication,
    recompute, attention core, CP traffic, the small-GEMM slowdown and the MoE terms
    (`moe_all_to_all`, `moe_grouped_gemm`: models/training/moe_cost.py)."""
    ctx = _context(job, lay)
    layer = _layer(job, lay, ctx)
    lps = layers_per_stage(job, lay)
    compute, bubble, p2p = _pipeline(job, lay, ctx, layer, lps)
    fwd_mb, bwd_mb = lps * layer.fwd, lps * (layer.bwd + layer.rec)
    data_parallel, optimizer = _data_parallel(job, lay, ctx, fwd_mb, bwd_mb)
    tp_coll, attn_f, is_op_sac = layer.tp_coll, layer.attn_f, layer.is_op_sac
    m = lay.microbatches

    # per-step costs that do not shrink with the per-GPU work (small_gemm.py)
    fixed = small_gemm.fixed_per_step_s(job, lay, ctx.dpc, lps)
    total = compute + bubble + p2p + data_parallel + optimizer + fixed
    return {
        "compute": compute,
        "pipeline_bubble": bubble,
        "pipeline_p2p": p2p,
        "data_parallel": data_parallel,
        "optimizer": optimizer,
        "fixed_per_step": fixed,
        "total": total,
        # the small-GEMM slowdown of the layer GEMMs, forward, backward and recomputed (inside `compute`)
        "small_gemm": m * lps * _small_gemm_extra(job, lay, ctx),
        "tp_comm": m
        * lps
        * (
            4 * tp_coll
            + np.select(
                [lay.recompute == Recompute.FULL, lay.recompute == Recompute.OP_SAC],
                [2 * tp_coll, tp_coll],
                0.0,
            )
        ),
        "recompute": m * lps * layer.rec,
        # the attention core (QKᵀ, AV) forward, backward and recomputed (already inside `compute`)
        "attention": m
        * lps
        * (
            attn_f
            + layer.attn_b
            # op_sac keeps the fused SDPA output: no attention core rerun
            + np.where(
                (lay.recompute == Recompute.NONE) | (is_op_sac & job.fused_attention), 0.0, attn_f
            )
        )
        + np.zeros(len(lay)),
        # the ring's K/V traffic, once forward and twice backward (mostly hidden: see fwd/bwd)
        "cp_comm": m * lps * 3 * layer.cp_coll + np.zeros(len(lay)),
        **_moe_parts(job, lay, ctx, layer, m * lps),
    }


def _moe_parts(job: Job, lay: Layouts, ctx: _Context, layer: _Layer, slots) -> dict:
    """The MoE terms already inside `compute` (models/training/moe_cost.py), over `slots` layer
    passes (micro-batches × layers per stage): the expert all-to-all left exposed (at the busiest
    rank's bytes), and the routed experts' GEMM seconds beyond a balanced load at the large-GEMM
    rate, × (r/η − 1): narrow grouped GEMMs (η, training.md 6) and the busiest rank's extra tokens
    (r, 6.4); forward, backward (×2, ×1 with frozen weights) and repeated by full recompute."""
    passes = 1 + (2.0 if job.weight_gradients else 1.0) + (lay.recompute == Recompute.FULL)
    experts = moe_cost.expert_extra_s(job, lay, ctx.T, ctx.tp, ctx.linear_peak) * ctx.slow
    zeros = np.zeros(len(lay))
    return {
        "moe_all_to_all": slots * layer.moe_a2a + zeros,
        "moe_grouped_gemm": slots * passes * experts + zeros,
    }

"""The serving model's per-GPU formulas for arrays of layouts (the model itself: models/serving/plan.py's
docstring): memory (weights and KV cache per GPU, the sequences that fit), the decode step of a batch
(each operator group on its own roofline, summed, beside the host's per-sequence work) and the
prefill of one request (compute-bound). models/serving/plan.py `evaluate` puts them together.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from models import constants as C
from models.hardware import GpuSpec
from models.serving.precision import weight_only
from models.shapes import ModelShape, get_preset
from models.training import collectives as coll
from models.units import BITS_PER_BYTE, BYTES_PER_GB, BYTES_PER_GIB, BYTES_PER_PARAM

ACTIVATION_BYTES = 2  # activations cross the all-reduce in BF16


def attention_kv_bytes_per_token(shape: ModelShape, kv_bytes: float) -> float:
    """Full-attention layers × (2 · kv_heads · head_dim, or the MLA latent) × bytes per value."""
    width = shape.kv_cache_dim or 2 * shape.kv_heads * shape.head_dim
    return shape.attention_layers * width * kv_bytes


def indexer_bytes_per_token(shape: ModelShape, kv_bytes: float) -> float:
    """A sparse attention's indexer keys: layers × indexer_dim × bytes per value (0 without one;
    docs/reference/serving-evidence.md, twelfth amendment)."""
    return shape.layers * shape.indexer_dim * kv_bytes


def kv_bytes_per_token(shape: ModelShape, kv_bytes: float) -> float:
    """What a token adds to a sequence's cache: the full-attention layers' K/V (or MLA latent) and
    the indexer's keys, each × bytes per value."""
    return attention_kv_bytes_per_token(shape, kv_bytes) + indexer_bytes_per_token(shape, kv_bytes)


def attended_tokens(shape: ModelShape, context):
    """Tokens a query attends: its context, at most `sparse_attention_tokens` (twelfth amendment)."""
    cap = shape.sparse_attention_tokens
    return np.minimum(context, cap) if cap else context


def causal_pairs(shape: ModelShape, tokens: float) -> float:
    """(query, key) pairs a prompt of I tokens attends causally: I²/2, or with at most S tokens a
    query, S²/2 + (I − S) · S once I passes S (twelfth amendment)."""
    cap = shape.sparse_attention_tokens
    if not cap or tokens <= cap:
        return tokens**2 / 2
    return cap**2 / 2 + (tokens - cap) * cap


def param_split(shape: ModelShape) -> tuple[float, float]:
    """(parameters read every step whatever the batch, parameters of one routed expert in one layer);
    the input embedding is a lookup and is not read whole."""
    lookup = 0 if shape.tied_embeddings else shape.vocab * shape.hidden
    routed = shape.moe_layers * shape.experts * shape.expert_params if shape.is_moe else 0.0
    return shape.params_total - routed - lookup, shape.expert_params if shape.is_moe else 0.0


def _distinct_experts(shape: ModelShape, tokens) -> np.ndarray:
    """Expected distinct routed experts a layer touches for `tokens` tokens of top-k uniform routing."""
    e, k = shape.experts, shape.experts_per_token
    return e * (1 - (1 - k / e) ** np.asarray(tokens, dtype=float))


#: bits per weight as read, per weight-only precision (models/constants.py)
WEIGHT_ONLY_BITS = {"fp4": C.MXFP4_BITS_PER_WEIGHT, "int4": C.INT4_BITS_PER_WEIGHT}


def _rates(gpu: GpuSpec, precision: str) -> tuple[float, float, float]:
    """(GEMM FLOP/s, attention FLOP/s, HBM bytes/s) achievable on one GPU."""
    share = gpu.matmul_fraction_of_peak * C.GEMM_SHARE_OF_MAMF
    rel = {
        "bf16": 1.0,
        "fp8": C.FP8_GEMM_RELATIVE_EFFICIENCY,
        "fp4": C.FP4_GEMM_RELATIVE_EFFICIENCY,
    }
    gemm = gpu.peak_tflops(precision) * 1e12 * share * rel[precision]
    attn = gpu.bf16_dense_tflops * 1e12 * share * C.ATTENTION_RELATIVE_EFFICIENCY[2]
    hbm = gpu.hbm_bandwidth_tbyte_per_s * 1e12 * C.HBM_EFFICIENCY
    return gemm, attn, hbm


def fixed_step_s(shape: ModelShape) -> float:
    """A forward step's fixed time: SERVE_STEP_OVERHEAD_S_PER_LAYER per layer + SERVE_MOE_STEP_S_PER_LAYER
    per MoE layer (routing, permutation, grouped-GEMM launches; docs/reference/serving-evidence.md,
    fifth amendment)."""
    moe = shape.moe_layers * C.SERVE_MOE_STEP_S_PER_LAYER if shape.is_moe else 0.0
    return shape.layers * C.SERVE_STEP_OVERHEAD_S_PER_LAYER + moe


def link_rates(gpu: GpuSpec) -> tuple[float, float]:
    """(scale-up, scale-out) bytes/s one GPU moves: NVLink at SCALEUP_EFFICIENCY, its NIC at
    SCALEOUT_EFFICIENCY (the training model's efficiencies)."""
    up = gpu.scaleup_bandwidth_gbyte_per_s * BYTES_PER_GB * C.SCALEUP_EFFICIENCY
    out = gpu.scaleout_bandwidth_gbit_per_s * 1e9 / BITS_PER_BYTE * C.SCALEOUT_EFFICIENCY
    return up, out


def group_scaleup_rate(gpu: GpuSpec, n) -> np.ndarray:
    """Bytes/s one GPU moves within a group of n GPUs of its scale-up domain: the switched fabric's
    whole rate (link_rates); on a full mesh of point-to-point links (MI300X, MI325X: seven Infinity
    Fabric links, one per other GPU), only the group's own links carry it: min(aggregate, (n − 1) ·
    scaleup_link_gbyte_per_s) at SCALEUP_EFFICIENCY (docs/reference/serving-evidence.md, sixteenth
    amendment; models/data/gpus.csv; the one rate training reads too: GpuSpec.scaleup_group_gbyte_per_s).
    TP 2 on MI300X gets 64 GB/s, not the 8-GPU 448."""
    return gpu.scaleup_group_gbyte_per_s(n) * BYTES_PER_GB * C.SCALEUP_EFFICIENCY


def _allreduce_s(size_bytes, n, gpu: GpuSpec, per_doubling_s: float = 0.0) -> np.ndarray:
    """Bandwidth term of a ring all-reduce (models/training/collectives.py) at the group's rate
    (group_scaleup_rate: a mesh gives a small group a fraction of its aggregate) +
    SERVE_ALLREDUCE_STEPS latencies + the engine's latency per doubling of the group,
    `per_doubling_s` · log2(n) (docs/reference/serving-evidence.md, tenth amendment;
    models/serving/engines.py `allreduce_s_per_doubling`)."""
    n = np.asarray(n, dtype=float)
    bw = group_scaleup_rate(gpu, n)
    band = coll.all_reduce_s(size_bytes, n, bw, 0.0)
    sync = per_doubling_s * np.log2(np.maximum(n, 1.0))
    return np.where(n > 1, band + C.SERVE_ALLREDUCE_STEPS * C.SCALEUP_LATENCY_S + sync, 0.0)


def interdomain_s(su: Setup) -> np.ndarray:
    """A decode step of a replica whose tp · dp GPUs span more than one scale-up domain
    (docs/reference/serving-evidence.md): the thirteenth amendment's layers · B · hidden ·
    ACTIVATION_BYTES at the engine's effective rate, and the fourteenth's term by what crosses the
    boundary: tensor parallel beyond the domain (tp > its GPUs: a replica over nodes, the
    twenty-fourth), layers · (α_tp + B · hidden · ACTIVATION_BYTES / (r_tp · crossing_nic_share)); attention data / expert parallel beyond it (tp within, tp · dp
    beyond), MoE layers · (α_ep + B · top-k · hidden · ACTIVATION_BYTES / r_ep). 0 within one
    domain or without constants."""
    b = np.asarray(su.b, dtype=float)
    domain = su.gpu.scaleup_domain_gpus
    beyond = su.tp * su.dp > domain
    shape = su.shape
    out = np.zeros_like(b * beyond)
    if su.interdomain_bytes_per_s:
        out = out + shape.layers * b * shape.hidden * ACTIVATION_BYTES / su.interdomain_bytes_per_s
    a_tp, r_tp, a_ep, r_ep = su.crossing
    r_tp = r_tp * crossing_nic_share(su.gpu)  # a slower NIC than the fit's (twenty-fourth)
    tp_class = su.tp > domain
    one = b * shape.hidden * ACTIVATION_BYTES
    t_tp = shape.layers * (a_tp + (one / r_tp if r_tp else 0.0))
    t_ep = shape.moe_layers * (a_ep + (one * shape.experts_per_token / r_ep if r_ep else 0.0))
    out = out + np.where(tp_class, t_tp, t_ep if shape.is_moe else 0.0)
    return np.where(beyond, out, 0.0)


def crossing_nic_share(gpu: GpuSpec) -> float:
    """min(1, the GPU's NIC Gb/s ÷ SERVE_CROSSING_REFERENCE_NIC_GBIT_PER_S, the 400 Gb/s NIC the
    crossing rates were fitted on): the share of the fourteenth amendment's tensor-parallel rate
    r_tp,e a replica over nodes gets (docs/reference/serving-evidence.md, twenty-fourth amendment;
    gpus.csv scaleout_bandwidth_gbit_per_s). A faster NIC is not credited: no row measures it."""
    nic = gpu.scaleout_bandwidth_gbit_per_s
    return min(1.0, nic / C.SERVE_CROSSING_REFERENCE_NIC_GBIT_PER_S)


def _moe_all_to_all_s(tokens, su: Setup) -> np.ndarray:
    """With attention data parallelism (dp > 1), each MoE layer's dispatch and combine: an
    all-to-all over the replica's tp · dp GPUs of a group's tokens · top-k · hidden activations
    (each of its tp GPUs a share), at the bandwidth term of models/training/collectives.py plus one
    latency step: on the scale-up link within one scale-up domain, else on the scale-out network
    (docs/reference/serving-evidence.md, eighth amendment). 0 where dp = 1 (the experts are within
    the tensor-parallel group, whose all-reduces carry them)."""
    shape, gpu, tp, dp = su.shape, su.gpu, su.tp, su.dp
    if not shape.is_moe or not np.any(dp > 1):
        return np.zeros_like(np.asarray(tokens * tp * dp, dtype=float))
    g = tp * dp
    size = tokens * shape.experts_per_token * shape.hidden * ACTIVATION_BYTES / tp
    up, out = link_rates(gpu)
    within = g <= gpu.scaleup_domain_gpus
    bw = np.where(within, up, out)
    latency = np.where(within, C.SCALEUP_LATENCY_S, C.SCALEOUT_LATENCY_S)
    one = coll.all_to_all_s(size, g, bw, 0.0) + latency
    return np.where(dp > 1, 2 * shape.moe_layers * one, 0.0)


class Setup(NamedTuple):
    """One model served on one GPU type at arrays of layouts: what every step reads."""

    shape: ModelShape
    gpu: GpuSpec
    tp: np.ndarray
    b: np.ndarray  # sequences in flight per replica
    w_bytes: float  # bytes per weight
    kv_b: float  # bytes per K/V value
    i_tok: float  # prompt tokens per request
    o_tok: float  # output tokens per request
    gemm: float  # GEMM FLOP/s
    attn_rate: float  # attention FLOP/s
    hbm: float  # HBM bytes/s
    w_rate: float  # bytes/s the GEMMs read their weights at
    active: float  # active parameters, the input embedding (a lookup) left out
    #: attention data-parallel groups of `tp` GPUs in a replica (the routed experts over tp · dp
    #: GPUs; `b` is one group's sequences); 1: one tensor-parallel group
    dp: np.ndarray | float = 1.0
    #: the engine's all-reduce latency per doubling of the tensor-parallel group, seconds (tenth
    #: amendment; models/serving/engines.py `allreduce_s_per_doubling`); 0: the roofline's alone
    ar_doubling_s: float = 0.0
    #: the engine's effective rate for a decode step's activations between scale-up domains,
    #: bytes/s (thirteenth amendment; models/serving/engines.py `interdomain_gbyte_per_s`); 0: none
    interdomain_bytes_per_s: float = 0.0
    #: the fourteenth amendment's (α_tp s per layer, r_tp bytes/s, α_ep s per MoE layer, r_ep
    #: bytes/s) beyond one scale-up domain (models/serving/engines.py `crossing`); 0: none
    crossing: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)
    #: pipeline stages of a replica, one per node (vLLM over nodes, twenty-eighth amendment): `b`
    #: is one of its pp concurrent batches, each passing every stage in turn; 1: none
    pp: np.ndarray | float = 1.0


def setup(
    shape: ModelShape,
    gpu: GpuSpec,
    precision: str,
    kv_precision: str,
    tp,
    b,
    input_tokens: int,
    output_tokens: int,
    dp=1.0,
    ar_doubling_s: float = 0.0,
    interdomain_gbyte_per_s: float = 0.0,
    crossing: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0),
    pp=1.0,
) -> Setup:
    """The bytes per weight and K/V value, the GPU's achievable rates (_rates; an FP4 GEMM reads
    its weights at FP4_GEMM_WEIGHT_READ_SHARE_OF_HBM of HBM bandwidth, not HBM_EFFICIENCY) and the
    active parameters less the input embedding. `dp`: attention data-parallel groups of `tp` GPUs
    (docs/reference/serving-evidence.md, eighth amendment). `ar_doubling_s`: the engine's
    all-reduce latency per doubling of the tensor-parallel group (tenth amendment).
    `interdomain_gbyte_per_s`: its rate for activations between scale-up domains, GB/s
    (thirteenth). `crossing`: (α_tp µs per layer, r_tp GB/s, α_ep µs per MoE layer, r_ep GB/s)
    by what crosses the domain (fourteenth). `pp`: pipeline stages over nodes, `b` one of their
    concurrent batches (twenty-eighth)."""
    kv_b = BYTES_PER_PARAM[kv_precision]
    if weight_only(gpu, precision):
        # MXFP4 or INT4 weights dequantised in the GEMM: BF16 arithmetic, read at the HBM rate of
        # any weight (docs/reference/serving-evidence.md, twenty-sixth and thirty-sixth amendments)
        w_bytes = WEIGHT_ONLY_BITS[precision] / BITS_PER_BYTE
        gemm, attn_rate, hbm = _rates(gpu, "bf16")
        w_rate = hbm
    else:
        w_bytes = BYTES_PER_PARAM[precision]
        gemm, attn_rate, hbm = _rates(gpu, precision)
        # an FP4 GEMM reads its weights at a measured share of HBM bandwidth (models/constants.py)
        w_rate = hbm
        if precision == "fp4":
            w_rate = gpu.hbm_bandwidth_tbyte_per_s * 1e12 * C.FP4_GEMM_WEIGHT_READ_SHARE_OF_HBM
    i_tok, o_tok = float(input_tokens), float(output_tokens)
    lookup = 0 if shape.tied_embeddings else shape.vocab * shape.hidden
    active = shape.params_active - lookup
    dp = np.asarray(dp, dtype=float)
    return Setup(
        shape,
        gpu,
        tp,
        b,
        w_bytes,
        kv_b,
        i_tok,
        o_tok,
        gemm,
        attn_rate,
        hbm,
        w_rate,
        active,
        dp,
        float(ar_doubling_s),
        float(interdomain_gbyte_per_s) * BYTES_PER_GB,
        (
            crossing[0] * 1e-6,
            crossing[1] * BYTES_PER_GB,
            crossing[2] * 1e-6,
            crossing[3] * BYTES_PER_GB,
        ),
        np.asarray(pp, dtype=float),
    )


class Memory(NamedTuple):
    """Memory per GPU of a replica, one value per layout."""

    weights_gpu: np.ndarray  # bytes of weights
    kv_token: float  # KV cache bytes per token, whole model
    kv_shards: np.ndarray | float  # GPUs K and V are split over
    kv_seq_gpu: np.ndarray  # KV cache bytes of one sequence on one GPU, its linear state included
    state_seq_gpu: np.ndarray | float  # linear-attention state bytes of one sequence on one GPU
    free: np.ndarray  # bytes left by the weights and the framework
    max_seqs: np.ndarray  # sequences whose KV cache fits


def memory(su: Setup) -> Memory:
    """Weights = params_total · bytes / tp (with attention data parallelism: the routed experts'
    / (tp · dp), the rest / tp); KV per sequence = KV bytes per token · (input + output)
    / min(tp, kv_heads) (1 shard for an MLA latent); the KV cache gets KV_CACHE_MEMORY_FRACTION of
    memory − weights − FRAMEWORK_OVERHEAD_GIB, so floor(that / KV per sequence) sequences fit. A
    hybrid model's sequence also holds linear_layers · linear_state_bytes_per_layer / tp of fixed
    state (docs/reference/serving-evidence.md, twelfth amendment). With pp pipeline stages the
    weights are / pp more, and a GPU holds its layers' K/V for all pp · b sequences, which is a
    TP-tp replica's K/V of b: max_seqs counts one concurrent batch (twenty-eighth amendment)."""
    shape, gpu, tp, i_tok, o_tok = su.shape, su.gpu, su.tp, su.i_tok, su.o_tok
    weights_gpu = shape.params_total * su.w_bytes / tp
    if np.any(su.dp > 1):
        routed = shape.moe_layers * shape.experts * shape.expert_params if shape.is_moe else 0.0
        spread = ((shape.params_total - routed) / tp + routed / (tp * su.dp)) * su.w_bytes
        weights_gpu = np.where(su.dp > 1, spread, weights_gpu)
    weights_gpu = weights_gpu / su.pp
    kv_token = kv_bytes_per_token(shape, su.kv_b)
    kv_shards = 1.0 if shape.kv_cache_dim else np.minimum(tp, shape.kv_heads)
    state_seq_gpu = shape.linear_layers * shape.linear_state_bytes_per_layer / tp
    kv_seq_gpu = kv_token * (i_tok + o_tok) / kv_shards + state_seq_gpu
    free = gpu.memory_gib * BYTES_PER_GIB - weights_gpu - C.FRAMEWORK_OVERHEAD_GIB * BYTES_PER_GIB
    kv_budget = np.maximum(free, 0.0) * C.KV_CACHE_MEMORY_FRACTION
    max_seqs = np.floor(kv_budget / kv_seq_gpu)
    return Memory(weights_gpu, kv_token, kv_shards, kv_seq_gpu, state_seq_gpu, free, max_seqs)


def decode_step(su: Setup, mem: Memory, grouped_kv_decode: bool):
    """(t_step, memory_bound, t_arith): a decode step of the batch = max(weights read, 2 · active
    · B / tp FLOPs) + max(KV read of B · mean context, 4 · layers · heads · head_dim · B · context / tp
    FLOPs; `_attention_reads_flops` for sparse and hybrid attention) + two all-reduces per layer (each with the engine's latency per doubling of tp, the tenth
    amendment; beyond one scale-up domain `interdomain_s`, the thirteenth and fourteenth) + the
    sends between pipeline stages (`stage_hops_s`) + the fixed step time (`fixed_step_s`), or the host's
    B · SERVE_HOST_S_PER_SEQUENCE_STEP if longer; memory-bound where the reads outlast the FLOPs.
    t_arith: the step's arithmetic at the roofline's rates (GEMM and attention FLOPs, summed,
    whether or not the step is memory-bound: what a ROCm build's arithmetic share c multiplies,
    docs/reference/serving-evidence.md, thirty-third amendment, form F2).
    `grouped_kv_decode` False reads each K/V head once per query head of its group."""
    shape, gpu, tp, b = su.shape, su.gpu, su.tp, su.b
    gemm, attn_rate, hbm, w_rate, active = su.gemm, su.attn_rate, su.hbm, su.w_rate, su.active
    layers = shape.layers
    fixed, expert = param_split(shape)
    # every group's tokens reach the routed experts, spread over the replica's tp · dp GPUs
    routed = shape.moe_layers * _distinct_experts(shape, b * su.dp) * expert
    # the routed experts' grouped GEMMs read at the HBM rate of any weight; FP4 dense GEMMs at
    # their measured share (docs/reference/serving-evidence.md, seventh amendment)
    t_weights = fixed * su.w_bytes / tp / w_rate + routed * su.w_bytes / (tp * su.dp) / hbm
    kv_read, attn_flops = _attention_reads_flops(su, mem, grouped_kv_decode)
    # each operator group on its own roofline, summed (Yuan et al. 2024, models/constants.py)
    t_gemm_mem, t_gemm_cmp = t_weights, 2 * active * b / tp / gemm
    t_attn_mem = kv_read / hbm
    t_attn_cmp = attn_flops / attn_rate
    t_mem, t_cmp = t_gemm_mem + t_attn_mem, t_gemm_cmp + t_attn_cmp
    comm = 2 * layers * _allreduce_s(b * shape.hidden * ACTIVATION_BYTES, tp, gpu, su.ar_doubling_s)
    comm = comm + _moe_all_to_all_s(b, su)
    if su.interdomain_bytes_per_s or any(su.crossing):
        comm = comm + interdomain_s(su)
    comm = comm + stage_hops_s(su, b)  # pipeline stages over nodes (twenty-eighth)
    overhead = fixed_step_s(shape)
    t_gpu = (
        np.maximum(t_gemm_mem, t_gemm_cmp) + np.maximum(t_attn_mem, t_attn_cmp) + comm + overhead
    )
    # the host's per-sequence work overlaps the GPU's forward (overlap scheduler)
    t_step = np.maximum(t_gpu, b * C.SERVE_HOST_S_PER_SEQUENCE_STEP)
    return t_step, t_mem >= t_cmp, t_cmp


def _attention_reads_flops(su: Setup, mem: Memory, grouped_kv_decode: bool):
    """(bytes, FLOPs) of a decode step's attention over the batch's mean context c = I + O/2:
    B · attended(c) · the full-attention K/V per token / its shards (× the pre-XQA regrouping), and
    4 · full layers · heads · head_dim · B · attended(c) / tp FLOPs; with a sparse attention's
    indexer, B · c · its keys per token / the shards and 2 · layers · indexer_heads · indexer_dim
    · B · c / tp FLOPs; with linear attention, B · 2 · its state (read and written)
    (docs/reference/serving-evidence.md, twelfth amendment)."""
    shape, tp, b = su.shape, su.tp, su.b
    ctx = su.i_tok + su.o_tok / 2
    seen = attended_tokens(shape, ctx)
    # a pre-XQA engine reads each K/V head once per query head of its group (models/constants.py)
    # (query heads per GPU ÷ K/V heads per GPU: heads ÷ kv_heads while TP ≤ kv_heads)
    per_q = shape.heads * np.minimum(tp, shape.kv_heads) / (tp * shape.kv_heads)
    regroup = 1.0 if grouped_kv_decode or shape.kv_cache_dim else per_q
    attn_kv = attention_kv_bytes_per_token(shape, su.kv_b)
    kv_read = b * seen * attn_kv / mem.kv_shards * regroup
    attn_width = shape.heads * shape.head_dim
    flops = 4 * shape.attention_layers * attn_width * b * seen / tp
    if shape.indexer_dim:
        kv_read = kv_read + b * ctx * indexer_bytes_per_token(shape, su.kv_b) / mem.kv_shards
        flops = flops + 2 * shape.layers * shape.indexer_heads * shape.indexer_dim * b * ctx / tp
    if shape.linear_layers:
        kv_read = kv_read + b * 2 * mem.state_seq_gpu
    return kv_read, flops


def stage_hops_s(su: Setup, tokens) -> np.ndarray:
    """A pass through pp pipeline stages, one per node, sends its `tokens` activations (tokens ·
    hidden · 2 bytes) from each stage to the next: (pp − 1) point-to-point sends over each GPU's
    NIC at SCALEOUT_EFFICIENCY and SCALEOUT_LATENCY_S (the training model's scale-out constants,
    as a split deployment's K/V transfer; docs/reference/serving-evidence.md, twenty-eighth
    amendment); 0 without stages."""
    size = np.asarray(tokens, dtype=float) * su.shape.hidden * ACTIVATION_BYTES
    hop = coll.p2p_s(size, link_rates(su.gpu)[1], C.SCALEOUT_LATENCY_S)
    return (su.pp - 1.0) * hop


def prefill_s(su: Setup) -> np.ndarray:
    """Prefill of one request: max(weights of the experts its tokens touch read, 2 · active · input
    / tp FLOPs) + causal attention 4 · full layers · heads · head_dim · pairs / tp FLOPs (pairs =
    input²/2, `causal_pairs` under a sparse attention, plus its indexer's 2 · layers · indexer_heads
    · indexer_dim · input²/2: the twelfth amendment) + two all-reduces
    per layer (with the engine's latency per doubling of tp, the tenth amendment) + the fixed step
    time (`fixed_step_s`) + the sends between pipeline stages (`stage_hops_s`)."""
    shape, gpu, tp, i_tok = su.shape, su.gpu, su.tp, su.i_tok
    gemm, attn_rate, w_rate, active = su.gemm, su.attn_rate, su.w_rate, su.active
    layers, attn_width = shape.layers, shape.heads * shape.head_dim
    full = shape.attention_layers
    fixed, expert = param_split(shape)
    overhead = fixed_step_s(shape)
    all_experts = shape.moe_layers * _distinct_experts(shape, i_tok) * expert
    pf_read = fixed * su.w_bytes / tp / w_rate + all_experts * su.w_bytes / (tp * su.dp) / su.hbm
    pf_gemm = 2 * active * i_tok / tp / gemm
    if shape.sparse_attention_tokens:
        pairs = causal_pairs(shape, i_tok)
        pf_attn = 4 * full * attn_width * pairs / tp / attn_rate
    else:
        pf_attn = 2 * full * attn_width * i_tok**2 / tp / attn_rate
    if shape.indexer_dim:
        idx = 2 * layers * shape.indexer_heads * shape.indexer_dim * i_tok**2 / 2
        pf_attn = pf_attn + idx / tp / attn_rate
    pf_size = i_tok * shape.hidden * ACTIVATION_BYTES
    pf_comm = 2 * layers * _allreduce_s(pf_size, tp, gpu, su.ar_doubling_s)
    pf_comm = pf_comm + _moe_all_to_all_s(i_tok, su) + stage_hops_s(su, i_tok)
    return np.maximum(pf_read, pf_gemm) + pf_attn + pf_comm + overhead


def expected_distinct_experts(model: str, tokens: int) -> float:
    """E · (1 − (1 − k/E)^tokens) for a preset (1 for a dense model)."""
    shape = get_preset(model)
    return float(_distinct_experts(shape, tokens)) if shape.is_moe else 1.0


__all__ = [
    "ACTIVATION_BYTES",
    "Memory",
    "Setup",
    "attended_tokens",
    "attention_kv_bytes_per_token",
    "causal_pairs",
    "decode_step",
    "expected_distinct_experts",
    "fixed_step_s",
    "indexer_bytes_per_token",
    "crossing_nic_share",
    "interdomain_s",
    "link_rates",
    "kv_bytes_per_token",
    "memory",
    "prefill_s",
    "setup",
]

"""Inference serving: the layout, memory, latency and throughput of a model served on one GPU type,
and the replicas a traffic level and its latency objectives need.

The model (each figure per GPU of a replica of `tp` GPUs; constants in models/constants.py):
- Weights: every parameter once, at the weight precision (when none is given, FP8 where the GPU has
  FP8 tensor cores, else BF16: models/serving/precision.py), split over the replica. KV cache per token
  = layers × (2 · kv_heads · head_dim, or the MLA latent width) × bytes (a hybrid model's full-attention
  layers only, plus its fixed linear state per sequence; a sparse attention's indexer keys:
  docs/reference/serving-evidence.md, twelfth amendment); K and V split over
  min(tp, kv_heads) GPUs (heads beyond that are copies). A sequence holds input + output tokens
  (TensorRT-LLM's default scheduler reserves a request's whole length). The KV cache gets
  KV_CACHE_MEMORY_FRACTION of what weights and FRAMEWORK_OVERHEAD_GIB leave.
- Prefill of one request (compute-bound): 2 · active parameters · input tokens plus causal attention
  2 · 2 · layers · heads · head_dim · input² / 2 FLOPs, at the training core's achievable GEMM rate
  (peak × MAMF × GEMM_SHARE_OF_MAMF, × FP8/FP4 relative efficiency), the GEMMs taking at least
  one read of the weights they touch at HBM_EFFICIENCY of HBM bandwidth, the attention after them.
- Decode step of a batch of B sequences: each operator group on its own roofline, summed (Yuan et
  al. 2024, arXiv 2402.16363): the weight GEMMs take the larger of reading the weights the batch
  touches (at HBM_EFFICIENCY of HBM bandwidth; FP4 dense GEMMs at the measured
  FP4_GEMM_WEIGHT_READ_SHARE_OF_HBM, FlashInfer issue #1732, a MoE's routed experts at
  HBM_EFFICIENCY: docs/reference/serving-evidence.md, seventh amendment) and 2 · active parameters
  · B FLOPs; a MoE model adds SERVE_MOE_STEP_S_PER_LAYER per MoE layer (fifth amendment); attention takes
  the larger of reading B · mean context · KV bytes and its FLOPs over the context. So the GEMMs are
  memory-bound at small batch and compute-bound at large, while attention stays memory-bound. The
  engine's host work (B · SERVE_HOST_S_PER_SEQUENCE_STEP) overlaps the GPU's, so a step takes the
  larger of the two: a small model at a large batch is host-bound. An MoE layer reads only the experts the batch touches: E · (1 − (1 − k/E)^B) expected
  distinct experts for B·k uniform routings.
- Tensor parallelism: two all-reduces of the step's activations per layer on the scale-up link
  (bandwidth as in models/training/collectives.py; SERVE_ALLREDUCE_STEPS latency steps, as engines' one-shot
  kernels, and the engine's latency per doubling of the group, allreduce_s_per_doubling · log2 TP:
  docs/reference/serving-evidence.md, tenth amendment, fitted per engine on AIConfigurator's tuning
  rows), plus SERVE_STEP_OVERHEAD_S_PER_LAYER per layer per step (the fitted constant).
- Colocated (prefill and decode on the same replicas, continuous batching): over one request's life
  the replica runs O decode steps and B prefills, so output tokens/s = B · O / (φ_e · B · t_prefill
  + O · t_step), TPOT = t_step + φ_e · B · t_prefill / O (others' prefills stall decoding; φ_e the
  share the engine's decode pays, 1 but SGLang's 0.60: serving-evidence.md, fifteenth amendment,
  fitted on AIConfigurator's tuning rows), TTFT = the engine's first token (below) after t_prefill
  and t_step.
- Time to first token (docs/reference/serving-evidence.md, ninth amendment; models/serving/
  builds.py `first_token_s`; per engine on AIConfigurator's tuning rows, per ROCm build: 17th):
  TTFT = a_e + m · t_prefill · (k_e + w_e · (C − 1)) + t_step (m: 18th, MoE on CUDA): a_e, the
  request's own prefill as the client sees it (k_e times the roofline's); a service with users in
  flight (a steady closed loop, 21st) replaces the wave term w_e · (C − 1) by an M/M/1 wait for the
  others' prefills at their arrival rate (builds.py `service_first_token_s`). With an arrival
  rate C is 1: the wait for a free slot is the M/M/c queue's. TPOT and throughput are unchanged.
- Split (disaggregated prefill and decode, DistServe, Zhong et al. 2024, arXiv 2401.09670): a
  prefill pool of replicas each prefilling one request at a time (1 / t_prefill requests/s) and a
  decode pool of replicas of the same layout that only decode (B / (O · t_step) requests/s), so
  TPOT = t_step; the prompt's K/V cache goes from a prefill GPU to its decode GPU over the
  scale-out network (each GPU its own shard, models/training/collectives.py p2p at SCALEOUT_EFFICIENCY), so
  TTFT = a_e + k_e · t_prefill + t_kv + t_step plus the waits for a free prefill replica and a free decode
  slot. Each pool is sized for the arrivals at the target utilisation; the prefill pool grows until
  TTFT at its percentile meets the SLO. Only a deployment sized for an arrival rate is split.
- Latency percentile (slo_percentile, p50 default): with an arrival rate (rps or tokens_per_day) a
  replica is an M/M/c queue whose c = batch slots each hold a request for its life (B · t_prefill +
  O · t_step); a request that finds every slot busy waits. The chance of waiting is Sakasegawa's
  approximation ρ^(√(2(c+1))−1) of Erlang C (Sakasegawa 1977, Ann. Inst. Stat. Math. 29:67–75; exact
  at c = 1) and the wait's tail the M/M/c one, P(W > t) = C · e^(−c(1−ρ)t/lifetime) (Kleinrock 1975,
  Queueing Systems I, §3.5), so the p-th percentile adds max(0, ln(C/(1−p))) · lifetime / (c(1−ρ)) to
  TTFT. Exponential request lifetimes overstate the wait of fixed-length requests (about 2×, M/D/c)
  and suit varied lengths. TPOT is not given a tail: it is already taken with all B slots full, the
  largest batch the replica runs; with users no slot queue: their TTFT's tail is the M/M/1 wait
  for the others' prefills (twenty-first amendment, builds.py `service_first_token_s`).
The software generation assumed is 2024–25 TensorRT-LLM with in-flight batching, CUDA graphs and FP8/FP4
kernels (models/data/validation/inference.csv scores it against both older and newer releases).
An older engine without a grouped-query decode kernel (TensorRT-LLM before XQA) reads each K/V head once
per query head of its group: `grouped_kv_decode=False` multiplies the KV read by heads ÷ kv_heads
(models/constants.py, "Pre-XQA decode attention"); only the validation of such rows uses it.

The per-GPU formulas (memory, the decode step, prefill) are in models/serving/roofline.py; `evaluate`
puts them together for arrays of layouts.

Attention data parallelism (docs/reference/serving-evidence.md, eighth amendment): a replica of
DP groups of TP GPUs, each group running attention and the non-expert layers for its own
sequences, the routed experts over all TP · DP GPUs, with a dispatch and a combine all-to-all per
MoE layer (scale-up link within the domain, scale-out network beyond); roofline.py takes `dp`.

Sizing searches TP ∈ {1, 2, 4, 8} (within the scale-up domain), EP ∈ {1, TP} for MoE (and, for a
MoE model too large for TP 8, attention data-parallel replicas of 16, 32 or 64 GPUs; for a dense
model too large for one node, a replica over 2, 4 or 8 nodes: TP over them with SGLang or
TensorRT-LLM, the twenty-fourth amendment, TP within a node × one pipeline stage per node with vLLM,
the twenty-eighth: models/serving/nodes.py), the batch and
(`prefill_decode`: auto) colocated or split, for the fewest GPUs that carry the traffic at
SERVE_TARGET_UTILISATION of capacity within the SLOs; at equal GPUs colocated is kept.
"""

from __future__ import annotations

from typing import Annotated, Literal

import numpy as np
from pydantic import Field, field_validator, model_validator

from models import constants as C
from models.errors import InputError
from models.hardware import GpuSpec, get_gpu, load_gpus
from models.record import Record, at_least
from models.serving import builds, nodes, pools, refusals, roofline
from models.serving import precision as rules
from models.serving.engines import DEFAULT_ENGINE, ENGINES, Engine
from models.serving.precision import (
    DEFAULT_PRECISION_TEXT,
    Precision,
    kv_precision_of,
    precision_of,
)
from models.serving.queueing import queue_wait_s
from models.shapes import ModelShape, get_preset, known_model, load_presets
from models.training import collectives as coll
from models.units import (
    BYTES_PER_GIB,
    SECONDS_PER_HOUR,
)

TP_CHOICES = (1, 2, 4, 8)
#: batch sizes the search tries (engines' CUDA-graph batch list runs 1 … 8192 in similar steps)
BATCHES = np.array(
    [1, 2, 4, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048]
    + [3072, 4096, 6144, 8192],
    dtype=float,
)
#: the ways to give traffic (at most one): arrivals per second, requests in flight, tokens a day
TRAFFIC_FIELDS = ("rps", "users", "tokens_per_day")
MAX_RPS = 1e6
SECONDS_PER_DAY = 86_400
#: the least traffic sized: one request a day (1 / 86,400 s = 1.16e-5 requests/s). Below it a
#: service is idle, not served, and the queueing formulas divide by next to nothing (5e-324
#: requests/s gave an infinite load and "0 replicas")
MIN_RPS = 1 / SECONDS_PER_DAY
RPS_FLOOR = f"one request a day ({MIN_RPS:g} requests/s), the least traffic the sizing carries"
#: the least tokens a day: one request of the shortest kind (1 prompt and 1 output token) a day;
#: with the request's own tokens the floor is one request a day (`ServeInputs`)
MIN_TOKENS_PER_DAY = 2.0


#: the objectives' percentile and where prefill and decode run: one definition for a service's
#: inputs and a portfolio's serving workload (models/portfolio/workloads.py Serve)
SloPercentile = Annotated[
    Literal[50, 90, 99],
    Field(description="percentile of TTFT the SLO and the plan are stated at (queueing tail)"),
]
PrefillDecode = Annotated[
    Literal["auto", "colocated", "split"],
    Field(
        description="prefill and decode on the same replicas (colocated), on separate pools "
        "(split: needs an arrival rate), or whichever needs fewer GPUs (auto)"
    ),
]


class ServeInputs(Record, builds.EngineInputs):
    """What to serve, on what, for how much traffic, within which latency objectives."""

    model: str = Field(description="model preset id (models/data/model_presets.csv)")
    gpu: str = Field(description="GPU id (models/data/gpus.csv)")
    precision: Precision | None = Field(
        None, description=f"weights and GEMMs; default {DEFAULT_PRECISION_TEXT}"
    )
    kv_precision: Literal["bf16", "fp8"] | None = Field(
        None,
        description="KV cache; default FP8 when the weights are FP8 or FP4 (BF16 with weight-only FP4), else BF16",
    )
    engine: Engine = Field(
        DEFAULT_ENGINE,
        description="NAME[:VERSION]: tensorrt-llm (NVIDIA's default), vllm (AMD's: its ROCm "
        "build) or sglang, each with measured step costs (models/serving/builds.py)",
    )
    engine_version: str | None = builds.version_field()
    input_tokens: int = Field(ge=1, le=1_000_000, description="mean prompt tokens per request")
    output_tokens: int = Field(ge=1, le=1_000_000, description="mean output tokens per request")
    rps: float | None = Field(
        None,
        ge=MIN_RPS,
        le=MAX_RPS,
        description="requests per second; at least one request a day (1.16e-5)",
    )
    users: int | None = Field(None, ge=1, le=10_000_000, description="requests in flight")
    tokens_per_day: float | None = Field(
        None,
        ge=MIN_TOKENS_PER_DAY,
        le=1e16,
        description="input + output tokens a day, averaged over 24 hours (requests/s = this ÷ "
        "86,400 ÷ tokens per request; a daily mean, so peaks above it need headroom or rps); at "
        "least one request's tokens, one request a day",
    )
    gpus: int | None = Field(
        None, ge=1, le=72, description="fix one replica of this many GPUs (a benchmark's setup)"
    )
    batch: int | None = Field(
        None, ge=1, le=65_536, description="fix the batch (sequences in flight per replica)"
    )
    ttft_ms: float | None = Field(None, gt=0, le=3.6e6, description="time-to-first-token SLO")
    tpot_ms: float | None = Field(None, gt=0, le=3.6e6, description="time-per-output-token SLO")
    target_utilisation: float = Field(
        C.SERVE_TARGET_UTILISATION, gt=0, le=1, description="share of capacity the sizing fills"
    )
    slo_percentile: SloPercentile = 50
    prefill_decode: PrefillDecode = "auto"

    @model_validator(mode="after")
    def _one_traffic(self):
        given = [n for n in TRAFFIC_FIELDS if getattr(self, n) is not None]
        if len(given) > 1:
            raise ValueError(f"give one of rps, users or tokens_per_day, not {' and '.join(given)}")
        return self

    _rps_floor = field_validator("rps", mode="before")(at_least(MIN_RPS, RPS_FLOOR))
    _tokens_floor = field_validator("tokens_per_day", mode="before")(
        at_least(MIN_TOKENS_PER_DAY, "one request a day (a request is at least 2 tokens)")
    )

    @field_validator("tokens_per_day")
    @classmethod
    def _within_rps(cls, value, info):
        per_request = info.data.get("input_tokens", 0) + info.data.get("output_tokens", 0)
        if value is not None and per_request and value / SECONDS_PER_DAY / per_request > MAX_RPS:
            raise ValueError(
                f"{value:g} tokens a day is over {MAX_RPS:,.0f} requests/s at {per_request:,} "
                "tokens per request"
            )
        if value is not None and per_request and value < per_request:
            raise ValueError(
                f"{value:g} tokens a day is under one request a day at {per_request:,} tokens "
                "per request, the least traffic the sizing carries"
            )
        return value


def requests_per_s(inp: ServeInputs) -> float | None:
    """The arrival rate the sizing carries: `rps`, or tokens_per_day ÷ 86,400 s ÷ (input + output
    tokens per request), the day's mean rate; None when the traffic is given as users (or not)."""
    if inp.tokens_per_day is not None:
        return inp.tokens_per_day / SECONDS_PER_DAY / (inp.input_tokens + inp.output_tokens)
    return inp.rps


class ServePlan(Record):
    """A serving layout and what it does; per GPU unless the name says replica or total."""

    model: str
    gpu: str
    precision: str
    kv_precision: str
    engine: str = DEFAULT_ENGINE
    engine_version: str | None = Field(
        None, exclude_if=builds.unset, description="the release whose step costs were used"
    )
    engine_note: str | None = Field(
        None, exclude_if=builds.unset, description="why they are another release's costs"
    )
    software_generation: str
    tp: int
    ep: int
    attention_dp: int = Field(
        1,
        description="attention data-parallel groups of tp GPUs in a replica, the routed experts "
        "over all tp × attention_dp (a model too large for one scale-up domain)",
    )
    gpus_per_replica: int
    nodes_per_replica: int | None = Field(
        None,
        exclude_if=builds.unset,
        description="scale-up domains (nodes) one replica spans; left out within one node",
    )
    pp: int | None = Field(
        None,
        exclude_if=builds.unset,
        description="pipeline stages, one per node, each of its pp concurrent batches passing "
        "every stage (vLLM over nodes); left out within one node",
    )
    batch: int = Field(
        description="sequences in flight per replica (per attention group; per concurrent batch "
        "of a replica of pipeline stages)"
    )
    max_sequences_per_replica: int = Field(description="sequences whose KV cache fits")
    weights_gib_per_gpu: float
    kv_cache_gib_per_gpu: float = Field(description="KV cache at this batch")
    kv_bytes_per_token: float = Field(description="whole model, all layers")
    prefill_tokens_per_s_per_gpu: float
    output_tokens_per_s_per_gpu: float
    decode_bound: Literal["memory", "compute"]
    ttft_ms: float = Field(description="at slo_percentile, the wait for a free slot included")
    tpot_ms: float
    slo_percentile: int = 50
    ttft_queue_ms: float = Field(
        0.0,
        description="the wait for a free slot at slo_percentile (an arrival rate), or the mean "
        "wait of the users beyond what the KV cache holds (users in flight on a fixed replica)",
    )
    users_waiting: int = Field(
        0, description="users in flight beyond the sequences the KV cache holds: they wait"
    )
    groups_in_use: int | None = Field(
        None,
        exclude_if=builds.unset,
        description="fewer users than the replica's attention groups or concurrent batches: the "
        "groups that hold a sequence, one each (batch is then 1); left out otherwise",
    )
    utilisation: float | None = Field(
        None, description="arrivals ÷ capacity per replica; None without an arrival rate"
    )
    requests_per_s_per_replica: float = Field(description="at full load; split: per decode replica")
    replicas: int = Field(description="all replicas; split: prefill and decode pools together")
    gpus: int
    prefill_decode: Literal["colocated", "split"] = "colocated"
    prefill_replicas: int = Field(0, description="split: replicas of the prefill pool")
    kv_transfer_ms: float = Field(0.0, description="split: a prompt's K/V from prefill to decode")
    output_tokens_per_gpu_hour: float
    rule_of_thumb_tokens_per_s_per_gpu: float = Field(
        description="HBM bandwidth ÷ weight bytes × batch, the estimate a buyer would otherwise use"
    )
    layouts_evaluated: int


def evaluate(
    inp: ServeInputs, tp, ep, batch, grouped_kv_decode: bool = True, dp=1.0, pp=1.0
) -> dict[str, np.ndarray]:
    """Every figure of the serving model for arrays of layouts (tp, ep, batch), vectorized.
    `grouped_kv_decode` False: an engine whose decode attention reads each K/V head once per query
    head of its group (heads ÷ kv_heads times; source in models/constants.py, "pre-XQA decode
    attention"), as TensorRT-LLM before its XQA kernel (≤ 0.7) did; True (the generation the
    planner assumes): once per group. Memory, the decode step t_step and the prefill t_prefill
    come from models/serving/roofline.py; then per replica output tokens/s = B · O / (φ_e · B ·
    t_prefill + O · t_step), TTFT = builds.first_token_s (t_prefill, t_step and, with users, the
    batch in flight), TPOT = t_step + φ_e · B · t_prefill / O (φ_e: the engine's
    `prefill_share_in_decode`, the fifteenth amendment), and split: TTFT = first_token_s (no wave) + t_kv,
    decode B / (O · t_step) and prefill 1 / t_prefill requests/s.
    `dp` > 1: the replica is dp attention data-parallel groups of tp GPUs, the routed experts over
    all tp · dp (docs/reference/serving-evidence.md, eighth amendment); `batch` is one group's, the
    latencies a group's, the per-GPU rates the replica's. `pp` > 1: pipeline stages, one per node,
    and pp concurrent batches of `batch` (vLLM over nodes, twenty-eighth amendment): the replica
    runs as pp TP-tp replicas of the whole model, its step and prefill adding the sends between
    stages and its weights / pp per GPU; `groups` = dp · pp batches run at once."""
    shape, gpu = get_preset(inp.model), get_gpu(inp.gpu)
    tp, ep, b = (np.asarray(x, dtype=float) for x in (tp, ep, batch))
    engine = ENGINES[inp.engine]
    su = roofline.setup(
        shape, gpu, precision_of(inp), kv_precision_of(inp), tp, b, inp.input_tokens,
        inp.output_tokens, dp, engine.allreduce_s_per_doubling, engine.interdomain_gbyte_per_s,
        engine.crossing, pp,
    )  # fmt: skip
    i_tok, o_tok, w_bytes = su.i_tok, su.o_tok, su.w_bytes
    mem = roofline.memory(su)
    weights_gpu, kv_token = mem.weights_gpu, mem.kv_token
    kv_seq_gpu, free, max_seqs = mem.kv_seq_gpu, mem.free, mem.max_seqs
    t_step, memory_bound, t_arith = roofline.decode_step(su, mem, grouped_kv_decode)
    # before the engine's costs (what a build's (k, s) and m or c are fitted against), then its own
    t_roofline, t_step = t_step, builds.engine_step_s(inp, shape, t_step, b, t_arith)
    t_prefill = roofline.prefill_s(su)

    phi = engine.prefill_share_in_decode  # of the others' prefills (fifteenth)
    cycle = phi * b * t_prefill + o_tok * t_step
    # time to first token (serving-evidence.md, ninth and twenty-first amendments): the engine's
    # fixed time and own prefill and, with users (a steady closed loop), the M/M/1 wait for the
    # others' prefills at their arrival rate; with arrivals the slot's wait is the queue's (pools.py)
    ttft = builds.service_first_token_s(inp, t_prefill, t_step, b, cycle)
    out_rate = b * o_tok / cycle  # per replica
    t_kv = _kv_transfer_s(su, mem)
    # a step of the replica's b · dp sequences reads every weight once, spread over its GPUs
    groups = su.dp * su.pp  # batches a replica runs at once
    rule = gpu.hbm_bandwidth_tbyte_per_s * 1e12 / (shape.params_total * w_bytes) * (b * groups)
    return {
        "tp": tp,
        "ep": ep,
        "batch": b,
        "fits": (b <= max_seqs) & (free > 0),
        "max_seqs": max_seqs,
        "weights_gpu": weights_gpu * np.ones_like(b),
        "kv_gpu": b * kv_seq_gpu,
        "kv_token": np.full_like(b, kv_token),
        "t_step": t_step,
        "t_roofline": t_roofline * np.ones_like(b),
        "t_arith": t_arith * np.ones_like(b),
        "memory_bound": memory_bound,
        "t_prefill": t_prefill,
        "prefill_tps_gpu": i_tok / t_prefill / tp,
        "ttft": ttft,
        "tpot": t_step + phi * b * t_prefill / o_tok,
        "out_tps_gpu": out_rate / tp,
        "rps_replica": b * groups / cycle,
        "dp": su.dp * np.ones_like(b),
        "pp": su.pp * np.ones_like(b),
        "groups": groups * np.ones_like(b),
        "gpus_replica": tp * groups,
        "rule_tps_gpu": rule,
        "t_kv": t_kv * np.ones_like(b),
        # split (sized for arrivals only: no wave): prefill, K/V transfer, first step
        "split_ttft": builds.first_token_s(inp, t_prefill, t_step) + t_kv,
        "rps_decode_replica": b * groups / (o_tok * t_step),
        "rps_prefill_replica": groups / t_prefill,
    }


def _kv_transfer_s(su: roofline.Setup, mem: roofline.Memory) -> np.ndarray:
    """Split: each prefill GPU sends its shard of the prompt's K/V (and a hybrid model's linear
    state: the twelfth amendment) to its decode GPU over its NIC; a pipeline stage's GPU, its
    stage's layers (twenty-eighth)."""
    kv_sent = (mem.kv_token * su.i_tok / mem.kv_shards + mem.state_seq_gpu) / su.pp
    return coll.p2p_s(kv_sent, roofline.link_rates(su.gpu)[1], C.SCALEOUT_LATENCY_S)


def _check(inp: ServeInputs) -> tuple[ModelShape, GpuSpec]:
    if not known_model(inp.model):
        raise InputError(
            "model", f"unknown model '{inp.model}'; choose one of: {', '.join(load_presets())}"
        )
    if inp.gpu not in load_gpus():
        raise InputError("gpu", f"unknown GPU '{inp.gpu}'; choose one of: {', '.join(load_gpus())}")
    gpu = get_gpu(inp.gpu)
    rules.check_precisions(gpu, inp.engine, precision_of(inp), kv_precision_of(inp))
    nodes.check_gpus(inp.gpus, inp.engine, gpu)  # over nodes: the twenty-fourth amendment
    return get_preset(inp.model), gpu


#: a MoE model too large for the largest tensor-parallel replica tried spans this many times its
#: GPUs (attention data parallel, the experts over every GPU: docs/reference/serving-evidence.md,
#: eighth amendment); past the scale-up domain, over the scale-out network
DP_REPLICA_MULTIPLES = (2, 4, 8)


def _layouts(inp: ServeInputs, shape: ModelShape, gpu: GpuSpec):
    """(tp, ep, dp, batch) of every layout tried: TP within the scale-up domain, EP ∈ {1, TP} for
    MoE; and for a MoE model whose weights leave no room for one sequence on the largest of those,
    replicas of DP_REPLICA_MULTIPLES times its GPUs with attention data parallelism (groups of TP
    GPUs, the experts over all of them). The measured rows find the model 20–30 % fast on such
    layouts (docs/validation.md), so they are offered only where nothing smaller holds the model.
    A dense model no node holds, with an engine that runs one (nodes.py), also gets a replica over
    nodes, nodes.replica_sizes GPUs: tensor parallel over them (twenty-fourth amendment) or, for
    an engine that runs pipeline stages across nodes, TP within a node × one stage per node
    (twenty-eighth); never where one node serves. Each layout is (tp, ep, dp, pp)."""
    domain = gpu.scaleup_domain_gpus
    staged = bool(inp.gpus and inp.gpus > domain and nodes.pipelined(inp.engine))
    tps = [domain if staged else inp.gpus] if inp.gpus else [t for t in TP_CHOICES if t <= domain]
    pp = inp.gpus // domain if staged else 1
    lay = []
    for t in tps:
        eps = sorted({1, t}) if shape.is_moe and shape.experts % t == 0 else [1]
        for e in eps:
            lay.append((t, e, 1, pp))
    if not inp.gpus and shape.is_moe and not _fits(inp, max(tps)):
        for g in (n * max(tps) for n in DP_REPLICA_MULTIPLES):
            if shape.experts % g == 0:
                lay += [(t, g, g // t, 1) for t in tps if g % t == 0]
    over_nodes = not (inp.gpus or shape.is_moe or nodes.unsupported(inp.engine, inp.gpu))
    if over_nodes and not _node_holds(inp, shape, gpu, max(tps)):  # over nodes (24th, 28th)
        for n in nodes.replica_sizes(gpu):
            lay.append((domain, 1, 1, n // domain) if nodes.pipelined(inp.engine) else (n, 1, 1, 1))
    batches = np.array([inp.batch], dtype=float) if inp.batch else BATCHES
    tp, ep, dp, pp = (np.repeat([x[k] for x in lay], len(batches)) for k in range(4))
    return tp, ep, dp, pp, np.tile(batches, len(lay))


def _fits(inp: ServeInputs, tp: int) -> bool:
    """Whether the weights and one sequence fit a tensor-parallel replica of `tp` GPUs."""
    return bool(evaluate(inp, [tp], [tp], [1.0])["max_seqs"][0] >= 1)


def _node_holds(inp: ServeInputs, shape: ModelShape, gpu: GpuSpec, tp: int) -> bool:
    """Whether the weights and one sequence fit `tp` GPUs: roofline.memory alone (no evaluate)."""
    su = roofline.setup(
        shape, gpu, precision_of(inp), kv_precision_of(inp), np.array([float(tp)]),
        np.ones(1), inp.input_tokens, inp.output_tokens,
    )  # fmt: skip
    return bool(roofline.memory(su).max_seqs[0] >= 1)


def with_max_fit(inp: ServeInputs, tp, ep, dp, pp, b) -> pools.MaxFit:
    """Adds, per layout, the largest batch whose KV cache fits (offline); keeps the probe's fits."""
    if inp.batch:
        return pools.MaxFit((tp, ep, dp, pp), b, None)
    # memory only: the decode kernel does not matter
    probe = evaluate(inp, tp, ep, np.ones_like(b), dp=dp, pp=pp)
    extra = np.maximum(probe["max_seqs"], 1)
    layouts = tuple(np.concatenate([x, x]) for x in (tp, ep, dp, pp))
    return pools.MaxFit(layouts, np.concatenate([b, extra]), np.tile(probe["max_seqs"], 2))


def _plan(inp: ServeInputs, r: dict, i: int, replicas: int, n: int) -> ServePlan:
    tp, per_replica = int(r["tp"][i]), int(r["gpus_replica"][i])
    return ServePlan(
        model=inp.model,
        gpu=inp.gpu,
        precision=precision_of(inp),
        kv_precision=kv_precision_of(inp),
        engine=inp.engine,
        engine_version=builds.build_of(inp).costs_version,
        engine_note=builds.build_of(inp).note or None,
        software_generation=builds.software_of(inp),
        tp=tp,
        ep=int(r["ep"][i]),
        attention_dp=int(r["dp"][i]),
        gpus_per_replica=per_replica,
        nodes_per_replica=nodes.nodes_of(per_replica, get_gpu(inp.gpu)),
        pp=int(r["pp"][i]) if r["pp"][i] > 1 else None,
        batch=int(np.ceil(r["batch"][i])),
        groups_in_use=_groups_in_use(r, i),
        max_sequences_per_replica=int(r["max_seqs"][i]),
        weights_gib_per_gpu=float(r["weights_gpu"][i]) / BYTES_PER_GIB,
        kv_cache_gib_per_gpu=float(r["kv_gpu"][i]) / BYTES_PER_GIB,
        kv_bytes_per_token=float(r["kv_token"][i]),
        prefill_tokens_per_s_per_gpu=float(r["prefill_tps_gpu"][i]),
        output_tokens_per_s_per_gpu=float(r["out_tps_gpu"][i]),
        decode_bound="memory" if bool(r["memory_bound"][i]) else "compute",
        ttft_ms=float(r["ttft"][i]) * 1e3,
        tpot_ms=float(r["tpot"][i]) * 1e3,
        requests_per_s_per_replica=float(r["rps_replica"][i]),
        replicas=replicas,
        gpus=replicas * per_replica,
        output_tokens_per_gpu_hour=float(r["out_tps_gpu"][i]) * SECONDS_PER_HOUR,
        rule_of_thumb_tokens_per_s_per_gpu=float(r["rule_tps_gpu"][i]),
        layouts_evaluated=n,
    )


def _groups_in_use(r: dict, i: int) -> int | None:
    """The groups holding a sequence where a replica has fewer users than groups (pools.per_group:
    a fractional batch per group), else None."""
    b = float(r["batch"][i])
    return int(round(b * float(r["groups"][i]))) if b < 1 else None


def plan_serving(inp: ServeInputs, grouped_kv_decode: bool = True) -> ServePlan:
    """The cheapest layout (fewest GPUs, then the most output tokens per GPU) that fits and meets
    the SLOs for the traffic; with `gpus` fixed, that one replica at `users` in flight (or the
    batch that gives it the most throughput within the SLOs). `grouped_kv_decode` as in evaluate
    (False only to score an older engine's published rows)."""
    shape, gpu = _check(inp)
    (tp, ep, dp, pp), b, fit = with_max_fit(inp, *_layouts(inp, shape, gpu))
    b = pools.in_flight_batch(inp, tp, ep, dp, b, evaluate, fit, pp)  # users: what a replica runs
    r = evaluate(inp, tp, ep, b, grouped_kv_decode, dp, pp)
    if inp.users is not None and inp.gpus:
        r = _closed_loop(inp, tp, ep, r, grouped_kv_decode)
    fits = r["fits"]
    refusals.refuse_unfit(inp, r, r["gpus_replica"], gpu, precision_of(inp))
    u = inp.target_utilisation
    rps = requests_per_s(inp)
    queued = rps is not None and not inp.gpus  # an arrival rate, and replicas sized for it
    if inp.prefill_decode == "split" and not queued:
        raise InputError(
            "prefill_decode",
            "a split into prefill and decode pools is sized for an arrival rate: give requests "
            "per second or tokens per day (not users or a fixed replica), or choose colocated",
        )
    ok = fits & refusals.meets(inp, r["ttft"], r["tpot"]) & (inp.prefill_decode != "split")
    split_ttft = r["split_ttft"]
    split_ok = fits & refusals.meets(inp, split_ttft, r["t_step"]) & queued
    split_ok &= inp.prefill_decode != "colocated"
    if not ok.any() and not split_ok.any():
        refusals.refuse_slos(inp, r, fits, queued)
    candidates = []
    if ok.any():
        candidates.append(pools.colocated(inp, r, np.nonzero(ok)[0], rps, queued, u))
    if split_ok.any():
        candidates.append(pools.split(inp, r, np.nonzero(split_ok)[0], rps, u))
    candidates = [x for x in candidates if len(x["index"])]
    if not candidates:  # every layout met the SLOs before any wait, none with one
        raise InputError(
            "ttft_ms",
            f"TTFT ≤ {inp.ttft_ms:g} ms at p{inp.slo_percentile} leaves no room to queue at "
            f"any load: the fastest layout's TTFT is {min(r['ttft'][ok].min(initial=np.inf), split_ttft[split_ok].min(initial=np.inf)) * 1e3:.0f} ms "
            "before any wait; relax the TTFT objective or its percentile",
        )
    c = {k: np.concatenate([x[k] for x in candidates]) for k in candidates[0]}
    # fewest GPUs, then colocated (a split must save GPUs to be chosen: it adds a K/V transfer
    # path and a second pool to run), then the most output tokens per GPU, then the lowest TPOT
    k = int(np.lexsort((c["tpot"], -c["out_tps_gpu"], c["split"], c["gpus"]))[0])
    i = int(c["index"][k])
    plan = _plan(inp, r, i, int(c["replicas"][k]), len(b))
    return plan.model_copy(update=_chosen_update(inp, r, c, k, plan, queued))


def _closed_loop(inp: ServeInputs, tp, ep, r: dict, grouped_kv_decode: bool) -> dict:
    """`users` in flight on one fixed replica (a benchmark's closed loop): where the KV cache holds
    fewer sequences B (over its attention groups) than the users U, the engine runs B and the
    others wait for a free slot, as a real server queues them. Each sequence then lives cycle =
    B · t_prefill + O · t_step, the replica completes B / cycle requests a second, and by Little's
    law over all U users a request waits (U − B) / (B / cycle) before its slot (`closed_wait`)."""
    users = float(inp.users)
    over = ~r["fits"] & (r["max_seqs"] >= 1)
    if not over.any():
        return r | {"closed_wait": np.zeros_like(r["batch"])}
    b = np.where(over, np.floor(r["max_seqs"]), r["batch"])  # per attention group
    r = evaluate(inp, tp, ep, b, grouped_kv_decode, r["dp"], r["pp"])
    wait = np.maximum(users - r["batch"] * r["groups"], 0.0) / r["rps_replica"]
    return r | {"ttft": r["ttft"] + wait, "closed_wait": wait}


def _chosen_update(
    inp: ServeInputs, r: dict, c: dict, k: int, plan: ServePlan, queued: bool
) -> dict:
    """What candidate k changes in its layout's plan: the SLO percentile; split, its two pools
    (GPUs, the K/V transfer, TPOT = t_step, TTFT = prefill + transfer + first step, tokens/s over
    both pools); with an arrival rate, the p-th percentile wait added to TTFT and the utilisation."""
    i = int(c["index"][k])
    update = {"slo_percentile": inp.slo_percentile}
    if c["split"][k]:
        n_p = int(c["prefill_replicas"][k])
        update |= {
            "prefill_decode": "split",
            "prefill_replicas": n_p,
            "gpus": int(c["gpus"][k]),
            "kv_transfer_ms": float(r["t_kv"][i]) * 1e3,
            "tpot_ms": float(r["t_step"][i]) * 1e3,
            "ttft_ms": float(r["split_ttft"][i]) * 1e3,
            "requests_per_s_per_replica": float(r["rps_decode_replica"][i]),
            "output_tokens_per_s_per_gpu": float(c["out_tps_gpu"][k]),
            "output_tokens_per_gpu_hour": float(c["out_tps_gpu"][k]) * SECONDS_PER_HOUR,
        }
    if queued:
        wait = float(c["wait"][k])
        update |= {
            "ttft_queue_ms": wait * 1e3,
            "ttft_ms": update.get("ttft_ms", plan.ttft_ms) + wait * 1e3,
            "utilisation": float(c["rho"][k]),
        }
    if "closed_wait" in r:  # users beyond what the KV cache holds wait (already in ttft)
        update |= {
            "ttft_queue_ms": float(r["closed_wait"][i]) * 1e3,
            "users_waiting": int(round(inp.users - r["batch"][i])),
        }
    return update


def layout_gpus(inp: ServeInputs, plan: ServePlan) -> int | None:
    """GPUs `plan`'s layout (TP, EP, batch, colocated or split) needs for `inp`'s arrivals: the
    sizing plan_serving gives that one layout (`_colocated`: replicas at the utilisation the TTFT
    tail allows; `_split`: both pools, the prefill pool grown for TTFT's tail); None if it cannot
    meet the TTFT objective at that rate."""
    return layout_gpus_by_rate(inp, plan, [requests_per_s(inp)])[0]


def layout_gpus_by_rate(inp: ServeInputs, plan: ServePlan, rates) -> list[int | None]:
    """`layout_gpus` at each arrival rate in `rates` (inp's own rate not used): the layout
    evaluated once, since nothing evaluate computes depends on the rate, and the same sizing."""
    r = evaluate(inp, [plan.tp], [plan.ep], [plan.batch], dp=[plan.attention_dp], pp=[plan.pp or 1])
    u = inp.target_utilisation
    if plan.prefill_decode == "split":
        out = []
        for rate in rates:
            c = pools.split(inp, r, np.array([0]), rate, u)
            out.append(int(c["gpus"][0]) if len(c["index"]) else None)
        return out
    gpus = pools.colocated_gpus(inp, r, 0, rates, u)
    return [None] * len(rates) if gpus is None else [int(g) for g in gpus]


def sweep(
    inp: ServeInputs,
    tp: int,
    ep: int = 1,
    prefill_decode: str = "colocated",
    dp: int = 1,
    pp: int = 1,
) -> dict[str, list[float]]:
    """Throughput and latency against batch for one layout (for charts): batches that fit only.
    Split: TPOT is the decode step, TTFT prefill + K/V transfer + first step (before any wait),
    and tokens/s per GPU counts both pools in the proportion of their capacities, o / (tp · (1 /
    decode rate + 1 / prefill rate)): whole replicas put a plan a little under it. `dp`: attention
    data-parallel groups of tp GPUs (ServePlan.attention_dp), the batch per group; `pp`: pipeline
    stages (ServePlan.pp), the batch per concurrent batch."""
    n = len(BATCHES)
    r = evaluate(
        inp, np.full(n, tp), np.full(n, ep), BATCHES, dp=np.full(n, float(dp)), pp=np.full(n, pp)
    )
    keep = r["fits"]
    if prefill_decode == "split":
        per_gpu = inp.output_tokens / (
            tp * dp * pp * (1 / r["rps_decode_replica"] + 1 / r["rps_prefill_replica"])
        )
        ttft, tpot = r["split_ttft"], r["t_step"]
    else:
        per_gpu, ttft, tpot = r["out_tps_gpu"], r["ttft"], r["tpot"]
    return {
        "batch": r["batch"][keep].tolist(),
        "output_tokens_per_s_per_gpu": per_gpu[keep].tolist(),
        "ttft_ms": (ttft[keep] * 1e3).tolist(),
        "tpot_ms": (tpot[keep] * 1e3).tolist(),
    }


__all__ = [
    "ServeInputs",
    "ServePlan",
    "Precision",
    "plan_serving",
    "precision_of",
    "requests_per_s",
    "queue_wait_s",
    "evaluate",
    "sweep",
    "layout_gpus",
    "layout_gpus_by_rate",
]

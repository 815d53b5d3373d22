"""The cost of many small experts in MoE training (issue 31 item 3; the form was written before
scoring in docs/reference/training.md section 6).

Three terms, each one called from models/training/step_time.py:

- Launches (`extra_gemm_launches`). A stack that runs the routed experts as one grouped GEMM pays
  one launch for the experts' first linear layer and one for the second, whatever the number of
  local experts (Megatron-Core `GroupedMLP`/`TEGroupedMLP` with `--moe-grouped-gemm`, Megatron-LM
  megatron/core/transformer/moe/experts.py; torchtitan's grouped matmul; DeepSeek's DeepGEMM). The
  shared experts are one MLP of their combined width (Megatron-Core `SharedExpertMLP`): two more
  launches when there are any. The classic stack loops over its local experts (Megatron's
  `SequentialMLP`): two launches per local expert, as the planner counted for every stack before.
- Grouped-GEMM efficiency (`grouped_gemm_efficiency`, `expert_extra_s`). The routed experts'
  GEMMs run at η = η_m(m/R) · η_d(d/R) of the large-GEMM rate, with m = T·k·ep/E the tokens one
  local expert receives per micro-batch (balanced routing), d the expert's FFN width and R the
  GPU's ridge point at the job's precision (dense peak FLOP/s over HBM bytes/s). η_m and η_d are
  read, linearly in log2 of the ratio, off DeepGEMM's published table (models/data/grouped_gemm.csv:
  H800 SXM5, FP8, 2025-03-25), each against its own large-shape reference, and held at the end
  values outside it. Planner assumption: efficiency follows a GEMM's small dimension over the ridge
  point (BF16 on H100, R = 295, meets the FP8-on-H800 curve, R = 591, at half the width).
- All-to-all over the links the group spans (`all_to_all_s`). Without node-limited routing an
  expert-parallel group of n ranks, g of them in one scale-up domain, sends (g−1)/n of each rank's
  bytes over the scale-up link and (n−g)/n over the scale-out network at once: the slower of the
  two, plus the per-peer latency (α·(n−1), collectives.all_to_all_s). With routing limited to M
  nodes (DeepSeek-V3 Sec. 3.2.2) a token crosses the network once per node it reaches and is
  forwarded over NVLink there: an all-to-all among the nodes at the scale-out rate; a group inside
  one scale-up domain, where the limit does not bind, runs the group's all-to-all with k copies
  over the scale-up link (training.md 6.6).

Amendment (training.md 6.2, written before scoring):

- Router (`router_gemm_s`, `router_score_bytes`). The router's h × E GEMM on the rank's tokens
  (T/tp under sequence parallelism) at the large-GEMM rate times η_d(E/R), and its FP32 scores
  written once and read once by the fused score function and top-k at HBM speed.
- Copies per token (`dispatch_copies`). k, or min(k, M) under routing limited to M devices or
  nodes; a stack whose dispatcher sends a token once per destination rank (DeepEP,
  `a2a_dedup = "rank"`) sends the expected number of distinct ranks its k experts sit on,
  n·(1 − C(E − E/n, k)/C(E, k)) with balanced routing. No planner stack sets it today.
- Permutation is the 8·h·k element-wise bytes step_time.py has always counted.

Amendment (training.md 6.4, written before scoring): load imbalance (`rank_imbalance`). The
busiest expert holds (1 + v)·m tokens, v the measured MaxVio (Wang et al. 2024, arXiv 2408.15664
Table 2: models/data/moe_load_balance.csv); its rank-mates carrying the rest evenly (planner
assumption), the busiest of ep ranks of L = E/ep experts holds r = 1 + v·(E − L)/(L·(E − 1)) times
the mean. Every rank waits for it at the all-to-all, so the routed GEMMs' time and the all-to-all
bytes are taken × r. v by how the run balances: loss-free for DeepSeek-V3's stack, an auxiliary
loss for every other, none for force-balanced benchmarks (Job.moe_balance "forced").

Amendment (training.md 6.7, written before scoring): the all-to-all's measured rate inside a
scale-up domain (`a2a_scaleup_factor`). DeepEP's published dispatch and combine bandwidths
(models/data/all_to_all.csv: H800 EP 8 153/158 GB/s of 200; SM100 EP 8 726/740 and 643/675 GB/s
logical, 7/8 of it leaving the GPU, of 900) give a fraction f of the per-direction link by
architecture, the mean of its rows (Hopper 0.778, Blackwell 0.676); the expert all-to-all inside a
domain runs at f in place of SCALEUP_EFFICIENCY (0.65), × f / 0.65. Across nodes, per-call latency
and overlap are unchanged (no separable measurement; the recipes do not overlap). Off by default
(`MEASURED_A2A_SCALEUP`), by the adoption rule written before scoring (training.md 6.7).
"""

from __future__ import annotations

import csv
import functools
import math

import numpy as np

from models import DATA_DIR
from models import constants as C
from models.errors import data_file_error
from models.hardware import GpuSpec, get_gpu

GROUPED_GEMM_FILE = DATA_DIR / "grouped_gemm.csv"
#: Stacks whose routed experts run as a loop of per-expert GEMMs (Megatron's SequentialMLP, the
#: experts' implementation without --moe-grouped-gemm); every other stack runs one grouped GEMM.
LOOPED_EXPERT_STACKS = frozenset({"megatron-3d-classic"})
#: Bytes per router score between the router GEMM and the top-k: FP32 scores (DeepSeek-V3 report
#: Sec. 3.3.1 keeps the MoE gating modules in BF16/FP32; Megatron-Core `--moe-router-dtype fp32`),
#: written by the GEMM and read once by the fused score function and top-k (`--moe-router-fusion`).
ROUTER_SCORE_BYTES = 8
LOAD_BALANCE_FILE = DATA_DIR / "moe_load_balance.csv"
#: Stacks whose router balances its experts without an auxiliary loss (a per-expert bias on the
#: top-k scores): DeepSeek-V3's (report Sec. 2.1.2, "auxiliary-loss-free load balancing"). Every
#: other stack balances with an auxiliary loss (Megatron-Core's default
#: --moe-router-load-balancing-type aux_loss; DeepSeek-V2's balance losses).
LOSS_FREE_STACKS = frozenset({"moe-dualpipe"})
#: The measured model whose MaxVio the planner takes, the larger of the two in the source (its 1B
#: row is shown as a sensitivity): decided before scoring (training.md 6.4 item 4).
LOAD_BALANCE_MODEL = "3B"
A2A_FILE = DATA_DIR / "all_to_all.csv"
#: Whether the expert all-to-all inside a scale-up domain runs at DeepEP's measured fraction of the
#: link (`a2a_scaleup_factor`) instead of SCALEUP_EFFICIENCY. Off: training.md 6.7's adoption rule
#: (on only if the 19 held-out MoE rows' median error went down) was not met (section 6.8).
MEASURED_A2A_SCALEUP = False


@functools.cache
def _curves() -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """{axis: (log2 of the size over the measuring GPU's ridge point, efficiency)} from
    grouped_gemm.csv: each row's TFLOP/s over the reference row of its axis and kernel family
    (normal GEMM, or grouped: masked and contiguous together), sorted by size."""
    with open(GROUPED_GEMM_FILE, newline="") as f:
        rows = list(csv.DictReader(f))
    points: dict[str, list[tuple[float, float]]] = {"tokens": [], "width": []}
    for line, r in enumerate(rows, start=2):
        if r["axis"] not in points or not r["source"] or not r["as_of"]:
            raise data_file_error(
                GROUPED_GEMM_FILE, line, "axis", "axis tokens|width, a source and as_of"
            )
        family = "grouped" if r["kernel"].startswith("grouped") else "normal"
        refs = [
            float(x["measured_tflops"])
            for x in rows
            if x["axis"] == r["axis"]
            and x["is_reference"] == "1"
            and ("grouped" if x["kernel"].startswith("grouped") else "normal") == family
        ]
        ridge = float(r["peak_tflops"]) / float(r["hbm_tbyte_per_s"])
        size = float(r["m_per_group"] if r["axis"] == "tokens" else r["k"])
        points[r["axis"]].append((math.log2(size / ridge), float(r["measured_tflops"]) / max(refs)))
    return {
        axis: (np.array([p[0] for p in sorted(pts)]), np.array([p[1] for p in sorted(pts)]))
        for axis, pts in points.items()
    }


def ridge_flop_per_byte(gpu: GpuSpec, precision: str) -> float:
    """R = dense peak FLOP/s at the precision over HBM bytes/s (H100 BF16: 989/3.35 = 295)."""
    return gpu.peak_tflops("fp8" if precision == "fp8" else "bf16") / gpu.hbm_bandwidth_tbyte_per_s


def grouped_gemm_efficiency(gpu: GpuSpec, precision: str, tokens_per_expert, expert_width):
    """η = η_m(m/R) · η_d(d/R), each interpolated in log2 of the ratio over the measured points and
    held at the end values (1 at and above the reference shapes)."""
    curves, ridge = _curves(), ridge_flop_per_byte(gpu, precision)
    x_m = np.log2(np.maximum(np.asarray(tokens_per_expert, dtype=float), 1.0) / ridge)
    x_d = math.log2(max(expert_width, 1) / ridge)
    return np.interp(x_m, *curves["tokens"]) * float(np.interp(x_d, *curves["width"]))


@functools.cache
def measured_max_vio() -> dict[str, float]:
    """{balancing method: MaxVio} of LOAD_BALANCE_MODEL's rows in moe_load_balance.csv (aux_loss
    0.52, loss_free 0.04: Wang et al. 2024 Table 2)."""
    with open(LOAD_BALANCE_FILE, newline="") as f:
        rows = list(csv.DictReader(f))
    out = {}
    for line, r in enumerate(rows, start=2):
        if not r["source"] or not r["as_of"] or float(r["max_vio_global"]) < 0:
            raise data_file_error(LOAD_BALANCE_FILE, line, "max_vio_global", "≥ 0, a source, as_of")
        if r["model_label"] == LOAD_BALANCE_MODEL:
            out[r["method"]] = float(r["max_vio_global"])
    return out


def max_vio(job) -> float:
    """v, the busiest expert's load over the mean, minus one: 0 for a force-balanced benchmark,
    the loss-free figure for LOSS_FREE_STACKS, the auxiliary-loss figure for every other stack."""
    if job.moe_balance == "forced":
        return 0.0
    return measured_max_vio()["loss_free" if job.stack in LOSS_FREE_STACKS else "aux_loss"]


def rank_imbalance(job, lay):
    """r, the busiest expert-parallel rank's tokens over the mean: 1 + v·(E − L)/(L·(E − 1)) with
    L = E/ep experts per rank (1 at ep = 1, 1 + v at one expert per rank); 1 for a dense model."""
    s = job.shape
    ep = np.asarray(lay.ep, dtype=float)
    if not s.is_moe or s.experts < 2:
        return np.ones_like(ep)
    local = s.experts / np.maximum(ep, 1.0)
    return 1.0 + max_vio(job) * (s.experts - local) / (local * (s.experts - 1))


@functools.cache
def measured_scaleup_fraction() -> dict[str, float]:
    """{architecture: f}, the mean over all_to_all.csv's scale-up rows of that architecture of
    measured GB/s × (n − 1)/n where the figure is logical with local traffic (n = ep), over the
    measuring GPU's per-direction scale-up GB/s (gpus.csv): Hopper (153 + 158)/2/200 = 0.778,
    Blackwell (726, 740, 643, 675)·7/8/900 averaged = 0.676 (DeepEP V1 and V2 READMEs)."""
    with open(A2A_FILE, newline="") as f:
        rows = list(csv.DictReader(f))
    fractions: dict[str, list[float]] = {}
    for line, r in enumerate(rows, start=2):
        if not r["source"] or not r["as_of"] or float(r["measured_gbyte_per_s"]) <= 0:
            raise data_file_error(A2A_FILE, line, "measured_gbyte_per_s", "> 0, a source, as_of")
        if r["link"] != "scale_up":
            continue
        ep = int(r["ep"])
        leaving = (ep - 1) / ep if r["logical_with_local"] == "1" else 1.0
        link = get_gpu(r["gpu_id"]).scaleup_bandwidth_gbyte_per_s
        fractions.setdefault(r["architecture"], []).append(
            float(r["measured_gbyte_per_s"]) * leaving / link
        )
    return {arch: sum(v) / len(v) for arch, v in fractions.items()}


def a2a_scaleup_factor(gpu: GpuSpec, measured: bool | None = None) -> float:
    """The expert all-to-all's scale-up rate over the collectives' (f / SCALEUP_EFFICIENCY, f the
    architecture's measured fraction) when `measured` (default MEASURED_A2A_SCALEUP); 1 when off
    or for an architecture without a measured row (Ampere, AMD)."""
    on = MEASURED_A2A_SCALEUP if measured is None else measured
    f = measured_scaleup_fraction().get(gpu.architecture) if on else None
    return 1.0 if f is None else f / C.SCALEUP_EFFICIENCY


def tokens_per_expert(shape, lay, T):
    """m = T·k·ep/E: a micro-batch's T tokens per GPU, each sent to k of E experts, spread over the
    E/ep experts of each of the ep ranks (balanced routing)."""
    return np.asarray(T, dtype=float) * shape.experts_per_token * lay.ep / shape.experts


def extra_gemm_launches(job, lay):
    """GEMM launches of an MoE layer beyond the dense layer's two MLP launches, per layer (× the
    MoE layers' share): looped experts 2·(E/ep − 1) + 2·shared; grouped 2 for the shared experts
    (one MLP) when there are any, nothing for the routed ones."""
    s = job.shape
    if not s.is_moe:
        return 0
    share = s.moe_layers / s.layers
    if job.stack in LOOPED_EXPERT_STACKS:
        return share * 2 * (s.experts / lay.ep + s.shared_experts - 1)
    return share * 2 * min(s.shared_experts, 1)


def expert_extra_s(job, lay, T, tp, linear_peak):
    """Seconds the routed experts' forward GEMMs take beyond the balanced large-GEMM rate, per
    layer and micro-batch on one GPU (before the stack's kernel efficiency): routed FLOPs
    2·T·h·k·d·gate/tp × MoE share, over the rate, times (r/η − 1), r the busiest rank's load over
    the mean (`rank_imbalance`). Looped experts keep the large-GEMM rate (η = 1, the planner's
    earlier form, no measurement for them). Zero for a dense model."""
    s = job.shape
    if not s.is_moe:
        return 0.0
    gate = 3 if s.gated_mlp else 2
    routed = 2 * T * s.hidden * s.experts_per_token * s.ffn_hidden * gate / tp
    eta = 1.0
    if job.stack not in LOOPED_EXPERT_STACKS:
        eta = grouped_gemm_efficiency(
            job.gpu, job.precision, tokens_per_expert(s, lay, T), s.ffn_hidden
        )
    share = s.moe_layers / s.layers
    return share * routed / linear_peak * (rank_imbalance(job, lay) / eta - 1.0)


def all_to_all_s(job, lay, routed_bytes, tp, links):
    """One all-to-all of `routed_bytes` per rank over the expert-parallel group, taken at the
    busiest rank's bytes (× `rank_imbalance`). `links` is (scale-up bytes/s, scale-out bytes/s,
    scale-up latency, scale-out latency). Ep ranks, g = the group's ranks in one scale-up domain:
    max((g−1)/n·S/B_up, (n−g)/n·S/B_out) + α·(n−1). Node-limited routing on a group wider than one
    scale-up domain: among the nodes it spans, at the scale-out rate; on a group inside one domain
    the limit does not bind and the group's all-to-all runs over the scale-up link like any other
    (training.md 6.6: it was free before). B_up × `a2a_scaleup_factor` (1 unless adopted: 6.7)."""
    s, domain = job.shape, job.gpu.scaleup_domain_gpus
    up_bw, out_bw, up_lat, out_lat = links
    up_bw = up_bw * a2a_scaleup_factor(job.gpu)
    routed_bytes = routed_bytes * rank_imbalance(job, lay)
    span = tp * lay.ep
    n = lay.ep.astype(float)
    g = np.clip(domain // np.maximum(tp, 1), 1, n)
    # on a full mesh the g ranks in one domain reach each other over g − 1 links (training.md 9)
    gpu = job.gpu
    up_bw = up_bw * (gpu.scaleup_group_gbyte_per_s(g) / gpu.scaleup_bandwidth_gbyte_per_s)
    inside = (g - 1) / n * routed_bytes / up_bw
    across = (n - g) / n * routed_bytes / out_bw
    lat = np.where(span <= domain, up_lat, out_lat)
    ranks = np.where(n > 1, np.maximum(inside, across) + lat * (n - 1), 0.0)
    if not (s.routing_limit and s.routing_limit_unit == "node"):
        return ranks
    nodes = np.maximum(span // domain, 1)
    among = (nodes - 1) / nodes * routed_bytes / out_bw + out_lat * (nodes - 1)
    return np.where(span > domain, among, ranks)


def router_tokens(lay, T, tp):
    """T_r: the tokens the router sees on one GPU, T/tp under sequence parallelism (Megatron-Core
    runs the router on the sequence-parallel shard, its weight replicated), else T."""
    return np.where(lay.sequence_parallel.astype(bool), T / tp, T)


def router_gemm_s(job, lay, T, tp, linear_peak):
    """Seconds of the router's forward GEMM per layer and micro-batch (before the stack's kernel
    efficiency): 2·T_r·h·E FLOPs × the MoE layers' share, at the large-GEMM rate times η_d(E/R),
    the DeepGEMM width curve read at the router's output width E. Zero for a dense model."""
    s = job.shape
    if not s.is_moe:
        return 0.0
    eta = float(np.interp(math.log2(s.experts / ridge_flop_per_byte(job.gpu, job.precision)),
                          *_curves()["width"]))  # fmt: skip
    flops = 2 * router_tokens(lay, T, tp) * s.hidden * s.experts
    return s.moe_layers / s.layers * flops / linear_peak / eta


def router_score_bytes(job, lay, T, tp):
    """HBM bytes of the router's scores per layer and micro-batch: T_r·E·ROUTER_SCORE_BYTES × the
    MoE layers' share (element-wise, at HBM speed like every element-wise kernel in the planner)."""
    s = job.shape
    if not s.is_moe:
        return 0.0
    return s.moe_layers / s.layers * router_tokens(lay, T, tp) * s.experts * ROUTER_SCORE_BYTES


def distinct_ranks(experts: int, k: int, ranks):
    """Expected distinct ranks a token's k experts sit on, E/n experts on each of n ranks, with
    balanced routing (k distinct experts drawn uniformly): n·(1 − C(E − E/n, k)/C(E, k))."""
    n = np.maximum(np.asarray(ranks, dtype=float), 1.0)
    local = experts / n
    # C(E − E/n, k)/C(E, k) = ∏_{i<k} (E − E/n − i)/(E − i), zero once a factor reaches zero
    miss = np.ones_like(n)
    for i in range(k):
        miss = miss * np.clip((experts - local - i) / (experts - i), 0.0, None)
    return n * (1.0 - miss)


def dispatch_copies(job, lay):
    """Copies of each token the all-to-all carries: min(k, M) under routing limited to M devices
    or nodes (k where a node-limited group sits inside one scale-up domain: the limit does not
    bind there), else k; a stack that sends once per destination rank (`a2a_dedup` "rank", DeepEP)
    sends min(k, distinct ranks over the ep ranks) instead (no planner stack sets it)."""
    s = job.shape
    copies = min(s.experts_per_token, s.routing_limit or s.experts_per_token)
    if s.routing_limit and s.routing_limit_unit == "node":
        inside = lay.tp * lay.ep <= job.gpu.scaleup_domain_gpus
        return np.where(inside, s.experts_per_token, copies)
    if C.SOFTWARE_STACKS[job.stack].get("a2a_dedup", "expert") != "rank" or s.routing_limit:
        return copies
    return np.minimum(copies, distinct_ranks(s.experts, s.experts_per_token, lay.ep))

"""Fine-tuning: full-parameter SFT, LoRA and QLoRA of a preset model on one GPU type: trainable
parameters, memory per GPU by part, step time, tokens/s, wall-clock and GPU-hours for a dataset, and
the smallest GPU count that fits.

The training core does the physics (models/training/search.py, memory.py, step_time.py), layout by layout:
- Full SFT is the core unchanged: bf16 weights, fp32 gradients, Adam states (2 + 4 + 12 B/param)
  sharded by ZeRO 1–3 / FSDP, activations with none, selective or full recompute.
- LoRA (Hu et al. 2021): adapters B·A of rank r beside each adapted matrix W (d_in × d_out) add
  r·(d_in + d_out) trainable parameters; PEFT's count for Llama 2 7B, rank 8 on q and v, is 4.19 M.
  The frozen base is held at 2 B/param (1 with FP8 weights), split over tp·pp, and over dp too
  under fsdp ZeRO-3 (FSDP FULL_SHARD; with TP ≥ 2, the TP shard over DP: fsdp_tp.py, amendment 6);
  adapters carry 2 + 4 + 12 B/param. Backward computes
  activation gradients through every frozen GEMM but no weight gradients (Job.weight_gradients),
  so linear layers cost 1× forward in backward instead of 2×; attention and element-wise kernels as in
  training. Adapter GEMMs: 2·T·r·(d_in + d_out) FLOPs and two GEMM launches per matrix forward,
  twice that backward, at the core's GEMM rate and GEMM_OVERHEAD_S. Data parallelism all-reduces
  adapter gradients only (exposed beyond DP_OVERLAP of compute); the optimizer updates adapters only.
- QLoRA (Dettmers et al. 2023): LoRA over a base whose linear layers are NF4 (NF4_BYTES_PER_PARAM,
  constants included); each GEMM of a frozen weight first dequantises it to BF16
  (QLORA_DEQUANT_BYTES_PER_PARAM of HBM traffic per weight per use: forward, backward, recompute).
Wall-clock = steps × step time, steps = ⌈dataset tokens × epochs / (global batch × sequence length)⌉
(no failure or restart time: fine-tunes are hours, not months). Activations are the core's, less
the inputs of frozen matrices: a linear layer keeps its input only for its weight gradient (TE v2.2
linear.py `backward_needs_input = is_grad_enabled and weight.requires_grad`), so under LoRA only the
adapted matrices' inputs are kept (by the adapters), plus each adapter's r-wide A·x; norms, SwiGLU
and attention keep theirs (GEMM_INPUT_FEEDS, Job.frozen_gemm_inputs; added after the MLPerf LoRA
memory errors were seen). FP8 storage of the SwiGLU input or of trainable GEMM inputs only where the
job says so (FinetuneInputs.fp8_activation_input_store, fp8_gemm_input_store; default off).
"""

from __future__ import annotations

import math
from typing import Literal

import numpy as np
from pydantic import Field, field_validator, model_validator

from models import constants as C
from models.errors import InputError
from models.finetune import choose, fsdp_tp, grad_sync, savings
from models.finetune.records import FinetuneLayout, FinetunePlan
from models.hardware import GpuSpec, get_gpu, load_gpus
from models.record import Record, at_least
from models.shapes import ModelShape, get_preset, known_model, load_presets
from models.training import collectives as coll
from models.training.job import Job, layers_per_stage, stage_params
from models.training.layouts import RECOMPUTE_MODES, Layouts, Recompute
from models.training.memory import GIB
from models.training.search import all_layouts, evaluate
from models.training.sizing import gpu_ladder
from models.units import BITS_PER_BYTE, BYTES_PER_GB, SECONDS_PER_HOUR

Method = Literal["full", "lora", "qlora"]
Framework = Literal["fsdp", "megatron"]
#: the training core's software stack for each framework (constants.SOFTWARE_STACKS)
FRAMEWORK_STACKS = {"fsdp": "fsdp-zero", "megatron": "megatron-core-tuned"}
Target = Literal["q", "k", "v", "o", "gate", "up", "down"]
#: PEFT's target_modules="all-linear" for a Llama-style block: attention and MLP projections
ALL_TARGETS: tuple[Target, ...] = ("q", "k", "v", "o", "gate", "up", "down")
#: fine-tunes the planner sizes: up to 512 nodes of 8
MAX_FINETUNE_GPUS = 4096
#: the shortest training sequence, and so the least data a fine-tune trains on: one such sequence
#: (5e-324 dataset tokens gave "0 steps, 0 hours"); with the run's own sequence length and epochs,
#: the floor is one sequence of that length (plan_finetune)
MIN_SEQ_LEN = 128
#: the buyer's rule of thumb printed beside the model: tokens/s = MFU × peak × GPUs / (6 × params)
RULE_OF_THUMB_MFU = 0.40
#: and memory: bytes per parameter of the whole model, by method (mixed-precision Adam 16, a BF16
#: base 2, a 4-bit base 0.5), spread over the GPUs
RULE_OF_THUMB_BYTES_PER_PARAM = {"full": 16.0, "lora": 2.0, "qlora": 0.5}
#: the saved GEMM inputs of a layer (Job.frozen_gemm_inputs) and the matrices each feeds: an input
#: is kept only while one of them is trained (full) or adapted (LoRA: the adapter keeps it for its
#: A's weight gradient; a frozen base weight keeps none, TE v2.2 linear.py backward_needs_input)
GEMM_INPUT_FEEDS: dict[str, tuple[Target, ...]] = {
    "qkv": ("q", "k", "v"),
    "o": ("o",),
    "fc1": ("gate", "up"),
    "fc2": ("down",),
}


class FinetuneInputs(Record):
    """What to fine-tune, how, on how much data, on what."""

    model: str = Field(description="model preset id (models/data/model_presets.csv)")
    method: Method = Field(description="full (all parameters), lora, or qlora (4-bit NF4 base)")
    gpu: str = Field(description="GPU id (models/data/gpus.csv)")
    gpus: int | None = Field(
        None, ge=1, le=MAX_FINETUNE_GPUS, description="fix the GPU count; default the fewest"
    )
    lora_rank: int = Field(16, ge=1, le=4096, description="LoRA rank r")
    lora_targets: tuple[Target, ...] = Field(
        ALL_TARGETS, min_length=1, description="matrices adapted: q k v o gate up down"
    )
    tokens: float | None = Field(
        None,
        ge=MIN_SEQ_LEN,
        le=1e13,
        description="dataset tokens (one epoch); at least one sequence, 128 tokens",
    )
    examples: int | None = Field(None, ge=1, le=10**10, description="dataset examples")
    tokens_per_example: int | None = Field(None, ge=1, le=10**7, description="mean tokens each")
    epochs: float = Field(1.0, gt=0, le=1000)
    seq_len: int = Field(
        4096, ge=MIN_SEQ_LEN, le=131_072, description="tokens per training sequence"
    )
    global_batch_seqs: int = Field(32, ge=1, le=65_536, description="sequences per optimizer step")
    precision: Literal["bf16", "fp8"] = Field(
        "bf16", description="GEMMs (and a LoRA base held in FP8)"
    )
    fp8_activation_input_store: bool = Field(
        False,
        description="SwiGLU input kept in FP8 (Megatron-Core activation_func_fp8_input_store)",
    )
    fp8_gemm_input_store: bool = Field(
        False, description="trainable GEMMs keep their input as its FP8 cast (TE FP8 training)"
    )
    framework: Framework = Field(
        "fsdp",
        description="fsdp: PyTorch FSDP / DeepSpeed ZeRO (Hugging Face, TRL, Axolotl, torchtune; "
        "TP within a node beside FSDP only where data parallelism alone does not fit); "
        "megatron: NeMo / Megatron-Core (tensor, pipeline and context parallelism)",
    )
    optimizer_offload: bool | None = Field(
        None,
        description="optimizer states and step on the CPU (ZeRO-Offload); default: the planner",
    )
    param_offload: bool | None = Field(
        None, description="weights on the CPU too (ZeRO-3 / FSDP offload); default: the planner"
    )
    optimizer_8bit: bool | None = Field(
        None, description="8-bit Adam states (bitsandbytes); default: the planner"
    )
    paged_optimizer: bool | None = Field(
        None,
        description="optimizer states paged to the CPU when the GPU is full; default: the planner",
    )
    activation_offload: bool | None = Field(
        None,
        description="activations kept on the CPU between forward and backward; default: the planner",
    )
    pure_bf16: bool | None = Field(
        None,
        description="weights, gradients and Adam states in BF16, no FP32 master copy (torchtune "
        "dtype bf16; NeMo distributed_fused_adam dtype bf16); default: the planner",
    )
    fp8_params: bool = Field(
        False,
        description="weights held in FP8 only, no BF16 copy (Transformer Engine fp8_model_init, "
        "NeMo fp8_params); megatron with precision fp8 only",
    )
    bf16_grads: bool = Field(
        False,
        description="gradient buffers accumulated and reduced in BF16, 2 B per trained parameter "
        "instead of 4, FP32 master and Adam states kept (Megatron-Core grad_reduce_in_fp32 "
        "False); megatron only; the buyer's choice, never the planner's (amendment 5)",
    )

    _tokens_floor = field_validator("tokens", mode="before")(
        at_least(MIN_SEQ_LEN, f"one sequence of the shortest length ({MIN_SEQ_LEN} tokens)")
    )

    @model_validator(mode="after")
    def _one_dataset_size(self):
        by_examples = self.examples is not None or self.tokens_per_example is not None
        if self.tokens is not None and by_examples:
            raise ValueError("give either tokens or examples × tokens_per_example, not both")
        if self.tokens is None and (self.examples is None or self.tokens_per_example is None):
            raise ValueError("give tokens, or both examples and tokens_per_example")
        if len(set(self.lora_targets)) != len(self.lora_targets):
            raise ValueError("lora_targets names a matrix twice")
        return self

    @property
    def fixed_savings(self) -> dict[str, bool | None]:
        """The memory-saving choices as the buyer set them (None: the planner's)."""
        return {k: getattr(self, k) for k in savings.SAVINGS}

    @property
    def dataset_tokens(self) -> float:
        """One epoch's tokens."""
        if self.tokens is not None:
            return float(self.tokens)
        return float(self.examples) * float(self.tokens_per_example)


# --- parameters -----------------------------------------------------------------------------------


def _matrices(shape: ModelShape) -> dict[str, tuple[float, float, float]]:
    """(d_in, d_out, copies over the whole model) of each adaptable matrix; an MoE layer has one
    MLP per routed and shared expert, a dense layer one (MLP widths averaged over the copies)."""
    h, d, L = shape.hidden, shape.head_dim, shape.layers
    q_width, kv_width = shape.heads * d, shape.kv_heads * d
    if shape.is_moe:
        mlps = [
            (shape.dense_ffn_hidden or shape.ffn_hidden, shape.layers - shape.moe_layers),
            (shape.ffn_hidden, shape.moe_layers * (shape.experts + shape.shared_experts)),
        ]
    else:
        mlps = [(shape.ffn_hidden, L)]
    copies = sum(n for _, n in mlps)
    f = sum(w * n for w, n in mlps) / copies
    out = {"q": (h, q_width, L), "k": (h, kv_width, L), "v": (h, kv_width, L), "o": (q_width, h, L)}
    if shape.gated_mlp:
        out["gate"] = (h, f, copies)
    out["up"] = (h, f, copies)
    out["down"] = (f, h, copies)
    return out


def lora_params(shape: ModelShape, rank: int, targets=ALL_TARGETS) -> float:
    """Σ over adapted matrices and their copies of r·(d_in + d_out) (B is d_out×r, A is r×d_in)."""
    mats = _matrices(shape)
    return float(sum(rank * (mats[t][0] + mats[t][1]) * mats[t][2] for t in targets if t in mats))


def adapted_matrices_per_layer(shape: ModelShape, targets) -> float:
    """Adapted matrices one layer runs per token (an MoE layer runs k routed + shared experts)."""
    mats = _matrices(shape)
    mlp_per_token = (
        (shape.experts_per_token + shape.shared_experts) * shape.moe_layers
        + (shape.layers - shape.moe_layers)
    ) / shape.layers
    return float(
        sum((mlp_per_token if t in ("gate", "up", "down") else 1.0) for t in targets if t in mats)
    )


def adapter_flops_per_token(shape: ModelShape, rank: int, targets) -> float:
    """Forward FLOPs of the adapters one token passes through: 2·r·(d_in + d_out) per matrix."""
    return sum(2 * rank * (din + dout) * copies for din, dout, copies in _adapted(shape, targets))


def _adapted(shape: ModelShape, targets):
    """(d_in, d_out, copies one token passes through) of each adapted matrix: a MoE's MLP
    matrices count the experts a token is routed to and the shared ones in its MoE layers."""
    mats = _matrices(shape)
    per_token_mlp = (shape.experts_per_token + shape.shared_experts) if shape.is_moe else 1
    for t in targets:
        if t not in mats:
            continue
        din, dout, copies = mats[t]
        if t in ("gate", "up", "down") and shape.is_moe:
            copies = shape.moe_layers * per_token_mlp + (shape.layers - shape.moe_layers)
        yield din, dout, copies


def linear_params(shape: ModelShape) -> float:
    """Parameters in linear layers (what NF4 quantises): all but embeddings, norms and routers."""
    routers = shape.moe_layers * shape.hidden * shape.experts
    norms = 2 * shape.hidden * shape.layers + shape.hidden
    return shape.params_total - shape.embedding_params - norms - routers


def trainable_params(inp: FinetuneInputs, shape: ModelShape) -> float:
    if inp.method == "full":
        return float(shape.params_total)
    return lora_params(shape, inp.lora_rank, inp.lora_targets)


def base_bytes_per_param(inp: FinetuneInputs, shape: ModelShape) -> float:
    """Mean bytes per frozen base parameter: BF16 2 (FP8 1); QLoRA NF4 on linear layers, BF16 on
    the rest."""
    if inp.method == "qlora":
        lin = linear_params(shape)
        rest = shape.params_total - lin
        return (lin * C.NF4_BYTES_PER_PARAM + rest * C.WEIGHT_BYTES) / shape.params_total
    return 1.0 if inp.precision == "fp8" else float(C.WEIGHT_BYTES)


# --- one GPU count, every layout ------------------------------------------------------------------


def frozen_gemm_inputs(inp: FinetuneInputs) -> frozenset[str]:
    """GEMM inputs no trained or adapted matrix needs (none for full SFT): GEMM_INPUT_FEEDS."""
    if inp.method == "full":
        return frozenset()
    return frozenset(k for k, m in GEMM_INPUT_FEEDS.items() if not set(m) & set(inp.lora_targets))


def job_for(inp: FinetuneInputs, shape: ModelShape, gpu: GpuSpec) -> Job:
    """The core's job; LoRA/QLoRA: no weight gradients of the base, the frozen matrices' inputs not
    kept, each adapter keeping its r-wide A·x (2·r bytes per adapted matrix per token)."""
    adapted = inp.method != "full"
    return Job(
        shape,
        gpu,
        inp.seq_len,
        inp.global_batch_seqs,
        inp.precision,
        stack=FRAMEWORK_STACKS[inp.framework],
        weight_gradients=not adapted,
        frozen_gemm_inputs=frozen_gemm_inputs(inp),
        adapter_bytes_per_token_layer=2.0
        * inp.lora_rank
        * adapted_matrices_per_layer(shape, inp.lora_targets)
        if adapted
        else 0.0,
        fp8_gemm_input_store=inp.fp8_gemm_input_store,
        fp8_activation_input_store=inp.fp8_activation_input_store,
        fp8_params=inp.fp8_params,
        # NeMo grad_sync_dtype bf16 (amendment 3) or Megatron-Core grad_reduce_in_fp32 False
        # (bf16_grads, amendment 5): BF16 gradients held and reduced (grad_sync.job_grad_bytes)
        grad_bytes=grad_sync.job_grad_bytes(inp),
    )


def breakdowns(inp: FinetuneInputs, job: Job, lay: Layouts) -> tuple[dict, dict]:
    """(memory bytes, step seconds) by part for every layout: the core's for full SFT; for LoRA and
    QLoRA the core's activations and frozen-base step, with base, adapter, optimizer, data-parallel
    and dequantisation terms replaced as in the module docstring."""
    mem, step = evaluate(job, lay)
    if inp.method == "full":
        return mem, step
    return _adapter_memory(inp, job, lay, mem), _adapter_step(inp, job, lay, step)


def _base_shards(lay: Layouts) -> np.ndarray:
    """Copies of the frozen base a GPU's share is cut into: dp·cp under a fully sharded layout
    (FSDP FULL_SHARD / ZeRO-3, framework fsdp), else 1 (replicated)."""
    return np.where(lay.zero == 3, lay.dp * lay.cp, 1)


def _adapter_memory(inp: FinetuneInputs, job: Job, lay: Layouts, mem: dict) -> dict:
    """LoRA/QLoRA memory per GPU: the base (sharded where fully sharded, plus the two layers
    gathered in flight, the core's zero3_gather at the base's bytes), adapters with their
    gradients and Adam states, the core's activations and overhead."""
    shape = job.shape
    ne, ex = stage_params(job, lay)
    held = ne + ex
    adapters = lora_params(shape, inp.lora_rank, inp.lora_targets) * held / shape.params_total
    bpp = base_bytes_per_param(inp, shape)
    base = held * bpp / _base_shards(lay)
    gather = np.where(lay.zero == 3, mem["zero3_gather"] * bpp / job.param_gather_bytes, 0.0)
    memory = {
        "base_weights": base,
        "adapter_weights": adapters * C.WEIGHT_BYTES,
        "gradients": adapters * grad_sync.adapter_grad_bytes(inp),
        "optimizer": adapters * C.OPTIMIZER_BYTES,
        "zero3_gather": gather,
        "activations": mem["activations"],
        "overhead": mem["overhead"],
    }
    memory["total"] = sum(memory.values())
    return memory


def eager_lora_bytes_per_token(shape: ModelShape, targets) -> float:
    """HBM bytes an eager PEFT LoRA layer moves per token beyond its GEMMs, forward and backward,
    over the whole model: Σ over adapted matrices of (EAGER_LORA_BYTES_PER_IN·d_in +
    EAGER_LORA_BYTES_PER_OUT·d_out) × the copies one token passes (constants)."""
    return sum(
        (C.EAGER_LORA_BYTES_PER_IN * din + C.EAGER_LORA_BYTES_PER_OUT * dout) * copies
        for din, dout, copies in _adapted(shape, targets)
    )


def _adapter_step(inp: FinetuneInputs, job: Job, lay: Layouts, step: dict) -> dict:
    """LoRA/QLoRA seconds per step by part (module docstring), plus, under framework fsdp, the
    eager adapters' element-wise traffic (eager_lora_bytes_per_token) and, on fully sharded layouts,
    the base's all-gather before each forward and each backward, exposed beyond the stack's overlap
    of one micro-batch's compute (a third of it forward, two thirds backward)."""
    shape, g = job.shape, job.gpu
    ne, ex = stage_params(job, lay)
    held = ne + ex
    adapters = lora_params(shape, inp.lora_rank, inp.lora_targets) * held / shape.params_total
    rel = C.FP8_GEMM_RELATIVE_EFFICIENCY if inp.precision == "fp8" else 1.0
    linear_peak = (
        g.peak_tflops(inp.precision) * 1e12 * rel * g.matmul_fraction_of_peak * C.GEMM_SHARE_OF_MAMF
    )
    hbm = g.hbm_bandwidth_tbyte_per_s * 1e12 * C.HBM_EFFICIENCY
    tp, pp, v = lay.tp.astype(float), lay.pp.astype(float), lay.interleave.astype(float)
    slots = lay.microbatches + (pp - 1) / v  # stage slots per step, bubble included (1F1B)
    lps = layers_per_stage(job, lay)
    T = lay.micro_batch * job.seq_len / lay.cp.astype(float)  # a CP rank's share (as the core)
    full_rec = lay.recompute == Recompute.FULL
    passes = 2.0 + full_rec  # forward, backward, and the recomputed forward
    per_layer_flops = adapter_flops_per_token(shape, inp.lora_rank, inp.lora_targets) / shape.layers
    mats = adapted_matrices_per_layer(shape, inp.lora_targets)
    # forward 1×, backward 2× (activation and weight gradients), recompute 1× more
    adapter_s = (
        slots
        * lps
        * (
            (3.0 + full_rec) * T * per_layer_flops / tp / linear_peak
            + (6.0 + 2 * full_rec) * mats * C.GEMM_OVERHEAD_S
        )
    )
    if inp.framework == "fsdp":  # forward's third again when recomputed
        eager = eager_lora_bytes_per_token(shape, inp.lora_targets) / shape.layers
        adapter_s = adapter_s + slots * lps * T * eager * (3.0 + full_rec) / 3.0 / tp / hbm
    dequant = np.zeros(len(lay))
    if inp.method == "qlora":
        lin_share = linear_params(shape) / shape.params_total
        dequant = slots * passes * held * lin_share * C.QLORA_DEQUANT_BYTES_PER_PARAM / hbm
    data_parallel = _adapter_data_parallel(inp, job, lay, step, adapters, held)
    opt_step = adapters * C.OPTIMIZER_STEP_BYTES / hbm
    base_part = step["compute"] + step["pipeline_bubble"] + step["pipeline_p2p"]
    steps = {
        "compute": step["compute"],
        "pipeline_bubble": step["pipeline_bubble"],
        "pipeline_p2p": step["pipeline_p2p"],
        "adapters": adapter_s,
        "dequantisation": dequant,
        "data_parallel": data_parallel,
        "optimizer": opt_step,
    }
    steps["total"] = base_part + adapter_s + dequant + data_parallel + opt_step
    return steps


def _adapter_data_parallel(inp, job: Job, lay: Layouts, step: dict, adapters, held) -> np.ndarray:
    """The adapters' gradient all-reduce over the dp·cp ranks holding the same weights (as the core),
    exposed beyond DP_OVERLAP of a micro-batch's compute; on fully sharded layouts the base's
    all-gather, forward and backward, every micro-batch."""
    g = job.gpu
    tp = lay.tp.astype(float)
    dpc = lay.dp * lay.cp  # its scale-up rate: the dpc ranks' links on a mesh (training.md 9)
    up_bw = g.scaleup_group_gbyte_per_s(dpc) * BYTES_PER_GB * C.SCALEUP_EFFICIENCY
    out_bw = g.scaleout_bandwidth_gbit_per_s / BITS_PER_BYTE * BYTES_PER_GB * C.SCALEOUT_EFFICIENCY
    inside = tp * dpc <= g.scaleup_domain_gpus
    bw = np.where(inside, up_bw, out_bw)
    lat = np.where(inside, C.SCALEUP_LATENCY_S, C.SCALEOUT_LATENCY_S)
    reduce = coll.all_reduce_s(grad_sync.adapter_grad_bytes(inp) * adapters, dpc, bw, lat)
    per_micro = step["compute"] / np.maximum(lay.microbatches, 1)
    hide = C.DP_OVERLAP * per_micro
    exposed = np.maximum(0.0, reduce - hide) + C.OVERLAP_INTERFERENCE * np.minimum(reduce, hide)
    gather = coll.all_gather_s(held * base_bytes_per_param(inp, job.shape), dpc, bw, lat)
    overlap = C.SOFTWARE_STACKS[job.stack]["dp_overlap"] * per_micro
    sharded = lay.microbatches * (
        np.maximum(0.0, gather - overlap / 3.0) + np.maximum(0.0, gather - 2.0 * overlap / 3.0)
    )
    return exposed + np.where(lay.zero == 3, sharded, 0.0)


def _layouts(inp: FinetuneInputs, job: Job, gpus: int) -> Layouts:
    """The layouts the framework runs (fsdp_tp.allows under fsdp: TP 1, or TP × DP with ZeRO-3);
    under LoRA the frozen base is replicated (ZeRO 0, megatron; ZeRO 1, fsdp) or, under fsdp,
    fully sharded (ZeRO-3) over DP of its TP shard."""
    lay = all_layouts(job, gpus)
    if inp.framework == "fsdp":  # the stack's TP 1 layouts and TP × DP under ZeRO-3 (fsdp_tp)
        lay = fsdp_tp.with_sequence_parallel(lay)
        lay = lay.take(np.nonzero(fsdp_tp.allows(job, lay))[0])
    if inp.method != "full":
        keep = (0,) if inp.framework == "megatron" else (1, 3)
        lay = lay.take(np.nonzero(np.isin(lay.zero, keep))[0])
    return lay


def _best(inp: FinetuneInputs, job: Job, gpus: int, allow_auto: bool):
    """choose.Choice of the fastest fitting (layout, savings) on `gpus`, or None (choose.fastest);
    under fsdp the TP 1 layouts first, TP ≥ 2 only when none of them fits (amendment 6)."""
    lay = _layouts(inp, job, gpus)
    if inp.framework == "fsdp":
        tp1, tp_n = fsdp_tp.split_tp_first(lay)
        return _fastest(inp, job, tp1, allow_auto) or _fastest(inp, job, tp_n, allow_auto)
    return _fastest(inp, job, lay, allow_auto)


def _fastest(inp: FinetuneInputs, job: Job, lay: Layouts, allow_auto: bool):
    """choose.Choice of the fastest fitting (layout, savings) among `lay`, or None."""
    if len(lay) == 0:
        return None
    mem, step = breakdowns(inp, job, lay)
    bf16_job = grad_sync.bf16_grad_job(inp, job) if allow_auto else None
    bf16_form = None
    if bf16_job is not None:  # pure BF16 chosen by the planner: BF16 gradients reduced (grad_sync)
        bf16_form = (*breakdowns(inp, bf16_job, lay), _context(inp, bf16_job, lay))
    ctx = _context(inp, job, lay)
    return choose.fastest(lay, mem, step, inp.fixed_savings, allow_auto, ctx, bf16_form)


def _context(inp: FinetuneInputs, job: Job, lay: Layouts) -> dict:
    """What savings.apply needs beside the breakdowns: the host link, the GPU's usable bytes, the
    gradient width the optimizer offload replaces, the layers per stage."""
    return {
        "host": savings.host_link(inp.gpu),
        "gpu_bytes": C.MEMORY_HEADROOM * job.gpu.memory_gib * GIB,
        "grad_bytes": job.grad_bytes if inp.method == "full" else grad_sync.adapter_grad_bytes(inp),
        "layers_per_stage": layers_per_stage(job, lay),
        "fp8_params": inp.fp8_params,
    }


def _check(inp: FinetuneInputs) -> tuple[ModelShape, GpuSpec]:
    if not known_model(inp.model):
        raise InputError(
            "model", f"unknown model '{inp.model}'; choose one of: {', '.join(load_presets())}"
        )
    if inp.gpu not in load_gpus():
        raise InputError("gpu", f"unknown GPU '{inp.gpu}'; choose one of: {', '.join(load_gpus())}")
    gpu = get_gpu(inp.gpu)
    if inp.precision == "fp8" and gpu.fp8_dense_tflops is None:
        raise InputError("precision", f"{inp.gpu} has no FP8 tensor cores; use bf16")
    if inp.precision == "fp8" and inp.method == "qlora":
        raise InputError("precision", "QLoRA computes in BF16 over its 4-bit base; use bf16")
    if inp.param_offload and inp.optimizer_offload is False:
        raise InputError(
            "param_offload", "parameter offload needs optimizer offload (the step runs on the CPU)"
        )
    if inp.fp8_params and (inp.framework != "megatron" or inp.precision != "fp8"):
        raise InputError(
            "fp8_params", "FP8-only weights need framework megatron and precision fp8; or off"
        )
    if inp.bf16_grads and inp.framework != "megatron":
        raise InputError(
            "bf16_grads",
            "BF16 gradient buffers (Megatron-Core grad_reduce_in_fp32 False) need framework "
            "megatron; under fsdp use pure_bf16, or off",
        )
    if inp.paged_optimizer and inp.optimizer_offload:
        raise InputError(
            "paged_optimizer", "a paged optimizer pages GPU optimizer states: not with offload"
        )
    trained = inp.dataset_tokens * inp.epochs
    if trained < inp.seq_len:
        field = "epochs" if inp.dataset_tokens >= inp.seq_len else "tokens"
        if field == "tokens" and inp.tokens is None:
            field = "examples"
        raise InputError(
            field,
            f"{trained:.4g} tokens in all (dataset × epochs) is under one sequence of "
            f"{inp.seq_len:,} tokens, the least a fine-tune trains on; give more data or "
            "epochs, or a shorter sequence",
        )
    return get_preset(inp.model), gpu


def _smallest(inp: FinetuneInputs, job: Job, ladder, allow_auto: bool, below: int | None = None):
    """(GPU count, choice) of the fewest GPUs on the ladder that fit, or None."""
    for n in ladder:
        if below is not None and n >= below:
            return None
        found = _best(inp, job, n, allow_auto)
        if found is not None:
            return n, found
    return None


def plan_finetune(inp: FinetuneInputs) -> FinetunePlan:
    """The fastest fitting layout on `gpus` GPUs, or on the fewest GPUs of the node ladder
    (1, 2, 4, then whole nodes) that fit without a saving the buyer did not ask for; with `gpus`
    under that count, the planner switches on the savings that fit at the least time
    (models/finetune/choose.py) instead of refusing. Always reports both fewest counts."""
    shape, gpu = _check(inp)
    job = job_for(inp, shape, gpu)
    ladder = gpu_ladder(gpu.gpus_per_node, MAX_FINETUNE_GPUS)
    plain = _smallest(inp, job, ladder, allow_auto=False)
    saving = _smallest(inp, job, ladder, allow_auto=True, below=plain[0] if plain else None)
    saving = saving or plain
    if saving is None:
        raise InputError(
            "gpus",
            f"{inp.model} ({inp.method}) does not fit on up to {MAX_FINETUNE_GPUS:,} {inp.gpu} "
            f"with a batch of {inp.global_batch_seqs} × {inp.seq_len} tokens, even with every "
            "memory saving (offload, 8-bit and paged optimizers, activation offload)",
        )
    if inp.gpus is None:
        n, found = plain or saving
        sizing = "smallest that fits" if plain else "smallest that fits with savings"
    else:
        n = inp.gpus
        found = _best(inp, job, n, allow_auto=True)
        if found is None:
            raise InputError(
                "gpus",
                f"{inp.model} ({inp.method}) does not fit on {n} {inp.gpu} even with every memory "
                f"saving (or {n} GPUs cannot split a batch of {inp.global_batch_seqs} "
                f"sequences); give at least {saving[0]}, or a multiple of the batch",
            )
        sizing = "fixed"
    min_plain = plain[0] if plain else saving[0]
    return _assemble(inp, shape, gpu, job, found, n, sizing, (min_plain, saving[0]))


def _assemble(inp, shape, gpu, job, choice, n, sizing, min_gpus):
    lay, mem, step, i = choice.lay, choice.mem, choice.step, choice.index
    row = lay.row(i)
    step_s = float(step["total"][i])
    batch_tokens = row["global_batch_seqs"] * inp.seq_len
    steps = math.ceil(inp.dataset_tokens * inp.epochs / batch_tokens)
    hours = steps * step_s / SECONDS_PER_HOUR
    alt = {}
    for mode in (Recompute.NONE, Recompute.FULL):
        one = lay.take([i])
        one = Layouts(**{**one.__dict__, "recompute": np.array([int(mode)], dtype=np.int64)})
        alt[mode] = float(breakdowns(inp, job, one)[0]["activations"][0]) / GIB
    rule_tps = (
        RULE_OF_THUMB_MFU * gpu.peak_tflops(inp.precision) * 1e12 * n / (6 * shape.params_total)
    )
    step_i = {k: float(v[i]) for k, v in step.items()}
    return FinetunePlan(
        model=inp.model,
        method=inp.method,
        gpu=inp.gpu,
        precision=inp.precision,
        gpus=n,
        nodes=math.ceil(n / gpu.gpus_per_node),
        sizing=sizing,
        min_gpus=min_gpus[0],
        lora_rank=None if inp.method == "full" else inp.lora_rank,
        lora_targets=None if inp.method == "full" else list(inp.lora_targets),
        params_total=float(shape.params_total),
        trainable_params=trainable_params(inp, shape),
        layout=FinetuneLayout(
            tp=row["tp"],
            pp=row["pp"],
            dp=row["dp"],
            zero=row["zero"],
            recompute=RECOMPUTE_MODES[int(lay.recompute[i])],
            micro_batch=row["micro_batch"],
            microbatches=row["microbatches"],
            global_batch_seqs=row["global_batch_seqs"],
        ),
        memory_gib_per_gpu={k: float(v[i]) / GIB for k, v in mem.items()},
        memory_capacity_gib=gpu.memory_gib,
        activations_gib_no_recompute=alt[Recompute.NONE],
        activations_gib_full_recompute=alt[Recompute.FULL],
        step_time_s=step_s,
        step_breakdown_s={k: v for k, v in step_i.items() if k not in ("tp_comm", "recompute")},
        tokens_per_s=batch_tokens / step_s,
        tokens_per_s_per_gpu=batch_tokens / step_s / n,
        dataset_tokens=inp.dataset_tokens,
        epochs=inp.epochs,
        steps=steps,
        train_hours=hours,
        gpu_hours=hours * n,
        rule_of_thumb_tokens_per_s=rule_tps,
        rule_of_thumb_memory_gib_per_gpu=RULE_OF_THUMB_BYTES_PER_PARAM[inp.method]
        * shape.params_total
        / n
        / GIB,
        layouts_evaluated=len(lay),
        framework=inp.framework,
        savings=choice.combo,
        savings_chosen_by=choice.chosen_by,
        savings_step_s=savings.seconds_by_saving(
            choice.combo,
            step_i,
            {k: float(v[i]) for k, v in choice.base_step.items()},
            inp.fp8_params,
        ),
        host_memory_gib_per_gpu=choice.host_bytes / GIB,
        min_gpus_with_savings=min_gpus[1],
        **grad_sync.assumptions(inp, choice.combo, choice.grad_bytes),
    )


__all__ = [
    "ALL_TARGETS",
    "FinetuneInputs",
    "FinetunePlan",
    "plan_finetune",
    "lora_params",
    "linear_params",
]

"""Memory-saving choices of a fine-tune and what each costs in time (issue 31;
docs/reference/finetune-model.md fixes the form).

Each choice changes the per-GPU memory of every layout (arrays from models/finetune/plan.py
breakdowns) and adds seconds per step. With P the trainable parameters one GPU updates (its
optimizer bytes ÷ OPTIMIZER_BYTES), W its resident weight bytes, A its activation bytes, m the
micro-batches per step, B the host link (host_links.csv × HOST_LINK_EFFICIENCY) and H the host
memory bandwidth per GPU (× HOST_MEMORY_EFFICIENCY):

- optimizer_offload (DeepSpeed ZeRO-Offload, Ren et al. 2021 arXiv 2101.06840; FSDP CPUOffload;
  Megatron-Core --optimizer-cpu-offload): GPU optimizer bytes 0, gradients held in BF16 until copied;
  host holds optimizer states and FP32 gradients. Time: P × OFFLOAD_TRANSFER_BYTES_PER_PARAM / B
  (gradients down, weights up) + P × step bytes / H (the CPU Adam step), both exposed: the step
  waits for the last gradient (ZeRO-Offload's one-step delayed update is off by default).
- param_offload (ZeRO-3 offload_param, FSDP CPUOffload(offload_params=True)); only with a fully
  sharded layout (ZeRO-3 / FSDP FULL_SHARD) and with optimizer_offload: GPU weights and gradients 0
  (the two layers gathered in flight stay); time 2 × W × m / B (the shard up for forward and for
  backward, every micro-batch), exposed.
- optimizer_8bit (bitsandbytes Adam8bit, Dettmers et al. 2022 arXiv 2110.02861): optimizer bytes
  OPTIMIZER_8BIT_BYTES per parameter instead of OPTIMIZER_BYTES, step traffic
  OPTIMIZER_8BIT_STEP_BYTES instead of OPTIMIZER_STEP_BYTES (on the GPU or, offloaded, the host).
- paged_optimizer (bitsandbytes paged optimizers, Dettmers et al. 2023 arXiv 2305.14314 Sec. 3):
  states in CUDA unified memory; what exceeds the GPU's usable memory (at most all optimizer bytes)
  is evicted to the host and paged back every step: time 2 × overflow / B. Not with offload.
- pure_bf16 (torchtune's dtype bf16, llama-recipes pure_bf16; amendment 2; under megatron NeMo's
  distributed_fused_adam with dtype and grad_sync_dtype bf16, amendment 3): no FP32 master copy,
  gradient and Adam moments in BF16: gradients × PURE_BF16_GRAD_BYTES / grad bytes, optimizer
  bytes and step traffic from optimizer_form (4 and 14 B, with 8-bit states 2 and 10 B; with
  bitsandbytes' 32-bit paged AdamW FP32 moments, 8 and 22 B; over FP8-only weights NeMo's BF16
  copy, + 2 and + 1 B); offloaded, the host keeps the BF16 weight and gradient
  (PURE_BF16_HOST_EXTRA_BYTES).
- activation_offload (torchtune enable_activation_offloading, Megatron-Core cpu_offloading): the
  GPU keeps two layers' activations, the rest goes to the host and back on its own stream; time
  max(0, 2 × offloaded × m / B − compute), the part compute does not hide. Pipeline-free layouts
  only (pp = 1).

A (layout, choice) fits when its GPU total ≤ MEMORY_HEADROOM of the GPU and its host bytes ≤
MEMORY_HEADROOM of the host memory per GPU.
"""

from __future__ import annotations

import csv
import functools
import itertools
import pathlib

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from models import constants as C
from models.errors import InputError, data_file_error
from models.units import BYTES_PER_GB

HOST_FILE = pathlib.Path(__file__).parents[1] / "data" / "host_links.csv"
#: the choices, in the order the page and the CLI list them
SAVINGS = (
    "optimizer_offload",
    "param_offload",
    "optimizer_8bit",
    "paged_optimizer",
    "activation_offload",
    "pure_bf16",
)
LABELS = {
    "optimizer_offload": "optimizer offload to CPU",
    "param_offload": "parameter offload to CPU",
    "optimizer_8bit": "8-bit optimizer",
    "paged_optimizer": "paged optimizer",
    "activation_offload": "activation offload to CPU",
    "pure_bf16": "pure BF16 (no FP32 master weights)",
}
#: what the page and the CLI say beside a plan that trains in pure BF16 (Zamirai et al. 2020,
#: "Revisiting BFloat16 Training", arXiv 2010.06192)
PURE_BF16_CAVEAT = (
    "pure BF16 keeps no FP32 master weights: updates smaller than BF16's resolution are lost "
    "unless the optimizer uses Kahan summation or stochastic rounding (Zamirai et al. 2020)"
)
#: what the page and the CLI say beside a plan with BF16 gradient buffers (bf16_grads; Megatron-LM
#: arguments.py turns FP32 accumulation on for --bf16 unless --grad-reduce-in-bf16: amendment 5)
BF16_GRADS_CAVEAT = (
    "BF16 gradient buffers accumulate and reduce gradients in BF16 (2 B each, the FP32 master and "
    "Adam states kept): small contributions can round away; the accuracy cost is not modelled"
)
#: step-time parts each choice adds (plan step_breakdown_s keys)
TIME_PARTS = {
    "optimizer_offload": ("offload_transfer", "cpu_optimizer"),
    "param_offload": ("param_transfer",),
    "paged_optimizer": ("paging",),
    "activation_offload": ("activation_transfer",),
}
WEIGHT_KEYS = ("weights", "base_weights", "adapter_weights")


class HostLink(BaseModel):
    """The host side of one GPU: its link to the CPU and its share of the server's CPU memory."""

    model_config = ConfigDict(frozen=True)

    gpu_id: str
    host_link_gbyte_per_s: float = Field(gt=0, description="one direction")
    host_memory_gib_per_gpu: float = Field(gt=0)
    host_memory_bandwidth_gbyte_per_s_per_gpu: float = Field(gt=0)
    reference_server: str
    as_of: str
    source: str = Field(min_length=1)
    notes: str = ""


@functools.lru_cache(maxsize=2)
def load_host_links(path: pathlib.Path = HOST_FILE) -> dict[str, HostLink]:
    """Reads and validates models/data/host_links.csv once."""
    out: dict[str, HostLink] = {}
    with path.open(newline="") as f:
        for line_no, row in enumerate(csv.DictReader(f), start=2):
            try:
                link = HostLink.model_validate(row)
            except ValidationError as exc:
                err = exc.errors()[0]
                raise data_file_error(path, line_no, str(err["loc"][0]), err["msg"]) from None
            out[link.gpu_id] = link
    return out


def host_link(gpu_id: str) -> HostLink:
    links = load_host_links()
    if gpu_id not in links:
        raise InputError("gpu", f"no host link for '{gpu_id}' in models/data/host_links.csv")
    return links[gpu_id]


def combos(fixed: dict[str, bool | None]) -> list[dict[str, bool]]:
    """Every allowed set of choices that honours the buyer's fixed ones (None: free), the fewest
    choices first: param_offload needs optimizer_offload; paging is moot with offload."""
    out = []
    for values in itertools.product((False, True), repeat=len(SAVINGS)):
        c = dict(zip(SAVINGS, values, strict=True))
        if any(v is not None and c[k] != v for k, v in fixed.items()):
            continue
        if c["param_offload"] and not c["optimizer_offload"]:
            continue
        if c["paged_optimizer"] and c["optimizer_offload"]:
            continue
        out.append(c)
    return sorted(out, key=lambda c: sum(c.values()))


#: (optimizer bytes, step bytes) per trained parameter by (8-bit, pure BF16)
OPTIMIZER_FORMS = {
    (False, False): (C.OPTIMIZER_BYTES, C.OPTIMIZER_STEP_BYTES),
    (True, False): (C.OPTIMIZER_8BIT_BYTES, C.OPTIMIZER_8BIT_STEP_BYTES),
    (False, True): (C.PURE_BF16_OPTIMIZER_BYTES, C.PURE_BF16_STEP_BYTES),
    (True, True): (C.PURE_BF16_OPTIMIZER_8BIT_BYTES, C.PURE_BF16_8BIT_STEP_BYTES),
}


def optimizer_form(c: dict[str, bool], fp8_params: bool = False) -> tuple[float, float]:
    """(optimizer bytes, step bytes) per trained parameter under choice set c: OPTIMIZER_FORMS by
    (8-bit, pure BF16); pure BF16 under bitsandbytes' 32-bit paged AdamW keeps its moments in FP32
    (PURE_BF16_FP32_MOMENTS_BYTES, _STEP_BYTES: 8 and 22 B); pure BF16 over FP8-only weights
    (fp8_params) adds NeMo's BF16 parameter copy, PURE_BF16_FP8_COPY_BYTES and
    PURE_BF16_FP8_STEP_EXTRA_BYTES (amendment 3)."""
    eight, pure = c["optimizer_8bit"], c["pure_bf16"]
    if pure and c["paged_optimizer"] and not eight:
        opt, step = C.PURE_BF16_FP32_MOMENTS_BYTES, C.PURE_BF16_FP32_MOMENTS_STEP_BYTES
    else:
        opt, step = OPTIMIZER_FORMS[(eight, pure)]
    if pure and fp8_params:
        return opt + C.PURE_BF16_FP8_COPY_BYTES, step + C.PURE_BF16_FP8_STEP_EXTRA_BYTES
    return opt, step


def _optimizer(c, mem, step, link_bps, host_bps, ctx) -> tuple[dict, dict, np.ndarray]:
    """The 8-bit, pure-BF16 and offloaded optimizer: (memory, added seconds, host bytes).
    Pure BF16 also holds the gradient at PURE_BF16_GRAD_BYTES instead of ctx's grad_bytes."""
    grad_bytes = ctx["grad_bytes"]
    local = mem["optimizer"] / C.OPTIMIZER_BYTES
    opt_bytes, step_bytes = optimizer_form(c, ctx.get("fp8_params", False))
    m = dict(mem)
    m["optimizer"] = local * opt_bytes
    if c["pure_bf16"]:
        m["gradients"] = m["gradients"] * C.PURE_BF16_GRAD_BYTES / grad_bytes
    gpu_step = step["optimizer"] * step_bytes / C.OPTIMIZER_STEP_BYTES
    add = {"optimizer": gpu_step - step["optimizer"]}
    host = np.zeros_like(local)
    if c["optimizer_offload"]:
        extra = C.PURE_BF16_HOST_EXTRA_BYTES if c["pure_bf16"] else C.GRAD_BYTES
        host = m["optimizer"] + local * extra
        m["optimizer"] = np.zeros_like(local)
        m["gradients"] = mem["gradients"] * C.WEIGHT_BYTES / grad_bytes
        add["optimizer"] = -step["optimizer"]
        add["offload_transfer"] = local * C.OFFLOAD_TRANSFER_BYTES_PER_PARAM / link_bps
        add["cpu_optimizer"] = local * step_bytes / host_bps
    return m, add, host


def apply(c: dict[str, bool], mem: dict, step: dict, lay, ctx: dict) -> tuple[dict, dict, dict]:
    """(memory bytes, step seconds, host bytes and validity) of every layout under choice set c;
    ctx: gpu memory bytes, grad_bytes, layers per stage, host link, fp8_params (plan._context)."""
    link: HostLink = ctx["host"]
    link_bps = link.host_link_gbyte_per_s * BYTES_PER_GB * C.HOST_LINK_EFFICIENCY
    host_bps = (
        link.host_memory_bandwidth_gbyte_per_s_per_gpu * BYTES_PER_GB * C.HOST_MEMORY_EFFICIENCY
    )
    m, add, host = _optimizer(c, mem, step, link_bps, host_bps, ctx)
    valid = np.ones(len(lay), dtype=bool)
    micro = lay.microbatches.astype(float)
    if c["param_offload"]:
        valid &= lay.zero == 3
        w = sum(m[k] for k in WEIGHT_KEYS if k in m)
        host = host + w
        add["param_transfer"] = 2 * w * micro / link_bps
        for k in WEIGHT_KEYS:
            if k in m:
                m[k] = np.zeros(len(lay))
        m["gradients"] = np.zeros(len(lay))
    if c["paged_optimizer"]:
        rest = sum(v for k, v in m.items() if k != "total") - m["optimizer"]
        overflow = np.clip(rest + m["optimizer"] - ctx["gpu_bytes"], 0.0, m["optimizer"])
        m["optimizer"] = m["optimizer"] - overflow
        host = host + overflow
        add["paging"] = 2 * overflow / link_bps
    if c["activation_offload"]:
        valid &= lay.pp == 1
        keep = m["activations"] * np.minimum(1.0, 2.0 / np.maximum(ctx["layers_per_stage"], 1))
        off = m["activations"] - keep
        host = host + off
        m["activations"] = keep
        add["activation_transfer"] = np.maximum(0.0, 2 * off * micro / link_bps - step["compute"])
    m["total"] = sum(v for k, v in m.items() if k != "total")
    s = {k: v for k, v in step.items()}
    for k, v in add.items():
        s[k] = s.get(k, 0.0) + v
    s["total"] = step["total"] + sum(add.values())
    host_cap = C.MEMORY_HEADROOM * link.host_memory_gib_per_gpu * 2**30
    return m, s, {"host_bytes": host, "valid": valid & (host <= host_cap)}


def seconds_by_saving(
    c: dict[str, bool], step_i: dict[str, float], base_i: dict[str, float], fp8_params=False
):
    """Seconds per step each chosen saving adds at one layout (8-bit and pure BF16 on the GPU: the
    optimizer step they save, negative; both on: each its own share of optimizer_form's bytes): the
    page's and the CLI's 'what it costs in time'."""
    out = {}
    for name in SAVINGS:
        if not c[name]:
            continue
        parts = TIME_PARTS.get(name, ())
        out[name] = sum(step_i.get(p, 0.0) for p in parts)
    if c["optimizer_offload"]:
        return out
    per_byte = base_i["optimizer"] / C.OPTIMIZER_STEP_BYTES
    without_8bit = optimizer_form(c | {"optimizer_8bit": False}, fp8_params)[1]
    if c["optimizer_8bit"]:
        out["optimizer_8bit"] = per_byte * (optimizer_form(c, fp8_params)[1] - without_8bit)
    if c["pure_bf16"]:
        out["pure_bf16"] = per_byte * (without_8bit - C.OPTIMIZER_STEP_BYTES)
    return out


__all__ = [
    "SAVINGS",
    "LABELS",
    "PURE_BF16_CAVEAT",
    "BF16_GRADS_CAVEAT",
    "HostLink",
    "host_link",
    "combos",
    "optimizer_form",
    "apply",
    "seconds_by_saving",
]

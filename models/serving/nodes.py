"""A serving replica over more than one node (docs/reference/serving-evidence.md, twenty-fourth
amendment, 2026-12-02): tensor parallel over all its GPUs, n = m × the scale-up domain for m in
NODE_MULTIPLES (at most MAX_REPLICA_GPUS), as SGLang's `--tp 16 --nnodes 2` (docs.sglang.io,
"Multi-Node Deployment") and TensorRT-LLM's multi-node TP run it. vLLM's documented multi-node
layout is TP within a node × pipeline parallel across nodes (docs.vllm.ai, "Distributed Inference
and Serving"): one pipeline stage per node, `pipelined` (twenty-eighth amendment, 2026-12-03;
models/serving/roofline.py `stage_hops_s`). No ROCm build has a measured crossing cost: refused.

The crossing's cost per decode step is the fourteenth amendment's tensor-parallel term, layers ·
(α_tp,e + B · hidden · 2 bytes / r), with r = r_tp,e · roofline.crossing_nic_share (models/serving/roofline.py
`interdomain_s`): the fitted rate on the 400 Gb/s NIC it was measured on, in proportion below it.
"""

from __future__ import annotations

from models.errors import InputError
from models.hardware import GpuSpec
from models.serving import builds

#: a replica over nodes spans this many scale-up domains (as the eighth amendment's DP replicas)
NODE_MULTIPLES = (2, 4, 8)
#: ServeInputs.gpus's upper bound
MAX_REPLICA_GPUS = 72
#: engines that run one tensor-parallel group over several nodes (CUDA builds only)
MULTI_NODE_ENGINES = ("sglang", "tensorrt-llm")
#: engines that run a replica over nodes as TP within a node × one pipeline stage per node
PIPELINE_ENGINES = ("vllm",)


def pipelined(engine: str) -> bool:
    """Whether `engine` runs a replica over nodes as pipeline stages (twenty-eighth amendment)."""
    return engine in PIPELINE_ENGINES


def replica_sizes(gpu: GpuSpec) -> tuple[int, ...]:
    """GPUs a replica over nodes may have: m × the scale-up domain, m in NODE_MULTIPLES, ≤ 72."""
    domain = gpu.scaleup_domain_gpus
    return tuple(m * domain for m in NODE_MULTIPLES if m * domain <= MAX_REPLICA_GPUS)


def unsupported(engine: str, gpu_id: str) -> str:
    """Why `engine` on `gpu_id` runs no replica over nodes here ("" when it does)."""
    if builds.is_amd(gpu_id):
        return "no ROCm build has a measured cost of a replica over nodes"
    if engine not in MULTI_NODE_ENGINES + PIPELINE_ENGINES:
        return f"{engine} has no replica over nodes here; choose sglang, tensorrt-llm or vllm"
    return ""


def check_gpus(gpus: int | None, engine: str, gpu: GpuSpec) -> None:
    """Refuses a fixed replica of `gpus` GPUs that is neither within one scale-up domain nor a
    replica over nodes that `engine` runs, naming the allowed values."""
    domain = gpu.scaleup_domain_gpus
    if gpus is None or gpus <= domain:
        return
    sizes = replica_sizes(gpu)
    why = unsupported(engine, gpu.gpu_id)
    if not why and gpus in sizes:
        return
    over = "" if why else ", ".join(map(str, sizes))
    allowed = f"1 to {domain}" + (f", or {over} over nodes" if over else "")
    reason = why or f"a replica over nodes spans {', '.join(map(str, NODE_MULTIPLES))} whole nodes"
    raise InputError(
        "gpus",
        f"{gpus} GPUs of {gpu.gpu_id} is more than one scale-up domain ({domain} GPUs) and {reason}; "
        f"give {allowed}",
    )


def nodes_of(gpus_per_replica: int, gpu: GpuSpec) -> int | None:
    """Scale-up domains (nodes) a replica spans; None within one (left out of the plan)."""
    domain = gpu.scaleup_domain_gpus
    return -(-gpus_per_replica // domain) if gpus_per_replica > domain else None

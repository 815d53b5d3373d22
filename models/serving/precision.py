"""The weights' precision a service is sized at when none is given: what a buyer deploys today.

FP8 weights and GEMMs on a GPU with FP8 tensor cores (Ada, Hopper, Blackwell, CDNA 3: L40S, H100,
H200, B200, GB200, MI300X), where the 2024-25 engines the serving model assumes (TensorRT-LLM,
vLLM, SGLang) run FP8 checkpoints of the open models, and where the published serving rows the
planner is checked against ran FP8 (FP4 on Blackwell; models/data/validation/inference.csv); BF16
on a GPU without them (A100, whose published rows ran BF16). FP4 is never the default, Blackwell's published rows notwithstanding: it
needs a quantised checkpoint whose accuracy the buyer checks, so it is asked for by name.

One rule for the command line (`clusterplan serve`), the Serve page and a portfolio's serve
workload (models/portfolio/workloads.py Serve): each leaves the precision out (None) and the
serving core resolves it here (`precision_of`). Kept apart from plan.py so
that the command line's help states it without loading numpy (tests/test_cli_start.py).
"""

from __future__ import annotations

from typing import Literal

from models.errors import InputError
from models.hardware import GpuSpec, get_gpu

#: the weights' precisions the serving model sizes (int4: weight-only, thirty-sixth amendment)
Precision = Literal["bf16", "fp8", "fp4", "int4"]
#: the default in words: the record's description, the command line's help, the pages' help
DEFAULT_PRECISION_TEXT = "fp8 where the GPU has FP8 tensor cores, else bf16"


def default_precision(gpu: str | GpuSpec) -> Precision:
    """The weights' precision a service on `gpu` (its id or its spec) is sized at when none is
    given: "fp8" where the GPU has FP8 tensor cores, else "bf16". KeyError for an unknown id."""
    spec = gpu if isinstance(gpu, GpuSpec) else get_gpu(gpu)
    return "fp8" if spec.fp8_dense_tflops is not None else "bf16"


# --- Weight-only precisions (docs/reference/serving-evidence.md, twenty-sixth and thirty-sixth
# amendments): the engines keep 4-bit weights and dequantise them in the GEMM kernel, BF16 arithmetic

#: the plan's words for each (its software line: CLI, JSON, Serve page, PDF)
WEIGHT_ONLY_TEXT = {
    "fp4": "FP4 weights, BF16 arithmetic (weight-only)",
    "int4": "INT4 weights, BF16 arithmetic (weight-only)",
}
#: the GPU architectures (models/data/gpus.csv `architecture`) on which each engine serves FP4
#: weights without FP4 tensor cores. vLLM: Hopper (OpenAI's Triton matmul_ogs MoE kernels), Ampere
#: (Marlin MXFP4 MoE) and CDNA 3 (MI300x/MI325x): "vLLM Now Supports gpt-oss", blog.vllm.ai,
#: 2025-08-05, and vllm-project/recipes OpenAI/GPT-OSS.md (read 2026-12-02). SGLang: Hopper
#: (lmsys.org, 2025-08-27, its H100 MXFP4 rows; triton_kernels). TensorRT-LLM: Hopper (its GPT-OSS
#: deployment guide, 1.2-1.4: H200, BF16 activations, MXFP4 MoE weights, TRITON backend). Nothing
#: found for Ada, CDNA 2, or SGLang / TensorRT-LLM on Ampere or CDNA 3.
WEIGHT_ONLY_FP4_ARCHITECTURES: dict[str, tuple[str, ...]] = {
    "tensorrt-llm": ("hopper",),
    "vllm": ("hopper", "ampere", "cdna3"),
    "sglang": ("hopper",),
}
#: the same for INT4 weights (W4A16: AWQ, GPTQ, compressed-tensors) on any GPU. vLLM: Ampere, Ada and
#: Hopper (its quantization docs' "Supported Hardware" table, v0.9.2 to latest, read 2026-12-03: AWQ,
#: GPTQ and Marlin; not on AMD GPUs) and Blackwell (AIConfigurator's measured int4_wo rows of vLLM on
#: B200). TensorRT-LLM: "Ampere and Later" (NVIDIA Model Optimizer's support matrix, W4A16 AWQ,
#: deployed with TensorRT-LLM; read 2026-12-03). SGLang: NVIDIA GPUs and AMD MI300X/MI325X/MI350X
#: (its quantization docs' "Platform Compatibility" table, sgl-project/sglang
#: docs/advanced_features/quantization.md at 0f4513c, read 2026-12-03: `awq`, `gptq` and
#: `compressed-tensors` "Yes" on both, Triton dequantisation on AMD; Marlin on CUDA only).
WEIGHT_ONLY_INT4_ARCHITECTURES: dict[str, tuple[str, ...]] = {
    "tensorrt-llm": ("ampere", "ada", "hopper", "blackwell"),
    "vllm": ("ampere", "ada", "hopper", "blackwell"),
    "sglang": ("ampere", "ada", "hopper", "blackwell", "cdna3"),
}
#: per weight-only precision, the engines' architectures
WEIGHT_ONLY_ARCHITECTURES = {
    "fp4": WEIGHT_ONLY_FP4_ARCHITECTURES,
    "int4": WEIGHT_ONLY_INT4_ARCHITECTURES,
}


def weight_only(gpu: str | GpuSpec, precision: str) -> bool:
    """Whether `precision` means 4-bit weights with BF16 arithmetic on `gpu`: int4 on any GPU, fp4
    on a GPU without FP4 tensor cores (where it has them, FP4 runs on them and nothing here
    applies)."""
    if precision == "int4":
        return True
    spec = gpu if isinstance(gpu, GpuSpec) else get_gpu(gpu)
    return precision == "fp4" and spec.fp4_dense_tflops is None


def weight_only_text(gpu: str | GpuSpec, precision: str) -> str:
    """The plan's words for a weight-only precision on `gpu` ("" where the precision is not one)."""
    return WEIGHT_ONLY_TEXT[precision] if weight_only(gpu, precision) else ""


def default_kv_precision(gpu: str | GpuSpec, precision: str) -> str:
    """The KV cache's precision when none is given: fp8 with fp8 or fp4 weights, else bf16; bf16
    with weight-only FP4 or INT4 (the engines' `auto` follows the BF16 activations; twenty-sixth
    and thirty-sixth amendments)."""
    if weight_only(gpu, precision):
        return "bf16"
    return "fp8" if precision in ("fp8", "fp4") else "bf16"


def precision_of(inp) -> str:
    """A service's weights' precision (`inp`: its ServeInputs): as given, else the GPU's
    (`default_precision`)."""
    return inp.precision or default_precision(inp.gpu)


def kv_precision_of(inp) -> str:
    """A service's KV cache precision: as given, else `default_kv_precision` (fp8 with fp8 or fp4
    weights, bf16 with weight-only FP4 or INT4 and with bf16)."""
    return inp.kv_precision or default_kv_precision(inp.gpu, precision_of(inp))


def serves_weight_only(engine: str, gpu: GpuSpec, precision: str) -> bool:
    """Whether `engine` serves weight-only `precision` (fp4 without FP4 tensor cores, int4) on
    `gpu`'s architecture (`WEIGHT_ONLY_ARCHITECTURES`; the planner and the AIConfigurator mapping
    read the same)."""
    return gpu.architecture in WEIGHT_ONLY_ARCHITECTURES[precision].get(engine, ())


def check_precisions(gpu: GpuSpec, engine: str, precision: str, kv_precision: str) -> None:
    """InputError naming `precision` or `kv_precision` where the GPU has no tensor cores for it and,
    for a weight-only precision (fp4 without FP4 tensor cores, int4), where the engine does not
    serve it on the GPU's architecture."""
    if weight_only(gpu, precision):
        if not serves_weight_only(engine, gpu, precision):
            archs = WEIGHT_ONLY_ARCHITECTURES[precision]
            who = [e for e, a in archs.items() if gpu.architecture in a]
            alt = f"engine {' or '.join(who)}, or " if who else ""
            lower = "fp8 or bf16" if gpu.fp8_dense_tflops is not None else "bf16"
            if precision == "fp4":
                what = f"{gpu.gpu_id} has no FP4 tensor cores and {engine} does not serve FP4 weights on it"
            else:
                what = f"{engine} does not serve {precision.upper()} weights on {gpu.gpu_id}"
            raise InputError("precision", f"{what} (weight-only); use {alt}precision {lower}")
        precision = "bf16"  # the arithmetic's precision
    for field, prec in (("precision", precision), ("kv_precision", kv_precision)):
        if prec != "bf16":
            try:
                gpu.peak_tflops(prec)
            except ValueError as exc:
                raise InputError(field, str(exc)) from None

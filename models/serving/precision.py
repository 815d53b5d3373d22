"""The weights' precision a service is sized at when none is given: what a buyer deploys today.

FP8 weights and GEMMs on a GPU with FP8 tensor cores (Ada, Hopper, Blackwell, CDNA 3: L40S, H100,
H200, B200, GB200, MI300X), where the 2024-25 engines the serving model assumes (TensorRT-LLM,
vLLM, SGLang) run FP8 checkpoints of the open models, and where the published serving rows the
planner is checked against ran FP8 (FP4 on Blackwell; models/data/validation/inference.csv); BF16
on a GPU without them (A100, whose published rows ran BF16). FP4 is never the default, Blackwell's published rows notwithstanding: it
needs a quantised checkpoint whose accuracy the buyer checks, so it is asked for by name.

One rule for the command line (`clusterplan serve`), the Serve page and a portfolio's serve
workload (models/portfolio/workloads.py Serve): each leaves the precision out (None) and the
serving core resolves it here (models/serving/plan.py precision_of). Kept apart from plan.py so
that the command line's help states it without loading numpy (tests/test_cli_start.py).
"""

from __future__ import annotations

from typing import Literal

from models.hardware import GpuSpec, get_gpu

#: the weights' precisions the serving model sizes
Precision = Literal["bf16", "fp8", "fp4"]
#: the default in words: the record's description, the command line's help, the pages' help
DEFAULT_PRECISION_TEXT = "fp8 where the GPU has FP8 tensor cores, else bf16"


def default_precision(gpu: str | GpuSpec) -> Precision:
    """The weights' precision a service on `gpu` (its id or its spec) is sized at when none is
    given: "fp8" where the GPU has FP8 tensor cores, else "bf16". KeyError for an unknown id."""
    spec = gpu if isinstance(gpu, GpuSpec) else get_gpu(gpu)
    return "fp8" if spec.fp8_dense_tflops is not None else "bf16"

"""The serving engines a deployment can run (issue 29, item 1): one record each. The serving
model's roofline (models/serving/roofline.py) is a TensorRT-LLM-class engine's, the one it is
calibrated to on published rows (models/data/validation/inference.csv); another engine's decode
step takes `decode_step_factor` times as long, measured against TensorRT-LLM on the same model,
GPU, precision, layout and load (docs/reference/serving-evidence.md, second amendment: the rule
was written before the fit; bench/serve_engines.py reproduces it)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Engine = Literal["tensorrt-llm", "vllm", "sglang"]
#: the engine the roofline is calibrated as
SOFTWARE_GENERATION = (
    "TensorRT-LLM-class engine of 2024–25: in-flight batching, CUDA graphs, FP8/FP4 GEMMs, "
    "one-shot NVLink all-reduce"
)
DEFAULT_ENGINE: Engine = "tensorrt-llm"

#: where the factors come from (one source, one date)
FIT_SOURCE = (
    "NVIDIA AIConfigurator measured serving rows (ai-dynamo/aiconfigurator silicon_sample.csv, "
    "Apache-2.0), tuning rows only: median over configurations measured on both engines of the "
    "engine's TPOT over TensorRT-LLM's; fitted 2026-12-01 (bench/serve_engines.py)"
)


@dataclass(frozen=True)
class EngineSpec:
    id: Engine
    label: str
    #: its decode step over TensorRT-LLM's on the same model, GPU, layout and load
    decode_step_factor: float
    source: str
    #: the `backend` the AIConfigurator rows name it by
    backend: str


ENGINES: dict[str, EngineSpec] = {
    "tensorrt-llm": EngineSpec(
        "tensorrt-llm",
        "TensorRT-LLM",
        1.0,
        "the model's calibration (models/data/validation/inference.csv)",
        "trtllm",
    ),
    "vllm": EngineSpec(
        "vllm",
        "vLLM",
        1.1043,
        f"{FIT_SOURCE}: 263 configurations (Llama 3.1 70B, gpt-oss-120b)",
        "vllm",
    ),
    "sglang": EngineSpec(
        "sglang",
        "SGLang",
        1.1708,
        f"{FIT_SOURCE}: 150 configurations (DeepSeek-V3, -R1)",
        "sglang",
    ),
}
#: the engine each AIConfigurator `backend` names
ENGINE_OF_BACKEND = {e.backend: e.id for e in ENGINES.values()}


def software_generation(engine: str) -> str:
    """What the plan assumes of the software: the calibrated engine, or another engine's factor."""
    spec = ENGINES[engine]
    if spec.decode_step_factor == 1.0:
        return SOFTWARE_GENERATION
    return (
        f"{spec.label}: each decode step {spec.decode_step_factor:.2f}x a "
        f"{SOFTWARE_GENERATION}'s (measured on the same hardware and load)"
    )

"""The serving engines a deployment can run (issue 29, item 1): one record each. The serving
model's roofline (models/serving/roofline.py) is a TensorRT-LLM-class engine's, the one it is
calibrated to on published rows (models/data/validation/inference.csv); another engine's decode
step takes `decode_step_factor` times as long, measured against TensorRT-LLM on the same model,
GPU, precision, layout and load (docs/reference/serving-evidence.md, second amendment: the rule
was written before the fit; bench/serve_engines.py reproduces it). Each engine's time to first
token (`first_token_s`) adds a fixed time per request, a factor on the request's own prefill and,
in a closed loop, a share of the others' prefills, fitted on its aggregated tuning rows (the
ninth amendment; bench/serve_ttft_fit.py reproduces them). Each engine's tensor-parallel all-reduce
takes a latency per doubling of its group (`allreduce_s_per_doubling`), fitted on its tuning rows
(the tenth amendment; bench/serve_tpot_fit.py reproduces them). An aggregated replica's decode
pays a share of the others' prefills (`prefill_share_in_decode`; the fifteenth amendment,
bench/serve_prefill_share_fit.py). A MoE model's time to first token reads its prefill
`ttft_moe_prefill_factor` times the roofline's where that was adopted (the eighteenth amendment,
bench/serve_trt_ttft_fit.py)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

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
#: where the time-to-first-token constants come from (one source, one date)
TTFT_FIT_SOURCE = (
    "NVIDIA AIConfigurator measured serving rows (ai-dynamo/aiconfigurator silicon_sample.csv, "
    "Apache-2.0), the engine's aggregated tuning rows only: the grid point minimising the median "
    "absolute TTFT error (docs/reference/serving-evidence.md, ninth amendment); fitted 2026-12-02 "
    "(bench/serve_ttft_fit.py)"
)
#: where the all-reduce latencies per doubling come from (one source, one date)
TPOT_FIT_SOURCE = (
    "NVIDIA AIConfigurator measured serving rows (ai-dynamo/aiconfigurator silicon_sample.csv, "
    "Apache-2.0), tuning rows within one scale-up domain only: the grid point minimising the median "
    "absolute TPOT error (docs/reference/serving-evidence.md, tenth amendment); fitted 2026-12-02 "
    "(bench/serve_tpot_fit.py)"
)

#: where the latencies and rates by what crosses a scale-up domain come from (fourteenth amendment)
CROSSING_FIT_SOURCE = (
    "NVIDIA AIConfigurator measured serving rows (ai-dynamo/aiconfigurator silicon_sample.csv, "
    "Apache-2.0), tuning rows whose replica spans more than one scale-up domain only, per engine "
    "and class (tensor parallel vs attention-DP/EP across domains; a class without rows: every "
    "engine's rows of it): the grid point minimising median + 90th percentile of the absolute TPOT "
    "error (docs/reference/serving-evidence.md, fourteenth amendment); fitted 2026-12-02 "
    "(bench/serve_interdomain_fit.py)"
)

#: where the share of the others' prefills in a decode comes from (fifteenth amendment)
PREFILL_SHARE_FIT_SOURCE = (
    "NVIDIA AIConfigurator measured serving rows (ai-dynamo/aiconfigurator silicon_sample.csv, "
    "Apache-2.0), the engine's aggregated tuning rows only: the grid point (0-1.5 by 0.01) "
    "minimising median + 90th percentile of the absolute TPOT error, adopted only where it beats "
    "1 over all the engine's tuning rows (docs/reference/serving-evidence.md, fifteenth "
    "amendment); fitted 2026-12-02 (bench/serve_prefill_share_fit.py)"
)

#: where the time per token and MoE layer comes from (nineteenth amendment)
MOE_TOKEN_FIT_SOURCE = (
    "NVIDIA AIConfigurator measured serving rows (ai-dynamo/aiconfigurator silicon_sample.csv, "
    "Apache-2.0), every SGLang tuning row the model expresses: the grid point (m 0-1 us by 0.01, "
    "with the prefill share 0-1.5 by 0.01) minimising median + 90th percentile of the absolute TPOT "
    "error, adopted only if the median falls by 2 points and the p90 does not rise "
    "(docs/reference/serving-evidence.md, nineteenth amendment); fitted 2026-12-02 "
    "(bench/serve_sglang_tpot_fit.py)"
)

#: where the factor on a MoE model's prefill in the time to first token comes from (eighteenth)
MOE_TTFT_FIT_SOURCE = (
    "NVIDIA AIConfigurator measured serving rows (ai-dynamo/aiconfigurator silicon_sample.csv, "
    "Apache-2.0), the engine's aggregated tuning rows only: m on 1.0-4.0 by 0.1 with the ninth "
    "amendment's (a, k, w) refitted on its grid, minimising the median absolute TTFT error; adopted "
    "only where it lowers that median by 3 points and the median over all the engine's tuning rows "
    "does not rise (docs/reference/serving-evidence.md, eighteenth amendment); fitted 2026-12-02 "
    "(bench/serve_trt_ttft_fit.py)"
)

#: where a planned service's own first token comes from (twenty-ninth amendment)
LONE_TTFT_FIT_SOURCE = (
    "NVIDIA AIConfigurator measured serving rows (ai-dynamo/aiconfigurator silicon_sample.csv, "
    "Apache-2.0), the engine's aggregated tuning rows of one model class with at most 4 requests "
    "in flight: a on 0-300 ms by 5 ms and k on 0.30-6.00 by 0.05 with w held at the engine's wave "
    "share, minimising the median absolute TTFT error; adopted per class with at least 20 rows and "
    "a median 3 points below the ninth and eighteenth amendments' constants there "
    "(docs/reference/serving-evidence.md, twenty-ninth amendment); fitted 2026-12-03 "
    "(bench/serve_lone_ttft_fit.py)"
)

#: where the rates between scale-up domains come from (thirteenth amendment)
INTERDOMAIN_FIT_SOURCE = (
    "NVIDIA AIConfigurator measured serving rows (ai-dynamo/aiconfigurator silicon_sample.csv, "
    "Apache-2.0), tuning rows whose replica spans more than one scale-up domain only: the grid "
    "point minimising the median absolute TPOT error (docs/reference/serving-evidence.md, "
    "thirteenth amendment); fitted 2026-12-02 (bench/serve_interdomain_fit.py)"
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
    #: time to first token (docs/reference/serving-evidence.md, ninth amendment; `first_token_s`):
    #: TTFT = ttft_fixed_s + t_prefill · (ttft_prefill_factor + ttft_wave_share · (C − 1)) + t_step,
    #: C the requests in flight on the request's prefill server in a closed loop (1 with arrivals).
    #: ttft_fixed_s: seconds a request spends that the roofline has no term for (scheduling,
    #: tokenisation, the first step's launch, the client's round trip)
    ttft_fixed_s: float = 0.0
    #: the request's own prefill as the client sees it over the roofline's (chunked beside the
    #: others' decode steps)
    ttft_prefill_factor: float = 1.0
    #: the share of each other in-flight request's prefill a request waits for in a closed loop
    #: (½: every request in one wave; about 1/20: only the first wave of a run of 10 × C requests)
    ttft_wave_share: float = 0.0
    #: a MoE model's prefill as the client waits for it, over the roofline's (its own and the
    #: others'; docs/reference/serving-evidence.md, eighteenth amendment, MOE_TTFT_FIT_SOURCE):
    #: TTFT = a + m · t_prefill · (k + w · (C − 1)) + t_step; 1 = the ninth amendment's form, and
    #: always 1 for a dense model
    ttft_moe_prefill_factor: float = 1.0
    #: time per output token (docs/reference/serving-evidence.md, tenth amendment): each
    #: tensor-parallel all-reduce of a forward step (two per layer, decode and prefill) takes, besides
    #: its bandwidth term and SERVE_ALLREDUCE_STEPS latency steps, this · log2(TP) seconds (a step of
    #: synchronisation per doubling of the group), so t_step = decode_step_factor · (roofline step
    #: + 2 · layers · this · log2 TP) and t_prefill gains 2 · layers · this · log2 TP; 0 at TP 1
    allreduce_s_per_doubling: float = 0.0
    #: a replica beyond one scale-up domain (docs/reference/serving-evidence.md, thirteenth
    #: amendment): each decode step moves layers · B · hidden · 2 bytes between domains at this
    #: effective rate, GB/s, inside the engine's factor; 0 = no term
    interdomain_gbyte_per_s: float = 0.0
    #: beyond one scale-up domain by what crosses it (fourteenth amendment; replaces the term above
    #: where adopted): (α_tp µs per layer, r_tp GB/s, α_ep µs per MoE layer, r_ep GB/s); a step
    #: takes layers · (α_tp + B · hidden · 2 / r_tp) where tp exceeds the domain, else MoE layers ·
    #: (α_ep + B · top-k · hidden · 2 / r_ep); r = 0: no rate term
    crossing: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)
    #: the share φ_e of the others' prefills an aggregated replica's decode pays (fifteenth
    #: amendment, PREFILL_SHARE_FIT_SOURCE): TPOT = t_step + φ_e · B · t_prefill / O and the cycle
    #: φ_e · B · t_prefill + O · t_step; 1 = every prefill whole and serial (the form before it)
    prefill_share_in_decode: float = 1.0
    #: m_e, seconds per token and MoE layer in each decode step of a MoE model on the engine's CUDA
    #: build (nineteenth amendment, MOE_TOKEN_FIT_SOURCE): t_step = decode_step_factor · (roofline
    #: step) + m_e · B · moe_layers, B the sequences of one attention group; 0 = no such term
    moe_s_per_token_layer: float = 0.0
    #: a planned service's own first token per model class (twenty-ninth amendment,
    #: LONE_TTFT_FIT_SOURCE): (class, a s, k) with own = a + k · t_prefill + t_step, identified on
    #: rows with few requests in flight; a class left out keeps a + m · k · t_prefill of the ninth
    #: and eighteenth amendments (benchmark rows are scored with those, `first_token_s`)
    service_ttft: tuple[tuple[str, float, float], ...] = ()

    def own_first_token(self, moe: bool) -> tuple[float, float]:
        """(a s, factor on the roofline's prefill) of a service's own first token on this CUDA
        engine: the class's `service_ttft` where adopted, else (ttft_fixed_s, m · k)."""
        cls = "moe" if moe else "dense"
        for name, a, k in self.service_ttft:
            if name == cls:
                return a, k
        m = self.ttft_moe_prefill_factor if moe else 1.0
        return self.ttft_fixed_s, m * self.ttft_prefill_factor


ENGINES: dict[str, EngineSpec] = {
    "tensorrt-llm": EngineSpec(
        "tensorrt-llm",
        "TensorRT-LLM",
        1.0,
        "the model's calibration (models/data/validation/inference.csv)",
        "trtllm",
        # TTFT: fitted over 1,098 tuning rows (TTFT_FIT_SOURCE); the eighteenth amendment's fit (m
        # = 1.5, 75 ms, 2.4, 0.040: 31.1 -> 28.9 %, under 3 points) was not adopted
        ttft_fixed_s=0.120,
        ttft_prefill_factor=2.3,
        ttft_wave_share=0.045,
        # TPOT: fitted over its 534 dense tuning rows within one scale-up domain (TPOT_FIT_SOURCE)
        allreduce_s_per_doubling=8.4e-6,
        # the thirteenth amendment's rate (3.0 GB/s) is replaced (fourteenth, adopted):
        # its 78 TP and 35 DP/EP tuning rows there (CROSSING_FIT_SOURCE)
        crossing=(0.0, 9.0, 100.0, 20.0),
        # a service's own first token (twenty-ninth, adopted; LONE_TTFT_FIT_SOURCE): median |TTFT
        # error| on the class's few-in-flight tuning rows, dense 134.2 -> 14.7 % (39 rows), MoE
        # 27.2 -> 21.4 % (102)
        service_ttft=(("dense", 0.040, 0.85), ("moe", 0.120, 1.80)),
    ),
    "vllm": EngineSpec(
        "vllm",
        "vLLM",
        1.1043,
        f"{FIT_SOURCE}: 263 configurations (Llama 3.1 70B, gpt-oss-120b)",
        "vllm",
        # TTFT: the ninth amendment's 15 ms, 2.3, 0.090 (TTFT_FIT_SOURCE) are replaced (eighteenth,
        # adopted): fitted with a MoE prefill factor over its 842 aggregated tuning rows, median
        # |TTFT error| 23.0 -> 18.7 % (all 856 tuning rows 23.4 -> 19.3 %; MOE_TTFT_FIT_SOURCE);
        # a = 0 is the grid's edge
        ttft_fixed_s=0.0,
        ttft_prefill_factor=1.6,
        ttft_wave_share=0.060,
        ttft_moe_prefill_factor=1.8,
        # TPOT: fitted over 856 tuning rows within one scale-up domain (TPOT_FIT_SOURCE)
        allreduce_s_per_doubling=9.8e-6,
        # the thirteenth amendment's rate (2.0 GB/s) is replaced (fourteenth, adopted):
        # TP: every engine's 200 rows (none of its own); DP/EP: its 52 (CROSSING_FIT_SOURCE)
        crossing=(18.0, 10.0, 5.0, 16.0),
        # a service's own first token (twenty-ninth, adopted; LONE_TTFT_FIT_SOURCE): dense 25.2 ->
        # 15.7 % (39 rows), MoE 24.6 -> 17.0 % (115)
        service_ttft=(("dense", 0.050, 0.60), ("moe", 0.010, 2.55)),
    ),
    "sglang": EngineSpec(
        "sglang",
        "SGLang",
        1.1708,
        f"{FIT_SOURCE}: 150 configurations (DeepSeek-V3, -R1)",
        "sglang",
        # TTFT: the ninth amendment's 145 ms, 1.0, 0.440 over 423 rows (TTFT_FIT_SOURCE) are replaced
        # (eighteenth, adopted with m = 1: the gain is the refit over its 732 aggregated tuning rows
        # of every model mapped today, 29.2 -> 25.9 %; all 801 tuning rows 29.9 -> 28.1 %;
        # MOE_TTFT_FIT_SOURCE)
        ttft_fixed_s=0.135,
        ttft_prefill_factor=2.4,
        ttft_wave_share=0.415,
        # TPOT: fitted over 405 tuning rows within one scale-up domain (TPOT_FIT_SOURCE)
        allreduce_s_per_doubling=6.2e-6,
        # the thirteenth amendment's rate (5.0 GB/s) is replaced (fourteenth, adopted):
        # TP: its 122; DP/EP: every engine's 87 (none of its own) (CROSSING_FIT_SOURCE)
        crossing=(18.0, 8.0, 34.0, 27.0),
        # fifteenth amendment, adopted: fitted over its 732 aggregated tuning rows, median + p90 of
        # |TPOT error| over all its 801 tuning rows 57.9 → 55.8 % (PREFILL_SHARE_FIT_SOURCE)
        prefill_share_in_decode=0.60,
        # nineteenth amendment, not adopted: m = 0.30 us per token and MoE layer with a share of
        # 0.59 took its tuning TPOT median 15.3 -> 13.8 %, short of the 2 points the rule asked
        # (MOE_TOKEN_FIT_SOURCE), so moe_s_per_token_layer stays 0 and the share 0.60
        # a service's own first token (twenty-ninth, adopted; LONE_TTFT_FIT_SOURCE): MoE 18.9 ->
        # 15.3 % (114 rows); no dense tuning row has at most 4 in flight: dense keeps the ninth's
        service_ttft=(("moe", 0.105, 2.85),),
    ),
}
#: the engine each AIConfigurator `backend` names
ENGINE_OF_BACKEND = {e.backend: e.id for e in ENGINES.values()}


def first_token_s(engine: str, t_prefill, t_step, in_flight=1.0, constants=None, moe=False):
    """Time to first token on `engine` (docs/reference/serving-evidence.md, ninth amendment):
    ttft_fixed_s + m · t_prefill · (ttft_prefill_factor + ttft_wave_share · (in_flight − 1)) +
    t_step, m the engine's `ttft_moe_prefill_factor` for a MoE model (`moe`; eighteenth
    amendment) and 1 for a dense one,
    `in_flight` the requests in a closed loop that share the request's prefill server (1 for
    open-loop arrivals, whose wait for a free slot is the M/M/c queue's). t_prefill is the
    roofline's prefill of one request, t_step the engine's decode step (its factor applied); add
    the K/V transfer when prefill and decode are split. `constants` (a s, k, w), where given,
    replace the engine's three (a ROCm build's: the seventeenth amendment, models/serving/
    builds.py) and take no MoE factor. Arrays broadcast."""
    spec = ENGINES[engine]
    a, k, w = constants or (spec.ttft_fixed_s, spec.ttft_prefill_factor, spec.ttft_wave_share)
    m = spec.ttft_moe_prefill_factor if moe and constants is None else 1.0
    others = np.maximum(np.asarray(in_flight, dtype=float) - 1.0, 0.0)
    return a + m * t_prefill * (k + w * others) + t_step


def software_generation(engine: str) -> str:
    """What the plan assumes of the software: the calibrated engine, or another engine's factor."""
    spec = ENGINES[engine]
    if spec.decode_step_factor == 1.0:
        return SOFTWARE_GENERATION
    share = spec.prefill_share_in_decode
    return (
        f"{spec.label}: each decode step {spec.decode_step_factor:.2f}x a "
        f"{SOFTWARE_GENERATION}'s (measured on the same hardware and load)"
    ) + (f"; a colocated decode pays {share:.2f} of the others' prefills" if share != 1 else "")

"""Which build of a serving engine runs on a GPU, at which version, and what its steps cost
(docs/reference/serving-evidence.md, sixteenth amendment; issue 29, item 1).

On NVIDIA GPUs an engine is its CUDA record (models/serving/engines.py), fitted over the releases
AIConfigurator measured (`CUDA_MEASURED`). On AMD GPUs (CDNA) it is its ROCm build: vLLM (the
default, the engine AMD's ROCm documentation and MLPerf submissions run) or SGLang; TensorRT-LLM
does not run there and is refused. A ROCm build's decode step is

    t_step = k · (the roofline step, with the CUDA engine's all-reduce latency per doubling)
             + layers · s

with (k, s) fitted per measured version on the tuning rows of models/data/validation/
amd_serving.csv by the amendment's rule (bench/serve_rocm_fit.py). A version given as
`NAME:VERSION` that was not measured is accepted and the nearest measured version's costs are
used, with a note saying so (the amendment says why)."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

import numpy as np
from pydantic import BaseModel, Field, field_validator, model_serializer, model_validator

from models.errors import InputError
from models.hardware import get_gpu, load_gpus
from models.serving import queueing
from models.serving.engines import DEFAULT_ENGINE, ENGINES, software_generation
from models.serving.precision import weight_only_text
from models.shapes import get_preset, known_model

#: the default engine on an AMD GPU (sixteenth amendment)
DEFAULT_AMD_ENGINE = "vllm"
#: the engines with a ROCm build, in the order a message lists them
AMD_ENGINES = ("vllm", "sglang")
#: a version as releases write it: 0.7.3, 1.2.0rc6.post2, 0.6.3.dev116+g151ef4ef (at most 40 characters)
VERSION_PATTERN = r"^[0-9]{1,4}(\.[0-9]{1,4}){0,3}([.+-]?[A-Za-z0-9]{1,24}){0,4}$"
_VERSION = re.compile(VERSION_PATTERN)
VERSION_MAX_CHARS = 40

#: AIConfigurator's measured releases per CUDA engine (models/data/validation/
#: aiconfigurator_silicon.csv `backend_version`, the named releases; read 2026-12-02)
CUDA_MEASURED = {
    "tensorrt-llm": ("0.7.0", "1.3.0rc5"),
    "vllm": ("0.11.2", "0.19.0"),
    "sglang": ("0.5.1", "0.5.10"),
}

#: what an unseen third-party set measured on releases older than CUDA_MEASURED (docs/reference/
#: serving-evidence.md, twenty-second amendment: dstack's DeepSeek-R1 runs on 8 H200, March 2025,
#: scored once, never fitted): the release and measured / planned time per output token at its
#: rows' signed median error e, 1 / (1 + e) (SGLang 0.4.3.post2 e = -55.4 %, vLLM 0.7.4.dev181
#: -45.3 %); quoted in the note of a CUDA release older than the measured ones, never applied
OLDER_RELEASE_EVIDENCE = {
    "vllm": ("0.7.4.dev181", 1.83),
    "sglang": ("0.4.3.post2", 2.24),
}
#: the same for a dense model (docs/reference/serving-evidence.md, twenty-seventh amendment:
#: dstack's Llama 3.1 405B FP8 offline batches on 8 H100, December 2024, scored once, never
#: fitted): the release and measured / planned output tokens per second at its rows' signed median
#: error e, 1 / (1 + e) (vLLM 0.6.3 e = +71.3 %); quoted beside the MoE figure, never applied
OLDER_RELEASE_DENSE_EVIDENCE = {
    "vllm": ("0.6.3", 0.58),
}

#: what older releases measured close to these costs (docs/reference/serving-evidence.md, thirtieth
#: amendment: Lambda's vLLM 0.5.4 runs on H100, August 2024, never fitted; no release line was
#: adopted): the release and the median |TPOT error| of the CUDA record's costs on its dense
#: (Llama 3.1 8B / 70B / 405B FP8) and MoE (Mixtral 8x7B) rows; quoted in the note, never applied
OLDER_RELEASE_CLOSE = {
    "vllm": ("0.5.4", 0.10, 0.14),
}

#: what unseen third-party sets measured on ROCm builds at least as new as the build whose costs a
#: plan uses (never applied; quoted in the note of a ROCm plan at the default or a newer version),
#: per engine and model class: the release, the model and GPU, the build the ratios are against,
#: the planner's figure over the measured one at the set's signed median error e, 1 + e, for
#: (TPOT, TTFT; None: not measured), and the source. Dense: InferenceMAX, Llama 3.3 70B FP8 on
#: MI300X, vLLM 0.10.1 (2025-10; twentieth amendment), against the 0.10.2 build (thirty-second
#: amendment's score: TPOT e = -22.1 %, TTFT -35.1 %). MoE: InferenceX PR 1061, gpt-oss-120b on
#: one MI300X, vLLM 0.17.0 (2026; thirty-first amendment), against 0.7.3 (TPOT e = +37.4 %)
ROCM_NEWER_EVIDENCE = {
    ("vllm", "dense"): (
        "0.10.1", "Llama 3.3 70B FP8 on MI300X", "0.10.2", 0.85, 0.66,
        "InferenceMAX, October 2025; serving-evidence.md, twentieth, thirty-second and "
        "thirty-fourth amendments",
    ),
    ("vllm", "moe"): (
        "0.17.0", "gpt-oss-120b on one MI300X", "0.7.3", 1.37, None,
        "InferenceX, 2026; serving-evidence.md, thirty-first amendment",
    ),
}  # fmt: skip

#: where the ROCm step costs come from (one source, one date)
ROCM_FIT_SOURCE = (
    "measured AMD serving rows (models/data/validation/amd_serving.csv: dstack DeepSeek-R1 on 8x "
    "MI300X, 2025-03-18; dstack Llama 3.1 405B on 8x MI300X, 2024-10-09; AMD's 'Performance "
    "results' page, vLLM 0.10.1 and 0.10.2, Llama 3.1 70B and 405B FP8 on 8x MI300X, batch "
    "latency and throughput tables, 2025-09/10), tuning rows of each build's release line only: "
    "the grid point minimising median + 90th percentile of the absolute TPOT error "
    "(docs/reference/serving-evidence.md, sixteenth amendment; vLLM 0.10.2 by the thirty-second's "
    "rule, with a time per sequence and layer by the thirty-third's and thirty-fourth's); fitted "
    "2026-12-02 and 2026-12-03 (bench/serve_rocm_fit.py, bench/serve_rocm_batch_fit.py)"
)

#: where the ROCm builds' time-to-first-token constants come from (one source, one date)
ROCM_TTFT_FIT_SOURCE = (
    "measured AMD serving rows (models/data/validation/amd_serving.csv), each build's tuning rows "
    "with TTFT only: the grid point minimising the median absolute TTFT error, adopted where it "
    "beats the CUDA engine's constants there (docs/reference/serving-evidence.md, seventeenth "
    "amendment); fitted 2026-12-02 (bench/serve_rocm_ttft_fit.py)"
)


@dataclass(frozen=True)
class MeasuredBuild:
    """One measured version of an engine's build (ROCm; or a CUDA release older than
    `CUDA_MEASURED`, thirtieth amendment) and its decode-step costs."""

    engine: str
    version: str
    #: k: its decode step over the roofline's (with the CUDA engine's all-reduce latencies)
    step_factor: float
    #: s: a fixed time per layer and decode step, seconds
    step_s_per_layer: float
    #: what it was measured on
    measured_on: str
    #: the model class its rows were: "dense" or "moe" (costs serve that class first)
    model_class: str = "dense"
    #: time to first token (seventeenth amendment, ROCM_TTFT_FIT_SOURCE): (a s, k, w) in
    #: TTFT = a + t_prefill · (k + w · (C − 1)) + t_step; None: not adopted, the CUDA engine's
    ttft: tuple[float, float, float] | None = None
    #: its TTFT rows sent every request at once (one wave): their w is ½ of the build's own prefill
    #: by construction, and a steady closed loop takes `steady_wave_share` (seventeenth, 2nd part)
    ttft_single_wave: bool = False
    #: m: a time per sequence and layer of each decode step, seconds (thirty-third amendment, F1)
    step_s_per_seq_layer: float = 0.0
    #: c: the share of the step's arithmetic at the roofline's rates the build adds (thirty-third
    #: amendment, F2)
    step_arith_share: float = 0.0


#: the ROCm builds, per engine, oldest version first (the last is the default)
#: (k, s): ROCM_FIT_SOURCE, refitted 2026-12-02 by the same rule with each engine's prefill share
#: (SGLang 0.60) and the interpolated 90th percentile (the sixteenth amendment's note): vLLM 0.7.3
#: 1.84 -> 2.07 (the percentile alone), SGLang 0.4.2 (3.04, 110 us) -> (3.14, 55 us)
#: TTFT (a s, k, w): ROCM_TTFT_FIT_SOURCE, each adopted (median |TTFT error| over its tuning rows
#: with TTFT, fitted against the CUDA engine's constants: vLLM 0.6.3 1.0 % vs 82.6 % over 15 rows,
#: 0.7.3 1.5 % vs 94.5 % over 9 (a and k on the grid's edge), SGLang 0.4.2 0.9 % vs 84.1 % over 8)
ROCM_BUILDS: dict[str, tuple[MeasuredBuild, ...]] = {
    "vllm": (
        MeasuredBuild(
            "vllm",
            "0.6.3",
            1.69,
            15e-6,
            "Llama 3.1 405B BF16, TP 8 (dstack, 2024-10-09)",
            ttft=(0.030, 5.9, 2.96),
            ttft_single_wave=True,
        ),
        MeasuredBuild(
            "vllm",
            "0.7.3",
            2.07,
            400e-6,
            "DeepSeek-R1 FP8, TP 8 (dstack, 2025-03-18)",
            "moe",
            ttft=(1.000, 10.0, 2.27),
        ),
        # thirty-second amendment (bench/serve_rocm_current_fit.py, 2026-12-03): 6 tuning rows,
        # median |TPOT error| 6.5 % against 74.8 % with the 0.6.3 build; k on the grid's lower
        # edge; no TTFT rows, so the CUDA engine's first-token constants. Thirty-third and
        # thirty-fourth amendments (bench/serve_rocm_batch_fit.py, 2026-12-03): with AMD's
        # throughput rows at 1,500-3,200 sequences, F1 (k, s, m) = (1.01, 0, 0.50 µs per sequence
        # and layer), median + p90 of |TPOT error| 0.130 against 0.556 over 11 tuning rows
        MeasuredBuild(
            "vllm",
            "0.10.2",
            1.01,
            0.0,
            "Llama 3.1 70B and 405B FP8, TP 8, batch 1-4 and 1,500-3,200 (AMD performance "
            "results, 2025)",
            step_s_per_seq_layer=0.50e-6,
        ),
    ),
    "sglang": (
        MeasuredBuild(
            "sglang",
            "0.4.2",
            3.14,
            55e-6,
            "DeepSeek-R1 FP8, TP 8 (dstack, 2025-03-18)",
            "moe",
            # refitted 2026-12-02 around the refitted step (sixteenth amendment's second note):
            # (0.860, 1.7, 2.96) -> (0.510, 6.7, 2.96), 0.9 % over its 8 tuning rows either way
            ttft=(0.510, 6.7, 2.96),
        ),
    ),
}

#: CUDA releases older than CUDA_MEASURED with their own decode-step costs, per engine, oldest
#: first (docs/reference/serving-evidence.md, thirtieth amendment: (k, s) fitted per release and
#: model class on models/data/validation/older_cuda_serving.csv by bench/serve_older_cuda_fit.py,
#: adopted by the amendment's rule); a version older than CUDA_MEASURED takes the nearest of these
#: and the CUDA record (at its lowest measured release), of the model's class only
CUDA_OLDER_BUILDS: dict[str, tuple[MeasuredBuild, ...]] = {}


@dataclass(frozen=True)
class Build:
    """The engine as it runs on one GPU: its record, its platform, the version whose costs are used."""

    engine: str
    label: str
    #: "cuda" or "rocm"
    platform: str
    #: the version asked for (None: not given)
    version: str | None
    #: the version whose costs are used (ROCm: a measured one; CUDA: the one asked for, or None)
    costs_version: str | None
    step_factor: float
    step_s_per_layer: float
    #: why the costs are not the version's own ("" when they are)
    note: str = ""
    #: its time-to-first-token constants (a s, k, w) for a service; None: the CUDA engine's
    ttft: tuple[float, float, float] | None = None
    #: the constants as fitted on its rows (their own load: one wave or a steady loop)
    ttft_rows: tuple[float, float, float] | None = None
    #: its decode step is its own k · roofline step + layers · s (a ROCm build, or an older CUDA
    #: release's: thirtieth amendment); False: the CUDA engine's record (engines.py)
    own_step: bool = False
    #: what unseen sets measured on newer builds than its costs' (ROCm: ROCM_NEWER_EVIDENCE), for
    #: the plan's software line; never applied, and not part of the short engine text (`note`)
    evidence: str = ""
    #: m and c of its measured build (MeasuredBuild; 0 for the CUDA record)
    step_s_per_seq_layer: float = 0.0
    step_arith_share: float = 0.0


def is_amd(gpu_id: str) -> bool:
    """An AMD GPU of the catalogue (architecture CDNA); False for an unknown id."""
    return gpu_id in load_gpus() and get_gpu(gpu_id).architecture.startswith("cdna")


def default_engine(gpu_id: str | None) -> str:
    """What a buyer deploys today on the GPU: vLLM's ROCm build on AMD, TensorRT-LLM on NVIDIA."""
    return DEFAULT_AMD_ENGINE if gpu_id and is_amd(gpu_id) else DEFAULT_ENGINE


def split_engine(text: str) -> tuple[str, str | None]:
    """`NAME[:VERSION]` -> (name, version or None); InputError naming `engine` when malformed."""
    name, _, version = str(text).strip().partition(":")
    name = name.strip().lower()
    if name not in ENGINES:
        raise InputError(
            "engine",
            f"unknown engine '{name}'; choose one of: {', '.join(ENGINES)} (NAME[:VERSION])",
        )
    if not _:
        return name, None
    return name, check_version(version.strip())


def check_version(version: str) -> str:
    """A version string as releases write it (VERSION_PATTERN); InputError naming `engine_version`."""
    if len(version) > VERSION_MAX_CHARS or not _VERSION.match(version):
        raise InputError(
            "engine_version",
            f"engine version '{version[:VERSION_MAX_CHARS]}' is not a release number: give digits "
            "and dots with an optional suffix, e.g. 0.7.3 or 1.2.0rc6 (at most "
            f"{VERSION_MAX_CHARS} characters)",
        )
    return version


def check_engine_on(engine: str, gpu_id: str) -> None:
    """InputError naming `engine` where the engine has no build for the GPU (TensorRT-LLM on AMD)."""
    if is_amd(gpu_id) and engine not in AMD_ENGINES:
        raise InputError(
            "engine",
            f"{ENGINES[engine].label} does not run on AMD GPUs ({gpu_id}); choose one of: "
            f"{', '.join(AMD_ENGINES)} (their ROCm builds)",
        )


def _key(version: str) -> tuple[int, ...]:
    """The release numbers of a version (0.7.3.dev138 -> (0, 7, 3)), for nearness."""
    return tuple(int(x) for x in re.findall(r"\d+", version.split("+")[0])[:3])


def release_line(version: str) -> str:
    """A version's release line, major.minor ("0.5.13.post1" -> "0.5"): what the thirtieth and
    thirty-second amendments group rows and builds by."""
    return ".".join(str(x) for x in _key(version)[:2])


def _nearest(builds: tuple[MeasuredBuild, ...], version: str) -> MeasuredBuild:
    """The measured build nearest the version by release numbers; a tie goes to the newer."""
    want = _key(version)

    def distance(b: MeasuredBuild) -> tuple:
        have = _key(b.version)
        width = max(len(want), len(have))
        pad = lambda t: t + (0,) * (width - len(t))  # noqa: E731
        return tuple(abs(x - y) for x, y in zip(pad(want), pad(have), strict=True))

    return min(reversed(builds), key=distance)


def _of_class(builds: tuple[MeasuredBuild, ...], moe: bool | None) -> tuple[MeasuredBuild, ...]:
    """The builds measured on the model's class (dense or MoE), else all of them (sixteenth
    amendment, second part: a class's costs do not carry to the other)."""
    if moe is None:
        return builds
    same = tuple(b for b in builds if (b.model_class == "moe") == moe)
    return same or builds


def _older_build(engine: str, version: str, moe: bool | None) -> MeasuredBuild | None:
    """The older CUDA release whose costs a version older than CUDA_MEASURED takes: the nearest
    of the engine's older builds of the model's class and the CUDA record at its lowest measured
    release (thirtieth amendment); None: the record is nearer, or no build of that class."""
    lo = CUDA_MEASURED[engine][0]
    if moe is None or _key(version) >= _key(lo):
        return None
    same = tuple(b for b in CUDA_OLDER_BUILDS.get(engine, ()) if (b.model_class == "moe") == moe)
    if not same:
        return None
    record = MeasuredBuild(engine, lo, 0.0, 0.0, "the CUDA record")
    chosen = _nearest((*same, record), version)
    return None if chosen is record else chosen


def _older_note(spec, version: str, lo: str, hi: str) -> str:
    """What a CUDA release outside the measured ones is told when the record's costs are used."""
    note = (
        f"{spec.label} {version} was not measured (its costs: releases {lo} to {hi}); "
        "the fitted costs are used"
    )
    older = _key(version) < _key(lo)
    if spec.id in OLDER_RELEASE_EVIDENCE and older:
        seen, ratio = OLDER_RELEASE_EVIDENCE[spec.id]
        note += (
            f". Older releases can be much slower: {spec.label} {seen} served DeepSeek-R1 "
            f"on 8 H200 at {ratio:.1f}x these costs' time per output token (a third-party "
            "set, March 2025; serving-evidence.md, twenty-second amendment)"
        )
    if spec.id in OLDER_RELEASE_DENSE_EVIDENCE and older:
        seen, share = OLDER_RELEASE_DENSE_EVIDENCE[spec.id]
        note += (
            f"; {spec.label} {seen} ran Llama 3.1 405B FP8 on 8 H100 at {share:.2f}x "
            "these costs' output tokens per second (offline batches, December 2024; "
            "twenty-seventh amendment)"
        )
    if spec.id in OLDER_RELEASE_CLOSE and older:
        seen, dense, moe = OLDER_RELEASE_CLOSE[spec.id]
        note += (
            f"; yet {spec.label} {seen} served Llama 3.1 and Mixtral 8x7B on H100 within "
            f"{dense:.0%} and {moe:.0%} of these costs' time per output token (median, August "
            "2024; thirtieth amendment): no release line has costs of its own"
        )
    return note


def _newer_rocm_note(spec, chosen: MeasuredBuild, moe: bool | None) -> str:
    """What an unseen set measured against the build `chosen` (ROCM_NEWER_EVIDENCE), for a plan at
    the default or a newer version; "" where there is none for that build."""
    key = (spec.id, "moe" if moe else "dense")
    if moe is None or key not in ROCM_NEWER_EVIDENCE:
        return ""
    seen, what, against, tpot, ttft, source = ROCM_NEWER_EVIDENCE[key]
    if against != chosen.version:
        return ""
    first = f" and {ttft:.2f}x its time to first token" if ttft else ""
    return (
        f"measured by an unseen set: {spec.label} {seen} served {what} where these "
        f"{chosen.version} costs give {tpot:.2f}x its time per output token{first} ({source})"
    )


def _cuda(engine: str, version: str | None, moe: bool | None) -> Build:
    """An engine's build on an NVIDIA GPU: an older release's own costs where the thirtieth
    amendment adopted them (`_older_build`), else the CUDA record, with a note when the version
    is outside the measured releases."""
    spec = ENGINES[engine]
    lo, hi = CUDA_MEASURED[engine]
    older = None if version is None else _older_build(engine, version, moe)
    if older is not None:
        note = (
            f"{spec.label} {version}: the costs measured on {older.version} ({older.measured_on}; "
            "serving-evidence.md, thirtieth amendment)"
        )
        return Build(
            engine, spec.label, "cuda", version, older.version, older.step_factor,
            older.step_s_per_layer, note, own_step=True,
        )  # fmt: skip
    note = ""
    if version is not None and not _key(lo) <= _key(version) <= _key(hi):
        note = _older_note(spec, version, lo, hi)
    return Build(engine, spec.label, "cuda", version, version, spec.decode_step_factor, 0.0, note)


@functools.lru_cache(maxsize=512)
def resolve(engine: str, gpu_id: str, version: str | None = None, moe: bool | None = None) -> Build:
    """The build of `engine` that runs on `gpu_id` at `version` for a dense or MoE model (module
    docstring; on AMD the versions measured on the model's class, when there are any). InputError
    naming `engine` for TensorRT-LLM on an AMD GPU. Cached: a plan's evaluation asks for its
    build several times per layout (step, first token, version, note, software line), and the
    answer depends on these four arguments alone (a frozen record; a refusal is not cached)."""
    check_engine_on(engine, gpu_id)
    spec = ENGINES[engine]
    if not is_amd(gpu_id):
        return _cuda(engine, version, moe)
    builds = _of_class(ROCM_BUILDS[engine], moe)
    chosen = builds[-1] if version is None else _nearest(builds, version)
    note = ""
    if version is not None and _key(version) != _key(chosen.version):
        note = (
            f"{spec.label} (ROCm) {version} was not measured on a {'MoE' if moe else 'dense'} "
            f"model; the costs of the nearest measured version, {chosen.version}, are used"
        )
    newer = version is None or _key(version) > _key(chosen.version)
    return Build(
        engine,
        f"{spec.label} (ROCm)",
        "rocm",
        version,
        chosen.version,
        chosen.step_factor,
        chosen.step_s_per_layer,
        note,
        steady_constants(chosen),
        chosen.ttft,
        own_step=True,
        evidence=_newer_rocm_note(spec, chosen, moe) if newer else "",
        step_s_per_seq_layer=chosen.step_s_per_seq_layer,
        step_arith_share=chosen.step_arith_share,
    )


def steady_constants(build: MeasuredBuild) -> tuple[float, float, float] | None:
    """A build's TTFT constants for a service (docs/reference/serving-evidence.md, seventeenth
    amendment, second part): as fitted where its rows were steady closed loops; where they were
    single waves (every request sent at once, so each waits ½ of each other's prefill as the build
    runs it: w = k / 2), w is the steady share of the CUDA engine's fit instead, the same fraction
    of the build's own prefill, w = k · w_e / k_e (vLLM: 0.090 / 2.3)."""
    if build.ttft is None or not build.ttft_single_wave:
        return build.ttft
    a, k, _ = build.ttft
    return a, k, steady_wave_share(build.engine, k)


def steady_wave_share(engine: str, k: float) -> float:
    """w = k · w_e / k_e: the CUDA engine's share of each other request's prefill in a steady
    closed loop (engines.py, ninth amendment) applied to a prefill k times the roofline's."""
    spec = ENGINES[engine]
    return k * spec.ttft_wave_share / spec.ttft_prefill_factor


def describe(build: Build) -> str:
    """What the plan assumes of the software, in words, for a build with its own step costs (a ROCm
    build or an older CUDA release; the CUDA record's wording stays models/serving/engines.py
    `software_generation`)."""
    first = ""
    if build.ttft is not None:
        a, k, _ = build.ttft
        first = (
            f"; first token {a * 1e3:.0f} ms + {k:.1f} of the roofline's prefills (seventeenth "
            "amendment) + with users the wait for the others' prefills (twenty-first)"
        )
    where = (
        "measured on AMD GPUs (docs/reference/serving-evidence.md, sixteenth amendment)"
        if build.platform == "rocm"
        else "measured on this older release (docs/reference/serving-evidence.md, thirtieth "
        "amendment)"
    )
    per_seq = (
        f" + {build.step_s_per_seq_layer * 1e6:.2f} µs per sequence and layer (thirty-fourth "
        "amendment)"
        if build.step_s_per_seq_layer
        else ""
    )
    arith = f" + {build.step_arith_share:.2f}x its arithmetic" if build.step_arith_share else ""
    return (
        f"{build.label} {build.costs_version}: each decode step {build.step_factor:.2f}x the "
        f"roofline's + {build.step_s_per_layer * 1e6:.0f} µs per layer{per_seq}{arith}, {where}"
        + first
        + "".join(f"; {x}" for x in (build.note, build.evidence) if x)
    )


def engine_fields(data):
    """A scenario's or a service's `engine` given as NAME[:VERSION] split into `engine` and
    `engine_version`; absent (or None), left out, so it stays unset: the record fills in the GPU's
    default (`EngineInputs._gpu_default`) and a dump leaves it out where it is the field's.
    For pydantic's before-validators; anything but a dict passes through."""
    if not isinstance(data, dict):
        return data
    out = dict(data)
    if out.get("engine") is None:
        out.pop("engine", None)
        return out
    try:
        name, version = split_engine(out["engine"])
    except InputError:
        return out  # the field's own validator names it (`engine_name`)
    out["engine"] = name
    if version is not None:
        given = out.get("engine_version")
        if given is not None and given != version:
            raise InputError(
                "engine_version",
                f"engine '{data['engine']}' names version {version} and engine_version "
                f"{given}; give one",
            )
        out["engine_version"] = version
    return out


def unset(value) -> bool:
    """A version field left out of a dump where None (pydantic's `exclude_if`): a plan or scenario
    that names no version reads as it did before versions existed (links, JSON, byte for byte)."""
    return value is None


def engine_name(value):
    """The engine's name from NAME[:VERSION], for a before-validator of the `engine` field: an
    unknown name or a malformed version raises here, so the error names `engine`."""
    return split_engine(value)[0] if isinstance(value, str) else value


def version_field():
    """The `engine_version` field of a service or a portfolio's serving workload."""
    return Field(
        None,
        max_length=VERSION_MAX_CHARS,
        pattern=VERSION_PATTERN,
        exclude_if=unset,
        description="the engine's release (0.7.3); not measured: the nearest measured one's costs",
    )


class EngineInputs(BaseModel):
    """The validators of a record with `engine` (NAME[:VERSION]) and `engine_version` fields (the
    version field leaves itself out of a dump where unset: `version_field`): a service (models/serving/plan.py ServeInputs, with
    its `gpu`, whose engines it checks) and a portfolio's serving workload (no GPU of its own:
    `Serve.engine_on` checks it against the cluster's)."""

    @model_validator(mode="before")
    @classmethod
    def _engine_text(cls, data):
        return engine_fields(data)

    _engine_name = field_validator("engine", mode="before", check_fields=False)(engine_name)

    @field_validator("engine", check_fields=False)
    @classmethod
    def _engine_on_gpu(cls, value, info):
        if info.data.get("gpu"):
            check_engine_on(value, info.data["gpu"])
        return value

    @model_validator(mode="after")
    def _gpu_default(self):
        """An engine left unset runs the GPU's default build (`default_engine`: vLLM's ROCm
        build on AMD), and stays unset, so a link or JSON export leaves it out as it came."""
        gpu = getattr(self, "gpu", None)
        if "engine" not in self.model_fields_set and gpu:
            self.__dict__["engine"] = default_engine(gpu)
        return self

    @model_serializer(mode="wrap")
    def _keep_chosen_engine(self, handler, info):
        """An engine chosen explicitly is written even where it equals the field's default
        (exclude_defaults, as share links and scenario files write): TensorRT-LLM chosen for an
        AMD cluster must read back as that choice, and be refused, not become the GPU's default.
        An engine left unset is left out of such a dump even where the GPU's default differs from
        the field's (vLLM on AMD), so it reads back unset: a default stays a default."""
        out = handler(self)
        if not isinstance(out, dict):
            return out
        if "engine" not in self.model_fields_set:  # the GPU's default: left out as it came
            if info.exclude_defaults and "engine" in out:
                out = {k: v for k, v in out.items() if k != "engine"}
            return out
        if "engine" in out:
            return out
        if (info.exclude and "engine" in info.exclude) or (
            info.include is not None and "engine" not in info.include
        ):
            return out
        order = list(type(self).model_fields)
        ranked = sorted(
            [*out, "engine"], key=lambda k: order.index(k) if k in order else len(order)
        )
        return {k: self.engine if k == "engine" else out[k] for k in ranked}


def build_of(inp) -> Build:
    """A service's engine build on its GPU at the version asked, for its model's class."""
    moe = get_preset(inp.model).is_moe if known_model(inp.model) else None
    return resolve(inp.engine, inp.gpu, inp.engine_version, moe)


def engine_step_s(inp, shape, t_step, batch=0.0, t_arith=0.0):
    """The engine's decode step from the roofline's: on NVIDIA its CUDA factor, plus for a MoE
    model its time per token and MoE layer, m_e · batch · moe_layers (`batch` the sequences of one
    attention group; docs/reference/serving-evidence.md, nineteenth amendment); on AMD its ROCm
    build's k · step + layers · s (sixteenth amendment) + m · batch · layers + c · t_arith (the
    step's arithmetic at the roofline's rates; thirty-third amendment, 0 where not adopted), and
    the same with an older CUDA release's own (k, s) where the thirtieth amendment adopted them."""
    build = build_of(inp)
    if not build.own_step:
        spec = ENGINES[inp.engine]
        per_token = spec.moe_s_per_token_layer * shape.moe_layers if shape.is_moe else 0.0
        return t_step * spec.decode_step_factor + per_token * batch
    return own_step_s(
        t_step, shape.layers, batch, t_arith, build.step_factor, build.step_s_per_layer,
        build.step_s_per_seq_layer, build.step_arith_share,
    )  # fmt: skip


def own_step_s(t_step, layers, batch, t_arith, k, s, m=0.0, c=0.0):
    """A build's own decode step: k · roofline step + layers · s + m · batch · layers + c · the
    step's arithmetic (sixteenth and thirty-third amendments); the one formula the planner
    (`engine_step_s`) and the AMD scoring and fits (models/validation/amd.py `step_s`) share.
    Arrays broadcast."""
    return k * t_step + layers * s + m * batch * layers + c * t_arith


def software_of(inp) -> str:
    """What a service's plan assumes of the software, in words, naming the build and version."""
    build = build_of(inp)
    # weight-only FP4 or INT4 (docs/reference/serving-evidence.md, twenty-sixth and thirty-sixth)
    weights = weight_only_text(inp.gpu, inp.precision or "")
    wo = f"; {weights}" if weights else ""
    if build.own_step:
        return describe(build) + wo
    text = software_generation(inp.engine)
    if build.version:
        text = f"{build.label} {build.version}: " + text
    return text + (f"; {build.note}" if build.note else "") + wo


def own_first_token(inp) -> tuple[float, float]:
    """(a s, k) of a service's own first token, own = a + k · t_prefill + t_step: a ROCm build's
    own (a, k) where adopted (docs/reference/serving-evidence.md, seventeenth amendment), else the
    CUDA engine's for the model's class (engines.py `EngineSpec.own_first_token`: the twenty-ninth
    amendment's where adopted, else the ninth's with the eighteenth's MoE factor)."""
    build = build_of(inp)
    if build.ttft:
        return build.ttft[0], build.ttft[1]
    return ENGINES[inp.engine].own_first_token(get_preset(inp.model).is_moe)


def first_token_s(inp, t_prefill, t_step):
    """A service's own time to first token, no wave (an arriving request: the wait for a free slot
    is the M/M/c queue's, pools.py; split: add the K/V transfer): `own_first_token`'s a + k ·
    t_prefill + t_step. Benchmark rows that arrive in waves are scored with engines.py
    `first_token_s` instead (models/validation/silicon.py, amd.py)."""
    a, k = own_first_token(inp)
    return a + k * t_prefill + t_step


def service_first_token_s(inp, t_prefill, t_step, batch, cycle_s):
    """A planned service's time to first token (docs/reference/serving-evidence.md, twenty-first
    amendment). With an arrival rate: `first_token_s` with no wave (the slot's M/M/c wait is added
    by pools.py). With users in flight (a steady closed loop of `batch` on the replica's group):
    own = `first_token_s` (the build's or engine's own first token, twenty-ninth amendment), plus the
    p-th percentile (inp.slo_percentile) wait of an M/M/1 prefill server of time s = m · t_prefill
    per request (the roofline's prefill on every engine and build: k is how the client sees its own
    prefill stretched beside the others' decode steps, not the server's time; lead's correction) at
    ρ = λ · s, λ = (B − 1) / (TTFT_mean + O · TPOT), `cycle_s` = O · TPOT (queueing.py
    `closed_loop_utilisation`). No wave share: the benchmark rows that arrive in waves are scored
    with `first_token_s` (models/validation/silicon.py, amd.py)."""
    if inp.users is None:
        return first_token_s(inp, t_prefill, t_step)
    build = build_of(inp)
    moe = build.platform == "cuda" and get_preset(inp.model).is_moe
    m = ENGINES[inp.engine].ttft_moe_prefill_factor if moe else 1.0
    own = first_token_s(inp, t_prefill, t_step)
    service = m * t_prefill
    others = np.maximum(np.asarray(batch, dtype=float) - 1.0, 0.0)
    rho = queueing.closed_loop_utilisation(others, service, own, cycle_s)
    return own + queueing.queue_wait_s(rho, 1, service, inp.slo_percentile)

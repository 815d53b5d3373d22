"""Why no serving layout is planned: the weights or the batch do not fit, or no layout meets the
latency objectives (models/serving/plan.py `plan_serving` calls these; `inp` is its ServeInputs).
Each raises an InputError naming the field to change and what the best layout achieves."""

from __future__ import annotations

import numpy as np

from models.errors import InputError
from models.hardware import GpuSpec, get_gpu
from models.serving import builds, nodes
from models.serving.engines import ENGINES
from models.serving.precision import check_precisions, kv_precision_of, precision_of
from models.shapes import get_preset
from models.units import BYTES_PER_GIB


def refuse_unfit(inp, r: dict, tp, gpu: GpuSpec, precision: str) -> None:
    """Refuses when no layout fits: the batch given is over what the KV cache holds, or the
    weights leave no room for one sequence on the GPUs tried (`precision`: the weights', as
    precision.py `precision_of` gives it)."""
    fits = r["fits"]
    if not fits.any() and inp.batch and (r["max_seqs"] >= 1).any():
        raise InputError(
            "batch",
            f"a batch of {inp.batch} {inp.input_tokens + inp.output_tokens}-token sequences does "
            f"not fit the KV cache of {inp.model} on {inp.gpu}: at most "
            f"{int(r['max_seqs'].max())} fit; give a smaller batch or more GPUs",
        )
    if not fits.any():
        need = float(np.min(r["weights_gpu"])) / BYTES_PER_GIB
        where = f"{inp.gpus} GPUs" if inp.gpus else f"up to {max(tp):.0f} GPUs of {inp.gpu}"
        raise InputError(
            "gpus" if inp.gpus else "model",
            f"{inp.model} at {precision} does not fit {where} with room for one "
            f"{inp.input_tokens + inp.output_tokens}-token sequence (weights alone "
            f"{need:.0f} GiB per GPU of {gpu.memory_gib:g}); {_remedy(inp, gpu, max(tp))}",
        )


def _remedy(inp, gpu: GpuSpec, largest: float) -> str:
    """What to change when the weights do not fit: more GPUs only where a larger replica is one the
    planner lays out (within the scale-up domain, or over nodes with an engine that runs one:
    nodes.py); otherwise say why not and what does."""
    common = "a lower precision or a GPU with more memory"
    if inp.gpus or largest < gpu.scaleup_domain_gpus or get_preset(inp.model).is_moe:
        return f"use more GPUs, {common}"
    why = nodes.unsupported(inp.engine, inp.gpu)
    if not why:
        return f"use {common}"  # the largest replica over nodes was tried
    return f"more GPUs do not help here: {why}; or use {common}"


def meets(inp, ttft_s, tpot_s) -> np.ndarray:
    """Which layouts meet the TTFT and TPOT objectives before any wait."""
    ok = np.ones(np.shape(ttft_s), dtype=bool)
    if inp.ttft_ms is not None:
        ok &= ttft_s * 1e3 <= inp.ttft_ms
    if inp.tpot_ms is not None:
        ok &= tpot_s * 1e3 <= inp.tpot_ms
    return ok


def refuse_slos(inp, r: dict, fits: np.ndarray, queued: bool) -> None:
    """No layout meets the SLOs: say the best TPOT and TTFT any fitting layout achieves, colocated
    or (with an arrival rate) split."""
    j = np.nonzero(fits)[0]
    tpot, ttft = r["tpot"][j], r["ttft"][j]
    if queued and inp.prefill_decode != "colocated":
        tpot, ttft = np.minimum(tpot, r["t_step"][j]), np.minimum(ttft, r["split_ttft"][j])
    best_tpot, best_ttft = j[np.argmin(tpot)], j[np.argmin(ttft)]
    field = "tpot_ms" if inp.tpot_ms is not None else "ttft_ms"
    objectives = " and ".join(  # only the objectives set: "TPOT ≤ ∞ ms" read as a bound
        f"{name} ≤ {value:g} ms"
        for name, value in (("TTFT", inp.ttft_ms), ("TPOT", inp.tpot_ms))
        if value is not None
    )
    raise InputError(
        field,
        f"no layout of {inp.model} on {inp.gpu} meets {objectives}; best achievable: TPOT "
        f"{tpot.min() * 1e3:.1f} ms (TP{r['tp'][best_tpot]:.0f}, batch "
        f"{r['batch'][best_tpot]:.0f}), TTFT {ttft.min() * 1e3:.0f} ms "
        f"(TP{r['tp'][best_ttft]:.0f}); "
        + (
            (_fixed_first_token(inp, inp.ttft_ms) if inp.ttft_ms is not None else "")
            or "relax the SLOs, use a faster GPU or a lower precision"
        ),
    )


def _serves(inp) -> bool:
    """Whether the engine of `inp` runs on its GPU at its precisions (the checks plan.py makes)."""
    try:
        builds.check_engine_on(inp.engine, inp.gpu)
        check_precisions(get_gpu(inp.gpu), inp.engine, precision_of(inp), kv_precision_of(inp))
    except InputError:
        return False
    return True


def _measured_on(build) -> str:
    """What a build with its own costs was measured on (builds.py's records), or ""."""
    records = builds.ROCM_BUILDS if build.platform == "rocm" else builds.CUDA_OLDER_BUILDS
    for b in records.get(build.engine, ()) if build.own_step else ():
        if b.version == build.costs_version:
            return f", measured on {b.measured_on},"
    return ""


def _fixed_first_token(inp, objective_ms: float) -> str:
    """Where the engine build's fixed first-token time alone (builds.own_first_token's a) is at or
    over the TTFT objective, no GPU or layout can meet it on that build: say so, and name the
    other engines on the GPU whose own fixed time is under it ("" otherwise)."""
    a = builds.own_first_token(inp)[0] * 1e3
    if a < objective_ms:
        return ""
    build = builds.build_of(inp)
    others = []
    for name in ENGINES:
        other = inp.model_copy(update={"engine": name, "engine_version": None})
        if name == inp.engine or not _serves(other):
            continue
        b, fixed = builds.build_of(other), builds.own_first_token(other)[0] * 1e3
        if fixed < objective_ms:
            label = f"{b.label} {b.costs_version or ''}".strip()
            others.append(f"{label} {fixed:.0f} ms (engine {name})")
    alternative = (
        f", or take an engine whose fixed time is under it: {', '.join(others)}" if others else ""
    )
    name = f"{build.label} {build.costs_version or ''}".rstrip()
    return (
        f"the first token on {name} carries a fixed {a:.0f} ms{_measured_on(build)} at or over "
        f"the {objective_ms:g} ms asked, so no GPU, count or layout meets it on this build "
        f"(docs/reference/serving-evidence.md, seventeenth and twenty-ninth amendments): relax "
        f"the TTFT objective{alternative}"
    )

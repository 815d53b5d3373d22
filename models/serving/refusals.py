"""Why no serving layout is planned: the weights or the batch do not fit, or no layout meets the
latency objectives (models/serving/plan.py `plan_serving` calls these; `inp` is its ServeInputs).
Each raises an InputError naming the field to change and what the best layout achieves."""

from __future__ import annotations

import numpy as np

from models.errors import InputError
from models.hardware import GpuSpec
from models.serving import nodes
from models.shapes import get_preset
from models.units import BYTES_PER_GIB


def refuse_unfit(inp, r: dict, tp, gpu: GpuSpec, precision: str) -> None:
    """Refuses when no layout fits: the batch given is over what the KV cache holds, or the
    weights leave no room for one sequence on the GPUs tried (`precision`: the weights', as
    plan.precision_of gives it)."""
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
        f"(TP{r['tp'][best_ttft]:.0f}); relax the SLOs, use a faster GPU or a lower precision",
    )

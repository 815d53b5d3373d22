"""One explicit fine-tuning layout, as a published run set it (the validation rows): its memory and
step time with the savings the inputs set (models/finetune/plan.py does the physics)."""

from __future__ import annotations

from models.finetune import fsdp_tp, savings
from models.finetune.plan import FinetuneInputs, _check, _context, breakdowns, job_for
from models.training.layouts import SEARCH_RECOMPUTE_MODES, Layouts
from models.training.memory import GIB, fits


def evaluate_layout(inp: FinetuneInputs, **layout) -> dict:
    """Memory (GiB) and step time (s) of one explicit layout (a published configuration) with the
    savings the inputs set (the unset ones off), the recompute mode given or, when omitted, the
    fastest that fits."""
    shape, gpu = _check(inp)
    job = job_for(inp, shape, gpu)
    if inp.framework == "fsdp":  # TP × DP with ZeRO-3 or TP 1 (amendment 6); else a named field
        dims = {k: int(layout.get(k, d)) for k, d in (("tp", 1), ("pp", 1), ("cp", 1), ("zero", 0))}
        fsdp_tp.check_layout(gpu, shape.heads, **dims)
    modes = [layout.pop("recompute")] if "recompute" in layout else list(SEARCH_RECOMPUTE_MODES)
    combo = {k: bool(v) for k, v in inp.fixed_savings.items()}
    best = None
    for mode in modes:
        lay = Layouts.single(inp.global_batch_seqs, recompute=mode, **layout)
        mem, step = breakdowns(inp, job, lay)
        mem, step, extra = savings.apply(combo, mem, step, lay, _context(inp, job, lay))
        ok = bool(fits(job, mem["total"])[0] and extra["valid"][0])
        cand = (not ok, float(step["total"][0]), mode, mem, step)
        if best is None or cand[:2] < best[:2]:
            best = cand
    _, t, mode, mem, step = best
    return {
        "recompute": mode,
        "fits": not best[0],
        "memory_gib": float(mem["total"][0]) / GIB,
        "step_time_s": t,
        "tokens_per_s": inp.global_batch_seqs * inp.seq_len / t,
    }


__all__ = ["evaluate_layout"]

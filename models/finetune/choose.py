"""The planner's choice of layout and memory savings for a fine-tune on a given GPU count
(docs/reference/finetune-model.md, item 4).

The buyer's fixed choices (True or False) always hold; the free ones start off. When no layout fits
that way and the planner may choose (`allow_auto`), every allowed set of savings
(savings.combos) is tried on every layout and the fastest fitting pair per sequence wins, its time
costs included (savings.apply). So a saving is switched on only when the run does not fit without
it, and then the one that costs the least time.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from models.finetune import savings


@dataclass(frozen=True)
class Choice:
    """The chosen layout (index into lay) with its memory and step breakdowns under `combo`."""

    lay: object
    mem: dict
    step: dict
    index: int
    combo: dict[str, bool]
    chosen_by: str  # "buyer", "planner" or "none needed"
    host_bytes: float
    base_step: dict  # the same layout's step without the savings (what each one costs)
    grad_bytes: float  # bytes per gradient the core's job held and reduced (ctx grad_bytes)


def _minimal(fixed: dict[str, bool | None]) -> dict[str, bool]:
    """The buyer's choices with every free one off; parameter offload brings the optimizer's
    along where the buyer left that free (the step runs on the CPU)."""
    c = {k: bool(fixed.get(k)) for k in savings.SAVINGS}
    if c["param_offload"] and fixed.get("optimizer_offload") is None:
        c["optimizer_offload"] = True
    return c


def _fastest_of(lay, mem, step, ctx, combo) -> tuple[float, int, dict, dict, np.ndarray] | None:
    m, s, extra = savings.apply(combo, mem, step, lay, ctx)
    ok = extra["valid"] & (m["total"] <= ctx["gpu_bytes"])
    if not ok.any():
        return None
    cand = np.nonzero(ok)[0]
    per_seq = s["total"][cand] / lay.batch_seqs[cand]
    j = int(np.argmin(per_seq))
    return float(per_seq[j]), int(cand[j]), m, s, extra["host_bytes"]


def fastest(lay, mem, step, fixed, allow_auto: bool, ctx, bf16_form=None) -> Choice | None:
    """The fastest fitting layout with the buyer's choices alone; failing that, and when
    allow_auto, the fastest fitting (layout, savings) pair; None when nothing fits. bf16_form:
    (memory, step, ctx) of the same layouts with BF16 gradients (grad_sync.bf16_grad_job), used for
    the choice sets with pure BF16 on; None: every set uses (mem, step, ctx)."""
    base = _minimal(fixed)
    candidates = [base]
    if allow_auto:
        candidates += [c for c in savings.combos(fixed) if c != base]
    best = None
    for n, combo in enumerate(candidates):
        form = bf16_form if bf16_form is not None and combo["pure_bf16"] else (mem, step, ctx)
        found = _fastest_of(lay, *form, combo)
        if found is not None and (best is None or found[0] < best[0][0]):
            best = (found, combo, form)
        if n == 0 and best is not None:
            break  # fits with the buyer's choices: nothing switched on
    if best is None:
        return None
    (_, i, m, s, host), combo, (_, form_step, form_ctx) = best
    if combo != base:
        chosen_by = "planner"
    elif any(fixed.values()):
        chosen_by = "buyer"
    else:
        chosen_by = "none needed"
    grad_bytes = form_ctx["grad_bytes"]
    return Choice(lay, m, s, i, combo, chosen_by, float(host[i]), form_step, grad_bytes)

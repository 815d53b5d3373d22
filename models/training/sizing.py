"""Sizing: the fewest GPUs that fit, the GPUs a deadline needs, and the scaling curve.

Clusters are bought in whole nodes, so candidate counts are node multiples on a roughly geometric
ladder (1, 2, 3, 4, 5, 6, 8, 10, 12, 16, 20, 24, 32, … nodes); below one node, powers of two.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from models.training.memory import GIB
from models.training.search import LayoutChoice, NoFittingLayout

#: Node multiples per power of two on the ladder.
LADDER_STEPS = (4, 5, 6, 7)


def gpu_ladder(gpus_per_node: int, max_gpus: int) -> list[int]:
    """Candidate GPU counts up to max_gpus: 1, 2, 4 GPUs, then 1–8 nodes, then ×1, 1.25, 1.5, 1.75 per octave."""
    counts = {c for c in (1, 2, 4) if c < gpus_per_node}
    nodes = list(range(1, 9))
    k = 8
    while k * gpus_per_node <= max_gpus:
        nodes += [k * s // 4 for s in LADDER_STEPS]
        k *= 2
    counts |= {n * gpus_per_node for n in nodes}
    return sorted(c for c in counts if c <= max_gpus)


def min_gpus_lower_bound(params_total: float, memory_gib: float) -> int:
    """No layout fits below the GPUs needed to hold ~16 bytes/param fully sharded (ZeRO-3)."""
    return max(1, math.ceil(16 * params_total / (memory_gib * GIB)))


def smallest_fitting(
    choose: Callable[[int], LayoutChoice], ladder: list[int], lower_bound: int = 1
) -> LayoutChoice:
    """First count on the ladder with a fitting layout."""
    for n in ladder:
        if n < lower_bound:
            continue
        try:
            return choose(n)
        except NoFittingLayout:
            continue
    raise NoFittingLayout(f"no layout fits on up to {ladder[-1]} GPUs")


def meet_deadline(
    days_for: Callable[[int], tuple[float, LayoutChoice]],
    ladder: list[int],
    start: int,
    deadline_days: float,
) -> tuple[int, float, LayoutChoice]:
    """Fewest GPUs on the ladder, from `start`, whose wall-clock days meet the deadline.

    The ladder is walked in doubling strides to the first count that meets it, then back through
    the counts skipped, so a few dozen layout searches cover a ladder to 262,144 GPUs (MAX_GPUS).
    """
    counts = [n for n in ladder if n >= start]
    seen: dict[int, tuple[float, LayoutChoice | None]] = {}

    def days(i: int) -> float:
        if i not in seen:
            try:
                seen[i] = days_for(counts[i])
            except NoFittingLayout:
                seen[i] = (math.inf, None)
        return seen[i][0]

    prev_i, i, stride, found = 0, 0, 1, None
    while i < len(counts):
        if days(i) <= deadline_days:
            found = i
            break
        prev_i, i, stride = i, i + stride, stride * 2
    # back through the counts the doubling skipped; if it found nothing, through all of them
    # (time does not always fall as GPUs are added, e.g. when the batch stops dividing well)
    for j in range(
        prev_i + 1 if found is not None else 0, found if found is not None else len(counts)
    ):
        if days(j) <= deadline_days:
            found = j
            break
    if found is None:
        fastest = min(seen, key=lambda k: seen[k][0])
        if seen[fastest][1] is None:
            raise NoFittingLayout("no GPU count fits the model")
        raise DeadlineError(counts[fastest], seen[fastest][0])
    return counts[found], seen[found][0], seen[found][1]


class DeadlineError(ValueError):
    """The deadline cannot be met; carries the fastest count found and its days."""

    def __init__(self, gpus: int, days: float):
        super().__init__(
            f"the deadline cannot be met: the fastest found is {days:.1f} days on {gpus} GPUs"
        )
        self.gpus, self.days = gpus, days


#: the efficient size on the time-vs-GPUs curve: the largest count whose scaling efficiency is at
#: least this, i.e. whose run costs at most 1/0.8 = 1.25x the GPU-hours of the curve's cheapest
#: count (a planner default: where buyers usually stop adding GPUs; no public figure found)
EFFICIENT_SCALING = 0.8


def scaling_efficiencies(gpu_hours: list[float]) -> list[float]:
    """Scaling efficiency of each point of a curve: the fewest GPU-hours any point needs for the
    run, divided by this point's GPU-hours. At most 1 by construction (1 at the cheapest count);
    measured against the first point instead it rose above 1 (103-105 %) wherever a small count's
    layout (deeper pipeline, recomputation) did less work per GPU than a larger one's."""
    best = min(gpu_hours, default=0.0)
    return [best / h if h > 0 else 0.0 for h in gpu_hours]


def marginal_days_per_1000_gpus(
    points: list[tuple[int, float]],
) -> list[float | None]:
    """For each (gpus, train_days) point of a curve sorted by GPUs, the days of training saved per
    extra 1,000 GPUs by moving to it from the previous point: (d_prev - d) / (n - n_prev) * 1000.
    None for the first point."""
    out: list[float | None] = [None]
    for (n0, d0), (n1, d1) in zip(points, points[1:], strict=False):
        out.append((d0 - d1) / (n1 - n0) * 1000 if n1 > n0 else None)
    return out[: len(points)]


def efficient_size(points: list[tuple[int, float]], efficiencies: list[float]) -> int | None:
    """The largest GPU count on a curve whose scaling efficiency is at least EFFICIENT_SCALING (the
    point past which more GPUs cost much more GPU-hours for the time they save); None without a
    curve."""
    fit = [n for (n, _), e in zip(points, efficiencies, strict=True) if e >= EFFICIENT_SCALING]
    return max(fit) if fit else None


def efficient_beside_chosen(
    points: list[tuple[int, float]], efficiencies: list[float], chosen: int
) -> dict | None:
    """The efficient size beside a chosen count on the same curve (points sorted by GPUs): the
    largest count up to the chosen one whose efficiency is at least EFFICIENT_SCALING, its days
    and efficiency, and the days saved per extra 1,000 GPUs, (d_a - d_b) / (n_b - n_a) * 1000,
    from it to the chosen count and on the last step to the chosen count from the count below
    (None where the two are one count). None when the chosen count is not on the curve or no
    count up to it is efficient."""
    upto = [(p, e) for p, e in zip(points, efficiencies, strict=True) if p[0] <= chosen]
    if not upto or upto[-1][0][0] != chosen:
        return None
    best = efficient_size([p for p, _ in upto], [e for _, e in upto])
    if best is None:
        return None
    (n_eff, d_eff), e_eff = next((p, e) for p, e in upto if p[0] == best)
    (_, d_chosen), e_chosen = upto[-1]
    previous = upto[-2][0] if len(upto) >= 2 else None
    return {
        "gpus": n_eff,
        "train_days": d_eff,
        "scaling_efficiency": e_eff,
        "chosen_scaling_efficiency": e_chosen,
        "marginal_days_per_1000_gpus": None
        if n_eff == chosen
        else (d_eff - d_chosen) / (chosen - n_eff) * 1000,
        "previous_gpus": previous and previous[0],
        "previous_train_days": previous and previous[1],
        "previous_marginal_days_per_1000_gpus": marginal_days_per_1000_gpus([p for p, _ in upto])[
            -1
        ],
    }


#: a doubling of the GPU count that buys less than this share more tokens/s is called out on the
#: plan (TrainingPlan.scaling). Doubling the count doubles the GPU-hours billed per hour of run;
#: at +25 % tokens/s the run costs 2 / 1.25 = 1.6x the GPU-hours of the half count (the doubling
#: step's own scaling efficiency is 62.5 %, well under EFFICIENT_SCALING's 80 % for a whole
#: curve), i.e. the added half of the GPUs delivers a quarter of what the first half does.
#: A planner default, not a published figure.
SCALING_WARN_GAIN = 0.25

#: the step-time parts that are lost time beside the useful `compute` (models/training/
#: step_time.py step_breakdown: total = compute + these): the candidates for a scaling note's cause
STEP_LOSSES = ("pipeline_bubble", "pipeline_p2p", "data_parallel", "optimizer", "fixed_per_step")


def dominant_loss(step_s: dict[str, float]) -> tuple[str, float]:
    """The largest lost-time part of a step breakdown (STEP_LOSSES) and its share of the step:
    max over the losses of seconds / total."""
    part = max(STEP_LOSSES, key=lambda k: step_s.get(k, 0.0))
    return part, step_s.get(part, 0.0) / step_s["total"]


def doubling_gain(tokens_per_s: float, half_tokens_per_s: float) -> float:
    """What the chosen count buys over half of it: tokens/s(G) / tokens/s(G/2) − 1 at the same
    global batch (0 would be no gain at all, 1 a perfect doubling)."""
    return tokens_per_s / half_tokens_per_s - 1.0

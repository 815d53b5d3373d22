"""A fixed-size option held mostly idle by a rare, large run (issue 30 follow-up).

A portfolio pre-train without a GPU count is planned at the efficient size (the Guide's rule,
models/training/plan.py `Planner.efficient`, as issue 30 asked). For a rare run that size sets the
size of every fixed-size option (build, rent, managed, committed cloud), which then holds it the
whole term for a few days of work a year. The sizing rule is not changed here; the comparison says
so beside the answer, with the remedy the buyer can take.

The check, per available fixed-size option of a portfolio whose size the planner chose (no
`cluster.gpus`):

- idle share = idle GPU-hours / (idle + served GPU-hours) > IDLE_SHARE_MIN (0.5, a planner
  default: over half the GPU-hours paid for do no work, so each worked GPU-hour costs more than
  twice the rate the option holds them at);
- a pre-training workload without `gpus` sets the size: one of its runs needs more than half the
  option's GPUs at once (run GPUs × 2 > size), so the option cannot be halved unless that run
  shrinks. The largest such run is named.

The remedy: that workload's `gpus` at the count where one run takes its longest acceptable time,
L = min(30.44 / runs_per_month days, the spacing of its runs, so a run ends before the next is
released and none waits; term end − its last release, so the last run ends in the term). The
count is the fewest GPUs whose whole run fits L (plan_training with `deadline_days` = L, the rule
of `clusterplan train --deadline-days`), and the option's size, cost and service level there come
from the same scenario -> comparison function, rerun with that count (`rerun`, decision support
off: the base case is what the note quotes).
"""

from __future__ import annotations

import math
from collections.abc import Callable

from models.errors import InputError
from models.options import Billing, spec
from models.portfolio.demand import TrainingSettings, size_workload
from models.portfolio.workloads import Pretrain
from models.scenario import Cluster, Scenario, Workload
from models.training.plan import plan_training
from models.units import DAYS_PER_MONTH
from pricing.results import Comparison, IdleGangNote, OptionResult

#: more than this share of an option's held GPU-hours idle is "mostly idle" (a planner default,
#: no public figure: past it the buyer pays for more idle GPU-hours than worked ones)
IDLE_SHARE_MIN = 0.5


def idle_share(row: OptionResult) -> float | None:
    """idle / (idle + served) GPU-hours of a portfolio option; None without capacity figures."""
    idle, served = row.idle_gpu_hours, row.served_gpu_hours
    if idle is None or served is None or idle + served <= 0:
        return None
    return idle / (idle + served)


def _fixed_size(row: OptionResult) -> bool:
    billing = spec(row.option).billing
    return row.available and billing not in (Billing.PER_USE, Billing.HYBRID)


def longest_run_days(w: Pretrain, term_months: int) -> tuple[float, str]:
    """L = min(spacing, term end − last release) in days, and which bound it is. Runs are
    released at start + k / rate for every k with k / rate < duration (models/portfolio/
    workloads.py), so the last is k = ceil(duration × rate) − 1."""
    spacing = DAYS_PER_MONTH / w.runs_per_month
    last_k = max(math.ceil(w.duration_months * w.runs_per_month - 1e-9) - 1, 0)
    last_release = (w.start_month + last_k / w.runs_per_month) * DAYS_PER_MONTH
    left = term_months * DAYS_PER_MONTH - last_release
    return (spacing, "spacing") if spacing <= left else (left, "term")


def _smaller_count(w: Pretrain, gpu: str, training: TrainingSettings, days: float):
    """The fewest GPUs whose whole run of `w` fits `days` (the deadline rule), or None."""
    workload = Workload(model=w.model, tokens=w.tokens, seq_len=w.seq_len, precision=w.precision)
    try:
        plan = plan_training(training.scenario(workload, Cluster(gpu=gpu, deadline_days=days)))
    except InputError:
        return None
    return plan


def _unsized_runs(scenario: Scenario, training: TrainingSettings) -> list[tuple]:
    """(index, workload, its sizing) of each pre-train without `gpus`: the runs whose size the
    planner chose, sized once for every option's check."""
    return [
        (i, w, size_workload(w, scenario.cluster.gpu, field=f"workloads[{i}]", training=training))
        for i, w in enumerate(scenario.workloads)
        if isinstance(w, Pretrain) and w.gpus is None
    ]


def _setter(unsized: list[tuple], size: int):
    """The pre-train without `gpus` with the largest run that needs over half of `size` GPUs."""
    best = None
    for i, w, s in unsized:
        if s.gpus_per_run * 2 > size and (best is None or s.gpus_per_run > best[2].gpus_per_run):
            best = (i, w, s)
    return best


def idle_gang_notes(
    scenario: Scenario, rows: list[OptionResult], rerun: Callable[[Scenario], Comparison]
) -> list[IdleGangNote]:
    """One note per fixed-size option the check above finds (none for a one-run scenario or a
    buyer-given cluster size); `rerun` is the scenario -> comparison function."""
    if scenario.kind != "portfolio" or scenario.cluster.gpus is not None:
        return []
    training = TrainingSettings.of(scenario)
    unsized = _unsized_runs(scenario, training)
    reruns: dict[int, tuple] = {}
    notes = []
    for row in rows:
        share = idle_share(row)
        if not _fixed_size(row) or share is None or share <= IDLE_SHARE_MIN:
            continue
        found = _setter(unsized, row.capacity_size_gpus or 0)
        if found is None:
            continue
        i, w, sized = found
        if i not in reruns:
            reruns[i] = _remedy(scenario, i, w, sized, training, rerun)
        days, by, plan, other = reruns[i]
        note = IdleGangNote(
            option=row.option,
            label=row.label,
            size_gpus=row.capacity_size_gpus or 0,
            idle_share=share,
            workload=w.name,
            field=f"workloads[{i}].gpus",
            run_gpus=sized.gpus_per_run,
            run_days=sized.run_days,
            runs_per_month=w.runs_per_month,
            longest_run_days=days,
            longest_by=by,
            total_usd=row.total_usd,
            npv_usd=row.npv_usd,
        )
        there = other.option(row.option) if other is not None else None
        if there is not None and there.available:
            note = note.model_copy(
                update=dict(
                    smaller_gpus=plan.gpus,
                    smaller_run_days=plan.train_days,
                    smaller_size_gpus=there.capacity_size_gpus,
                    smaller_total_usd=there.total_usd,
                    smaller_npv_usd=there.npv_usd,
                    smaller_idle_share=idle_share(there),
                    smaller_meets_service_level=(
                        there.service_level.met if there.service_level else None
                    ),
                )
            )
        notes.append(note)
    return notes


def _remedy(scenario, i, w, sized, training, rerun):
    """(L, its bound, the smaller run's plan, the comparison with workloads[i].gpus set) — the
    last two None when no count under the efficient one (`sized`, its sizing) fits L."""
    days, by = longest_run_days(w, scenario.term.months)
    plan = (
        _smaller_count(w, scenario.cluster.gpu, training, days) if days > sized.run_days else None
    )
    if plan is None or plan.gpus >= sized.gpus_per_run:
        return days, by, None, None
    workloads = list(scenario.workloads)
    workloads[i] = w.model_copy(update={"gpus": plan.gpus})
    return days, by, plan, rerun(scenario.model_copy(update={"workloads": workloads}))

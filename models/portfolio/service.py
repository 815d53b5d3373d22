"""The service level of a portfolio (issue 30): each workload's `max_wait_days`
(models/portfolio/workloads.py) against its longest wait in a capacity simulation
(models/portfolio/capacity.py `WorkloadOutcome.wait_days_max`: counted from the later of its
release and the option's ready day). Which workloads wait longer than they accept, and by how much
in all: what a capacity plan's size search minimises (pricing/planning/service.py) and what the
recommendation ranks by (pricing/decision.py)."""

from __future__ import annotations

from collections.abc import Sequence

from models.portfolio.capacity import CapacityResult
from models.record import Record

#: a wait this close to the limit meets it: the simulation measures waits in whole slots of
#: about a day (models/portfolio/demand.py SLOT_DAYS, 1.01 days), so 3 slots meet a 3-day level
WAIT_TOLERANCE_DAYS = 0.1


class WaitMiss(Record):
    """A workload that waits longer than its service level on an option."""

    name: str
    #: its longest wait (from the later of release and go-live) and the most it accepts, days
    wait_days: float
    max_wait_days: float


class ServiceLevel(Record):
    """Whether an option's plan meets every workload's service level, and who waits longer."""

    met: bool
    #: each workload that waits longer than its `max_wait_days`, in the portfolio's order
    misses: list[WaitMiss] = []
    #: days past the limits, summed over the workloads that miss (0 when met): how close it comes
    excess_days: float = 0.0


def limits_of(workloads: Sequence) -> dict[str, float]:
    """Each workload's `max_wait_days`, by name."""
    return {w.name: float(w.max_wait_days) for w in workloads}


def service_level(result: CapacityResult, limits: dict[str, float]) -> ServiceLevel:
    """The service level of a whole simulation (with its workloads' outcomes) against `limits`
    (`limits_of`); a workload without work (no wait measured) meets it."""
    misses = [
        WaitMiss(name=o.name, wait_days=o.wait_days_max, max_wait_days=limits[o.name])
        for o in result.workloads
        if o.name in limits
        and o.wait_days_max is not None
        and o.wait_days_max > limits[o.name] + WAIT_TOLERANCE_DAYS
    ]
    excess = sum(m.wait_days - m.max_wait_days for m in misses)
    return ServiceLevel(met=not misses, misses=misses, excess_days=excess)


__all__ = ["ServiceLevel", "WaitMiss", "limits_of", "service_level"]

"""The service-level search (issue 30): a fixed-size option's size raised, from the size the
work-done search chose (sizing.py), to the smallest whose simulated waits meet every workload's
`max_wait_days` (models/portfolio/service.py), or, where no size tried does, the smallest of the
sizes that come closest (the least excess wait in all), marked in its rule.

Bounded work: sizes above the chosen one in steps doubling from an eighth of it (at least one
node), SERVICE_STEPS of them, then a bisection in whole nodes between the largest that misses and
the smallest that meets, at most SERVICE_BISECTIONS probes; each probe is one whole simulation,
cached by capacity (context.py `simulate`, `complete`)."""

from __future__ import annotations

import functools
import math

import numpy as np

from models.portfolio.capacity import CapacityResult
from models.portfolio.service import ServiceLevel, limits_of, service_level
from models.scenario import MAX_GPUS

#: sizes tried above the chosen one: size + s, + 3s, + 7s, … (s = an eighth of it, whole nodes),
#: up to about 9× it
SERVICE_STEPS = 6
#: the most probes of the bisection between a size that misses and one that meets
SERVICE_BISECTIONS = 6
#: excess wait within this of the least found counts as as close (about one slot of the queue)
CLOSE_DAYS = 1.0


class ServiceSearch:
    """The service-level decisions of a PlanContext (a mixin of planner.Planner)."""

    @functools.cached_property
    def wait_limits(self) -> dict[str, float]:
        """Each workload's `max_wait_days`, by name."""
        return limits_of(self.scenario.workloads)

    def service_of(self, r: CapacityResult) -> ServiceLevel:
        """The service level of a simulation (its whole simulation, `complete`), kept with the
        demand's summaries by capacity (models/portfolio/capacity.py `Prepared.kept`): the probes'
        whole simulations are many more than the demand keeps, and the portfolio priced again
        (another look at the same link, other prices) asks for the same levels."""
        capacity = self._capacity_of.get(id(r))
        if capacity is None or r.workloads:
            return service_level(self.complete(r), self.wait_limits)
        kind = f"service {sorted(self.wait_limits.items())}"
        return self.prepared.kept(
            kind,
            capacity[0],
            capacity[1],
            lambda: service_level(self.complete(r), self.wait_limits),
            self._bridge_of.get(id(r)),
        )

    def service_size(
        self, option: str, size: int, rule: str, found: tuple[float, np.ndarray, CapacityResult]
    ) -> tuple[int, str, float, np.ndarray, CapacityResult]:
        """(size, rule, ready day, capacity, result): `size` when its waits meet every workload's
        service level, else the smallest larger size that does (module docstring), or the
        smallest of those that come closest, its rule saying so."""
        level = self.service_of(found[2])
        if level.met:
            return size, rule, *found
        node = self.node
        tried: dict[int, tuple[ServiceLevel, tuple]] = {size: (level, found)}

        def probe(gpus: int) -> bool:
            if gpus not in tried:
                at = self.fixed_at(option, gpus)
                tried[gpus] = (self.service_of(at[2]), at)
            return tried[gpus][0].met

        step = max(node, math.ceil(size / 8 / node) * node)
        lo, hi, gpus = size, None, size
        for _ in range(SERVICE_STEPS):
            if gpus >= MAX_GPUS:
                break
            gpus = min(gpus + step, MAX_GPUS)
            if probe(gpus):
                hi = gpus
                break
            lo, step = gpus, 2 * step
        if hi is not None:
            for _ in range(SERVICE_BISECTIONS):
                if hi - lo <= node:
                    break
                mid = (lo + hi) // 2 // node * node
                lo, hi = (lo, mid) if probe(mid) else (mid, hi)
            why = (
                f"{rule}; raised from {size:,} to {hi:,} GPUs, the smallest tried whose waits meet "
                "every workload's maximum wait"
            )
            return hi, why, *tried[hi][1]
        least = min(lv.excess_days for lv, _ in tried.values())
        best = min(g for g, (lv, _) in tried.items() if lv.excess_days <= least + CLOSE_DAYS)
        why = (
            f"{rule}; no size tried up to {max(tried):,} GPUs meets every workload's "
            f"maximum wait: {best:,} GPUs, the smallest that comes closest"
        )
        return best, why, *tried[best][1]

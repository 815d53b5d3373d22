"""The size search (package docstring, fixed size and per use): the smallest size in whole nodes
that leaves no more work undone than the unconstrained demand, and the larger sizes a
contract's search also prices whole."""

from __future__ import annotations

import math

import numpy as np

from models.portfolio.capacity import CapacityResult
from models.portfolio.in_use import instance_gpu_hours
from models.scenario import MAX_GPUS
from models.units import (
    DAYS_PER_MONTH,
    HOURS_PER_MONTH,
)
from pricing.planning.records import SERVED_RESIDUE_GPU_HOURS

#: doublings of the size above the peak while they still serve more (fixed-size search)
MAX_DOUBLINGS = 4
#: a contract's search prices whole, besides its smallest size and a node or two more, these
#: multiples of it: more GPUs finish the work sooner, and a commitment can end a block sooner
LARGER_SIZE_FACTORS = (1.25, 1.5, 2.0)


class SizeSearch:
    """The size decisions of a PlanContext (a mixin of planner.Planner)."""

    def fixed(self, option: str) -> tuple[int, str, float, np.ndarray, CapacityResult]:
        """(size, rule, ready day, capacity, result) of a fixed-size option."""
        given = self.scenario.cluster.gpus
        if given is not None:
            return given, f"{given:,} GPUs (cluster.gpus)", *self.fixed_at(option, given)
        node = self.node
        runs = self.demand.runs
        lo = max([*runs.gpus, 1])
        lo = math.ceil(lo / node) * node
        hi = max(lo, math.ceil(max(self.demand.peak_gpus) / node) * node)
        hi = min(hi, MAX_GPUS)
        best = self.probe(option, hi)
        for _ in range(MAX_DOUBLINGS):  # the ready day can keep work past the term at the peak
            if best <= self.baseline + self.tol or hi >= MAX_GPUS:
                break
            bigger = min(2 * hi, MAX_GPUS)
            u = self.probe(option, bigger)
            if u >= best - self.tol:
                break
            hi, best = bigger, u
        target = max(self.baseline, best) + self.tol
        hint = self._size_hint
        if lo < hint < hi:  # another option's size: its neighbourhood first
            lo, hi = self.bracket(option, target, lo, hint, hi)
        elif self.probe(option, lo) <= target:
            hi = lo
        while hi - lo > node:  # invariant: hi meets the target, lo does not
            mid = (lo + hi) // 2 // node * node
            if self.probe(option, mid) <= target:
                hi = mid
            else:
                lo = mid
        self._size_hint = hi
        if best <= self.baseline + self.tol:
            rule = (
                f"smallest size in whole {node}-GPU nodes that leaves no more work queued or past "
                "the term than the unconstrained demand"
            )
        elif max(self.demand.peak_gpus) > MAX_GPUS:
            rule = self.capped_rule("the smallest size that serves as much as")
        else:
            rule = (
                "no size serves the demand in time (it is ready too late); the smallest that "
                "serves as much as the largest searched"
            )
        return hi, rule, *self.fixed_at(option, hi)

    def bracket(self, option: str, target: float, lo: int, hint: int, hi: int) -> tuple[int, int]:
        """(lo, hi) around the smallest size meeting `target`, searched out from `hint` (the size
        the search found for another option: the options of one demand mostly differ only by
        their ready day, so it is usually a size or a node away) in steps doubling from one node:
        hi meets the target, and lo does not or is the search's lower end unprobed (the
        bisection then probes it). Where unmet work falls as the size grows, the bisection ends
        on the size it would have found from (lo, hi) alone, in a few probes instead of about
        log2((hi − lo) / node) from the whole range."""
        step = self.node
        if self.probe(option, hint) <= target:  # meets it: search down
            while hint - step > lo:
                if self.probe(option, hint - step) > target:
                    return hint - step, hint
                hint, step = hint - step, 2 * step
            if self.probe(option, lo) <= target:
                return lo, lo
            return lo, hint
        while hint + step < hi:  # falls short: search up
            if self.probe(option, hint + step) <= target:
                return hint, hint + step
            hint, step = hint + step, 2 * step
        return hint, hi

    def fixed_at(self, option: str, gpus: int) -> tuple[float, np.ndarray, CapacityResult]:
        """(ready day, capacity, result) of `gpus` GPUs of a fixed-size option."""
        share, slots = self.base_capacity(option, gpus)
        cap = share + sum((t.capacity_gpus for t in self.tranches(option)), np.zeros(self.months))
        return self.ready(option, gpus), cap, self.simulate(slots + self.extra(option))

    def capped_rule(self, sized: str) -> str:
        """Why a plan stops at MAX_GPUS where the demand's peak is larger: the work over it waits."""
        return (
            f"{sized} {MAX_GPUS:,} GPUs, the largest cluster the planner sizes; the demand "
            f"peaks at {max(self.demand.peak_gpus):,.0f} GPUs, so work over that waits (queued, "
            "or finishing after the term)"
        )

    def per_use(self, option: str) -> tuple[int, str, float, np.ndarray, CapacityResult]:
        node = self.node
        size = max(math.ceil(max(self.demand.peak_gpus) / node - 1e-9), 1) * node
        rule = (
            f"per use: up to the demand's peak GPUs in whole {node}-GPU instances from the ready "
            "day, holding (and paying) only the instances in use, a fraction of one as the whole "
            "instance"
        )
        if size > MAX_GPUS:
            size, rule = MAX_GPUS, f"{rule}; {self.capped_rule('up to')}"
        ready = self.ready(option, size)
        slots = size * self.slots(ready)
        r = self.simulate(slots)
        # what is held (and paid): the GPUs in use in whole instances, at least what is served
        served = np.asarray(r.served_gpu_hours_by_month, dtype=float)
        billed = instance_gpu_hours(self.demand, slots[0], node, None, self.prepared, slots[1])
        billed = np.where(served > SERVED_RESIDUE_GPU_HOURS, np.maximum(billed, served), 0.0)
        return size, rule, ready, billed / HOURS_PER_MONTH, r

    def backlogged(self, r: CapacityResult, ready: float) -> bool:
        """Whether work waits for capacity after the ready month (the GPU-hours served by some
        month's end fall short of those demanded by then by more than the tolerance): only then
        can more GPUs finish it sooner."""
        month = int(ready // DAYS_PER_MONTH) + 1
        lag = np.cumsum(r.demand_gpu_hours) - np.cumsum(r.served_gpu_hours_by_month)
        return bool(len(lag[month:]) and lag[month:].max() > self.tol)

    def larger_sizes(self, size: int) -> list[int]:
        """Sizes above `size` a contract's search also prices whole: one and two nodes more, and
        LARGER_SIZE_FACTORS × it, in whole nodes, up to MAX_GPUS."""
        node = self.node
        out = {size + node, size + 2 * node}
        out |= {math.ceil(size * f / node - 1e-9) * node for f in LARGER_SIZE_FACTORS}
        return sorted(g for g in out if size < g <= MAX_GPUS)

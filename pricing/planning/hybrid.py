"""Hybrid (package docstring): an owned base and a per-use cloud burst, the base the cheapest
whole plan of a few candidate sizes."""

from __future__ import annotations

import math

import numpy as np

from models.options import spec
from models.portfolio.capacity import CapacityResult
from models.portfolio.in_use import instance_gpu_hours, served_within
from models.scenario import MAX_GPUS
from models.units import (
    DAYS_PER_MONTH,
    HOURS_PER_MONTH,
)
from pricing.planning.records import Split

#: a hybrid's candidate base sizes: the months' peak GPUs at these percentiles (the whole plan of
#: each is priced and the cheapest kept: the median month alone could own twice what pays)
HYBRID_BASE_PERCENTILES = (25, 50, 75, 90)


class Hybrid:
    """The hybrid decisions of a PlanContext (a mixin of planner.Planner)."""

    def base_sizes(self) -> list[int]:
        """A hybrid's candidate base sizes: the months' peak GPUs at HYBRID_BASE_PERCENTILES, in
        whole nodes (at least one), each once."""
        node = self.node
        peaks = np.percentile(self.demand.peak_gpus, HYBRID_BASE_PERCENTILES)
        return sorted({min(max(math.ceil(p / node - 1e-9) * node, node), MAX_GPUS) for p in peaks})

    def cheapest_hybrid(self, option: str):
        """`hybrid` at the candidate base (`base_sizes`) whose whole plan costs least at the
        catalogue's base figures (`total_usd`), or at cluster.gpus when given: (plan, rule, ...)
        as `hybrid` returns them."""
        if self.scenario.cluster.gpus is not None:
            return self.hybrid(option)
        tried = []
        for base in self.base_sizes():
            size, rule, ready, cap, r, split = self.hybrid(option, base)
            plan = self._plan(option, size, rule, ready, cap, r, split)
            cost = self.total_usd(plan) if not plan.unavailable else math.inf
            tried.append((cost if math.isfinite(cost) else math.inf, base))
        best = min(tried)[1]  # every cost infinite (no burst offered): the smallest base
        return self.hybrid(option, best, tried)

    def hybrid(
        self, option: str, base: int | None = None, tried: list | None = None
    ) -> tuple[int, str, float, np.ndarray, CapacityResult, Split]:
        """(base size, rule, base ready day, capacity, result, split) of a composite option: the
        base and burst of the module docstring; `base` GPUs owned (default: cluster.gpus, else the
        median month's peak in whole nodes); `tried`: the (cost, base) pairs the rule names."""
        base_opt, burst_opt = spec(option).composed_of
        node = self.node
        given = self.scenario.cluster.gpus
        if given is not None:
            base, why = given, f"{given:,} GPUs (cluster.gpus)"
        elif base is None:
            median = float(np.median(self.demand.peak_gpus))
            base = min(max(math.ceil(median / node - 1e-9) * node, node), MAX_GPUS)
            why = (
                f"the median month's peak GPUs ({median:,.0f}) in whole {node}-GPU nodes "
                "(at least one)"
            )
        else:
            others = ", ".join(f"{b:,}" for _, b in sorted(tried or []) if b != base)
            pcts = ", ".join(f"{p:g}th" for p in HYBRID_BASE_PERCENTILES)
            why = (
                f"{base:,} GPUs, the cheapest whole plan of the bases tried (the months' peak GPUs "
                f"at their {pcts} percentiles, in whole {node}-GPU nodes"
                + (f"; dearer: {others}" if others else "")
                + ")"
            )
        base_ready = self.ready(option, base)
        base_cap = base * self.share(base_ready)
        excess = np.asarray(self.demand.peak_gpus, dtype=float) - base_cap
        node = self.node  # the cloud burst rents whole instances
        burst = min(max(math.ceil(float(excess.max()) / node - 1e-9), 0) * node, MAX_GPUS)
        months = self.months
        base_slots = base * self.slots(base_ready)
        if burst:
            burst_ready = self.ready(burst_opt, burst)
            burst_slots = burst * self.slots(burst_ready)
        else:
            burst_ready, burst_slots = months * DAYS_PER_MONTH, self.slots(np.inf)
        r = self.simulate(base_slots + burst_slots)
        served = np.array(r.served_gpu_hours_by_month)
        both = base_slots + burst_slots
        on_base = served_within(self.demand, both[0], base_slots[0], self.prepared, both[1])
        burst_served = served - on_base
        burst_served[burst_served <= 1e-9 * served] = 0.0  # rounding, not work
        base_served = served - burst_served
        billed = instance_gpu_hours(
            self.demand, both[0], node, base_slots[0], self.prepared, both[1]
        )
        billed[burst_served == 0.0] = 0.0  # the burst rents instances only while it serves
        split = Split(
            base_option=base_opt,
            burst_option=burst_opt,
            base_gpus=base,
            burst_gpus=burst,
            base_inputs=self._bought_for_work(option, base, base_ready),
            burst_inputs=self.inputs(burst) if burst else None,
            base_ready_day=base_ready,
            burst_ready_day=burst_ready,
            base_capacity_gpus=base_cap,
            base_served_gpu_hours=base_served,
            burst_served_gpu_hours=burst_served,
            burst_billed_gpu_hours=np.maximum(billed, burst_served),
        )
        rule = (
            f"owned base: {why}; cloud burst up to {burst:,} GPUs (the largest month's peak less "
            "the base ready by then), paying only the GPU-hours the base cannot serve"
        )
        held = base_cap + split.burst_billed_gpu_hours / HOURS_PER_MONTH
        return base, rule, base_ready, held, r, split

"""Hardware refresh (package docstring): the generations of an owned option's cluster, each
sold at the refresh age and replaced by one ordered its lead time ahead."""

from __future__ import annotations

import numpy as np

from models.options import Billing, spec
from models.portfolio.demand import SLOTS_PER_MONTH
from models.units import DAYS_PER_MONTH
from pricing import timeline as tl
from pricing.planning.records import Refresh
from pricing.planning.resale import aged, aged_years


class Refreshes:
    """The refresh decisions of a PlanContext (a mixin of planner.Planner)."""

    def generations(self, option: str, gpus: int) -> tuple[tuple[float, float, float | None], ...]:
        """(order day, ready day, retire day) of each generation of the option's `gpus` GPUs: the
        first from day 0, then one refresh each time a generation reaches the refresh age inside
        the term (module docstring); retire day None: held to the term end."""
        ready = self.ready(option, gpus)
        months = self.scenario.options.build_refresh_after_months
        opt = spec(option)
        if months is None or opt.billing is not Billing.OWNED or opt.composed_of:
            return ((0.0, ready, None),)
        key = (option, gpus)
        if key not in self._generations:
            term, age = self.months * DAYS_PER_MONTH, months * DAYS_PER_MONTH
            lead = tl.refresh_lead_days(option, self._site(gpus))
            gens: list[tuple[float, float, float | None]] = [(0.0, ready, None)]
            while gens[-1][1] + age < term:
                order, start, _ = gens[-1]
                retire = start + age
                new_order = max(retire - lead, start)
                gens[-1] = (order, start, retire)
                gens.append((new_order, new_order + lead, None))
            self._generations[key] = tuple(gens)
        return self._generations[key]

    def base_capacity(self, option: str, gpus: int) -> tuple[np.ndarray, np.ndarray]:
        """(GPUs a month, (2, slots) GPUs a slot) of the option's `gpus` over its generations."""
        months = self.months
        share, slots = np.zeros(months), np.zeros((2, months * SLOTS_PER_MONTH))
        for _, start, retire in self.generations(option, gpus):
            if retire is None:
                share = share + gpus * self.share(start)
                slots = slots + gpus * self.slots(start)
            else:
                share = share + gpus * self.share(start, retire)
                slots = slots + gpus * self.slots(start, retire)
        return share, slots

    def refreshes(self, option: str, gpus: int) -> tuple[Refresh, ...]:
        """The refreshes of the option's `gpus` GPUs (generations after the first), priced."""
        out = []
        months = self.scenario.options.build_refresh_after_months
        for k, (order, start, retire) in enumerate(self.generations(option, gpus)[1:], 1):
            end = self.months * DAYS_PER_MONTH if retire is None else retire
            out.append(
                Refresh(
                    generation=k,
                    order_day=order,
                    ready_day=start,
                    retire_day=retire,
                    inputs=aged(self.inputs(gpus), start, self.cat)
                    if retire is None
                    else aged_years(self.inputs(gpus), months / 12, self.cat, start),
                    capacity_gpus=gpus * self.share(start, end),
                    capacity_slots=gpus * self.slots(start, end),
                )
            )
        return tuple(out)

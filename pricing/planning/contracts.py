"""Contracts (package docstring, step down and step up): a rented, managed or committed option's
first contract, and a second one where the whole plan then costs less."""

from __future__ import annotations

import math

import numpy as np

from models.numbers import on_day
from models.options import Billing, spec
from models.portfolio.capacity import CapacityResult
from models.units import DAYS_PER_MONTH
from pricing.cashflows import RENTAL_BLOCK_DAYS, rental_end
from pricing.planning.records import (
    CONTRACTS,
    SERVED_RESIDUE_GPU_HOURS,
    OptionPlan,
    SecondContract,
)

#: a rented, managed or committed option steps down to, or starts at, at most this share of its
#: size ...
STEP_MAX_SHARE = 0.5
#: ... for a second contract of at least this many months inside the term
STEP_MIN_MONTHS = 3
#: the days tried for a second contract, the largest saving first (each one simulation probe)
STEP_TRIES = 3
#: a second contract is kept where the whole plan costs less than one contract by more than this
#: share of it: equal costs in floating point (a saving of $2e-10) are no reason for two contracts
STEP_MIN_SAVING = 1e-6


class Contracts:
    """The contract decisions of a PlanContext (a mixin of planner.Planner)."""

    def contract_days(self, option: str, ready: float) -> tuple[float, float] | None:
        """(length of one commitment block, the earliest day the first contract may end) of a
        rented, managed or committed option; None when it cannot end before the term (a
        whole-term rental) or the option is not one of these."""
        opt = spec(option)
        if opt.billing is Billing.COMMITTED:
            block = 12 * opt.commit_years * DAYS_PER_MONTH
            return block, ready + block
        if opt.billing not in (Billing.RENT, Billing.MANAGED_RENT):
            return None
        commitment = self.scenario.options.rent_commitment
        if commitment not in RENTAL_BLOCK_DAYS:
            return None
        block = RENTAL_BLOCK_DAYS[commitment]
        if commitment == "monthly":  # month to month: no minimum term (cashflows.rental_end)
            return block, ready + block
        minimum = self.inputs(self.node).figures["rent_min_term_months"].value * DAYS_PER_MONTH
        return block, ready + block * max(math.ceil(minimum / block - 1e-9), 1)

    def contract_usd(self, option: str, gpus: int, start: float, busy_end: float) -> float:
        """What one contract of `gpus` GPUs from day `start` for work ending on `busy_end` costs
        at the catalogue's base figures: its rate × the GPU-hours held (whole commitment blocks,
        the minimum term, past the term too: pricing/cashflows.py rental_end, committed) plus a
        rental's setup fee per node. The candidates' first test of worth (storage and the
        platform team are left out; `plan` then prices the chosen plan whole). The rate, the
        minimum term and the setup fee are the same at every size (pricing/inputs.py: only the
        cloud's on-demand and spot figures depend on it), so they are read at one node's inputs
        (tests/test_planning.py checks it): a search tries hundreds of sizes."""
        opt, inp = spec(option), self.inputs(self.node)
        f = inp.figures
        if opt.billing is Billing.COMMITTED:
            block = 12 * opt.commit_years * DAYS_PER_MONTH
            end = start + max(math.ceil((busy_end - start) / block - 1e-9), 1) * block
            setup = 0.0
        else:
            minimum = {"rent_min_term_months": np.array([[f["rent_min_term_months"].value]])}
            end = float(rental_end(inp, minimum, np.array([[start]]), np.array([[busy_end]]))[0, 0])
            setup = math.ceil(gpus / self.node) * f["rent_setup_fee_usd_per_node"].value
        return f[opt.price_key].value * gpus * (end - start) * 24 + setup

    def work_end_day(self, r: CapacityResult) -> float | None:
        """The end of the last month `r` serves work in (None: it serves none): how long a
        contract is needed for, in `step_down` and `step_up`."""
        worked = np.flatnonzero(np.asarray(r.served_gpu_hours_by_month) > SERVED_RESIDUE_GPU_HOURS)
        return min(self.months, worked[-1] + 1) * DAYS_PER_MONTH if len(worked) else None

    def second_contract(self, gpus: int, day: float, replaces: bool) -> SecondContract:
        """A second contract of `gpus` GPUs from `day`, at its own size's inputs."""
        capacity = gpus * self.share(day)
        return SecondContract(gpus, day, self.inputs(gpus), capacity, replaces)

    def step_down(self, option: str, size: int, ready: float, r: CapacityResult):
        """(SecondContract, capacity (M,), result) of a second, smaller contract, or None (module
        docstring, step down). Each end of a commitment block from the earliest allowed is a
        candidate day T; the second contract's size is the demand's largest peak from T's month
        on, in whole nodes; the candidates that cost less than one contract (`contract_usd`) are
        tried, the largest saving first, and the first that leaves no more work queued or past
        the term than one contract wins."""
        days = self.contract_days(option, ready)
        if days is None:
            return None
        block, earliest = days
        term = self.months * DAYS_PER_MONTH
        held_to = self.work_end_day(r)
        if held_to is None:
            return None
        peaks = np.asarray(self.demand.peak_gpus, dtype=float)
        later = np.maximum.accumulate(peaks[::-1])[::-1]  # the largest peak from each month on
        candidates = []
        last_day = min(held_to, term - STEP_MIN_MONTHS * DAYS_PER_MONTH)
        one = self.contract_usd(option, size, ready, held_to)
        for k in range(max(math.floor((last_day - earliest) / block + 1e-9) + 1, 0)):
            day = earliest + k * block
            month = min(int(day // DAYS_PER_MONTH), self.months - 1)
            small = math.ceil(later[month] / self.node - 1e-9) * self.node
            if 0 < small <= STEP_MAX_SHARE * size:
                two = self.contract_usd(option, size, ready, day)
                two += self.contract_usd(option, small, day, held_to)
                if two < one:  # a dearer tier, a setup fee or a longer minimum can outweigh it
                    candidates.append((one - two, day, small))
        target = self.unmet(r) + self.tol
        for _, day, small in sorted(candidates, reverse=True)[:STEP_TRIES]:
            first = size * self.slots(ready, day)
            second = small * self.slots(day)
            if self.probe_capacity(first + second) > target:
                continue
            step = self.second_contract(small, day, replaces=True)
            cap = size * self.share(ready, day) + step.capacity_gpus
            return step, cap, self.simulate(first + second)
        return None

    def step_up(self, option: str, size: int, ready: float, r: CapacityResult):
        """(SecondContract, first size, its ready day, capacity (M,), result) of a smaller first
        contract and a second one beside it from day T, or None (module docstring, step up). Each
        month start after the first contract is ready is a candidate T; the first contract's size
        is the demand's largest peak before T's month, in whole nodes, the second the rest of
        `size`; the candidates that cost less than one contract are tried, the largest saving
        first, and the first that leaves no more work queued or past the term wins."""
        if spec(option).billing not in CONTRACTS:
            return None
        held_to = self.work_end_day(r)
        if held_to is None:
            return None
        peaks = np.asarray(self.demand.peak_gpus, dtype=float)
        before = np.maximum.accumulate(peaks)  # the largest peak up to each month
        one = self.contract_usd(option, size, ready, held_to)
        candidates = []
        for month in range(1, self.months):
            day = month * DAYS_PER_MONTH
            if day > held_to - STEP_MIN_MONTHS * DAYS_PER_MONTH:
                break
            first = math.ceil(before[month - 1] / self.node - 1e-9) * self.node
            if not 0 < first <= STEP_MAX_SHARE * size:
                continue
            first_ready = self.ready(option, first)
            if first_ready >= day:
                continue
            two = self.contract_usd(option, first, first_ready, held_to)
            two += self.contract_usd(option, size - first, day, held_to)
            if two < one:
                candidates.append((one - two, day, first, first_ready))
        target = self.unmet(r) + self.tol
        for _, day, first, first_ready in sorted(candidates, reverse=True)[:STEP_TRIES]:
            added = size - first
            slots = first * self.slots(first_ready) + added * self.slots(day)
            if self.probe_capacity(slots) > target:
                continue
            step = self.second_contract(added, day, replaces=False)
            cap = first * self.share(first_ready) + step.capacity_gpus
            return step, first, first_ready, cap, self.simulate(slots)
        return None

    def contracts(self, option, size, rule, ready, cap, r) -> tuple[OptionPlan, float]:
        """(plan, its whole cost) of `size` GPUs of a fixed-size option: one contract, or where a
        second (a step down, else a step up) makes the whole plan cost less, two."""
        one = self._plan(option, size, rule, ready, cap, r, None)
        cost = self.total_usd(one)
        if stepped := self.step_down(option, size, ready, r):
            step, cap, r = stepped
            rule = (
                f"{rule}; steps down to {step.gpus:,} GPUs on {on_day(step.day)}, at the end of a "
                "commitment block (a second contract, with its own price tier and minimum "
                "term, for the work left, which needs no more)"
            )
        elif grown := self.step_up(option, size, ready, r):
            step, size, ready, cap, r = grown
            rule = (
                f"{rule}; starts at {size:,} GPUs, the most the work needs before "
                f"{on_day(step.day)}, and adds {step.gpus:,} then (a second contract, with its own "
                "price tier and minimum term, ordered its provisioning time ahead)"
            )
        else:
            return one, cost
        two = self._plan(option, size, rule, ready, cap, r, None, step)
        if self.service_of(one.result).met and not self.service_of(r).met:
            return one, cost  # the second contract would keep work waiting past its service level
        total = self.total_usd(two)
        return (two, total) if total < cost * (1 - STEP_MIN_SAVING) else (one, cost)

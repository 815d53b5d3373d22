"""An option's Context from its capacity plan (pricing/cashflows.py prices it): what
pricing/valuation.py reads for a portfolio, without the planner's search."""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from models.options import Billing, spec
from models.units import (
    DAYS_PER_MONTH,
    HOURS_PER_MONTH,
)
from pricing.bridge import BRIDGE_RENT_KEY
from pricing.cashflows import Context, rental_end, window
from pricing.inputs import CostInputs
from pricing.planning.records import (
    SERVED_RESIDUE_GPU_HOURS,
    TOLERANCE,
    BridgePlan,
    OptionPlan,
)


def option_inputs(inp: CostInputs, option: str) -> CostInputs:
    """The option's own inputs: its plan's (its size, its hardware's resale age)."""
    return inp.portfolio.plans[option].inputs


def option_params(inp: CostInputs, P: dict[str, np.ndarray], option: str) -> dict:
    """P for the option's own figures: each figure the option's inputs give differently (its
    size's cloud price tier, its hardware's resale age) scaled by the option's over the base
    value, so a draw's or a tornado's multiplier applies to the option's own figure."""
    return _own_params(inp, P, option_inputs(inp, option))


def _own_params(inp: CostInputs, P: dict[str, np.ndarray], own: CostInputs) -> dict:
    if own is inp:
        return P
    out = dict(P)
    for key, f in own.figures.items():
        base = inp.figures[key].value
        if f.value == base or key not in P:
            continue
        ratio = f.value / base if base and math.isfinite(base) else None
        out[key] = P[key] * ratio if ratio is not None else np.full_like(P[key], f.value)
    return out


def context(inp: CostInputs, P: dict[str, np.ndarray], option: str) -> Context:
    """The option's Context from its simulation, one row per parameter set (the simulation is the
    base case's: draws move prices, not the capacity plan). A composite option's Context is its
    base's, with each part's own (inputs, P, Context) in `parts`."""
    plan = inp.portfolio.plans[option]
    ctx = _own_context(inp, P, option, plan)
    if plan.bridge is None:
        return ctx
    return dataclasses.replace(ctx, bridge=bridge_part(plan.inputs, P, plan.bridge, ctx))


def bridge_part(
    own_inp: CostInputs, P: dict[str, np.ndarray], b: BridgePlan, own: Context
) -> tuple:
    """(spec, inputs, P, Context) of a portfolio option's bridge (bridging.py), priced by its
    option's own cash-flow function (pricing/bridge.py bridge_flows): on the bridge's inputs (its
    peak GPUs), at the on-demand rate where it is a dedicated rental, its GPUs held and busy for
    the GPU-hours it holds, from its first day; it ships no weights (the option's egress does).
    `P` is the option's (option_params) on its inputs `own_inp`."""
    s = spec(b.option)
    Pb = _own_params(own_inp, P, b.inputs)
    if s.billing in (Billing.RENT, Billing.MANAGED_RENT):
        Pb = Pb | {s.price_key: Pb[BRIDGE_RENT_KEY]}
    n, months = own.busy.shape
    busy = np.broadcast_to(b.held_gpu_hours / (b.inputs.gpus * HOURS_PER_MONTH), (n, months))
    ctx = Context(
        months,
        np.full((n, 1), b.start_day),
        own.train_days,
        np.zeros((n, 1)),
        busy,
        np.full((n, 1), b.go_live_day),
        busy,
    )
    return s, b.inputs, Pb, ctx


def _own_context(inp: CostInputs, P: dict[str, np.ndarray], option: str, plan: OptionPlan):
    """The option's own capacity's Context (`context`), serving what its bridge does not."""
    r = plan.result
    served = np.array(r.served_gpu_hours_by_month)
    if plan.bridge is not None:
        served = np.maximum(served - plan.bridge.served_gpu_hours, 0.0)
    opt = spec(option)
    if plan.tranches or plan.refreshes:
        return _expanded_context(inp, P, opt, plan, served)
    if plan.second is not None:
        return _stepped_context(inp, P, opt, plan, served)
    if plan.split is None:
        ctx = _context(inp, P, opt, plan.inputs, plan, served, plan.size_gpus, plan.ready_day,
                       plan.capacity_gpus, plan.weighted_runs,
                       billed=plan.billed_gpu_hours)  # fmt: skip
        return dataclasses.replace(ctx, order_day=plan.order_day) if plan.order_day else ctx
    sp = plan.split
    base_spec = spec(sp.base_option)
    base = _context(inp, P, base_spec, sp.base_inputs, plan, sp.base_served_gpu_hours,
                    sp.base_gpus, sp.base_ready_day, sp.base_capacity_gpus, 0.0)  # fmt: skip
    if plan.order_day:  # the base ordered for later work: its milestones from then
        base = dataclasses.replace(base, order_day=plan.order_day)
    parts = [(base_spec, sp.base_inputs, P, base)]
    if sp.burst_inputs is not None:
        burst_spec = spec(sp.burst_option)
        Pb = _own_params(plan.inputs, P, sp.burst_inputs)  # P is the option's (option_params)
        share = sp.burst_served_gpu_hours.sum() / max(served.sum(), 1.0)
        burst = _context(inp, Pb, burst_spec, sp.burst_inputs, plan, sp.burst_served_gpu_hours,
                         sp.burst_gpus, sp.burst_ready_day,
                         sp.burst_served_gpu_hours / HOURS_PER_MONTH,
                         plan.weighted_runs * share,
                         billed=sp.burst_billed_gpu_hours)  # fmt: skip
        parts.append((burst_spec, sp.burst_inputs, Pb, burst))
    return dataclasses.replace(base, parts=tuple(parts))


def _expanded_context(inp, P, opt, plan: OptionPlan, served: np.ndarray) -> Context:
    """An owned option with expansion phases or refreshes: the base's Context with each part's
    (spec, inputs, P, Context) in `parts`; each part busy in proportion to its share of the
    installed GPUs. The first hardware is held to its retire day, each refresh from its ready day
    to its own (or the term end), a refresh buys no file system, space or management servers."""
    total = np.asarray(plan.capacity_gpus, dtype=float)
    safe = np.where(total > 0, total, 1.0)
    later = [*plan.tranches, *plan.refreshes]
    base_cap = total - sum(t.capacity_gpus for t in later)
    base = _context(inp, P, opt, plan.inputs, plan, served * base_cap / safe, plan.size_gpus,
                    plan.ready_day, base_cap, plan.weighted_runs,
                    plan.retire_day)  # fmt: skip
    parts = [(opt, plan.inputs, P, base)]
    before = plan.size_gpus
    for t in plan.tranches:
        Pt = _own_params(plan.inputs, P, t.inputs)  # P is the option's (option_params)
        c = _context(inp, Pt, opt, t.inputs, plan, served * t.capacity_gpus / safe, t.gpus,
                     t.ready_day, t.capacity_gpus, 0.0)  # fmt: skip
        parts.append((opt, t.inputs, Pt, dataclasses.replace(c, order_day=t.order_day,
                                                             expansion_of_gpus=before)))  # fmt: skip
        before += t.gpus
    for f in plan.refreshes:
        Pf = _own_params(plan.inputs, P, f.inputs)
        c = _context(inp, Pf, opt, f.inputs, plan, served * f.capacity_gpus / safe,
                     plan.size_gpus, f.ready_day, f.capacity_gpus, 0.0, f.retire_day)  # fmt: skip
        parts.append((opt, f.inputs, Pf, dataclasses.replace(c, order_day=f.order_day,
                                                             refresh=True)))  # fmt: skip
    return dataclasses.replace(base, parts=tuple(parts))


def _stepped_context(inp, P, opt, plan: OptionPlan, served: np.ndarray) -> Context:
    """A rented, managed or committed option of two contracts: the first contract's Context (a
    step down: held from its ready day to the second's, its commitment ending then; a step up:
    held as one contract) with each contract's (spec, inputs, P, Context) in `parts`; each
    serves the work of its share of the capacity."""
    step = plan.second
    total = np.asarray(plan.capacity_gpus, dtype=float)
    safe = np.where(total > 0, total, 1.0)
    first_cap = total - step.capacity_gpus
    first_served, second_served = served * first_cap / safe, served * step.capacity_gpus / safe
    runs_share = first_served.sum() / max(served.sum(), 1.0)
    first = _context(inp, P, opt, plan.inputs, plan, first_served, plan.size_gpus,
                     plan.ready_day, first_cap, plan.weighted_runs * runs_share,
                     busy_end_day=step.day if step.replaces else None)  # fmt: skip
    Ps = _own_params(plan.inputs, P, step.inputs)  # P is the option's (option_params)
    second = _context(inp, Ps, opt, step.inputs, plan, second_served, step.gpus, step.day,
                      step.capacity_gpus, plan.weighted_runs * (1 - runs_share))  # fmt: skip
    parts = ((opt, plan.inputs, P, first), (opt, step.inputs, Ps, second))
    return dataclasses.replace(first, parts=parts)


def _context(
    inp: CostInputs,
    P: dict[str, np.ndarray],
    opt,
    own: CostInputs,
    plan: OptionPlan,
    served: np.ndarray,
    size: int,
    ready_day: float,
    capacity: np.ndarray,
    weighted_runs: float,
    retire_day: float | None = None,
    busy_end_day: float | None = None,
    billed: np.ndarray | None = None,
) -> Context:
    """The Context of `size` GPUs of option `opt` serving `served` GPU-hours a month from
    `ready_day`, holding `capacity` GPUs a month (per use: what it serves); owned hardware
    replaced by a refresh is held to `retire_day` and sold then; a contract that ends at a step
    down has its work end on `busy_end_day` (its commitment ends then); a per-use option is
    busy (and bills) its `billed` GPU-hours, its GPUs in use in whole cloud instances."""
    months = own.months
    n = next(iter(P.values())).shape[0]
    r = plan.result
    in_use = served if billed is None else billed
    busy = np.broadcast_to(in_use / (size * HOURS_PER_MONTH), (n, months))
    if opt.interruptible:  # a training run interrupted runs that much longer, and pays for it
        gang = np.asarray(r.gang_served_gpu_hours_by_month)
        extra = gang / (size * HOURS_PER_MONTH)
        busy = busy + extra[None, :] * P["spot_interruption_overhead_pct"] / 100
    ready = np.full((n, 1), ready_day)
    term = own.term_days
    worked = np.flatnonzero(served > SERVED_RESIDUE_GPU_HOURS)
    last = (worked[-1] + 1) * DAYS_PER_MONTH if len(worked) else ready_day
    if busy_end_day is not None:
        last = busy_end_day
    busy_end = np.full((n, 1), min(max(last, ready_day), term))
    if opt.holds == "term":
        held_end = np.full((n, 1), term if retire_day is None else min(retire_day, term))
    elif opt.holds == "rental":
        held_end = rental_end(own, P, ready, busy_end)
    else:  # per use or committed: to the end of its work (as version 1), in months with capacity
        held_end = busy_end
    beyond = np.maximum(held_end - term, 0.0) / DAYS_PER_MONTH
    held = window(months, ready, np.minimum(held_end, term))
    if opt.holds == "busy":
        held = held * (capacity > TOLERANCE)[None, :]
    return Context(
        months,
        ready,
        np.full((n, 1), plan.longest_run_days),
        np.full((n, 1), weighted_runs),
        busy,
        busy_end,
        held,
        beyond,
        completes=np.full((n, 1), plan.completes),
        retire_day=retire_day,
    )

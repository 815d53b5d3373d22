"""GPUs in use slot by slot in a simulation (models/portfolio/capacity.py `simulate`): the part a
hybrid's base serves (`served_within`) and the GPU-hours billed when capacity is rented in whole
instances (`instance_gpu_hours`: a cloud's 8-GPU instances, a fraction of one paid whole)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from models.portfolio.capacity import (
    SLOT_DAYS,
    SLOT_HOURS,
    SLOTS_PER_MONTH,
    Prepared,
    _capacity,
    _flat,
    _gang_free,
    _gang_starts,
    prepare,
)
from models.portfolio.demand import Demand


def served_within(
    demand: Demand,
    capacity_gpus: Sequence[float],
    base_gpus: Sequence[float],
    prepared: Prepared | None = None,
    whole_gpus: Sequence[float] | None = None,
) -> np.ndarray:
    """GPU-hours a month that the first `base_gpus` of `capacity_gpus` serve (one figure a month
    or a slot each, base ≤ capacity), when `simulate(demand, capacity_gpus)` runs and the base is used
    first: Σ over the month's slots of min(GPUs in use, base) × slot hours. GPUs in use in a slot:
    the flat work served in it, plus every started gang run's GPUs for its whole slots and that
    share of its last one. A hybrid's base (the rest of what is served is its burst)."""
    months = demand.months
    in_use = _in_use_gpu_hours(demand, capacity_gpus, prepared, whole_gpus)
    _, base_slot = _capacity(base_gpus, months)
    on_base = np.minimum(in_use, base_slot * SLOT_HOURS)
    return on_base.reshape(months, SLOTS_PER_MONTH).sum(axis=1)


def instance_gpu_hours(
    demand: Demand,
    capacity_gpus: Sequence[float],
    instance_gpus: int,
    base_gpus: Sequence[float] | None = None,
    prepared: Prepared | None = None,
    whole_gpus: Sequence[float] | None = None,
) -> np.ndarray:
    """GPU-hours a month billed when the GPUs in use above `base_gpus` (none: all of them) are
    rented as whole instances of `instance_gpus` GPUs (a cloud's 8-GPU instance or capacity
    block): Σ over the month's slots of ⌈GPUs in use above the base / instance⌉ × instance × slot
    hours, with `served_within`'s GPUs in use, and no more than the capacity held in the slot
    (the ready day's slot holds its instances for its share of the slot). At least the GPU-hours
    served above the base; as many where every slot uses whole instances."""
    months = demand.months
    in_use = _in_use_gpu_hours(demand, capacity_gpus, prepared, whole_gpus) / SLOT_HOURS
    _, held = _capacity(capacity_gpus, months)
    if base_gpus is not None:
        _, base_slot = _capacity(base_gpus, months)
        in_use = np.maximum(in_use - base_slot, 0.0)
        held = np.maximum(held - base_slot, 0.0)
    whole = np.ceil(in_use / instance_gpus - INSTANCE_RESIDUE) * instance_gpus
    # never more than the capacity held in the slot: a slot the ready day cuts holds the
    # instances for its share of the slot
    billed = np.clip(whole, 0.0, np.maximum(held, in_use)) * SLOT_HOURS
    return billed.reshape(months, SLOTS_PER_MONTH).sum(axis=1)


#: a slot's GPUs in use above a whole number of instances by less than this share of one instance
#: are the simulation's float residue, not another instance
INSTANCE_RESIDUE = 1e-6


def _in_use_gpu_hours(
    demand: Demand,
    capacity_gpus: Sequence[float],
    prepared: Prepared | None,
    whole_gpus: Sequence[float] | None,
) -> np.ndarray:
    """GPU-hours in use in each slot of `simulate(demand, capacity_gpus)`: the flat work served
    in it, plus every started gang run's GPUs for its whole slots and that share of its last."""
    p = prepared if prepared is not None else prepare(demand)
    months = demand.months
    _, cap_slot = _capacity(capacity_gpus, months)
    slots = months * SLOTS_PER_MONTH
    _, _, _, flat_served, _, _, _ = _flat(p, cap_slot)
    free = _gang_free(cap_slot - flat_served / SLOT_HOURS, whole_gpus, months)
    start, _ = _gang_starts(p, free, reasons=False)
    ok = start >= 0
    s, g = start[ok], p.gpus[ok]
    span = p.days[ok] / SLOT_DAYS
    whole = np.floor(span + 1e-9).astype(int)
    part = np.maximum(span - whole, 0.0)
    gang = np.zeros(slots + 1)
    np.add.at(gang, np.minimum(s, slots), g)
    np.add.at(gang, np.minimum(s + whole, slots), -g)
    gang = np.cumsum(gang)[:slots]
    last = s + whole
    inside = last < slots
    np.add.at(gang, last[inside], g[inside] * part[inside])
    return flat_served + gang * SLOT_HOURS

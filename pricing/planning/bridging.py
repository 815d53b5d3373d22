"""Bridging in a portfolio (issue 30, "the same work delivered"): demand released before a
fixed-size option's go-live runs on bridge capacity hired by the hour, as buyers do while a
cluster is built or a contract is provisioned, so every option delivers the same work from the
same day and the service levels (`max_wait_days`) are compared on equal terms.

The bridge is the one-run rule's (pricing/bridge.py `hourly_rate`): of the hourly options compared
and offered (a dedicated rental or a managed cluster at the providers' on-demand rate, or cloud
on demand; public cloud only where `constraints.public_cloud_allowed`), the one with the lowest
hourly rate at the base figures, the earliest ready of equals. It serves from its own ready day
(`Planner.ready`: a rental no earlier than the first month with work). An option is bridged when
its own capacity goes live later than that: owned (Build, managed on owned hardware) and the
contracts (rent, managed, committed cloud), never per-use cloud (ready within
days, it follows the demand) or a hybrid (its cloud burst already serves the whole peak before
its base is ready). `options.bridge: false` bridges nothing: work waits for the go-live.

What the bridge carries, slot by slot (≈ a day, models/portfolio/capacity.py):

- serving and steady work (flat work) in each slot before the go-live's first whole slot, at
  the GPUs it needs then (its demand that slot); work released before the bridge itself is
  ready (no option can serve it earlier) is served on its first day, a backlog of that day, on
  every option bridged and on the bridge option's own plan too (its only bridged work), so no
  option carries a start-up backlog the others do not;
- a training run or fine-tuning job released before the go-live goes on the bridge only when it
  needs to (issue 30: buyers bridge what would otherwise break its service level): the option's
  own queue is run first in, first out, and a run released before the go-live that it would start
  more than its workload's `max_wait_days` after the later of its release and the bridge's first
  day (the service level's tolerance, models/portfolio/service.py WAIT_TOLERANCE_DAYS, included;
  in whole slots), or not at all, starts on the bridge then instead (models/portfolio/fifo.py
  `fifo_bridged`). A run that can wait stays in the option's queue and waits for the go-live (or
  for the runs before it) within its limit, so the service level and the bridge line agree: a
  run not bridged meets its maximum wait on the option's own GPUs. One pass decides each run on
  the queue it really meets (a run's start depends only on the runs before it in FIFO order); a
  run taken by the bridge holds none of the option's GPUs and holds up no run behind it. A run on
  the bridge **finishes there**, for its whole length, even where it straddles the go-live: a run
  is not moved mid-way (a checkpoint copied across providers, a restart, a second warm-up, and the
  risk of both, to save a few days of hourly hire); a run that waits does not start on the bridge
  and move either. Work released from the go-live on runs on the option's own capacity.

The bridge's GPUs (its serving and steady work's, and the runs' it took) are added to the
option's capacity in the simulation, so the queue, the runs' starts and the waits are the
simulation's own; its first slot is the bridge's, so each wait is
counted from the later of release and the bridge's first day, as the bridge option's own waits
are. The bridge is paid for every GPU-hour it holds (whole slots: hired by the day), as its
option's own cash-flow function prices it (pricing/bridge.py `bridge_flows`: its rate, support,
setup and storage; the option's own team runs it), the option's `bridge` line; the option's own
GPUs are busy with the rest of the work (served less what the bridge served)."""

from __future__ import annotations

import functools
import math

import numpy as np

from models.constraints import excluded
from models.options import Billing, spec
from models.portfolio import capacity as c
from models.portfolio.bridge_queue import BridgeQueue, bridge_starts, pinned_slots
from models.portfolio.demand import SLOT_DAYS, SLOT_HOURS, SLOTS_PER_MONTH
from models.portfolio.service import WAIT_TOLERANCE_DAYS
from models.scenario import MAX_GPUS
from models.units import DAYS_PER_MONTH
from pricing.bridge import BRIDGES, hourly_rate
from pricing.inputs import base_params
from pricing.planning.records import BridgePlan

#: the most bridges (capacity and work by go-live) a demand's arrays keep (`Bridging._kept`)
BRIDGES_KEPT = 128
#: a slot holds capacity from this many GPUs (the simulation's own ε)
_EPS = 1e-9


class Bridging:
    """The bridge decisions of a PlanContext (a mixin of planner.Planner): which option bridges,
    from which day, and the capacity it adds to a bridged option's simulation."""

    #: the option being planned when it is bridged (set by Planner.plan), else None
    bridged_option: str | None = None

    @functools.cached_property
    def bridge_choice(self) -> tuple[str, float, int] | None:
        """(bridge option, its first day, its first whole slot), or None: bridging off, or no
        hourly option compared and offered (module docstring)."""
        sc = self.scenario
        if not sc.options.bridge:
            return None
        ruled_out = excluded(sc.constraints)
        node = self.node
        size = min(max(math.ceil(max(self.demand.peak_gpus, default=0) / node), 1) * node, MAX_GPUS)
        inp = self.inputs(size)
        P = base_params(inp)
        rates = {
            o: float(np.asarray(hourly_rate(o, P)).flat[0])
            for o in BRIDGES
            if o in sc.options.compare and o not in ruled_out and o not in inp.unavailable
        }
        offered = [o for o, rate in rates.items() if math.isfinite(rate)]
        if not offered:
            return None
        best = min(offered, key=lambda o: (rates[o], self.ready(o, size)))
        day = self.ready(best, size)
        return best, day, math.ceil(day / SLOT_DAYS - _EPS)

    def may_bridge(self, option: str) -> bool:
        """Whether `option` is bridged where it goes live after the bridge (module docstring)."""
        s = spec(option)
        return (
            self.bridge_choice is not None
            and s.billing not in (Billing.PER_USE, Billing.HYBRID)
            and not s.composed_of
        )

    def with_bridge(self, capacity: np.ndarray) -> tuple[np.ndarray, BridgeQueue | None]:
        """(`capacity` ((2, slots): GPUs a slot, GPUs held whole) with the bridge's flat work
        added, the BridgeQueue of the runs it may take) where the option being planned is
        bridged and goes live after the bridge's first slot; else (`capacity`, None). The runs
        the bridge takes, and their GPUs, are the simulation's (models/portfolio/capacity.py)."""
        if self.bridged_option is None:
            return capacity, None
        live = self._bridged_until(self.bridged_option, self._live_slot(capacity))
        if live is None:
            return capacity, None
        return capacity + self._bridge_slots(live), self._queue(live)

    def _bridged_until(self, option: str, live: int) -> int | None:
        """The slot the bridge serves up to for `option` going live in slot `live`: its go-live,
        the bridge's first slot for the bridge option itself (only the start-up backlog), None
        where the option is ready before the bridge (not bridged)."""
        first = self.bridge_choice[2]
        if option == self.bridge_choice[0]:
            return first
        return None if live < first else live

    @staticmethod
    def _live_slot(capacity: np.ndarray) -> int:
        """The go-live's first whole slot: the first with GPUs held whole."""
        whole = capacity[1]
        first = int(np.argmax(whole > _EPS))
        return first if whole[first] > _EPS else len(whole)

    def _kept(self, kind: str, live: int, compute):
        """`compute()` for the bridge up to slot `live`, kept on the demand's arrays (`prepared`,
        shared by every comparison of this demand, as its simulations are) by the bridge's first
        slot: a size search probes a few ready days, and the portal prices a link again."""
        kept = self.prepared.__dict__.setdefault("bridges", {})
        key = (kind, self.bridge_choice[2], live)
        hit = kept.get(key)
        if hit is None:
            if len(kept) >= BRIDGES_KEPT:
                kept.clear()
            hit = kept[key] = compute()
        return hit

    def _bridge_slots(self, live: int) -> np.ndarray:
        """(2, slots) the bridge's GPUs a slot for flat work (none held whole) for a go-live in
        slot `live` (module docstring); kept (`_kept`)."""
        return self._kept("slots", live, lambda: self._make_bridge_slots(live))

    def _queue(self, live: int) -> BridgeQueue | None:
        """The runs the bridge may take for a go-live in slot `live` (module docstring): each
        run released before it, from the later of its release and the bridge's first slot, when
        the option's own queue would start it more than its workload's `max_wait_days` (the
        service level's tolerance included, in whole slots) after that; None without any."""
        p, first = self.prepared, self.bridge_choice[2]
        if live <= first or not (p.rel < live).any():
            return None
        return self._kept("queue", live, lambda: self._make_queue(live))

    def _make_queue(self, live: int) -> BridgeQueue:
        p, first = self.prepared, self.bridge_choice[2]
        names = [w.name for w in self.demand.workloads]
        limit_days = np.array([self.wait_limits[n] for n in names])[p.wl]
        limit = np.floor((limit_days + WAIT_TOLERANCE_DAYS) / SLOT_DAYS + _EPS).astype(np.int64)
        start = np.where(p.rel < live, np.maximum(p.rel, first), -1).astype(np.int64)
        for a in (start, limit):
            a.flags.writeable = False
        return BridgeQueue(first, start, limit)

    def _bridged_flat(self, live: int) -> np.ndarray:
        """(slots,) GPUs of flat work the bridge serves each slot before `live`."""
        p, first = self.prepared, self.bridge_choice[2]
        flat = np.zeros(self.months * SLOTS_PER_MONTH)
        flat[first:live] = p.d[first:live] / SLOT_HOURS
        backlog = p.d[:first].sum() / SLOT_HOURS  # released before the bridge's first day
        if first < len(flat) and backlog > 0:  # its first day, or days of MAX_GPUS at most more
            days = min(math.ceil(backlog / MAX_GPUS), len(flat) - first)
            flat[first : first + days] += backlog / days
        return flat

    def _make_bridge_slots(self, live: int) -> np.ndarray:
        flat = self._bridged_flat(live)
        added = np.stack([flat, np.zeros_like(flat)])
        added.flags.writeable = False
        return added

    def _gang_slots(self, runs: np.ndarray, start: np.ndarray) -> np.ndarray:
        """(slots,) GPUs the bridge's runs `runs`, started in slots `start`, hold each slot."""
        p = self.prepared
        pinned, starts = np.zeros(len(p.wl), dtype=bool), np.zeros(len(p.wl), dtype=int)
        pinned[runs], starts[runs] = True, start
        return pinned_slots(p, starts, pinned, self.months * SLOTS_PER_MONTH)

    def _bridged_work(self, live: int, runs: np.ndarray, start: np.ndarray) -> np.ndarray:
        """(M,) GPU-hours of work the bridge serves: its flat work, and each bridged run's GPUs ×
        24 × its days inside each month (capacity.py `_gang_by_month`'s rule), cut at the term."""
        p, months = self.prepared, self.months
        out = (self._bridged_flat(live) * SLOT_HOURS).reshape(months, SLOTS_PER_MONTH).sum(axis=1)
        edges = np.arange(months + 1) * DAYS_PER_MONTH
        s_day = start * SLOT_DAYS
        f_day = s_day + p.days[runs]
        inside = np.clip(
            np.minimum(f_day[:, None], edges[None, 1:])
            - np.maximum(s_day[:, None], edges[None, :-1]),
            0.0,
            None,
        )
        return out + (inside * (p.gpus[runs] * 24)[:, None]).sum(axis=0)

    def bridge_plan(self, option: str, ready: float, r) -> BridgePlan | None:
        """The BridgePlan of `option` going live on `ready` with its simulation `r` (the runs
        the bridge took in it), or None where it is not bridged."""
        if self.bridged_option != option:
            return None
        live = self._bridged_until(option, math.ceil(ready / SLOT_DAYS - _EPS))
        if live is None:
            return None
        bridge, capacity = self._bridge_of.get(id(r)), self._capacity_of.get(id(r))
        runs = start = np.zeros(0, dtype=int)
        if bridge is not None:
            runs, start = bridged_runs(self.demand, capacity[0], self.prepared, capacity[1], bridge)
        flat = self._bridge_slots(live)[0]
        added = flat + self._gang_slots(runs, start)
        if not added.any():
            return None
        months = self.months
        held = (added * SLOT_HOURS).reshape(months, SLOTS_PER_MONTH).sum(axis=1)
        served = self._bridged_work(live, runs, start)
        peak = float(added.max())
        node = self.node
        gpus = min(max(math.ceil(peak / node - 1e-9), 1) * node, MAX_GPUS)
        b, day, first = self.bridge_choice
        waiting = int((self.prepared.rel < live).sum()) - len(runs) if live > first else 0
        return BridgePlan(b, day, ready, self.inputs(gpus), held, served, len(runs), waiting)


def bridged_runs(
    demand, capacity_gpus, prepared, whole_gpus, bridge: BridgeQueue
) -> tuple[np.ndarray, np.ndarray]:
    """(the runs `bridge` takes, their start slots) when `demand` is served on `capacity_gpus`:
    the same queue capacity.py `simulate` with this bridge runs (kept on `prepared`). Here, not in
    models/portfolio/bridge_queue.py, which capacity.py imports (no import cycle)."""
    months = demand.months
    _, cap_slot = c._capacity(capacity_gpus, months)
    _, _, _, flat_served, _, _, _ = c._flat(prepared, cap_slot)
    avail = c._gang_free(cap_slot - flat_served / c.SLOT_HOURS, whole_gpus, months)
    start, pinned = bridge_starts(prepared, avail, bridge, c.STARTS_KEPT)
    runs = np.flatnonzero(pinned)
    return runs, start[runs]

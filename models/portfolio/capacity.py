"""Capacity against demand: month by month, what a capacity plan serves of a portfolio's demand
(models/portfolio/demand.py), what waits, what runs past the term, what sits idle, and each workload's delay.

The capacity is a vector of GPUs, one figure a month (an owned cluster, a committed base plus burst,
...) spread evenly over the month's slots, or one figure a slot (`slot_capacity`: GPUs from their
ready day, so nothing is served before it, with `whole_gpus` the GPUs held for each whole slot, so
no gang run starts before it either). Time runs on a grid of SLOTS_PER_MONTH slots a month (≈ 1 day). The queue
discipline:

1. Serving and steady work first, because it cannot wait: each slot they get
   min(capacity, their work + their backlog); what the capacity cannot carry is carried forward as a
   backlog, served first-in first-out before new work (a fluid: any free GPU-hour does it).
2. Gang runs (pre-training runs, fine-tuning jobs) on what that leaves, strictly first-in first-out
   by release (then by workload order): a run starts at the first slot, no earlier than its release
   nor than the start of the run before it, where its whole GPU count is free for its whole length
   (inside the term; the capacity plan is known ahead, so a run is never preempted). A run that
   waits two months finishes two months later. There is no backfilling: a small job never
   overtakes a big one, which makes more capacity never start any run later (for the same runs
   admitted; see below).
3. A run whose GPU count is never free from its release to the term end, even with no other gang
   runs, can never be served: it is reported with the reason and does not hold up the queue.
   (More capacity can admit such a run, which then holds up the runs behind it.)

Totals: demanded = served (in the term) + queued (released, not started by the term end) +
beyond the term (started, finishing after it); nothing is dropped. Idle = capacity GPU-hours −
served GPU-hours. A run's delay is its start less its release; a flat workload's is how long its
GPU-hours waited in the backlog (first-in first-out).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from models.errors import InputError
from models.portfolio.bridge_queue import BridgeQueue, bridge_starts, pinned_slots
from models.portfolio.demand import SLOT_DAYS, SLOT_HOURS, SLOTS_PER_MONTH, Demand
from models.record import Record, construct
from models.units import DAYS_PER_MONTH, HOURS_PER_MONTH

#: the largest capacity a month may have, GPUs
MAX_CAPACITY_GPUS = 10_000_000
_EPS = 1e-9
#: the most queue orders a Prepared keeps (`_gang_starts`; a size search probes a few dozen)
STARTS_KEPT = 128
#: the most simulation summaries and probes, and whole simulations (up to a few MB each with
#: 5,000 runs), a Prepared keeps (`Prepared.kept`; a plan of 9 options makes ~100 and ~10)
SUMMARIES_KEPT, WHOLE_KEPT = 256, 16

RunStatus = Literal["finished", "running at term end", "queued at term end", "never fits"]


class RunTable(Record):
    """A workload's gang runs under the capacity plan, one column each; days count from the start
    of the term. `delay_days` is start less release, or for a run not started the wait until the
    term end (a lower bound)."""

    release_day: list[float] = []
    start_day: list[float | None] = []
    finish_day: list[float | None] = []
    delay_days: list[float] = []
    status: list[RunStatus] = []
    served_gpu_hours: list[float] = []
    beyond_term_gpu_hours: list[float] = []


class WorkloadOutcome(Record):
    name: str
    team: str
    kind: str
    demanded_gpu_hours: float
    served_gpu_hours: float
    queued_gpu_hours: float
    beyond_term_gpu_hours: float
    served_gpu_hours_by_month: list[float]
    #: the longest and the mean wait (gang runs: per run; flat work: GPU-hour-weighted); work still
    #: waiting at the term end counts the wait until then (a lower bound); None when it has no work
    delay_days_max: float | None
    delay_days_mean: float | None
    #: the longest wait counted from the later of its release and the capacity's first slot (the
    #: option's ready day): the service level's measure (`max_wait_days`, pricing/planning/)
    wait_days_max: float | None = None
    runs: int
    runs_started: int
    runs_finished: int
    #: why some of its runs can never be served (None when all can)
    never_served: str | None
    runs_table: RunTable


class CapacityResult(Record):
    months: int
    capacity_gpus: list[float]
    demand_gpu_hours: list[float]
    served_gpu_hours_by_month: list[float]
    #: work released and waiting for capacity at each month end
    queued_gpu_hours_by_month: list[float]
    idle_gpu_hours_by_month: list[float]
    capacity_gpu_hours: float
    demanded_gpu_hours: float
    served_gpu_hours: float
    #: released in the term and still waiting at its end
    queued_gpu_hours: float
    #: started in the term, finishing after it
    beyond_term_gpu_hours: float
    idle_gpu_hours: float
    #: served in the term, but later than it was needed
    delayed_gpu_hours: float
    #: each workload's outcome and run table, in the demand's order; empty in a summary
    #: (`simulate(..., outcomes=False)`: what a capacity search's candidates need, without them)
    workloads: list[WorkloadOutcome]
    #: gang runs finished in the term, per workload (the demand's order)
    runs_finished_by_workload: list[int]
    #: GPU-hours the gang workloads (pre-training, fine-tuning) serve each month, summed
    gang_served_gpu_hours_by_month: list[float]


def check_capacity(capacity_gpus: Sequence[float], months: int) -> np.ndarray:
    cap = np.asarray(capacity_gpus, dtype=float)
    if cap.ndim != 1 or len(cap) not in (months, months * SLOTS_PER_MONTH):
        raise InputError(
            "capacity",
            f"capacity needs one GPU count a month of the {months}-month term"
            f" (or one a slot: {months * SLOTS_PER_MONTH})",
        )
    if not np.all(np.isfinite(cap)) or cap.min() < 0 or cap.max() > MAX_CAPACITY_GPUS:
        raise InputError(
            "capacity", f"capacity must be 0 to {MAX_CAPACITY_GPUS:,} GPUs in every month"
        )
    return cap


def _capacity(capacity_gpus: Sequence[float], months: int) -> tuple[np.ndarray, np.ndarray]:
    """(GPUs a month, GPUs a slot): a monthly figure holds in each of its month's slots; per-slot
    figures give the month's mean."""
    cap = check_capacity(capacity_gpus, months)
    if len(cap) == months:
        return cap, np.repeat(cap, SLOTS_PER_MONTH)
    return cap.reshape(months, SLOTS_PER_MONTH).mean(axis=1), cap


def slot_capacity(
    gpus: float, from_day: float, months: int, to_day: float | None = None, *, whole: bool = False
) -> np.ndarray:
    """GPUs a slot of `gpus` held from `from_day` to `to_day` (default: the term end): gpus × the
    share of each slot inside [from_day, to_day) (its monthly means are pricing/cashflows.py
    `window`'s month shares); `whole=True`: gpus only in the slots wholly inside (what a gang
    run, which holds its GPUs for whole slots, may use: `simulate`'s `whole_gpus`)."""
    lo = np.arange(months * SLOTS_PER_MONTH) * SLOT_DAYS
    end = months * DAYS_PER_MONTH if to_day is None else to_day
    if whole:
        return np.where((lo >= from_day - _EPS) & (lo + SLOT_DAYS <= end + _EPS), float(gpus), 0.0)
    inside = np.minimum(end, lo + SLOT_DAYS) - np.maximum(from_day, lo)
    return gpus * (np.clip(inside, 0.0, SLOT_DAYS) / SLOT_DAYS)


def _gang_free(avail: np.ndarray, whole_gpus, months: int) -> np.ndarray:
    """GPUs free for gang runs in each slot: what flat work leaves, no more than the GPUs held for
    the whole slot (a slot the ready day cuts serves flat work on its share, no run starts in it)."""
    if whole_gpus is None:
        return avail
    return np.minimum(avail, _capacity(whole_gpus, months)[1])


class Prepared:
    """The arrays `simulate` derives from a demand alone (flat work per slot, the gang runs'
    columns and FIFO order), computed once per demand and shared by every capacity it is
    served on (a capacity plan's search simulates one demand many times)."""

    def per_workload(self, per_run: np.ndarray) -> np.ndarray:
        """Sums over the runs of each workload (rows of `per_run` are runs): (workloads, ...).
        An indexed add, not a one-hot matrix product, so no BLAS threads (which contend on a
        busy machine: 75-130 ms for this product instead of 0.2 ms)."""
        out = np.zeros((self.n_w, *per_run.shape[1:]))
        np.add.at(out, self.wl, per_run)
        return out

    def __init__(self, demand: Demand):
        months = demand.months
        self.demand = demand
        self.flat = [i for i, w in enumerate(demand.workloads) if not w.gang]
        busy = np.array([demand.workloads[i].busy_gpus_by_month for i in self.flat])
        busy = busy.reshape(-1, months)
        self.dw = np.repeat(busy, SLOTS_PER_MONTH, axis=1) * SLOT_HOURS  # (flat workloads, slots)
        self.d = self.dw.sum(axis=0)
        #: each flat workload's cumulative work from 0, one row each (flat workloads, slots + 1)
        self.aw_rows = np.concatenate([np.zeros((len(self.dw), 1)), self.dw.cumsum(axis=1)], axis=1)
        runs = demand.runs
        n_w = len(demand.workloads)
        self.wl = np.array(runs.workload, dtype=int)
        self.rel = np.array(runs.release_slot, dtype=int)
        self.gpus = np.array(runs.gpus, dtype=float)
        self.days = np.array(runs.run_days, dtype=float)
        self.length = np.maximum(1, np.ceil(self.days / SLOT_DAYS - 1e-9)).astype(int)
        self.order = np.lexsort((self.wl, self.rel))
        self.whole = self.gpus * self.days * 24
        self.n_w = n_w
        #: each workload's runs are wl[bounds[i]:bounds[i + 1]] (runs are in workload order)
        self.bounds = np.searchsorted(self.wl, np.arange(n_w + 1))
        slots = months * SLOTS_PER_MONTH
        profile = np.zeros(slots + 1)
        np.add.at(profile, self.rel, self.gpus)
        np.add.at(profile, np.minimum(self.rel + self.length, slots), -self.gpus)
        #: GPUs the gang runs hold in each slot if every run starts on release
        self.at_release = np.cumsum(profile)[:slots]
        # the FIFO loop's columns (models/portfolio/fifo.py), in FIFO order: run, GPUs, the free GPUs it
        # needs (GPUs − _EPS), slots, release slot, and the id of its (GPUs, slots) pair
        order = self.order
        pairs = np.stack([self.gpus[order], self.length[order].astype(float)], axis=1)
        _, size = np.unique(pairs.reshape(-1, 2), axis=0, return_inverse=True)
        self.fifo = (
            order.astype(np.int64),
            self.gpus[order],
            self.gpus[order] - _EPS,
            self.length[order].astype(np.int64),
            self.rel[order].astype(np.int64),
            size.reshape(-1).astype(np.int64),
            int(size.max()) + 1 if len(order) else 0,
        )
        #: (run, GPUs, slots, release slot) in FIFO order, as Python numbers (`_never_fits`)
        self.loop = list(
            zip(
                order.tolist(),
                self.gpus[order].tolist(),
                self.length[order].tolist(),
                self.rel[order].tolist(),
                strict=True,
            )
        )
        #: each run's place in the FIFO order (self.fifo, self.loop)
        self.rank = np.empty(len(order), dtype=int)
        self.rank[self.order] = np.arange(len(order))
        #: `_gang_starts` by the GPUs free of flat work (its bytes): the same capacity probed by a
        #: search and then simulated queues the same way
        self.starts: dict[bytes, np.ndarray] = {}
        #: `simulate`'s summaries and `unmet_gpu_hours`' figures, and whole simulations, by
        #: capacity (`kept`)
        self.summaries: dict[tuple, CapacityResult | float] = {}
        self.outcomes: dict[tuple, CapacityResult] = {}

    def kept(self, kind: str, capacity_gpus, whole_gpus, compute, bridge=None):
        """`compute()` for a capacity and whole GPUs (and a BridgeQueue) on this demand, kept by
        `kind` and their bytes: the same capacity simulated again (another option's plan, the
        portfolio priced again with other prices) gives the same result. Each cache is emptied
        when full; each read is one `get` (another session's comparison may clear it meanwhile)."""
        whole = None if whole_gpus is None else np.asarray(whole_gpus, dtype=float).tobytes()
        key = (kind, np.asarray(capacity_gpus, dtype=float).tobytes(), whole)
        if bridge is not None:
            key = (*key, bridge.key)
        cache = self.outcomes if kind == "whole" else self.summaries
        hit = cache.get(key)
        if hit is None:
            if len(cache) >= (WHOLE_KEPT if kind == "whole" else SUMMARIES_KEPT):
                cache.clear()
            hit = cache[key] = compute()
        return hit


def prepare(demand: Demand) -> Prepared:
    return Prepared(demand)


def _flat(p: Prepared, cap_slot: np.ndarray):
    """Serving and steady work first, FIFO backlog (Lindley's recursion, vectorised:
    backlog_t = X_t − min(0, min_{s≤t} X_s) with X the cumulative work less capacity)."""
    d = p.d
    x = np.cumsum(d - cap_slot * SLOT_HOURS)
    backlog = x - np.minimum(0.0, np.minimum.accumulate(x))
    scale = max(float(d.sum()), 1.0)
    backlog[backlog < _EPS * scale] = 0.0
    prev = np.concatenate([[0.0], backlog[:-1]])
    served = d + prev - backlog
    return p.flat, p.dw, d, served, backlog, prev, scale


def _flat_months(p: Prepared, flat_served: np.ndarray, slots: int, month_end_slots):
    """(τ, cumulative served work at each month end per flat workload): the demand position (in
    slots) the served flat work has reached at each month end, and each workload's share."""
    s_cum = np.cumsum(flat_served)
    a_ext = np.concatenate([[0.0], np.cumsum(p.d)])
    grid = np.arange(slots + 1, dtype=float)
    tau = np.interp(s_cum[month_end_slots], a_ext, grid)
    return s_cum, a_ext, grid, tau, _interp_rows(tau, p.aw_rows)


def _interp_rows(x: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """`np.interp(x, arange(n), row)` for every row at once, with the same float operations
    (np.interp's: the value at a grid point where x is one, else slope × (x − x_j) + y_j with
    slope = (y_{j+1} − y_j) / (x_{j+1} − x_j); the ends held), so the same numbers: one pass
    instead of one call per flat workload."""
    n = rows.shape[1]
    if n == 1:
        return np.repeat(rows, len(x), axis=1)
    grid = np.arange(n, dtype=float)
    xs = np.clip(x, 0.0, n - 1.0)
    j = np.minimum(np.floor(xs).astype(int), n - 2)
    y0, y1 = rows[:, j], rows[:, j + 1]
    slope = (y1 - y0) / (grid[j + 1] - grid[j])
    out = slope * (xs - grid[j]) + y0
    at_point = xs == grid[j]
    out[:, at_point] = y0[:, at_point]
    at_end = xs >= n - 1
    out[:, at_end] = rows[:, -1:]
    return out


def _gang_starts(p: Prepared, avail: np.ndarray, *, reasons: bool = True, bridge=None):
    """Start slot of each gang run (−1: not started in the term) under strict FIFO on `avail` (GPUs
    free of flat work, one figure a slot), and (`reasons`) why runs that can never be served
    cannot. Runs that fit on release all start then (one vectorised check); otherwise the queue
    (models/portfolio/fifo.py, compiled: imported here so that only a queue pays numba's start-up), once
    per `avail` (a capacity search probes the size it then simulates). With `bridge` (a
    BridgeQueue), the runs it takes start on it (`_bridge_starts`)."""
    if bridge is not None:
        start = bridge_starts(p, avail, bridge, STARTS_KEPT)[0]
        return start, (_never_fits(p, avail, start) if reasons else {})
    from models.portfolio.fifo import fifo_starts

    n_runs = len(p.wl)
    if n_runs and np.all(p.at_release <= avail + _EPS):  # fast path: every run fits on release
        start = np.full(n_runs, -1)
        start[:] = p.rel
        return start, {}
    key = avail.tobytes()
    start = p.starts.get(key)  # read once: another session's comparison may clear the cache
    if start is None:
        if len(p.starts) >= STARTS_KEPT:
            p.starts.clear()
        start = fifo_starts(*p.fifo, np.ascontiguousarray(avail, dtype=float))
        start.flags.writeable = False
        p.starts[key] = start
    return start, (_never_fits(p, avail, start) if reasons else {})


def _last_fits(avail: np.ndarray, sizes) -> dict[tuple[float, int], int]:
    """For each run size (GPUs, slots): the last slot t where avail[t : t + n] (cut at the term
    end) holds its GPUs in every slot, −1 where none does. A run of that size released at r can
    ever start (with no other gang runs) iff r ≤ that slot: one vectorised pass per distinct size
    (`next_short[t]`, the first slot ≥ t short of the GPUs), not one per run."""
    end = len(avail)
    t = np.arange(end)
    out: dict[tuple[float, int], int] = {}
    for g, n in sizes:
        if (g, n) in out:
            continue
        short = np.where(avail >= g - _EPS, end, t)
        next_short = np.minimum.accumulate(short[::-1])[::-1]
        found = np.flatnonzero(next_short >= np.minimum(t + n, end))
        out[(g, n)] = int(found[-1]) if len(found) else -1
    return out


def _never_fits(p: Prepared, avail: np.ndarray, start: np.ndarray) -> dict[int, str]:
    """Why each run not started can never be served (in FIFO order): its GPU count is never free
    of flat work from its release to the term end, even with no other gang runs."""
    reason: dict[int, str] = {}
    waiting = np.sort(p.rank[np.flatnonzero(start < 0)]).tolist()
    last = _last_fits(avail, ((p.loop[i][1], p.loop[i][2]) for i in waiting))
    for i in waiting:
        k, g, n, r = p.loop[i]
        if r > last[(g, n)]:
            most = float(avail[r:].max())
            reason[k] = (
                f"needs {g:,.0f} GPUs at once for {p.days[k]:.1f} days; at most {most:,.0f}"
                f" are free of serving and steady work from month {r // SLOTS_PER_MONTH}"
                " to the term end"
            )
    return reason


def _gang_by_month(p: Prepared, start, s_day, f_day, edges, months: int) -> np.ndarray:
    """GPU-hours each workload's started runs serve in each month of the term, (workloads, M):
    Σ over its runs of GPUs × 24 × max(0, min(finish, month end) − max(start, month start)), each
    run's months added in run order (an indexed add). Only the months a run spans (one either side,
    for rounding) are computed: the others add 0."""
    k = np.flatnonzero(start >= 0)
    lo = np.maximum(np.floor(s_day[k] / DAYS_PER_MONTH).astype(int) - 1, 0)
    hi = np.minimum(np.floor(f_day[k] / DAYS_PER_MONTH).astype(int) + 1, months - 1)
    count = np.maximum(hi - lo + 1, 0)
    run = np.repeat(k, count)
    first = np.repeat(np.cumsum(count) - count, count)
    m = np.repeat(lo, count) + np.arange(len(run)) - first
    inside = np.clip(
        np.minimum(f_day[run], edges[m + 1]) - np.maximum(s_day[run], edges[m]), 0, None
    )
    out = np.zeros((p.n_w, months))
    np.add.at(out, (p.wl[run], m), inside * (p.gpus[run] * 24))
    return out


def unmet_gpu_hours(
    demand: Demand,
    capacity_gpus: Sequence[float],
    prepared: Prepared | None = None,
    whole_gpus: Sequence[float] | None = None,
    bridge: BridgeQueue | None = None,
) -> float:
    """`simulate(demand, capacity_gpus)`'s queued + beyond-term GPU-hours (the same float
    operations, so the same number), without the rest of its result: a capacity search's probe."""
    args = (demand, capacity_gpus, prepared, whole_gpus, bridge)
    if prepared is not None and prepared.demand is demand:  # probed before on this demand?
        compute = lambda: _unmet_gpu_hours(*args)  # noqa: E731
        return prepared.kept("unmet", capacity_gpus, whole_gpus, compute, bridge)
    return _unmet_gpu_hours(*args)


def _unmet_gpu_hours(demand, capacity_gpus, prepared, whole_gpus, bridge) -> float:
    p = prepared if prepared is not None else prepare(demand)
    months = demand.months
    _, cap_slot = _capacity(capacity_gpus, months)
    slots = months * SLOTS_PER_MONTH
    month_end_slots = np.arange(1, months + 1) * SLOTS_PER_MONTH - 1
    queued_w = np.zeros(len(demand.workloads))
    beyond_w = np.zeros(len(demand.workloads))
    _, _, _, flat_served, _, _, _ = _flat(p, cap_slot)
    avail = _gang_free(cap_slot - flat_served / SLOT_HOURS, whole_gpus, months)
    if p.flat:
        *_, cums = _flat_months(p, flat_served, slots, month_end_slots)
        queued_w[p.flat] = p.aw_rows[:, -1] - cums[:, -1]
    start, _ = _gang_starts(p, avail, reasons=False, bridge=bridge)
    started = start >= 0
    s_day = np.where(started, start * SLOT_DAYS, np.nan)
    term_days = months * DAYS_PER_MONTH
    in_term = np.where(started, p.gpus * 24 * np.minimum(p.days, term_days - s_day), 0.0)
    beyond_w += p.per_workload(np.where(started, p.whole - in_term, 0.0))
    queued_w += p.per_workload(np.where(started, 0.0, p.whole))
    return float(queued_w.sum()) + float(beyond_w.sum())


def _none_for_nan(values: np.ndarray) -> list[float | None]:
    """`values` as a list of Python floats, None where NaN."""
    out = values.astype(object)
    out[np.isnan(values)] = None
    return out.tolist()


@dataclass
class _Tally:
    """Per-workload accumulators of one simulation (`simulate`), filled step by step."""

    served_by_month: np.ndarray  # (workloads, months) GPU-hours
    queued: np.ndarray  # (workloads,) released, not started by the term end
    beyond: np.ndarray  # (workloads,) started, past the term end
    delay_max: list[float | None]
    delay_mean: list[float | None]
    wait_max: list[float | None]  # the longest wait from the later of release and go-live
    live: int = 0  # the first slot with capacity (go-live)
    delayed: float = 0.0  # GPU-hours served later than needed

    @classmethod
    def of(cls, n_w: int, months: int) -> _Tally:
        # three lists, not one list three times: each figure its own (they once shared one,
        # so every delay read the service-level wait)
        nones = [[None] * n_w for _ in range(3)]
        return cls(np.zeros((n_w, months)), np.zeros(n_w), np.zeros(n_w), *nones)


@dataclass
class _Gang:
    """The gang runs' columns under the FIFO queue (`_serve_gang`), one entry per run."""

    start: np.ndarray
    reason: dict[int, str]
    started: np.ndarray
    rel_day: np.ndarray
    s_day: np.ndarray
    f_day: np.ndarray
    in_term: np.ndarray
    beyond: np.ndarray
    delay: np.ndarray
    status: np.ndarray
    queued_by_month: np.ndarray


def _serve_flat(p: Prepared, cap_slot: np.ndarray, months: int, t: _Tally, delays: bool = True):
    """Step 1, serving and steady work first: each flat workload's GPU-hours served by month,
    queued at the term end, and (`delays`: a whole simulation's outcomes) its delays (the slot in
    which each slot's last GPU-hour is served, less that slot; work still waiting at the term end
    has waited until then, a lower bound). Returns (flat work served a slot, backlog a slot)."""
    flat, dw, _, flat_served, backlog, prev, scale = _flat(p, cap_slot)
    slots = months * SLOTS_PER_MONTH
    month_end_slots = np.arange(1, months + 1) * SLOTS_PER_MONTH - 1
    t.delayed = float(np.minimum(prev, flat_served).sum())
    if not flat:
        return flat_served, backlog
    s_cum, a_ext, _, _, cums = _flat_months(p, flat_served, slots, month_end_slots)
    # every flat workload's row at once (row by row, the same operations)
    t.served_by_month[flat] = np.diff(cums, axis=1, prepend=0.0)
    t.queued[flat] = p.aw_rows[:, -1] - cums[:, -1]
    if not delays:
        return flat_served, backlog
    done = np.searchsorted(s_cum, a_ext[1:] - _EPS * scale, side="left")
    delay_slots = np.minimum(done, slots) - np.arange(slots)
    for j, i in enumerate(flat):
        mask = dw[j] > 0
        if mask.any():
            waits, weights = delay_slots[mask], dw[j][mask]
            t.delay_max[i] = float(waits.max() * SLOT_DAYS)
            # np.average's own operations, without its checks (one call per workload)
            t.delay_mean[i] = float(np.multiply(waits, weights).sum() / weights.sum() * SLOT_DAYS)
            # the service level of flat work reads its mean wait from release, go-live included:
            # what it read through the shared list (`_Tally.of`) when it was sized and
            # documented (2026-12-02), kept so that every plan stays as it was. The longest wait
            # after go-live (as for gang runs: done less max(slot, go-live)) would count a backlog's
            # clearing: the university sample's Rent 144 -> 312 GPUs. A team decision, not made
            # here.
            t.wait_max[i] = t.delay_mean[i]
    return flat_served, backlog


def _serve_gang(p: Prepared, avail: np.ndarray, months: int, t: _Tally, bridge=None) -> _Gang:
    """Step 2, gang runs strictly FIFO on what flat work leaves (`_gang_starts`): each run's
    start, finish, GPU-hours in and past the term, delay and status, added to its workload's
    tally; and the gang work waiting at each month end (released by then, not started by then)."""
    rel, gpus, days, whole = p.rel, p.gpus, p.days, p.whole
    term_days = months * DAYS_PER_MONTH
    start, reason = _gang_starts(p, avail, bridge=bridge)
    started = start >= 0
    rel_day = rel * SLOT_DAYS
    s_day = np.where(started, start * SLOT_DAYS, np.nan)
    f_day = s_day + days
    in_term = np.where(started, gpus * 24 * np.minimum(days, term_days - s_day), 0.0)
    beyond_run = np.where(started, whole - in_term, 0.0)
    queued_run = np.where(started, 0.0, whole)
    delay = np.where(started, s_day - rel_day, term_days - rel_day)
    edges = np.arange(months + 1) * DAYS_PER_MONTH
    t.served_by_month += _gang_by_month(p, start, s_day, f_day, edges, months)
    t.beyond += p.per_workload(beyond_run)
    t.queued += p.per_workload(queued_run)
    t.delayed += float(in_term[started & (start > rel)].sum())
    first_month = rel // SLOTS_PER_MONTH
    until = np.where(started, start // SLOTS_PER_MONTH, months)
    waiting = np.zeros(months + 1)
    np.add.at(waiting, first_month, whole)
    np.add.at(waiting, until, -whole)
    status = np.where(
        started,
        np.where(f_day <= term_days + _EPS, "finished", "running at term end"),
        "queued at term end",
    )
    for k in reason:
        status[k] = "never fits"
    queued_by_month = np.cumsum(waiting)[:months]
    return _Gang(start, reason, started, rel_day, s_day, f_day, in_term, beyond_run, delay, status,
                 queued_by_month)  # fmt: skip


def _workload_outcomes(
    demand: Demand, p: Prepared, g: _Gang, t: _Tally, finished: list[int]
) -> list[WorkloadOutcome]:
    """Step 3, each workload's outcome and its runs' table (runs are in workload order: each
    workload's runs are one slice of the columns, made Python lists once). The simulation's own
    columns and figures are already of the fields' types: no validation pass over thousands of
    runs and hundreds of workloads, simulated dozens of times (models/record.py construct)."""
    wl, bounds = p.wl, p.bounds
    columns = {
        "release_day": g.rel_day.tolist(),
        "start_day": _none_for_nan(g.s_day),  # NaN: not started
        "finish_day": _none_for_nan(g.f_day),
        "delay_days": g.delay.tolist(),
        "status": g.status.tolist(),
        "served_gpu_hours": g.in_term.tolist(),
        "beyond_term_gpu_hours": g.beyond.tolist(),
    }
    n_started = np.concatenate([[0], np.cumsum(g.started)])
    first_reason: dict[int, str] = {}  # each workload's first run that never fits, its reason
    for k in sorted(g.reason, reverse=True):
        first_reason[int(wl[k])] = g.reason[k]
    # each workload's figures as Python numbers, a column at a time (row sums: each row's own
    # reduction, the same numbers as one row's sum)
    served = t.served_by_month.sum(axis=1).tolist()
    by_month = t.served_by_month.tolist()
    queued, beyond = t.queued.tolist(), t.beyond.tolist()
    edges = bounds.tolist()
    started = n_started[bounds].tolist()
    out = []
    for i, w in enumerate(demand.workloads):
        lo, hi = edges[i], edges[i + 1]
        if w.gang and hi > lo:
            t.delay_max[i] = float(g.delay[lo:hi].max())
            t.delay_mean[i] = float(g.delay[lo:hi].mean())
            live = np.maximum(g.rel_day[lo:hi], t.live * SLOT_DAYS)
            end = np.where(g.started[lo:hi], g.s_day[lo:hi], demand.months * DAYS_PER_MONTH)
            t.wait_max[i] = float(max((end - live).max(), 0.0))
        table = construct(RunTable, {name: column[lo:hi] for name, column in columns.items()})
        out.append(
            construct(
                WorkloadOutcome,
                name=w.name,
                team=w.team,
                kind=w.kind,
                demanded_gpu_hours=w.demanded_gpu_hours,
                served_gpu_hours=served[i],
                queued_gpu_hours=queued[i],
                beyond_term_gpu_hours=beyond[i],
                served_gpu_hours_by_month=by_month[i],
                delay_days_max=t.delay_max[i],
                delay_days_mean=t.delay_mean[i],
                wait_days_max=t.wait_max[i],
                runs=hi - lo,
                runs_started=started[i + 1] - started[i],
                runs_finished=finished[i],
                never_served=first_reason.get(i),
                runs_table=table,
            )
        )
    return out


def simulate(
    demand: Demand,
    capacity_gpus: Sequence[float],
    prepared: Prepared | None = None,
    whole_gpus: Sequence[float] | None = None,
    *,
    outcomes: bool = True,
    bridge: BridgeQueue | None = None,
) -> CapacityResult:
    """Serves `demand` on `capacity_gpus` (one figure a month or a slot) under the discipline above.
    `prepared`: `prepare(demand)`, to share across many capacities of one demand; `whole_gpus`:
    the GPUs held for each whole slot, where gang runs may run (default: the capacity).
    `outcomes=False`: a summary, every figure but the per-workload outcomes and run tables (the
    most of a simulation's cost with hundreds of workloads; a capacity search's candidates need
    the totals only). With `prepared`, each result is kept on it by its capacity
    (`Prepared.kept`): the same capacity simulated again returns that result. `bridge`: the
    runs a bridge takes start on it (BridgeQueue), their GPUs added to the capacity, and waits
    count from its first slot."""
    args = (demand, capacity_gpus, prepared, whole_gpus, outcomes, bridge)
    if prepared is not None and prepared.demand is demand:
        kind = "whole" if outcomes else "summary"
        return prepared.kept(kind, capacity_gpus, whole_gpus, lambda: _simulate(*args), bridge)
    return _simulate(*args)


def _simulate(
    demand, capacity_gpus, prepared, whole_gpus, outcomes: bool, bridge
) -> CapacityResult:
    p = prepared if prepared is not None else prepare(demand)
    months = demand.months
    cap, cap_slot = _capacity(capacity_gpus, months)
    t = _Tally.of(len(demand.workloads), months)
    held = np.flatnonzero(cap_slot > _EPS)  # go-live: the first slot held whole
    t.live = int(held[0]) + int(len(held) > 1 and cap_slot[held[0]] < cap_slot[held[1]] - _EPS) \
        if len(held) else len(cap_slot)  # fmt: skip
    flat_served, backlog = _serve_flat(p, cap_slot, months, t, delays=outcomes)
    avail = _gang_free(cap_slot - flat_served / SLOT_HOURS, whole_gpus, months)
    gang = _serve_gang(p, avail, months, t, bridge)
    if bridge is not None:  # waits count from the bridge; its runs' GPUs are capacity too
        t.live = min(t.live, bridge.first)
        pinned = bridge_starts(p, avail, bridge, STARTS_KEPT)[1]
        cap = cap + pinned_slots(p, gang.start, pinned, len(cap_slot)).reshape(months, -1).mean(1)
    n_finished = np.concatenate([[0], np.cumsum(gang.status == "finished")])
    finished = (n_finished[p.bounds[1:]] - n_finished[p.bounds[:-1]]).tolist()  # per workload
    workloads = _workload_outcomes(demand, p, gang, t, finished) if outcomes else []
    gang_served = np.zeros(months)
    for i, w in enumerate(demand.workloads):
        if w.gang:
            gang_served += t.served_by_month[i]
    served_month = t.served_by_month.sum(axis=0)
    cap_hours = cap * HOURS_PER_MONTH
    idle_month = np.maximum(cap_hours - served_month, 0.0)
    month_end_slots = np.arange(1, months + 1) * SLOTS_PER_MONTH - 1
    queued_month = backlog[month_end_slots] + gang.queued_by_month
    return CapacityResult(
        months=months,
        capacity_gpus=cap.tolist(),
        demand_gpu_hours=demand.gpu_hours,
        served_gpu_hours_by_month=served_month.tolist(),
        queued_gpu_hours_by_month=queued_month.tolist(),
        idle_gpu_hours_by_month=idle_month.tolist(),
        capacity_gpu_hours=float(cap_hours.sum()),
        demanded_gpu_hours=demand.demanded_gpu_hours,
        served_gpu_hours=float(served_month.sum()),
        queued_gpu_hours=float(t.queued.sum()),
        beyond_term_gpu_hours=float(t.beyond.sum()),
        idle_gpu_hours=float(idle_month.sum()),
        delayed_gpu_hours=t.delayed,
        workloads=workloads,
        runs_finished_by_workload=finished,
        gang_served_gpu_hours_by_month=gang_served.tolist(),
    )


__all__ = [
    "BridgeQueue",
    "CapacityResult",
    "Prepared",
    "RunTable",
    "WorkloadOutcome",
    "check_capacity",
    "prepare",
    "simulate",
    "slot_capacity",
    "unmet_gpu_hours",
]

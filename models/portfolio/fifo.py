"""The gang runs' strict FIFO queue (models/portfolio/capacity.py, step 2 of its discipline), compiled.

For each run in FIFO order (release slot, then workload), with t0 = max(its release, the start of
the run before it):

- it starts at the first slot t ≥ t0 where free[s] ≥ GPUs − ε for every slot s in [t, t + length)
  (the window cut at the term end), and its GPUs are taken from those slots;
- where there is no such slot, it is passed over if its GPUs are never free for its length from its
  release on, even with no other gang runs (the last slot where `avail` holds it, found once per
  run size, is before its release); otherwise it blocks the queue and nothing behind it starts.

A search for a run size that found no start is not repeated: free GPUs only fall as runs start and
t0 only rises, so no later run of that size finds one either.

Why compiled: the loop is sequential (each start depends on every start before it) and runs once
per capacity probed: 5,000 runs × dozens of probes in the heaviest portfolio the schema accepts.
On Python floats it cost ~7 ms a probe there (bench/bench_heaviest.py); numba compiles the same
float operations (IEEE-754 doubles, no fast-math), so the same starts, ~40× faster. The compiled
code is cached beside this file (`cache=True`); the first process compiles it once (~1 s).
tests/test_capacity.py checks it against a plain FIFO written the obvious way."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def fifo_starts(run, gpus, need, length, release, size, n_sizes, avail):  # pragma: no cover
    """Start slot of each run (−1: not started), by run index. Columns in FIFO order: `run` the
    run's index, `gpus` its GPUs, `need` the free GPUs it needs (GPUs − ε), `length` its slots,
    `release` its release slot, `size` the id of its (GPUs, length) pair in [0, n_sizes); `avail`
    the GPUs free of flat work in each slot of the term."""
    none = np.full(len(run), -1, dtype=np.int64)  # no run has a bridge: `fifo_bridged`'s queue
    return fifo_bridged(run, gpus, need, length, release, size, n_sizes, avail, none, none)[0]


@njit(cache=True, nogil=True)
def _first_window(free, thr, t0, n):  # pragma: no cover
    """The first t ≥ t0 with free[t : t + n] (cut at the end) ≥ thr in every slot, else −1: one
    pass, counting the slots since the last one short of thr."""
    slots = len(free)
    begin = t0
    for j in range(t0, slots):
        if free[j] < thr:
            begin = j + 1
        elif j - begin + 1 >= n:
            return begin
    return begin if begin < slots else -1


@njit(cache=True, nogil=True)
def _last_window(avail, thr, n):  # pragma: no cover
    """The last t with avail[t : t + n] (cut at the end) ≥ thr in every slot, else −1: one pass
    back from the end, keeping the first short slot at or after t."""
    slots = len(avail)
    short = slots
    for t in range(slots - 1, -1, -1):
        if avail[t] < thr:
            short = t
        if short >= min(t + n, slots):
            return t
    return -1


@njit(cache=True, nogil=True)
def fifo_bridged(
    run, gpus, need, length, release, size, n_sizes, avail, bstart, limit
):  # pragma: no cover
    """`fifo_starts` with a bridge (pricing/planning/bridging.py): a run with `bstart` ≥ 0 (its
    bridge start slot, in FIFO order like the other columns) that would start on `avail` more
    than `limit` slots after `bstart`, or not at all, starts on the bridge at `bstart` instead
    (pinned): it takes none of `avail`'s GPUs and does not hold up the runs behind it. A run's start
    depends only on the runs before it in FIFO order, so one pass decides each run on the queue it
    would really meet. Returns (start slot by run index, pinned by run index)."""
    slots = len(avail)
    free = avail.copy()
    starts = np.full(len(run), -1, dtype=np.int64)
    pinned = np.zeros(len(run), dtype=np.bool_)
    no_start = np.zeros(n_sizes, dtype=np.bool_)
    last = np.full(n_sizes, -2, dtype=np.int64)
    prev = 0
    for i in range(len(run)):
        g, thr, n, s = gpus[i], need[i], length[i], size[i]
        t = max(release[i], prev)
        stop = min(t + n, slots)
        fits = True
        for j in range(t, stop):
            if free[j] < thr:
                fits = False
                break
        if not fits:
            t = -1
            if not no_start[s]:
                t = _first_window(free, thr, max(release[i], prev), n)
                if t < 0:
                    no_start[s] = True
        if bstart[i] >= 0 and (t < 0 or t - bstart[i] > limit[i]):
            starts[run[i]] = bstart[i]
            pinned[run[i]] = True
            continue
        if t < 0:
            if last[s] == -2:
                last[s] = _last_window(avail, thr, n)
            if release[i] <= last[s]:
                break
            continue
        for j in range(t, min(t + n, slots)):
            free[j] = free[j] - g
        starts[run[i]] = t
        prev = t
    return starts, pinned

"""The gang runs a portfolio's bridge takes (issue 30, pricing/planning/bridging.py), in the
capacity simulation's terms (models/portfolio/capacity.py): which runs may go on the bridge and
from when (BridgeQueue), the queue that decides it (models/portfolio/fifo.py `fifo_bridged`), and
the GPUs the runs it took hold each slot. `p` is the demand's `capacity.Prepared`."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class BridgeQueue:
    """Gang runs a bridge may take (pricing/planning/bridging.py): a run with `start` ≥ 0 (its
    bridge start slot; −1: not offered the bridge) that the queue would start more than `limit`
    slots after it, or not at all, starts on the bridge then instead, on GPUs the capacity does
    not hold (models/portfolio/fifo.py `fifo_bridged`); the simulation adds them to its capacity.
    `first`: the bridge's first slot, from which waits are counted (the simulation's go-live)."""

    first: int
    start: np.ndarray  # (runs,) int
    limit: np.ndarray  # (runs,) int, slots

    @property
    def key(self) -> bytes:
        """The queue's identity in the caches (with the capacity's)."""
        return np.int64(self.first).tobytes() + self.start.tobytes() + self.limit.tobytes()


def bridge_starts(p, avail: np.ndarray, bridge: BridgeQueue, starts_kept: int):
    """(start slot, pinned) of each gang run on `avail` with `bridge` (fifo.py `fifo_bridged`),
    kept by `avail` and the bridge (as capacity.py `_gang_starts`'s queue orders)."""
    from models.portfolio.fifo import fifo_bridged

    key = avail.tobytes() + bridge.key
    hit = p.starts.get(key)
    if hit is None:
        if len(p.starts) >= starts_kept:
            p.starts.clear()
        order = p.order
        start, pinned = fifo_bridged(
            *p.fifo,
            np.ascontiguousarray(avail, dtype=float),
            bridge.start[order].astype(np.int64),
            bridge.limit[order].astype(np.int64),
        )
        start.flags.writeable = pinned.flags.writeable = False
        hit = p.starts[key] = (start, pinned)
    return hit


def pinned_slots(p, start: np.ndarray, pinned: np.ndarray, slots: int) -> np.ndarray:
    """(slots,) GPUs the bridge's runs hold each slot (whole slots, cut at the term end)."""
    runs = np.flatnonzero(pinned)
    profile = np.zeros(slots + 1)
    np.add.at(profile, start[runs], p.gpus[runs])
    np.add.at(profile, np.minimum(start[runs] + p.length[runs], slots), -p.gpus[runs])
    return np.cumsum(profile)[:slots]

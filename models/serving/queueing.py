"""Waiting for a free batch slot: open-loop arrivals (an arrival rate) on the replicas' batch
slots as an M/M/c queue, the tail of its wait and the highest utilisation a TTFT objective at a
percentile allows (models/serving/plan.py sizes replicas with them)."""

from __future__ import annotations

import numpy as np


def queue_wait_s(rho, slots, lifetime_s, percentile: float) -> np.ndarray:
    """The p-th percentile of the wait for a free slot in an M/M/c queue of c = `slots` servers each
    busy `lifetime_s` per request at utilisation ρ: C = ρ^(√(2(c+1))−1) (Sakasegawa 1977), and
    P(W > t) = C · e^(−c(1−ρ)t/lifetime) (Kleinrock 1975 §3.5), so max(0, ln(C/(1−p))) · lifetime /
    (c(1−ρ))."""
    rho = np.clip(np.asarray(rho, dtype=float), 0.0, 1.0 - 1e-12)
    c = np.asarray(slots, dtype=float)
    with np.errstate(divide="ignore"):
        log_c = (np.sqrt(2 * (c + 1)) - 1) * np.log(rho)  # -inf at ρ = 0: no wait
    excess = np.maximum(0.0, log_c - np.log(1 - percentile / 100))
    return excess * np.asarray(lifetime_s, dtype=float) / (c * (1 - rho))


def max_utilisation(ttft_s, slots, lifetime_s, slo_s, percentile, ceiling) -> np.ndarray:
    """The highest utilisation ≤ `ceiling` at which TTFT plus the p-th percentile wait meets the SLO
    (bisection; the wait rises with ρ)."""
    lo, hi = np.zeros_like(ttft_s), np.full_like(ttft_s, ceiling)
    fine = ttft_s + queue_wait_s(hi, slots, lifetime_s, percentile) <= slo_s
    for _ in range(40):
        mid = (lo + hi) / 2
        ok = ttft_s + queue_wait_s(mid, slots, lifetime_s, percentile) <= slo_s
        lo, hi = np.where(ok, mid, lo), np.where(ok, hi, mid)
    return np.where(fine, ceiling, lo)


def closed_loop_utilisation(others, service_s, own_s, cycle_s) -> np.ndarray:
    """Utilisation ρ of a replica's prefill server in a steady closed loop (serving-evidence.md,
    twenty-first amendment): the `others` users a request shares the replica with each cycle
    through a first token (own_s + the mean M/M/1 wait ρ·s/(1−ρ)) and a cycle_s of output tokens,
    so they arrive at λ = others / (own_s + ρ·s/(1−ρ) + cycle_s) and ρ = λ · s. The right side
    falls as ρ rises: one root in [0, 1), found by bisection (0 when no others)."""
    others, s, own, cycle = np.broadcast_arrays(
        *(np.asarray(x, dtype=float) for x in (others, service_s, own_s, cycle_s))
    )
    lo, hi = np.zeros_like(s), np.ones_like(s)
    for _ in range(60):
        mid = (lo + hi) / 2
        over = mid * (own + mid * s / (1 - mid) + cycle) >= others * s
        lo, hi = np.where(over, lo, mid), np.where(over, mid, hi)
    return lo


__all__ = ["queue_wait_s", "max_utilisation", "closed_loop_utilisation"]

"""Sizing the replicas of serving layouts for a traffic level (models/serving/plan.py's model
docstring, "Colocated", "Split" and "Latency percentile"): colocated replicas as an M/M/c queue of
batch slots, or prefill and decode pools, each at the target utilisation its TTFT tail allows.
Inputs are the service (`inp`, a plan.py ServeInputs: plan.py imports this module), `evaluate`'s
figures per layout (arrays) and the indices of the layouts to size."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from models.serving.queueing import max_utilisation, queue_wait_s


def candidates(idx, replicas, gpus, out_tps_gpu, tpot, wait, rho, split, prefill) -> dict:
    """The sized layouts `idx` as columns (plan_serving picks one by fewest GPUs)."""
    return {
        "index": idx,
        "replicas": replicas,
        "gpus": gpus,
        "out_tps_gpu": out_tps_gpu,
        "tpot": tpot,
        "wait": wait,
        "rho": rho,
        "split": np.full(len(idx), split),
        "prefill_replicas": prefill,
    }


def utilisation_ceiling(inp, r: dict, idx, u: float) -> np.ndarray:
    """The highest utilisation of each colocated layout `idx` under arrivals: the target `u`, or
    lower where the TTFT objective at its percentile needs it (it does not depend on the rate)."""
    cap, slots = r["rps_replica"][idx], r["batch"][idx]
    if inp.ttft_ms is None:
        return np.full(len(idx), u)
    return max_utilisation(
        r["ttft"][idx], slots, slots / cap, inp.ttft_ms / 1e3, inp.slo_percentile, u
    )


def colocated_gpus(inp, r: dict, i: int, rates, u: float) -> np.ndarray | None:
    """GPUs of colocated layout `i` for each arrival rate in `rates` (what `colocated` gives it at
    each rate, the ceiling found once); None where the TTFT objective cannot be met at any rate."""
    idx = np.array([i])
    ceiling = utilisation_ceiling(inp, r, idx, u)
    if not ceiling[0] >= 1e-3:
        return None
    replicas = np.ceil(np.asarray(rates, dtype=float) / (r["rps_replica"][idx] * ceiling))
    return replicas * r["gpus_replica"][idx]


def users_per_replica(users: int, batch, u: float) -> np.ndarray:
    """The sequences a replica actually runs when `users` requests are in flight (a closed loop)
    over replicas that hold at most the share `u` of `batch` slots each: R = ⌈U / (u · B)⌉
    replicas, ⌈U / R⌉ in flight on each (never more than B). A replica's TTFT, TPOT and output
    rate are evaluated at this count, not at the slots it could hold: 32 users on a replica
    that fits 1,775 sequences run 32 at a time, and wait for 31 others' prefills, not 1,774."""
    replicas = np.ceil(users / (np.asarray(batch, dtype=float) * u))
    return np.ceil(users / replicas)


class MaxFit(NamedTuple):
    """plan.py with_max_fit's layouts (tp, ep, dp, pp), their batches, and the sequences each layout's
    KV cache fits as its memory-only probe found them (None where no probe ran: a batch given)."""

    layouts: tuple
    batch: np.ndarray
    max_seqs: np.ndarray | None


def in_flight_batch(inp, tp, ep, dp, batch, evaluate, fit=None, pp=1.0):
    """The batch (per attention group) each layout is evaluated at: with users in flight, the users
    on one fixed replica (`inp.gpus`) or users_per_replica over the replicas they need, each
    replica holding at most dp x (the batch or the sequences a group's KV cache fits), spread
    over its dp attention groups. What a group fits: `fit`, what plan.py's with_max_fit probe
    found per layout, or where it ran none (a batch given) `evaluate`'s memory-only probe. Without
    users, the batch as given. A replica of `pp` pipeline stages runs pp concurrent batches, each
    like a group (twenty-eighth amendment)."""
    if inp.users is None:
        return batch
    # a batch is one attention group's; a replica of dp groups runs dp of them (evaluate's `dp`)
    groups = np.asarray(dp, dtype=float) * np.asarray(pp, dtype=float)
    groups = groups * np.ones_like(np.asarray(batch, dtype=float))
    if inp.gpus:
        return per_group(float(inp.users), groups)
    if fit is None:
        fit = evaluate(inp, tp, ep, np.ones_like(batch), dp=dp, pp=pp)["max_seqs"]
    slots = np.minimum(batch, np.maximum(fit, 1))
    return per_group(users_per_replica(inp.users, slots * groups, inp.target_utilisation), groups)


def per_group(users, groups) -> np.ndarray:
    """A replica's users over its groups (attention groups or concurrent batches): ⌈users / groups⌉
    each; with fewer users than groups, users / groups, a fraction (only that many groups hold a
    sequence, one each: the replica runs its users, not one per group)."""
    share = np.asarray(users, dtype=float) / groups
    return np.where(share < 1, share, np.ceil(share))


def colocated(inp, r: dict, idx, rps, queued: bool, u: float) -> dict:
    """Replicas of each colocated layout for the traffic (an M/M/c queue of batch slots per
    replica when sized for arrivals, whose TTFT tail may need a lower utilisation)."""
    cap, slots = r["rps_replica"][idx], r["batch"][idx]
    if queued:
        ceiling = utilisation_ceiling(inp, r, idx, u)
        keep = ceiling >= 1e-3
        idx, cap, slots, ceiling = idx[keep], cap[keep], slots[keep], ceiling[keep]
        replicas = np.ceil(rps / (cap * ceiling))
        rho = rps / (replicas * cap)
        wait = queue_wait_s(rho, slots, slots / cap, inp.slo_percentile)
    else:  # no arrival rate: no queue
        # users in flight: each layout's batch is already what a replica runs (in_flight_batch)
        users = inp.users is not None and not inp.gpus
        held = slots * r["groups"][idx]  # a replica's groups (or stages' batches) each run `slots`
        replicas = np.ceil(inp.users / held) if users else np.ones(len(idx))
        wait = rho = np.zeros(len(idx))
    nothing = np.zeros(len(idx))  # no prefill pool
    gpus = replicas * r["gpus_replica"][idx]
    return candidates(
        idx, replicas, gpus, r["out_tps_gpu"][idx], r["tpot"][idx], wait, rho, False, nothing
    )


#: the prefill pool grows by this share (at least one replica) until TTFT's tail meets the SLO,
#: at most SPLIT_PREFILL_STEPS times
SPLIT_PREFILL_GROWTH = 0.05
SPLIT_PREFILL_STEPS = 200


def split(inp, r: dict, idx, rps: float, u: float) -> dict:
    """Prefill and decode pools of each layout for the arrivals: decode replicas for the decode
    work at the target utilisation, prefill replicas likewise, then more prefill replicas until
    TTFT (prefill, K/V transfer, first step, the p-th percentile waits for a prefill replica and a
    decode slot) meets the SLO."""
    pct = inp.slo_percentile
    cap_d, cap_p = r["rps_decode_replica"][idx], r["rps_prefill_replica"][idx]
    slots = r["batch"][idx]
    n_d = np.ceil(rps / (cap_d * u))
    rho_d = rps / (n_d * cap_d)
    wait_d = queue_wait_s(rho_d, n_d * slots, slots / cap_d, pct)
    n_p = np.ceil(rps / (cap_p * u))

    def wait_p(n):
        return queue_wait_s(rps / (n * cap_p), n, 1.0 / cap_p, pct)

    ttft = r["split_ttft"][idx]
    if inp.ttft_ms is not None:
        slo = inp.ttft_ms / 1e3
        for _ in range(SPLIT_PREFILL_STEPS):
            late = ttft + wait_d + wait_p(n_p) > slo
            if not late.any():
                break
            n_p = np.where(late, n_p + np.maximum(1, np.ceil(n_p * SPLIT_PREFILL_GROWTH)), n_p)
        keep = ttft + wait_d + wait_p(n_p) <= slo
        idx, n_p, n_d, wait_d, rho_d = idx[keep], n_p[keep], n_d[keep], wait_d[keep], rho_d[keep]
        cap_d, cap_p = cap_d[keep], cap_p[keep]
    gpus = (n_p + n_d) * r["gpus_replica"][idx]
    full = np.minimum(n_p * cap_p, n_d * cap_d) * inp.output_tokens  # output tokens/s at full load
    rho = np.maximum(rps / (n_p * cap_p), rho_d)
    return candidates(
        idx, n_p + n_d, gpus, full / gpus, r["t_step"][idx], wait_p(n_p) + wait_d, rho, True, n_p
    )

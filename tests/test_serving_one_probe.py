"""One memory-only probe per layout (issue 29 cleanup): plan_serving's users-in-flight path reads
the KV-cache fit that models/serving/plan.py `with_max_fit` found, instead of
models/serving/pools.py `in_flight_batch` running the same probe again."""

from __future__ import annotations

import numpy as np

from models.serving import plan as serving_plan
from models.serving import pools
from models.serving.plan import ServeInputs, plan_serving

USERS = {
    "model": "llama3-70b",
    "gpu": "H100-SXM",
    "input_tokens": 2000,
    "output_tokens": 500,
    "users": 300,
}


def _probes(monkeypatch, inp: ServeInputs) -> int:
    """plan_serving's calls of evaluate at a batch of one per layout (the memory-only probe)."""
    calls = []
    real = serving_plan.evaluate

    def counting(inp, tp, ep, batch, *args, **kwargs):
        if np.all(np.asarray(batch) == 1):
            calls.append(len(np.asarray(batch)))
        return real(inp, tp, ep, batch, *args, **kwargs)

    monkeypatch.setattr(serving_plan, "evaluate", counting)
    plan_serving(inp)
    return len(calls)


def test_users_in_flight_run_one_memory_probe(monkeypatch):
    assert _probes(monkeypatch, ServeInputs(**USERS)) == 1


def test_with_max_fit_keeps_the_probe_per_returned_layout():
    inp = ServeInputs(**USERS)
    tp = ep = np.array([2.0, 4.0, 8.0])
    dp = np.ones(3)
    found = serving_plan.with_max_fit(inp, tp, ep, dp, np.array([8.0, 8.0, 8.0]))
    direct = serving_plan.evaluate(inp, *found.layouts[:2], np.ones(6), dp=found.layouts[2])
    assert np.array_equal(found.max_seqs, direct["max_seqs"])
    # the users' batch from the kept fit is the one a fresh probe gives
    kept = pools.in_flight_batch(inp, *found.layouts, found.batch, None, found.max_seqs)
    fresh = pools.in_flight_batch(inp, *found.layouts, found.batch, serving_plan.evaluate)
    assert np.array_equal(kept, fresh)


def test_a_given_batch_still_probes_once(monkeypatch):
    """With a batch given with_max_fit runs no probe; in_flight_batch runs its own, once."""
    inp = ServeInputs(**USERS, batch=64)
    found = serving_plan.with_max_fit(inp, np.array([2.0]), np.array([1.0]), np.ones(1), [64.0])
    assert found.max_seqs is None
    assert _probes(monkeypatch, inp) == 1

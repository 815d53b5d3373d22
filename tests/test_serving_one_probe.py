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
    found = serving_plan.with_max_fit(inp, tp, ep, dp, dp, np.array([8.0, 8.0, 8.0]))
    tp2, ep2, dp2, pp2 = found.layouts
    direct = serving_plan.evaluate(inp, tp2, ep2, np.ones(6), dp=dp2, pp=pp2)
    assert np.array_equal(found.max_seqs, direct["max_seqs"])
    # the users' batch from the kept fit is the one a fresh probe gives
    kept = pools.in_flight_batch(inp, tp2, ep2, dp2, found.batch, None, found.max_seqs, pp2)
    fresh = pools.in_flight_batch(inp, tp2, ep2, dp2, found.batch, serving_plan.evaluate, pp=pp2)
    assert np.array_equal(kept, fresh)


def test_a_given_batch_still_probes_once(monkeypatch):
    """With a batch given with_max_fit runs no probe; in_flight_batch runs its own, once."""
    inp = ServeInputs(**USERS, batch=64)
    one = np.ones(1)
    found = serving_plan.with_max_fit(inp, np.array([2.0]), np.array([1.0]), one, one, [64.0])
    assert found.max_seqs is None
    assert _probes(monkeypatch, inp) == 1


def test_users_are_spread_over_a_replicas_attention_groups():
    """A replica of dp attention groups runs dp batches: 64 users of DeepSeek on H100 (the search
    takes TP1 EP16 DP16, too large for one node) put 4 sequences on each group, 64 on the replica,
    not 64 on each group (1,024 in flight for 64 users, as it did); and a fixed replica's users
    are spread the same way."""
    import math

    from models.serving.plan import ServeInputs, plan_serving

    base = {"model": "deepseek-v3-like", "gpu": "H100-SXM", "input_tokens": 1000}
    p = plan_serving(ServeInputs(**base, output_tokens=500, users=64))
    assert p.attention_dp > 1
    assert p.batch == math.ceil(64 / p.attention_dp) and p.replicas == 1
    assert p.batch * p.attention_dp >= 64 > (p.batch - 1) * p.attention_dp
    both = plan_serving(ServeInputs(**base, output_tokens=500, users=128))
    assert both.tpot_ms > p.tpot_ms  # twice the users in flight: a longer step


def test_a_fixed_replicas_users_are_spread_over_its_groups():
    import numpy as np

    from models.serving import pools
    from models.serving.plan import ServeInputs

    inp = ServeInputs(
        model="deepseek-v3-like", gpu="H200", input_tokens=1000, output_tokens=500, gpus=8, users=64
    )
    dp = np.array([1.0, 8.0, 16.0])
    got = pools.in_flight_batch(inp, None, None, dp, np.array([256.0] * 3), evaluate=None)
    assert list(got) == [64.0, 8.0, 4.0]

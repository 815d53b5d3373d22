"""Users in flight on a fixed replica (a benchmark's closed loop, models/serving/plan.py
`_closed_loop`): more users than the KV cache holds are served as a real server serves them, the
rest waiting for a free slot, not refused (issue 29: 100 users refused where 92 fit)."""

from __future__ import annotations

import contextlib
import io

import pytest

from app.cli import main
from models.errors import InputError
from models.serving.plan import ServeInputs, plan_serving

BASE = {
    "model": "llama3-70b",
    "gpu": "H100-SXM",
    "precision": "fp8",
    "input_tokens": 2048,
    "output_tokens": 256,
    "gpus": 2,
}


def test_users_beyond_what_the_kv_cache_holds_wait_for_a_slot():
    full = plan_serving(ServeInputs(**BASE, users=1))
    held = full.max_sequences_per_replica  # what TP2 holds at these lengths
    at_fit = plan_serving(ServeInputs(**BASE, users=held))
    over = plan_serving(ServeInputs(**BASE, users=held + 180))
    assert over.batch == held and over.users_waiting == 180
    # the replica runs saturated: the same step, throughput and rate as with exactly `held` users
    assert over.tpot_ms == pytest.approx(at_fit.tpot_ms)
    assert over.output_tokens_per_s_per_gpu == pytest.approx(at_fit.output_tokens_per_s_per_gpu)
    # Little's law: 180 users ahead at the replica's completion rate
    wait_ms = 180 / at_fit.requests_per_s_per_replica * 1e3
    assert over.ttft_queue_ms == pytest.approx(wait_ms, rel=1e-9)
    assert over.ttft_ms == pytest.approx(at_fit.ttft_ms + wait_ms, rel=1e-9)
    assert at_fit.users_waiting == 0 and at_fit.ttft_queue_ms == 0


def test_a_ttft_objective_counts_the_wait():
    held = plan_serving(ServeInputs(**BASE, users=1)).max_sequences_per_replica
    with pytest.raises(InputError) as exc:
        plan_serving(ServeInputs(**BASE, users=held + 180, ttft_ms=2000))
    assert exc.value.field == "ttft_ms"


def test_weights_that_leave_no_room_for_one_sequence_are_still_refused():
    with pytest.raises(InputError, match="room for one"):
        plan_serving(ServeInputs(**{**BASE, "model": "llama3-405b", "gpus": 1}, users=10))


def test_the_command_line_says_who_waits():
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        args = ["serve", "--model", "llama3-70b", "--gpu", "H100-SXM", "--input-tokens", "2048"]
        args += ["--output-tokens", "256", "--precision", "fp8", "--gpus", "2", "--users", "400"]
        assert main(args) == 0
    line = next(x for x in out.getvalue().split("\n") if x.startswith("Waiting"))
    assert "180 users beyond the 220 sequences the KV cache holds wait" in line

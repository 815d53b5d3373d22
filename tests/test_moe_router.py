"""The MoE costs of docs/reference/training.md section 6.2 (issue 31 item 3, amendment): the
router's GEMM and FP32 scores, and copies per token when a dispatcher sends once per destination
rank (DeepEP) rather than once per expert. Each test fails when its term is dropped."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from models import constants as C
from models.training import moe_cost
from models.training.step_time import _context, _layer_comm, step_breakdown
from tests.builders import BODY, FINE, at_layout

pytestmark = pytest.mark.usefixtures("registry")

EP8 = {"tp": 1, "pp": 1, "dp": 64, "ep": 8, "zero": 1, "recompute": "none", "micro_batch": 1}


def _total(job, one) -> float:
    return float(step_breakdown(job, one)["total"][0])


def test_the_router_gemm_is_its_flops_at_the_narrow_gemm_rate():
    """2·T·h·E FLOPs (T = 8,192 tokens, h 2,048, E 64) at the large-GEMM rate times η_d(64/R):
    64 is below DeepGEMM's narrowest measured width at H100 BF16, so the K = 512 end value,
    751 / 1,426."""
    job, one = at_layout(FINE, EP8)
    ctx = _context(job, one)
    got = float(
        np.asarray(moe_cost.router_gemm_s(job, one, ctx.T, ctx.tp, ctx.linear_peak)).ravel()[0]
    )
    flops = 2 * 8192 * BODY["hidden"] * FINE["experts"]
    assert got == pytest.approx(flops / ctx.linear_peak / (751 / 1426), rel=1e-9)


def test_the_router_scores_are_fp32_written_and_read_once():
    job, one = at_layout(FINE, EP8)
    ctx = _context(job, one)
    got = float(np.asarray(moe_cost.router_score_bytes(job, one, ctx.T, ctx.tp)).ravel()[0])
    assert got == 8192 * FINE["experts"] * 8


def test_the_step_pays_the_router_gemm(monkeypatch):
    """Forward once and backward twice (the planner's GEMM rule), in every layer pass of the step,
    through the stack's efficiency: the same passes as the experts' `moe_grouped_gemm` seconds."""
    job, one = at_layout(FINE, EP8)
    ctx = _context(job, one)
    step = step_breakdown(job, one)
    experts = float(moe_cost.expert_extra_s(job, one, ctx.T, ctx.tp, ctx.linear_peak)[0])
    passes = float(step["moe_grouped_gemm"][0]) / (experts * ctx.slow)  # slots × (1 + 2)
    router = moe_cost.router_gemm_s(job, one, ctx.T, ctx.tp, ctx.linear_peak)
    router = float(np.asarray(router).ravel()[0])
    monkeypatch.setattr(moe_cost, "router_gemm_s", lambda *a: 0.0)
    gained = float(step["total"][0]) - _total(job, one)
    assert gained == pytest.approx(passes * router * ctx.slow, rel=1e-6)


def test_the_step_pays_the_router_scores(monkeypatch):
    job, one = at_layout(FINE, EP8)
    with_scores = _total(job, one)
    monkeypatch.setattr(moe_cost, "router_score_bytes", lambda *a: 0.0)
    assert _total(job, one) < with_scores


def test_a_dense_model_has_no_router():
    job, one = at_layout(
        BODY | {"model_id": "dense", "name": "Dense", "ffn_hidden": 8192}, EP8 | {"ep": 1}
    )
    ctx = _context(job, one)
    assert moe_cost.router_gemm_s(job, one, ctx.T, ctx.tp, ctx.linear_peak) == 0.0
    assert moe_cost.router_score_bytes(job, one, ctx.T, ctx.tp) == 0.0


@pytest.mark.parametrize(
    ("experts", "k", "ranks", "expected"),
    [
        (8, 2, 8, 2.0),  # one expert per rank: k distinct ranks
        (8, 2, 4, 4 * (1 - 15 / 28)),  # 4 · (1 − C(6,2)/C(8,2))
        (64, 16, 1, 1.0),  # all on one rank
        (64, 16, 8, 8 * (1 - np.prod([(56 - i) / (64 - i) for i in range(16)]))),
    ],
)
def test_distinct_ranks_is_the_counting_formula(experts, k, ranks, expected):
    assert float(moe_cost.distinct_ranks(experts, k, ranks)) == pytest.approx(expected, rel=1e-12)


def test_a_per_rank_dispatcher_sends_fewer_copies(monkeypatch):
    """64 experts, top-16, EP 8: Megatron's alltoall sends 16 copies; a DeepEP-like stack sends the
    expected distinct ranks (7.47 of 8), and the all-to-all shrinks by that ratio."""
    job, one = at_layout(FINE, EP8)
    assert moe_cost.dispatch_copies(job, one) == 16
    ctx = _context(job, one)
    per_expert = float(np.asarray(_layer_comm(job, one, ctx)[1]).ravel()[0])
    stacks = dict(C.SOFTWARE_STACKS)
    stacks["deepep-test"] = stacks[job.stack] | {"a2a_dedup": "rank"}
    monkeypatch.setattr(C, "SOFTWARE_STACKS", stacks)
    dedup = dataclasses.replace(job, stack="deepep-test")
    copies = float(np.asarray(moe_cost.dispatch_copies(dedup, one)).ravel()[0])
    assert copies == pytest.approx(float(moe_cost.distinct_ranks(64, 16, 8)))
    assert 7 < copies < 8
    per_rank = float(np.asarray(_layer_comm(dedup, one, ctx)[1]).ravel()[0])
    lat = 7 * C.SCALEUP_LATENCY_S * ctx.moe_share
    assert (per_rank - lat) / (per_expert - lat) == pytest.approx(copies / 16, rel=1e-9)


def test_no_planner_stack_dispatches_per_rank_yet():
    """training.md 6.2 item 3: the scored rows do not move by it."""
    assert all(s.get("a2a_dedup", "expert") == "expert" for s in C.SOFTWARE_STACKS.values())

"""Load imbalance between experts (models/training/moe_cost.py `rank_imbalance`; the form, the
figure and the adoption rule in docs/reference/training.md 6.4, written before scoring): the busiest
expert-parallel rank's load from the measured MaxVio, taken by the routed GEMMs and the all-to-all."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from models import constants as C
from models.errors import InputError
from models.training import moe_cost
from models.training.step_time import _context, _layer_comm, step_breakdown
from models.validation import moe_throughput as MT
from models.validation.training_predict import job_of, predict_step
from tests.builders import FINE, at_layout

pytestmark = pytest.mark.usefixtures("registry")

EP8 = {"tp": 1, "pp": 1, "dp": 64, "ep": 8, "zero": 1, "recompute": "none", "micro_batch": 1}


def test_the_figures_are_the_papers_3b_rows():
    """Wang et al. 2024 Table 2, the 3B model: auxiliary loss 0.52, loss-free 0.04; each row sourced."""
    assert moe_cost.measured_max_vio() == {"aux_loss": 0.52, "loss_free": 0.04}


def test_the_busiest_rank_from_the_busiest_expert():
    """r = 1 + v(E − L)/(L(E − 1)), L = E/ep: 1 on one rank, 1 + v with one expert per rank."""
    job, one = at_layout(FINE, EP8)
    v = 0.52  # the default stack balances with an auxiliary loss
    for ep, expected in ((1, 1.0), (8, 1 + v * (64 - 8) / (8 * 63)), (64, 1 + v)):
        r = moe_cost.rank_imbalance(job, dataclasses.replace(one, ep=np.array([ep])))
        assert float(r[0]) == pytest.approx(expected, rel=1e-12)
    loss_free = dataclasses.replace(job, stack="moe-dualpipe")
    assert float(moe_cost.rank_imbalance(loss_free, one)[0]) == pytest.approx(
        1 + 0.04 * 56 / (8 * 63)
    )
    forced = dataclasses.replace(job, moe_balance="forced")
    assert float(moe_cost.rank_imbalance(forced, one)[0]) == 1.0


def test_the_step_waits_for_the_busiest_rank():
    """EP 8 inside one 8-GPU node: the all-to-all's bandwidth part (7/8 of the bytes over NVLink)
    is r times the balanced one, its 7 latencies are not; the routed GEMMs and the step grow too.
    Dropping the term (r = 1) fails this."""
    job, one = at_layout(FINE, EP8)
    balanced = dataclasses.replace(job, moe_balance="forced")
    r = float(moe_cost.rank_imbalance(job, one)[0])
    assert r == pytest.approx(1 + 0.52 * 56 / 504) and r > 1.05
    ctx = _context(job, one)
    lat = ctx.moe_share * 7 * C.SCALEUP_LATENCY_S
    a2a = [float(np.ravel(_layer_comm(j, one, _context(j, one))[1])[0]) for j in (job, balanced)]
    assert a2a[0] - lat == pytest.approx(r * (a2a[1] - lat), rel=1e-9)
    steps = [step_breakdown(j, one) for j in (job, balanced)]
    for part in ("total", "moe_grouped_gemm", "moe_all_to_all"):
        assert float(steps[0][part][0]) > float(steps[1][part][0]), part


def test_force_balanced_benchmarks_and_dense_models_do_not_move(monkeypatch):
    """The held-out NeMo rows are force-balanced: their prediction is the balanced physics whatever
    the measured figure; a dense model has no imbalance."""
    row = next(r for r in MT.load_rows() if r["id"] == "nemo26.02-gpt-oss-120b-h100-sxm-64")
    assert job_of(row).moe_balance == "forced"
    before = predict_step(row)["predicted"]
    monkeypatch.setattr(moe_cost, "measured_max_vio", lambda: {"aux_loss": 5.0, "loss_free": 5.0})
    assert predict_step(row)["predicted"] == before
    assert predict_step({**row, "moe_balance": ""})["predicted"] < before
    dense, one = at_layout({k: v for k, v in FINE.items() if k not in ("experts",
                            "experts_per_token")} | {"model_id": "dense"}, EP8 | {"ep": 1})  # fmt: skip
    assert float(moe_cost.rank_imbalance(dense, one)[0]) == 1.0


def test_a_bad_balance_setting_names_the_field():
    job, _ = at_layout(FINE, EP8)
    with pytest.raises(InputError, match="moe_balance"):
        dataclasses.replace(job, moe_balance="perfect")

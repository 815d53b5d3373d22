"""The plan's scaling note (issue 31): what the chosen GPU count buys over half of it at the same
global batch (models/training/plan.py ScalingNote, sizing.py SCALING_WARN_GAIN), on the plan, the
CLI text and JSON, the Train page and the comparison PDF's training row."""

from __future__ import annotations

import json

import pytest

from app.formatting import md_plain, scaling_note
from models.training import sizing
from models.training.plan import Planner, plan_training
from models.training.sizing import SCALING_WARN_GAIN, STEP_LOSSES
from tests.builders import app, run_cli, scenario

TOKENS = 15.6e12


def _405b(gpus: int) -> dict:
    return {
        "workload": {"model": "llama3-405b", "tokens": TOKENS},
        "cluster": {"gpu": "H100-SXM", "gpus": gpus},
    }


@pytest.fixture(scope="module")
def plans():
    return {g: plan_training(scenario(_405b(g))) for g in (8192, 16384, 32768)}


def test_the_note_compares_the_count_with_its_own_half(plans):
    for g, p in plans.items():
        n = p.scaling
        assert (n.gpus, n.half_gpus) == (g, g // 2)
        assert n.tokens_per_s == p.tokens_per_s
        half = Planner(scenario(_405b(g // 2))).choose(g // 2)
        assert n.half_tokens_per_s == pytest.approx(half.tokens_per_s, rel=1e-12)
        assert n.gain == pytest.approx(n.tokens_per_s / n.half_tokens_per_s - 1, rel=1e-12)
        assert n.warns == (n.gain < SCALING_WARN_GAIN) and n.warn_below == SCALING_WARN_GAIN


def test_405b_on_32768_warns_and_16384_does_not(plans):
    big, mid = plans[32768].scaling, plans[16384].scaling
    assert big.warns and not mid.warns
    assert big.gain < SCALING_WARN_GAIN <= mid.gain
    # 4 micro-batches over 8 stages: the bubble is the loss, over half the step
    assert plans[32768].layout.microbatches < plans[32768].layout.pp
    assert big.dominant_loss == "pipeline_bubble"
    step = plans[32768].step_breakdown_s
    assert big.dominant_loss_share == pytest.approx(step["pipeline_bubble"] / step["total"])
    assert big.dominant_loss_share > 0.5 > big.half_dominant_loss_share
    assert max(STEP_LOSSES, key=step.__getitem__) == big.dominant_loss


def test_no_note_without_a_valid_half():
    small = {"model": "llama3.2-1b", "tokens": 1e9}
    one = plan_training(scenario(_405b(1), workload=small))
    assert one.scaling is None  # one GPU: no half count
    odd = plan_training(scenario(_405b(3), workload=small))
    assert odd.scaling is None  # 3 GPUs: no whole half
    fewest = plan_training(
        scenario(_405b(1), cluster={"gpu": "H100-SXM", "gpus": None}), unsized="smallest"
    )
    assert fewest.scaling is None  # half the smallest count that fits does not fit
    assert plan_training(scenario(_405b(2), workload=small)).scaling.half_gpus == 1


def test_dominant_loss_is_the_largest_lost_part():
    step = {"compute": 9.0, "pipeline_bubble": 0.5, "pipeline_p2p": 0.1, "data_parallel": 2.0,
            "optimizer": 0.2, "fixed_per_step": 0.2, "total": 12.0}  # fmt: skip
    assert sizing.dominant_loss(step) == ("data_parallel", pytest.approx(2 / 12))


def test_cli_text_and_json_carry_the_note(plans):
    args = ["train", "--model", "llama3-405b", "--tokens", "15.6T", "--gpu", "H100-SXM"]
    rc, out, _ = run_cli(*args, "--gpus", "32768")
    assert rc == 0
    line = scaling_note(plans[32768].scaling, plans[32768].layout)
    assert line and line in out.splitlines()
    rc, out, _ = run_cli(*args, "--gpus", "32768", "--json")
    assert json.loads(out)["scaling"] == plans[32768].scaling.model_dump(mode="json")


def test_the_train_page_shows_the_warning(plans):
    at = app("workload", scenario={**_405b(32768), "term": {"months": 12}})
    p = plans[32768]
    assert md_plain(scaling_note(p.scaling, p.layout)) + "." in [w.value for w in at.warning]
    at = app("workload", scenario={**_405b(16384), "term": {"months": 12}})
    p = plans[16384]
    assert not [w for w in at.warning if w.value.startswith("Scaling")]
    assert md_plain(scaling_note(p.scaling, p.layout)) + "." in [c.value for c in at.caption]


def test_the_comparison_and_its_pdf_carry_the_note(plans):
    from app.report_pdf.comparison import ComparisonDocument
    from pricing.engine import compare
    from tests.builders import GENERATED

    c = compare(scenario(_405b(32768), usage={"mode": "runs", "runs": 1}), decision=False)
    assert c.training.scaling == plans[32768].scaling
    doc = ComparisonDocument(c, title="t", link="", generated=GENERATED, catalogue="2026-11-29")
    line = scaling_note(c.training.scaling, c.training.layout)
    assert line and line in dict(doc.scenario_rows())["Training"]


def test_a_larger_count_that_runs_slower_is_said_so():
    """A 300M model on 4,096 A100-40GB at its default global batch runs slower than on 2,048 (the
    batch leaves a pipeline with few micro-batches, found by the property test): a negative gain,
    a warning, and the line says 'slower' with the size of the loss, never '-28 % faster'."""
    p = plan_training(
        scenario(
            {
                "workload": {"params": 3e8, "tokens": 1e10, "seq_len": 4096},
                "cluster": {"gpu": "A100-40GB", "gpus": 4096},
            }
        )
    )
    note = p.scaling
    assert note.gain == pytest.approx(note.tokens_per_s / note.half_tokens_per_s - 1)
    assert note.gain < 0 and note.warns
    line = scaling_note(note, p.layout)
    assert f"{-note.gain:.0%}".replace("%", " %") in line and "slower than 2,048" in line
    assert "faster" not in line

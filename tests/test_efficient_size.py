"""A run given neither a GPU count nor a deadline is planned at the efficient size on every
surface (issue 31 item 1; issue 30's portfolio pre-train planned on 4 H100 for 550 days), the
smallest count that fits shown beside it and never used silently; a portfolio's representative
fine-tune, which sizes storage and checkpoints, stays on the smallest that fits."""

import pytest

from app.report_text import training_report
from models.portfolio.demand import size_workload
from models.portfolio.workloads import Pretrain
from models.scenario import Scenario
from models.training.plan import plan_training
from pricing.engine import compare
from tests.builders import sample

NO_COUNT = {"workload": {"model": "llama2-13b", "tokens": 1e12}, "cluster": {"gpu": "H100-SXM"}}


def test_no_count_plans_the_efficient_size_and_says_the_smallest_beside_it():
    sc = Scenario.model_validate(NO_COUNT)
    plan = plan_training(sc, curve=True)
    smallest = plan_training(sc, unsized="smallest")
    assert plan.sizing == "efficient size" and plan.gpus == plan.efficient.gpus
    assert plan.min_gpus == smallest.gpus < plan.gpus
    assert plan.train_days < smallest.train_days / 10  # 4 GPUs take most of two years
    head = training_report(plan).splitlines()[0]
    assert f"[sizing: efficient size; smallest that fits: {smallest.gpus} GPUs]" in head


def test_a_portfolio_pretrain_without_a_count_is_planned_at_the_efficient_size():
    w = Pretrain(name="base-13b", model="llama2-13b", tokens=1e12, runs_per_month=0.1)
    sizing = size_workload(w, "H100-SXM")
    plan = plan_training(Scenario.model_validate(NO_COUNT))
    assert sizing.gpus_per_run == plan.gpus > plan.min_gpus
    assert sizing.run_days == pytest.approx(plan.train_days)


def test_the_representative_fine_tune_stays_on_the_smallest_that_fits():
    """The enterprise sample's representative run is its fine-tune as one full-parameter run of
    its tokens: planned on the fewest GPUs that hold it, as before (its storage and checkpoints)."""
    from models.portfolio.demand import TrainingSettings, derive_demand
    from pricing.planning.representative import plan_representative, representative_run

    sc = Scenario.model_validate(sample("enterprise"))
    demand = derive_demand(sc.workloads, sc.cluster.gpu, sc.term.months)
    rep = representative_run(sc, demand)
    plan = plan_representative(rep, sc.cluster.gpu, TrainingSettings())
    assert plan.sizing == "smallest that fits"
    c = compare(sc, decision=False)
    assert c.portfolio.representative_gpus == plan.gpus == plan.min_gpus

"""The portfolio records (models/portfolio/workloads.py) and the demand they make (models/portfolio/demand.py)."""

from __future__ import annotations

import math

import pytest

from models.errors import InputError
from models.portfolio.demand import (
    SIZERS,
    SLOT_DAYS,
    Sizing,
    demand_of,
    derive_demand,
    size_workload,
)
from models.portfolio.workloads import (
    WORKLOAD_KINDS,
    Finetune,
    Pretrain,
    Serve,
    Steady,
    parse_workloads,
    release_months,
)
from models.scenario import Cluster, Scenario, Workload
from models.serving.plan import ServeInputs, plan_serving
from models.training.plan import plan_training
from models.units import HOURS_PER_MONTH


def test_every_kind_has_a_record_and_a_sizing_function():
    assert set(WORKLOAD_KINDS) == set(SIZERS) == {"pretrain", "finetune", "serve", "steady"}
    for kind, record in WORKLOAD_KINDS.items():
        assert record.model_fields["kind"].default == kind


def test_runs_are_released_evenly_over_the_duration():
    w = Pretrain(name="p", start_month=3, duration_months=12, runs_per_month=0.25)
    assert release_months(w) == [3, 7, 11]
    f = Finetune(name="f", duration_months=2, jobs_per_month=2)
    assert release_months(f) == [0, 0.5, 1, 1.5]
    # a run every 2.5 months over 12: at 0, 2.5, 5, 7.5 and 10
    assert release_months(Pretrain(name="q", runs_per_month=0.4)) == pytest.approx(
        [0, 2.5, 5, 7.5, 10]
    )


@pytest.mark.parametrize(
    ("item", "field", "words"),
    [
        (
            {"kind": "serve", "name": "s", "rps": 0},
            "workloads[1].rps",
            "under one request a day",
        ),
        (
            {"kind": "pretrain", "name": "p", "runs_per_month": 31},
            "workloads[1].runs_per_month",
            "at most 30",
        ),
        ({"kind": "steady", "name": "u", "gpus": 0}, "workloads[1].gpus", "at least 1"),
        (
            {"kind": "steady", "name": "u", "start_month": -1},
            "workloads[1].start_month",
            "at least 0",
        ),
        ({"kind": "finetune", "name": "f", "model": "gpt-9"}, "workloads[1].model", "llama3-8b"),
        ({"kind": "bogus", "name": "b"}, "workloads[1].kind", "allowed: pretrain, finetune"),
        ({"kind": ["x"], "name": "b"}, "workloads[1].kind", "allowed: pretrain, finetune"),
        ({"kind": {"a": 1}, "name": "b"}, "workloads[1].kind", "allowed: pretrain, finetune"),
        ({"name": "b"}, "workloads[1].kind", "allowed: pretrain, finetune"),
        (5, "workloads[1]", "valid dictionary"),
        ({"kind": "steady", "name": "x"}, "workloads[1].name", "used twice"),
    ],
)
def test_bad_workloads_are_refused_naming_the_field_and_its_range(item, field, words):
    with pytest.raises(InputError) as exc:
        parse_workloads([{"kind": "steady", "name": "x"}, item])
    assert exc.value.field == field
    assert words in str(exc.value)


def test_a_workload_starting_after_the_term_is_refused():
    w = Steady(name="late", start_month=12)
    with pytest.raises(InputError) as exc:
        demand_of([w], [SIZERS["steady"](w, "H100-SXM")], 12)
    assert exc.value.field == "workloads[0].start_month"
    assert "allowed: 0 to 11" in str(exc.value)


def test_a_core_sizing_error_names_the_workload_field():
    w = Finetune(name="big", model="llama3-405b", method="full", gpus=1)
    with pytest.raises(InputError) as exc:
        derive_demand([Steady(name="u"), w], "H100-SXM", 12)
    assert exc.value.field == "workloads[1].gpus"


def test_a_pretrain_run_is_sized_by_the_training_core():
    w = Pretrain(name="p", model="llama3-8b", tokens=1e11, gpus=64)
    plan = plan_training(
        Scenario(workload=Workload(model="llama3-8b", tokens=1e11), cluster=Cluster(gpus=64))
    )
    s = size_workload(w, "H100-SXM")
    assert (s.gpus_per_run, s.run_days) == (plan.gpus, plan.train_days)


def test_serving_gpus_follow_growing_traffic_as_plan_serving_sizes_each_month():
    w = Serve(name="s", rps=2, growth_pct_per_month=25, duration_months=18, tpot_ms=50)
    s = size_workload(w, "H100-SXM")
    direct = [
        plan_serving(
            ServeInputs(
                model=w.model,
                gpu="H100-SXM",
                precision=w.precision,
                input_tokens=w.input_tokens,
                output_tokens=w.output_tokens,
                rps=r,
                tpot_ms=50,
            )
        ).gpus
        for r in w.rps_by_month()
    ]
    assert s.gpus_by_month == direct
    assert direct[-1] > 5 * direct[0]


def _gang(gpus: int, days: float) -> Sizing:
    return Sizing(kind="pretrain", gang=True, gpus_per_run=gpus, run_days=days)


def test_monthly_demand_by_team_and_kind():
    months = 12
    runs = Pretrain(name="p", team="lab", start_month=2, duration_months=1)
    steady = Steady(name="u", team="uni", gpus=100, utilisation_pct=50, duration_months=6)
    serve = Serve(name="s", team="lab", start_month=6, duration_months=12)
    sizings = [
        _gang(64, 2 * SLOT_DAYS),
        SIZERS["steady"](steady, ""),
        Sizing(kind="serve", gang=False, gpus_by_month=[8.0] * 12),
    ]
    d = demand_of([runs, steady, serve], sizings, months)
    run_hours = 64 * 2 * SLOT_DAYS * 24
    assert d.gpu_hours_by_kind["pretrain"][2] == pytest.approx(run_hours)
    assert d.gpu_hours_by_team["uni"] == pytest.approx([50 * HOURS_PER_MONTH] * 6 + [0] * 6)
    # serving holds its GPUs every hour, inside the term only
    assert d.gpu_hours_by_kind["serve"] == pytest.approx([0] * 6 + [8 * HOURS_PER_MONTH] * 6)
    assert d.peak_gpus == [100, 100, 164, 100, 100, 100, 8, 8, 8, 8, 8, 8]
    assert d.peak_gpus_by_team["lab"][2] == 64
    total = [sum(v[m] for v in d.gpu_hours_by_team.values()) for m in range(months)]
    assert total == pytest.approx(d.gpu_hours)
    assert d.demanded_gpu_hours == pytest.approx(
        run_hours + 300 * HOURS_PER_MONTH + 48 * HOURS_PER_MONTH
    )
    assert d.beyond_term_gpu_hours == 0


def test_a_run_released_near_the_end_counts_whole_with_its_part_after_the_term():
    w = Pretrain(name="p", start_month=11, duration_months=1)
    d = demand_of([w], [_gang(10, 45.0)], 12)
    assert d.demanded_gpu_hours == pytest.approx(10 * 45 * 24)
    in_term = 10 * 24 * (12 * 365.25 / 12 - 11 * 365.25 / 12)
    assert d.beyond_term_gpu_hours == pytest.approx(10 * 45 * 24 - in_term)
    assert sum(d.gpu_hours) == pytest.approx(in_term)


def test_gang_runs_per_month_and_their_gpu_hours():
    w = Finetune(name="f", duration_months=12, jobs_per_month=3)
    d = demand_of([w], [_gang(8, 0.5)], 24)
    assert len(d.runs) == 36 and d.workloads[0].runs == 36
    assert d.demanded_gpu_hours == pytest.approx(36 * 8 * 0.5 * 24)
    assert math.isclose(sum(d.gpu_hours), d.demanded_gpu_hours)


@pytest.mark.parametrize("name", ["enterprise", "lab", "university"])
def test_each_workloads_sizing_is_said_in_a_buyers_words(name):
    """How a workload was sized is shown on the Workload page: it names what it was sized as and
    the figures, never a function of the code ("plan_training: ..." reached the page, issue 32)."""
    import re

    from tests.builders import sample

    sc = Scenario.model_validate(sample(name))
    opening = {
        "pretrain": "sized as one training run: ",
        "finetune": "sized as one fine-tune: ",
        "serve": "sized as a service: ",
    }
    for w in sc.workloads:
        basis = size_workload(w, sc.cluster.gpu).basis
        assert not re.search(r"\b[a-z]+_[a-z_]+\b", basis), basis  # no code name
        if w.kind in opening:
            assert basis.startswith(opening[w.kind]), basis

"""The Guide's six answers: each number in the text is the Comparison's own field, formatted by
app/formatting.py; and the scaling efficiency the curve reports never exceeds 100 %."""

from __future__ import annotations

import json
import pathlib

import pytest

from app.formatting import days, deadline_sizing, gib, gpus, on_day, plural, usd, usd_rate
from app.views.guide import (
    EXAMPLE_DEADLINES_DAYS,
    QUESTIONS,
    answers,
    build_or_rent,
    deployment,
    how_many_gpus,
    maintenance,
    renting_cost,
    server_or_cluster,
)
from models.scenario import Scenario
from models.training.sizing import EFFICIENT_SCALING, scaling_efficiencies
from models.training.whole_run import whole_run_factor
from pricing.catalogue.loader import load_catalogue
from pricing.engine import compare

EXAMPLE = json.loads(
    (pathlib.Path(__file__).parents[1] / "app" / "data" / "example_scenario.json").read_text()
)


def _compare(catalogue, **sections):
    data = json.loads(json.dumps(EXAMPLE))
    data.update(sections)
    return compare(Scenario.model_validate(data), catalogue, draws=100)


@pytest.fixture(scope="module")
def example(fixture_catalogue):
    return _compare(fixture_catalogue)


@pytest.fixture(scope="module")
def small_fixed(fixture_catalogue):
    """An 8B model on one 8-GPU server, the count typed in (fixed mode)."""
    return _compare(
        fixture_catalogue,
        workload={"model": "llama3-8b", "tokens": 1e11, "seq_len": 8192, "precision": "bf16"},
        cluster={"gpu": "H100-SXM", "gpus": 8},
    )


@pytest.fixture(scope="module")
def b200_deadline():
    """The test catalogue has no B200 prices; the answers are checked against the fields, so the
    shipped catalogue's figures serve."""
    return _compare(load_catalogue(), cluster={"gpu": "B200", "deadline_days": 120})


def test_every_question_is_answered(example):
    got = answers(example)
    assert list(got) == list(QUESTIONS) and len(QUESTIONS) == 6
    assert all(got.values())


def test_server_or_cluster_says_why_a_cluster(example):
    t = example.training
    assert t.min_gpus is not None and t.min_gpus > 8  # the 70B model does not fit one server
    text = server_or_cluster(example)
    assert text.startswith("A cluster: the model does not fit on one 8-GPU H100-SXM server")
    assert f"at least {gpus(t.min_gpus)} ({plural(-(-t.min_gpus // 8), 'server')})" in text
    assert f"{plural(t.nodes, 'node')} of 8" in text
    assert f"{plural(t.fabric.switches, 'switch')} and " in text


def test_server_branch_reached_with_a_typed_count(small_fixed):
    """Fixed mode used to leave min_gpus None, so the one-server answer could never show."""
    t = small_fixed.training
    assert t.sizing == "fixed" and t.min_gpus is not None and t.min_gpus <= 8
    text = server_or_cluster(small_fixed)
    assert text.startswith(f"One server is enough to hold it: the model fits on {gpus(t.min_gpus)}")
    one = next(p for p in t.curve if p.gpus == 8)
    assert f"On one full server a run takes {days(one.train_days)}." in text


def test_how_many_gpus_gives_fewest_efficient_and_deadline_counts(example):
    t = example.training
    text = how_many_gpus(example)
    assert f"Fewest that fit in memory: {gpus(t.min_gpus)}." in text
    # the efficient size: the largest curve count at or above the threshold, and the next one below
    effs = [p.scaling_efficiency for p in t.curve]
    i = max(k for k, e in enumerate(effs) if e >= EFFICIENT_SCALING)
    assert f"Efficient size: {gpus(t.curve[i].gpus)} ({days(t.curve[i].train_days)} a run" in text
    if i + 1 < len(t.curve):
        a, b = t.curve[i], t.curve[i + 1]
        saved = (a.train_days - b.train_days) / (b.gpus - a.gpus) * 1000
        assert f"Going on to {gpus(b.gpus)} saves {days(saved)} per extra 1,000 GPUs" in text
    for d in EXAMPLE_DEADLINES_DAYS:
        p = next(p for p in t.curve if p.train_days <= d)
        assert f"{d} days: {gpus(p.gpus)} ({days(p.train_days)})" in text


def test_how_many_gpus_with_a_deadline_names_the_budget(b200_deadline):
    t = b200_deadline.training
    assert t.sizing == "deadline" and t.train_days_budget is not None
    o = next(o for o in b200_deadline.options if o.option == t.deadline_sized_for)
    text = how_many_gpus(b200_deadline)
    said = deadline_sizing(
        b200_deadline.scenario.cluster.deadline_days, o.label, o.ready_day, o.first_result_day
    )
    assert f"The deadline needs {gpus(t.gpus)}. {said}." in text


def test_renting_cost_quotes_rates_with_units(example):
    fig = {a.key: a.value for a in example.assumptions}
    rent = next(o for o in example.options if o.option == "rent")
    text = renting_cost(example)
    assert f"rents at {usd_rate(fig['rent_usd_per_gpu_hour'], 'GPU-hour')}" in text
    assert f"costs {usd(rent.total_usd)} over 36 months (NPV {usd(rent.npv_usd)})" in text
    assert f"lists at {usd_rate(fig['cloud_on_demand_usd_per_gpu_hour'])} per GPU-hour" in text


def test_build_or_rent_answers_build_or_rent_never_cloud(example):
    by = {o.option: o for o in example.options}
    build, rent = by["build"], by["rent"]
    text = build_or_rent(example)
    cheap, dear = (build, rent) if build.npv_usd <= rent.npv_usd else (rent, build)
    assert text.startswith(
        f"{'Build' if cheap is build else 'Rent'}: {cheap.label} costs NPV {usd(cheap.npv_usd)} "
        f"against {usd(dear.npv_usd)} for {dear.label}, {usd(dear.npv_usd - cheap.npv_usd)}"
    )
    # the overall winner may be a cloud option: it is named only as a side note
    if example.recommendation.option not in ("build", "rent"):
        assert text.index(example.recommendation.label) > text.index("less over")


def test_deployment_lines_are_ready_days(example):
    lines = deployment(example)
    avail = [o for o in example.options if o.available]
    assert len(lines) == len(avail)
    for line, o in zip(lines, avail, strict=True):
        assert line.startswith(f"{o.label}: ready on {on_day(o.ready_day)}")
        assert f"first run done on {on_day(o.first_result_day)}" in line


def test_maintenance_quotes_the_gpus_own_failure_source(b200_deadline):
    text = maintenance(b200_deadline)
    t, ops = b200_deadline.training, b200_deadline.operations
    assert text.startswith(f"Expect about {ops.interruptions_per_week:.2g} job interruptions")
    assert f"{ops.failures_per_gpu_day:.2e} per GPU-day for B200" in text
    assert "no published Blackwell rate" in text  # not "Llama 3's rate for H100" as B200's own
    assert f"({gib(t.checkpoint.size_gib)} every {t.checkpoint.interval_min:.0f} min)" in text
    assert "BB" not in text


def test_scaling_efficiency_is_at_most_one_and_one_at_the_cheapest_point(example):
    curve = example.training.curve
    effs = [p.scaling_efficiency for p in curve]
    assert max(effs) == pytest.approx(1.0)
    # the steady state's efficiency (Planner.curve): whole-run GPU-hours / the factor
    steady = [
        p.gpu_hours / whole_run_factor(example.scenario.workload.shape().params_active, p.gpus)
        for p in curve
    ]
    for p, h in zip(curve, steady, strict=True):
        assert p.scaling_efficiency == pytest.approx(min(steady) / h)


def test_scaling_efficiencies_against_the_cheapest_point():
    # the second point is cheaper than the first: measured from the first it was 1.25
    assert scaling_efficiencies([100.0, 80.0, 160.0]) == [0.8, 1.0, 0.5]


def test_a_portfolios_maintenance_answer_says_whose_figures_it_quotes(fixture_catalogue):
    """A portfolio's interruptions and checkpoint are the engine's for its representative workload
    on one size; the answer read as if it were the whole portfolio's."""
    from app.scenario_files import PORTFOLIOS

    sc = Scenario.model_validate(json.loads(PORTFOLIOS["enterprise"].read_text()))
    c = compare(sc, fixture_catalogue, draws=200)
    text = maintenance(c)
    assert text.startswith(
        "For the portfolio's representative run (monthly-finetune as one full-parameter run of "
        f"its tokens on {c.portfolio.representative_gpus} × H100-SXM (sizes storage and "
        f"checkpoints); {c.portfolio.representative_model}), "
        f"expect about {c.operations.interruptions_per_week:.2g} job interruptions a week on "
        f"{gpus(c.training.gpus)}"
    )

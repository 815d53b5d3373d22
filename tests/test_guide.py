"""The Guide's six answers: each number in the text is the Comparison's own field, formatted by
app/formatting.py; and the scaling efficiency the curve reports never exceeds 100 %."""

from __future__ import annotations

import json
import pathlib

import pytest

from app.formatting import days, deadline_sizing, gib, gpus, on_day, plural, usd, usd_rate
from app.views.guide import (
    CLUSTER_ADDS,
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
from models.training.whole_run import RunFeatures, whole_run_factor
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
    assert text.endswith(CLUSTER_ADDS)  # what a cluster adds over a server (issue 32)


def test_server_branch_reached_with_a_typed_count(small_fixed):
    """Fixed mode used to leave min_gpus None, so the one-server answer could never show."""
    t = small_fixed.training
    assert t.sizing == "fixed" and t.min_gpus is not None and t.min_gpus <= 8
    text = server_or_cluster(small_fixed)
    assert text.startswith(f"One server is enough to hold it: the model fits on {gpus(t.min_gpus)}")
    one = next(p for p in t.curve if p.gpus == 8)
    assert f"On one full server a run takes {days(one.train_days)}." in text
    assert CLUSTER_ADDS not in text  # one server: nothing to say about what a cluster adds


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
    rate = next(a.value for a in example.assumptions if a.key == "discount_rate_pct_per_year")
    cheap, dear = (build, rent) if build.npv_usd <= rent.npv_usd else (rent, build)
    assert text.startswith(
        f"{'Build' if cheap is build else 'Rent'}, on net present value (at {rate:g} % a year, the one "
        f"basis of this answer): {cheap.label} costs {usd(cheap.npv_usd)} against "
        f"{usd(dear.npv_usd)} for {dear.label}, {usd(dear.npv_usd - cheap.npv_usd)}"
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
    assert text.startswith(
        f"On the {gpus(t.gpus)} this run is costed on, expect about "
        f"{ops.interruptions_per_week:.2g} job interruptions a week"
    )
    assert f"{ops.failures_per_gpu_day:.2e} per GPU-day for B200" in text
    assert "no published Blackwell rate" in text  # not "Llama 3's rate for H100" as B200's own
    assert f"({gib(t.checkpoint.size_gib)} every {t.checkpoint.interval_min:.0f} min)" in text
    assert "BB" not in text


def test_scaling_efficiency_is_at_most_one_and_one_at_the_cheapest_point(example):
    curve = example.training.curve
    effs = [p.scaling_efficiency for p in curve]
    assert max(effs) == pytest.approx(1.0)
    # the steady state's efficiency (Planner.curve): whole-run GPU-hours / the factor
    sc = example.scenario
    active, stack = sc.workload.shape().params_active, sc.execution.software_stack
    steady = [
        p.gpu_hours / whole_run_factor(RunFeatures(active, p.gpus, stack=stack)) for p in curve
    ]
    for p, h in zip(curve, steady, strict=True):
        assert p.scaling_efficiency == pytest.approx(min(steady) / h)


def test_scaling_efficiencies_against_the_cheapest_point():
    # the second point is cheaper than the first: measured from the first it was 1.25
    assert scaling_efficiencies([100.0, 80.0, 160.0]) == [0.8, 1.0, 0.5]


def test_a_portfolios_maintenance_answer_is_about_the_cluster_it_costs():
    """A portfolio's interruptions, staff and spares are the engine's for the cluster it costs;
    the answer says so, names the job its checkpoints are sized for, and says a staff share below
    one post as part of an engineer's time and spares in whole servers (issue 32: "0.4 staff, 0.4
    spare nodes" for 56 GPUs, beside a 4-GPU run)."""
    from app.scenario_files import PORTFOLIOS

    sc = Scenario.model_validate(json.loads(PORTFOLIOS["enterprise"].read_text()))
    c = compare(sc, load_catalogue(), draws=100)
    text = maintenance(c)
    ops = c.operations
    assert text.startswith(
        f"On the {gpus(c.training.gpus)} this portfolio is costed on, expect about "
        f"{ops.interruptions_per_week:.2g} job interruptions a week"
    )
    p = c.portfolio
    assert f"for its training job {p.representative_workload} ({p.representative_model})" in text
    assert ops.staff_fte < 1 and ops.spare_nodes < 1  # a small cluster: the words, not 0.2 staff
    assert (
        f"Owning takes part of one engineer's time ({ops.staff_fte:.1f} of a full-time post)"
        in (text)
    )
    assert f"1 spare server (the costs carry {ops.spare_nodes:.1f} of one)" in text


def test_cluster_cost_gives_the_hardware_as_capital_beside_the_running_cost(example):
    """ "How much does a cluster cost?": Build's hardware bought line by line (the lines sum to its
    hardware cost line), its other capital, the running cost over the term and the resale, then
    the rent (issue 32: the answer quoted only rental rates)."""
    text = answers(example)["How much does a cluster cost?"]
    build = example.option("build")
    b, capex = build.breakdown_usd, example.operations.hardware_capex_usd
    assert sum(capex.values()) == pytest.approx(b["hardware"])
    assert text.startswith(
        f"Buying {gpus(example.training.gpus)}: {usd(b['hardware'])} of hardware up front ("
        + ", ".join(f"{k} {usd(v)}" for k, v in capex.items() if v)
        + f"), and sales tax {usd(b['sales tax'])}."
    )
    running = {k: v for k, v in b.items() if k not in ("hardware", "sales tax", "residual value")}
    assert f"Running it over 36 months adds {usd(sum(running.values()))} (" in text
    assert all(f"{k} {usd(v)}" in text for k, v in running.items() if v)
    assert f"selling it at the end returns {usd(-b['residual value'])}" in text
    assert f"{build.label} in all: {usd(build.total_usd)} (NPV {usd(build.npv_usd)})." in text
    assert text.endswith(renting_cost(example))


def test_build_or_rent_reads_the_break_even_on_the_npv_basis(fixture_catalogue):
    """The enterprise sample's Build catches up with cloud on demand in month 36 nominally, never
    on NPV: the answer's one basis is NPV, so the break-even it quotes is the discounted one
    (OptionResult.breakeven_month_npv, each month's flow discounted as the NPV counts it)."""
    import numpy as np

    from app.scenario_files import PORTFOLIOS

    sc = Scenario.model_validate(json.loads(PORTFOLIOS["enterprise"].read_text()))
    c = compare(sc, load_catalogue(), draws=100)
    build = c.option("build")
    rate = next(a.value for a in c.assumptions if a.key == "discount_rate_pct_per_year") / 100
    for o in c.options:
        if not o.available or o is build:
            continue
        factors = (1 + rate) ** (-(np.arange(len(o.monthly_usd)) + 1) / 12)
        mine = np.cumsum(np.array(build.monthly_usd) * factors)
        theirs = np.cumsum(np.array(o.monthly_usd) * factors)
        assert mine[-1] == pytest.approx(build.npv_usd)
        ok = mine <= theirs + 1e-6
        expected = None if not ok[-1] else int(np.nonzero(~ok)[0][-1] + 2) if (~ok).any() else 1
        assert build.breakeven_month_npv[o.option] == expected, o.option
    assert build.breakeven_month["cloud:on_demand"] == 36
    assert build.breakeven_month_npv["cloud:on_demand"] is None


@pytest.mark.parametrize("name", ["run", "enterprise", "lab", "university"])
def test_no_answer_quotes_a_repository_path(fixture_catalogue, name):
    """A buyer reads the Guide: the GPU table's source notes cite docs/reference/... files, which
    are dropped from the answers (issue 32)."""
    import re

    from app.scenario_files import PORTFOLIOS

    data = EXAMPLE if name == "run" else json.loads(PORTFOLIOS[name].read_text())
    c = compare(Scenario.model_validate(data), fixture_catalogue, draws=100)
    for answer in answers(c).values():
        for line in [answer] if isinstance(answer, str) else answer:
            assert not re.search(r"[\w.-]+/[\w./-]+\.(md|csv|py)\b", line), line


def test_build_or_rent_quotes_the_discounted_break_even(example):
    """The answer's break-even month is OptionResult.breakeven_month_npv's, not the nominal one."""
    c = example.model_copy(deep=True)
    build = c.option("build")
    build.breakeven_month["rent"], build.breakeven_month_npv["rent"] = 9, 31
    assert "Owning catches up with renting in month 31." in build_or_rent(c)
    build.breakeven_month["rent"], build.breakeven_month_npv["rent"] = 9, None
    assert "catches up" not in build_or_rent(c)

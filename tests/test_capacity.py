"""Capacity against demand (models/portfolio/capacity.py): nothing is lost, more capacity never starts a run
later, exactly enough capacity leaves neither queue nor idle, what cannot fit says why, a delayed
run finishes late by its delay, and a single run takes the training core's run length."""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from models.errors import InputError
from models.portfolio import capacity as cap
from models.portfolio.capacity import simulate, slot_capacity
from models.portfolio.demand import (
    SIZERS,
    SLOT_DAYS,
    SLOT_HOURS,
    SLOTS_PER_MONTH,
    Sizing,
    demand_of,
    derive_demand,
)
from models.portfolio.fifo import fifo_starts
from models.portfolio.workloads import Finetune, Pretrain, Serve, Steady
from models.scenario import Cluster, Scenario, Workload
from models.training.plan import plan_training
from models.units import DAYS_PER_MONTH, HOURS_PER_MONTH
from tests.builders import gang, plain_fifo, portfolios


@settings(max_examples=150, derandomize=True)
@given(portfolios())
def test_nothing_is_lost_served_plus_queued_plus_beyond_term_is_demanded(case):
    demand, capacity = case
    r = simulate(demand, capacity)
    tol = 1e-7 * max(r.demanded_gpu_hours, 1.0)
    assert r.served_gpu_hours + r.queued_gpu_hours + r.beyond_term_gpu_hours == pytest.approx(
        r.demanded_gpu_hours, abs=tol
    )
    for w in r.workloads:
        assert w.served_gpu_hours + w.queued_gpu_hours + w.beyond_term_gpu_hours == pytest.approx(
            w.demanded_gpu_hours, abs=tol
        )
    # what is served is served on the capacity, and the rest of it is idle
    for m in range(r.months):
        cap = capacity[m] * HOURS_PER_MONTH
        assert r.served_gpu_hours_by_month[m] <= cap + tol
        assert r.served_gpu_hours_by_month[m] + r.idle_gpu_hours_by_month[m] == pytest.approx(
            cap, abs=tol
        )


@settings(max_examples=100, derandomize=True)
@given(portfolios(), st.data())
def test_slot_capacity_from_a_ready_day_with_a_gap_conserves_and_serves_nothing_before(case, data):
    """Capacity slot by slot (slot_capacity): GPUs from a ready day, retired on a later day and
    back from a day after that (a hardware refresh's gap). Nothing is lost, nothing is served
    or started before the ready day (gang runs only in the slots held whole), and no month
    serves more than its slots hold."""
    demand, capacity = case
    term = demand.months * DAYS_PER_MONTH
    gpus = float(max(capacity))
    ready = data.draw(st.floats(0, term))
    retire = data.draw(st.floats(ready, term))
    back = data.draw(st.floats(retire, term))
    slots, whole = (
        slot_capacity(gpus, ready, demand.months, retire, whole=w)
        + slot_capacity(gpus, back, demand.months, whole=w)
        for w in (False, True)
    )
    r = simulate(demand, slots, whole_gpus=whole)
    tol = 1e-7 * max(r.demanded_gpu_hours, 1.0)
    assert r.served_gpu_hours + r.queued_gpu_hours + r.beyond_term_gpu_hours == pytest.approx(
        r.demanded_gpu_hours, abs=tol
    )
    # a slot counts as held whole from `ready` less the engine's 1e-9 days, and a slot ending on
    # the ready day holds a share of rounding size (1e-13 GPUs)
    assert all(x is None or x >= ready - 1e-9 for x in _starts(r))
    held = slots.reshape(demand.months, -1).sum(axis=1) * SLOT_HOURS
    for m in range(r.months):
        assert r.served_gpu_hours_by_month[m] <= held[m] + tol
        if (m + 1) * DAYS_PER_MONTH <= ready:
            assert r.served_gpu_hours_by_month[m] <= 1e-9


def _starts(r):
    return [x for w in r.workloads for x in w.runs_table.start_day]


def _never(r):
    return [x == "never fits" for w in r.workloads for x in w.runs_table.status]


@settings(max_examples=150, derandomize=True)
@given(portfolios(), st.data())
def test_more_capacity_never_starts_a_run_later_nor_leaves_more_unfinished(case, data):
    demand, capacity = case
    extra = data.draw(st.lists(st.integers(0, 200), min_size=len(capacity), max_size=len(capacity)))
    more = [c + e for c, e in zip(capacity, extra, strict=True)]
    small, big = simulate(demand, capacity), simulate(demand, more)
    # the documented exception: more capacity can admit a run that could never fit before, which
    # then holds up the strict first-in first-out queue behind it
    assume(_never(small) == _never(big))
    inf = float("inf")
    for a, b in zip(_starts(small), _starts(big), strict=True):
        assert (b if b is not None else inf) <= (a if a is not None else inf) + 1e-9
    for ws, wb in zip(small.workloads, big.workloads, strict=True):
        if ws.delay_days_max is not None:
            assert wb.delay_days_max is not None
            assert wb.delay_days_max <= ws.delay_days_max + 1e-9
    tol = 1e-7 * max(small.demanded_gpu_hours, 1.0)
    unfinished = small.queued_gpu_hours + small.beyond_term_gpu_hours
    assert big.queued_gpu_hours + big.beyond_term_gpu_hours <= unfinished + tol
    assert big.served_gpu_hours >= small.served_gpu_hours - tol


def test_more_capacity_runs_work_past_the_term_that_otherwise_waits():
    """Why the property above bounds queued + beyond-term, not beyond-term alone: a run that
    could not start in the term starts late in it with more capacity, and runs past its end."""
    w = Pretrain(name="p", start_month=0, duration_months=1)
    blocker = Pretrain(name="b", start_month=0, duration_months=1)
    d = demand_of([blocker, w], [gang(60, 400.0), gang(60, 60.0)], 12)
    one, two = simulate(d, [60.0] * 12), simulate(d, [60.0] * 11 + [120.0])
    assert one.workloads[1].queued_gpu_hours == pytest.approx(60 * 60 * 24)
    assert two.workloads[1].beyond_term_gpu_hours > 0
    assert two.beyond_term_gpu_hours > one.beyond_term_gpu_hours


@pytest.mark.parametrize("utilisation", [100.0, 50.0])
def test_a_flat_steady_portfolio_on_exactly_enough_capacity_has_no_queue_and_no_idle(utilisation):
    ws = [
        Steady(name="a", team="x", gpus=64, utilisation_pct=utilisation, duration_months=24),
        Steady(name="b", team="y", gpus=32, utilisation_pct=utilisation, duration_months=24),
    ]
    d = demand_of(ws, [SIZERS["steady"](w, "") for w in ws], 24)
    need = 96 * utilisation / 100
    r = simulate(d, [need] * 24)
    assert r.queued_gpu_hours == 0 and r.idle_gpu_hours == pytest.approx(0, abs=1e-6)
    assert r.served_gpu_hours == pytest.approx(need * 24 * HOURS_PER_MONTH)
    assert [w.delay_days_max for w in r.workloads] == [0, 0]
    # one GPU short: a backlog that grows, served first-in first-out, and a delay
    short = simulate(d, [need - 1] * 24)
    assert short.queued_gpu_hours == pytest.approx(24 * HOURS_PER_MONTH)
    assert short.workloads[0].delay_days_max > 0
    assert short.queued_gpu_hours_by_month == pytest.approx(
        [(m + 1) * HOURS_PER_MONTH for m in range(24)]
    )


def test_a_gang_run_larger_than_the_capacity_is_never_served_and_says_why():
    big = Pretrain(name="big", start_month=0, duration_months=1)
    small = Finetune(name="ft", start_month=1, duration_months=1, jobs_per_month=1)
    d = demand_of([big, small], [gang(512, 10.0), gang(8, 1.0)], 12)
    r = simulate(d, [256.0] * 12)
    out = r.workloads[0]
    assert out.runs_table.status[0] == "never fits" and out.runs_started == 0
    assert out.queued_gpu_hours == pytest.approx(512 * 10 * 24)
    assert "512 GPUs at once" in out.never_served and "at most 256" in out.never_served
    # it does not hold up the queue: the job behind it runs on release
    assert r.workloads[1].delay_days_max == 0 and r.workloads[1].never_served is None
    # the serving that takes priority counts against it too
    s = Serve(name="s", duration_months=12)
    d2 = demand_of(
        [s, Pretrain(name="p", duration_months=1)],
        [Sizing(kind="serve", gang=False, gpus_by_month=[100.0] * 12), gang(200, 5.0)],
        12,
    )
    r2 = simulate(d2, [256.0] * 12)
    assert "at most 156" in r2.workloads[1].never_served


def test_a_run_that_waits_two_months_finishes_two_months_later():
    w = Pretrain(name="p", start_month=0, duration_months=1)
    d = demand_of([w], [gang(64, 20.0)], 12)
    r = simulate(d, [0.0, 0.0] + [64.0] * 10)
    run = r.workloads[0].runs_table
    assert run.delay_days[0] == pytest.approx(2 * DAYS_PER_MONTH)
    assert run.finish_day[0] == pytest.approx(2 * DAYS_PER_MONTH + 20.0)
    assert r.queued_gpu_hours_by_month[:3] == pytest.approx([64 * 20 * 24] * 2 + [0])
    assert r.delayed_gpu_hours == pytest.approx(64 * 20 * 24)


def test_a_workloads_delay_counts_the_wait_for_go_live_its_service_wait_does_not():
    """delay_days_max/mean are a run's start less its release (go-live included); wait_days_max
    counts from the later of release and go-live. Three figures, three lists: they once shared
    one list, so every delay read the service-level wait (0 here, not two months)."""
    gangs = [Pretrain(name="p", duration_months=1), Finetune(name="f", duration_months=1)]
    flat = Steady(name="s", gpus=8, utilisation_pct=50.0, duration_months=12)
    fine = Sizing(kind="finetune", gang=True, gpus_per_run=8, run_days=1.0)
    d = demand_of([*gangs, flat], [gang(64, 20.0), fine, SIZERS["steady"](flat, "")], 12)
    r = simulate(d, [0.0, 0.0] + [128.0] * 10)
    p, f, s = r.workloads
    two_months = 2 * DAYS_PER_MONTH  # the flat backlog goes first: a few days more
    assert two_months <= p.delay_days_max < two_months + 3
    assert p.delay_days_mean == p.delay_days_max  # one run
    assert p.wait_days_max < 3
    assert f.delay_days_max >= 2 * DAYS_PER_MONTH - 1e-6 and f.wait_days_max < 3
    assert s.delay_days_max >= two_months - 1
    assert s.delay_days_mean < s.delay_days_max


def test_runs_queue_first_in_first_out_and_a_small_job_never_overtakes():
    first = Pretrain(name="first", start_month=0, duration_months=1)
    big = Pretrain(name="big", start_month=1, duration_months=1)
    small = Finetune(name="small", start_month=2, duration_months=1, jobs_per_month=1)
    d = demand_of([first, big, small], [gang(64, 60.0), gang(128, 10.0), gang(8, 1.0)], 12)
    r = simulate(d, [128.0] * 12)
    first_end = r.workloads[0].runs_table.finish_day[0]
    big_start = r.workloads[1].runs_table.start_day[0]
    assert big_start == pytest.approx(round(first_end / SLOT_DAYS + 0.5) * SLOT_DAYS)
    # 64 GPUs sat free while the big run waited, but the small job queued behind it
    assert r.workloads[2].runs_table.start_day[0] >= big_start


def test_work_past_the_term_is_reported_not_dropped():
    w = Pretrain(name="p", start_month=11, duration_months=1)
    d = demand_of([w], [gang(10, 45.0)], 12)
    r = simulate(d, [10.0] * 12)
    run = r.workloads[0].runs_table
    assert run.status[0] == "running at term end"
    term_days = 12 * DAYS_PER_MONTH
    assert r.beyond_term_gpu_hours == pytest.approx(10 * 24 * (run.finish_day[0] - term_days))
    assert r.served_gpu_hours + r.beyond_term_gpu_hours == pytest.approx(10 * 45 * 24)


def test_a_single_run_portfolio_takes_the_training_core_run_length():
    w = Pretrain(name="p", model="llama3-8b", tokens=1e11, gpus=64, duration_months=1)
    plan = plan_training(
        Scenario(workload=Workload(model="llama3-8b", tokens=1e11), cluster=Cluster(gpus=64))
    )
    d = derive_demand([w], "H100-SXM", 12)
    r = simulate(d, [64.0] * 12)
    run = r.workloads[0].runs_table
    assert run.finish_day[0] - run.start_day[0] == pytest.approx(plan.train_days)
    assert r.served_gpu_hours == pytest.approx(plan.gpu_hours)
    assert r.idle_gpu_hours == pytest.approx(64 * 12 * HOURS_PER_MONTH - plan.gpu_hours)


def test_the_capacity_needs_one_finite_figure_a_month():
    w = Steady(name="u")
    d = demand_of([w], [SIZERS["steady"](w, "")], 12)
    for bad in ([10.0] * 11, [10.0] * 11 + [float("nan")], [10.0] * 11 + [-1.0]):
        with pytest.raises(InputError) as exc:
            simulate(d, bad)
        assert exc.value.field == "capacity"


@settings(max_examples=60, derandomize=True)
@given(portfolios())
def test_the_queue_starts_runs_as_the_plain_fifo_does(case):
    # the compiled queue (models/portfolio/fifo.py) takes shortcuts (a size that found no start is not
    # searched again, the loop ends when the queue blocks): same starts
    demand, capacity = case
    p = cap.prepare(demand)
    slots = demand.months * SLOTS_PER_MONTH
    late = [0.0] * (demand.months // 3) + capacity[demand.months // 3 :]  # runs pile up
    for c in (capacity, late):
        _, cap_slot = cap._capacity(c, demand.months)
        flat_served = cap._flat(p, cap_slot)[3]
        avail = cap_slot - flat_served / SLOT_HOURS
        assert fifo_starts(*p.fifo, avail).tolist() == plain_fifo(p, avail, slots)[0]


@settings(max_examples=60, derandomize=True)
@given(portfolios())
def test_a_summary_is_the_simulation_without_its_outcomes(case):
    """`simulate(..., outcomes=False)` (a capacity search's candidates) gives every figure the
    whole simulation gives, bit for bit, and the per-workload facts the planner reads from it
    (runs finished, the gang workloads' GPU-hours a month), without the outcome records."""
    demand, capacity = case
    whole = simulate(demand, capacity)
    summary = simulate(demand, capacity, outcomes=False)
    assert summary.workloads == [] and whole.workloads
    assert summary.model_dump(exclude={"workloads"}) == whole.model_dump(exclude={"workloads"})
    assert summary.runs_finished_by_workload == [w.runs_finished for w in whole.workloads]
    # and the count is the runs the table says finished (not one computation checked by itself)
    assert summary.runs_finished_by_workload == [
        w.runs_table.status.count("finished") for w in whole.workloads
    ]
    gang = [0.0] * demand.months
    for w, d in zip(whole.workloads, demand.workloads, strict=True):
        if d.gang:
            gang = [a + b for a, b in zip(gang, w.served_gpu_hours_by_month, strict=True)]
    assert summary.gang_served_gpu_hours_by_month == gang

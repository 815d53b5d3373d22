"""The capacity search's speed-ups change no result (issue 15): the FIFO loop on Python floats
starts every run where the numpy loop it replaced did, a probe's unmet GPU-hours are exactly the
whole simulation's, and a plan searched with probes equals one searched with whole simulations."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings

from app import scenario_files
from models.portfolio.capacity import _flat, prepare, simulate, unmet_gpu_hours
from models.portfolio.demand import SLOT_DAYS, SLOT_HOURS, SLOTS_PER_MONTH
from pricing.planning.planner import Planner, plan_portfolio
from tests.builders import portfolios, sample, scenario


def _earliest(free: np.ndarray, gpus: float, t0: int, n: int) -> int | None:
    """The window search as it was (numpy): the first slot t ≥ t0 where free[t : t + n] (cut at
    the term end) holds `gpus` in every slot."""
    end = len(free)
    if t0 >= end:
        return None
    ok = np.concatenate([[0], np.cumsum(free[t0:] >= gpus - 1e-9)])
    t = np.arange(end - t0)
    stop = np.minimum(t + n, end - t0)
    found = np.flatnonzero(ok[stop] - ok[t] == stop - t)
    return int(found[0]) + t0 if len(found) else None


def _reference_starts(demand, capacity) -> list[int]:
    """The gang loop as it was (numpy, one run at a time): start slot per run, −1 if none."""
    p = prepare(demand)
    slots = demand.months * SLOTS_PER_MONTH
    cap_slot = np.repeat(np.asarray(capacity, dtype=float), SLOTS_PER_MONTH)
    avail = cap_slot - _flat(p, cap_slot)[3] / SLOT_HOURS
    start = np.full(len(p.wl), -1)
    free, prev_start = avail.copy(), 0
    for k in p.order.tolist():
        g, n, r = p.gpus[k], int(p.length[k]), int(p.rel[k])
        t = _earliest(free, g, max(r, prev_start), n) if prev_start < slots else None
        if t is None:
            if _earliest(avail, g, r, n) is not None:
                prev_start = slots
            continue
        free[t : t + n] -= g
        start[k] = prev_start = t
    return start.tolist()


@settings(max_examples=150, derandomize=True)
@given(portfolios())
def test_runs_start_where_the_numpy_loop_started_them_and_probes_equal_simulations(case):
    demand, capacity = case
    r = simulate(demand, capacity)
    # runs are in workload order, then release order, in Demand.runs and in the run tables
    starts = [-1 if s is None else round(s / SLOT_DAYS) for w in r.workloads for s in w.runs_table.start_day]  # fmt: skip
    assert starts == _reference_starts(demand, capacity)
    assert unmet_gpu_hours(demand, capacity) == r.queued_gpu_hours + r.beyond_term_gpu_hours


@pytest.mark.parametrize("name", sorted(scenario_files.PORTFOLIOS))
def test_a_plan_searched_with_probes_equals_one_searched_with_whole_simulations(
    fixture_catalogue, name, monkeypatch
):
    s = scenario(sample(name))
    fast = plan_portfolio(s, fixture_catalogue)[1].plans

    def whole(self, option, gpus):
        cap = gpus * self.share(self.ready(option, gpus))
        return self.unmet(simulate(self.demand, cap))

    monkeypatch.setattr(Planner, "probe", whole)
    slow = plan_portfolio(s, fixture_catalogue)[1].plans
    for o in slow:
        assert (fast[o].size_gpus, fast[o].ready_day) == (slow[o].size_gpus, slow[o].ready_day)
        assert fast[o].result == slow[o].result


@settings(max_examples=40, derandomize=True)
@given(portfolios())
def test_a_simulation_kept_on_its_demand_is_the_one_made_afresh(case):
    """`Prepared` keeps each simulation and probe by its capacity: asked again, it returns the
    kept result, which equals one simulated without it (summary, whole, probe)."""
    demand, capacity = case
    p = prepare(demand)
    for outcomes in (False, True):
        first = simulate(demand, capacity, p, outcomes=outcomes)
        assert simulate(demand, list(capacity), p, outcomes=outcomes) is first
        assert first == simulate(demand, capacity, outcomes=outcomes)
    assert unmet_gpu_hours(demand, capacity, p) == unmet_gpu_hours(demand, capacity)
    assert unmet_gpu_hours(demand, capacity, p) == unmet_gpu_hours(demand, capacity, p)
    other = np.asarray(capacity, dtype=float) + 1.0
    assert simulate(demand, other, p) == simulate(demand, other)

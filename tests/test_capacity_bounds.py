"""Issue 27: the work any accepted scenario can ask for is bounded. A share link of 50 teams × 65,536
GPUs × 30 runs a month held a server for a minute: the queue's never-fits check ran a numpy pass
per waiting run (54,000 of them), and nothing capped what one scenario may release. Now the
schema refuses more than MAX_GANG_RUNS runs and jobs in the term, the demand more than
MAX_DEMAND_TERM_MULTIPLE × the largest cluster's GPU-months, both naming the field; the queue
checks each run size once, searches by events, and a size search starts from the size another
option found. bench/bench_heaviest.py times the heaviest accepted scenarios against the example."""

from __future__ import annotations

import base64
import json
import zlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app import share_link
from app.scenario_files import PORTFOLIOS
from bench.bench_heaviest import giant as _attack
from models.errors import InputError
from models.options import OPTION_IDS
from models.portfolio import capacity as cap
from models.portfolio.demand import SLOTS_PER_MONTH, check_gpu_months
from models.portfolio.fifo import _first_window, _last_window
from models.portfolio.workloads import (
    MAX_DEMAND_TERM_MULTIPLE,
    MAX_GANG_RUNS,
    MAX_GPUS,
    Finetune,
    Pretrain,
    Steady,
    check_runs,
    release_months,
    runs_in_term,
)
from models.record import construct
from models.scenario import Scenario
from models.units import HOURS_PER_MONTH
from pricing.planning.planner import Planner, plan_portfolio
from tests.builders import portfolios, sample


@settings(max_examples=300, derandomize=True)
@given(
    st.sampled_from(["pretrain", "finetune"]),
    st.floats(0.01, 30),
    st.integers(0, 119),
    st.integers(1, 120),
    st.integers(1, 120),
)
def test_runs_in_term_counts_the_releases_inside_the_term(kind, rate, start, duration, months):
    rate_field = "runs_per_month" if kind == "pretrain" else "jobs_per_month"
    record = Pretrain if kind == "pretrain" else Finetune
    w = record(name="w", start_month=start, duration_months=duration, **{rate_field: rate})
    assert runs_in_term(w, months) == len([m for m in release_months(w) if m < months])


def test_a_portfolio_releasing_more_runs_than_the_cap_is_refused_naming_the_busiest_field():
    # a pre-training workload of 30 runs a month for 60 months (1,800 runs) and three fine-tuning
    # workloads that together with it release just over the cap, each fewer than 1,800
    each = (MAX_GANG_RUNS - 1800) // 3 + 1
    assert each < 1800
    ws = [Pretrain(name="p", runs_per_month=30, duration_months=60)] + [
        Finetune(name=f"f{i}", jobs_per_month=each / 60, duration_months=60) for i in range(3)
    ]
    assert sum(runs_in_term(w, 60) for w in ws) > MAX_GANG_RUNS
    with pytest.raises(InputError) as e:
        check_runs(ws, 60)
    assert e.value.field == "workloads[0].runs_per_month"  # p releases the most
    assert f"at most {MAX_GANG_RUNS:,}" in str(e.value)
    check_runs(ws[:3], 60)  # without one of them: no error
    check_runs(ws, 50)  # the same workloads in a shorter term release fewer: no error


def test_the_attack_link_is_refused_before_any_pricing_naming_the_field():
    data = _attack()
    with pytest.raises(ValueError) as e:  # pydantic wraps the InputError of the validator
        Scenario.model_validate(data)
    assert "workloads[0].runs_per_month" in str(e.value)
    # the same through a share link (739 characters in the issue): a LinkError naming the field
    raw = json.dumps(data, separators=(",", ":")).encode()
    token = base64.urlsafe_b64encode(zlib.compress(raw, 9)).decode().rstrip("=")
    assert len(token) < 1000  # a short link
    with pytest.raises(share_link.LinkError) as e2:
        share_link.decode(token)
    assert "workloads[0].runs_per_month" in str(e2.value)


def test_demand_over_twice_the_largest_cluster_is_refused_naming_the_biggest_workload():
    months = 24
    cap_hours = MAX_DEMAND_TERM_MULTIPLE * MAX_GPUS * months * HOURS_PER_MONTH
    ws = [Steady(name="a", gpus=8), Steady(name="b", gpus=8)]
    check_gpu_months(ws, [cap_hours / 2, cap_hours / 2], months, "workloads")  # at the cap: ok
    with pytest.raises(InputError) as e:
        check_gpu_months(ws, [cap_hours / 2, cap_hours / 2 * 1.01], months, "workloads")
    assert e.value.field == "workloads[1].gpus"
    assert "GPU-months" in str(e.value)


def test_a_portfolio_asking_for_too_many_gpu_months_is_refused_by_the_planner(fixture_catalogue):
    # within the runs cap, but 4 × MAX_GPUS GPUs held for 60 months of 60: twice the cap
    s = Scenario.model_validate(
        {
            "version": 2,
            "workloads": [
                {
                    "kind": "steady",
                    "name": f"s{i}",
                    "gpus": MAX_GPUS,
                    "utilisation_pct": 100,
                    "duration_months": 60,
                }
                for i in range(5)
            ],  # fmt: skip
            "term": {"months": 60},
        }
    )
    with pytest.raises(InputError) as e:
        plan_portfolio(s, fixture_catalogue)
    assert e.value.field.startswith("workloads[") and e.value.field.endswith(".gpus")


@settings(max_examples=200, derandomize=True)
@given(
    st.lists(st.sampled_from([0.0, 1.0, 2.0, 4.0, 8.0]), min_size=1, max_size=40),
    st.sampled_from([1.0, 2.0, 3.0, 8.0]),
    st.integers(1, 12),
)
def test_last_fits_says_what_a_search_from_each_release_would(avail, g, n):
    a = np.array(avail)
    last = cap._last_fits(a, [(g, n)])[(g, n)]
    assert _last_window(a, g - 1e-9, n) == last  # the compiled queue's own
    for r in range(len(a)):
        assert (_plain_earliest(avail, g - 1e-9, r, n, len(a)) is not None) == (r <= last)


def _plain_earliest(free, thr, t, n, end):
    for s in range(t, end):
        if min(free[s : min(s + n, end)]) >= thr:
            return s
    return None


@settings(max_examples=300, derandomize=True)
@given(
    st.lists(st.sampled_from([0.0, 1.0, 2.0, 3.0]), min_size=1, max_size=60),
    st.sampled_from([0.5, 1.5, 2.5]),
    st.integers(0, 60),
    st.integers(1, 20),
)
def test_the_one_pass_search_finds_the_first_window_a_plain_scan_finds(free, thr, t, n):
    plain = _plain_earliest(free, thr, t, n, len(free))
    assert _first_window(np.array(free), thr, t, n) == (-1 if plain is None else plain)


def test_runs_that_never_fit_are_passed_over_and_said_so():
    """5,000 runs of 64 GPUs on a capacity of 32: each is passed over (none blocks the queue, none
    starts), and each workload says why."""
    from models.portfolio.demand import Demand, GangRuns, WorkloadDemand

    months, runs = 24, 5000
    rel = np.linspace(0, months * SLOTS_PER_MONTH - 1, runs).astype(int)
    zeros = [0.0] * months
    demand = Demand(
        months=months, gpu="", gpu_hours=zeros, peak_gpus=zeros, gpu_hours_by_team={},
        peak_gpus_by_team={}, gpu_hours_by_kind={}, peak_gpus_by_kind={},
        demanded_gpu_hours=0.0, beyond_term_gpu_hours=0.0,
        workloads=[WorkloadDemand(
            name="w", team="t", kind="pretrain", gang=True, basis="", demanded_gpu_hours=0.0,
            runs=runs, gpus_per_run=64, run_days=2.0, held_gpus_by_month=zeros,
            busy_gpus_by_month=zeros)],
        runs=GangRuns(workload=[0] * runs, release_month=(rel / SLOTS_PER_MONTH).tolist(),
                      release_slot=rel.tolist(), gpus=[64] * runs, run_days=[2.0] * runs),
    )  # fmt: skip
    r = cap.simulate(demand, [32.0] * months)
    assert r.workloads[0].runs_started == 0
    assert set(r.workloads[0].runs_table.status) == {"never fits"}
    assert "needs 64 GPUs at once" in r.workloads[0].never_served


def _sizes(scenario, catalogue, hint: bool) -> dict[str, tuple]:
    if not hint:  # every size search from the whole range, as before the hint
        original = Planner.fixed

        def fixed(self, option):
            self._size_hint = 0
            return original(self, option)

        Planner.fixed = fixed
    try:
        plans = plan_portfolio(scenario, catalogue)[1].plans
    finally:
        if not hint:
            Planner.fixed = original
    return {o: (p.size_gpus, p.ready_day, p.result) for o, p in plans.items()}


@pytest.mark.parametrize("name", sorted(PORTFOLIOS))
def test_a_size_search_from_another_options_size_finds_the_size_a_whole_search_finds(
    fixture_catalogue, name
):
    data = sample(name)
    data["options"] = {"compare": list(OPTION_IDS)}
    s = Scenario.model_validate(data)
    assert _sizes(s, fixture_catalogue, True) == _sizes(s, fixture_catalogue, False)


@settings(max_examples=25, derandomize=True, deadline=None)
@given(portfolios(), st.sampled_from([0.6, 0.8, 1.0]))
def test_the_hinted_search_equals_the_whole_search_on_random_demands(case, share):
    """The planner's size search on random demands (tests/builders.py's portfolios) with a
    hint at `share` of the whole search's answer gives the whole search's answer."""
    demand, _ = case
    planner = object.__new__(Planner)
    planner.node = 1
    unmet = {}

    def probe(option, gpus):
        if gpus not in unmet:
            c = np.full(demand.months, float(gpus))
            unmet[gpus] = cap.unmet_gpu_hours(demand, c)
        return unmet[gpus]

    planner.probe = probe
    lo = max([*demand.runs.gpus, 1])
    hi = max(lo, int(np.ceil(max(demand.peak_gpus))))
    target = probe(None, hi) + 1e-6
    whole_lo, whole_hi = lo, hi
    if probe(None, lo) <= target:
        whole_hi = lo
    while whole_hi - whole_lo > 1:
        mid = (whole_lo + whole_hi) // 2
        whole_lo, whole_hi = (whole_lo, mid) if probe(None, mid) <= target else (mid, whole_hi)
    hint = max(lo + 1, int(whole_hi * share))
    if not lo < hint < hi:
        return
    b_lo, b_hi = planner.bracket(None, target, lo, hint, hi)
    while b_hi - b_lo > 1:
        mid = (b_lo + b_hi) // 2
        b_lo, b_hi = (b_lo, mid) if probe(None, mid) <= target else (mid, b_hi)
    monotone = all(
        (probe(None, g) <= target) <= (probe(None, g + 1) <= target) for g in range(lo, hi)
    )
    if monotone:
        assert b_hi == whole_hi


@settings(max_examples=200, derandomize=True)
@given(
    st.lists(st.floats(0, 1e6), min_size=1, max_size=30),
    st.lists(st.floats(-1, 40), min_size=1, max_size=20),
    st.integers(1, 4),
)
def test_the_rows_interpolated_at_once_are_np_interps_numbers(steps, x, n_rows):
    """simulate's flat work interpolates every workload's cumulative demand in one pass; each
    number is the one np.interp gives (byte for byte: the samples' JSON must not move)."""
    rows = np.cumsum([[v * (k + 1) for v in steps] for k in range(n_rows)], axis=1)
    xs = np.clip(np.array(x), 0, len(steps) - 1)
    grid = np.arange(len(steps), dtype=float)
    expected = np.array([np.interp(xs, grid, row) for row in rows])
    assert np.array_equal(cap._interp_rows(xs, rows), expected)


def test_construct_builds_what_model_construct_builds():
    values = {
        "name": "a", "team": "t", "kind": "pretrain", "demanded_gpu_hours": 1.0,
        "served_gpu_hours": 0.5, "queued_gpu_hours": 0.5, "beyond_term_gpu_hours": 0.0,
        "served_gpu_hours_by_month": [0.5, 0.0], "delay_days_max": 3.0, "delay_days_mean": 1.5,
        "runs": 2, "runs_started": 1, "runs_finished": 1, "never_served": None,
        "runs_table": cap.RunTable(),
    }  # fmt: skip
    fast = construct(cap.WorkloadOutcome, values)
    slow = cap.WorkloadOutcome.model_construct(**values)
    assert fast == slow
    assert fast.model_dump_json() == slow.model_dump_json()
    assert fast.model_fields_set == slow.model_fields_set
    partial = construct(cap.RunTable, start_day=[1.0])  # not every field: model_construct's
    assert partial == cap.RunTable.model_construct(start_day=[1.0])

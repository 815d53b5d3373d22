"""Which work a portfolio's bridge takes (issue 30, pricing/planning/bridging.py): a run released
before a fixed-size option's go-live goes on the bridge only when the option's own queue would
make it wait longer than its workload's `max_wait_days` (from the later of its release and the
bridge's first day); one that can wait stays in the option's queue, so the bridge is paid for
the work that needs it. The service level and the bridge line agree on every sample."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from app.share_link import decode, encode
from models.portfolio import capacity as cap
from models.portfolio.demand import SLOT_DAYS, SLOT_HOURS, SLOTS_PER_MONTH
from models.portfolio.fifo import fifo_bridged
from models.portfolio.service import WAIT_TOLERANCE_DAYS
from models.scenario import Scenario
from pricing.catalogue.loader import load_catalogue
from pricing.planning.planner import plan_portfolio
from tests.builders import app, plain_fifo, portfolios, sample


def _lab(max_wait_days: float | None = None) -> Scenario:
    """The lab sample on Rent (the bridge, ready on day 11) and Managed (ready on day 20) at a
    fixed 1,032 GPUs: its 8B run (512 GPUs) is released on day 0, 9 days before Managed's
    go-live counted from the bridge's first day."""
    data = sample("lab")
    data["options"]["compare"] = ["rent", "managed"]
    data["cluster"] = {**data.get("cluster", {}), "gpus": 1032}
    if max_wait_days is not None:
        data["workloads"][0]["max_wait_days"] = max_wait_days
    return Scenario.model_validate(data)


def _plans(scenario: Scenario) -> dict:
    return plan_portfolio(scenario, load_catalogue())[1].plans


def _run(plan, name: str):
    return next(o for o in plan.result.workloads if o.name == name).runs_table


def test_a_run_that_can_wait_for_the_go_live_stays_in_the_options_queue():
    managed = _plans(_lab())["managed"]  # the 8B run's maximum wait: 14 days (pre-training)
    run = _run(managed, "base-8b")
    assert run.start_day[0] >= managed.ready_day  # it waits for Managed's own GPUs
    wait = run.start_day[0] - max(run.release_day[0], managed.bridge.start_day)
    assert 5 < wait <= 14 + WAIT_TOLERANCE_DAYS
    # the bridge holds none of its 512 GPUs: only the evaluations' jobs, a few GPUs at a time
    assert managed.bridge.held_gpu_hours.sum() < 512 * 24
    assert managed.service.met


def test_a_run_that_cannot_wait_goes_on_the_bridge_and_finishes_there():
    managed = _plans(_lab(max_wait_days=3))["managed"]
    run = _run(managed, "base-8b")
    b = managed.bridge
    assert run.start_day[0] == pytest.approx(b.start_day, abs=SLOT_DAYS)
    assert run.start_day[0] < managed.ready_day < run.finish_day[0]  # it straddles the go-live
    assert b.served_gpu_hours.sum() >= run.served_gpu_hours[0] * (1 - 1e-9)
    assert managed.service.met


@pytest.fixture(scope="module", params=["enterprise", "lab", "university"])
def sample_plans(request):
    return request.param, _plans(Scenario.model_validate(sample(request.param)))


def test_the_service_level_and_the_bridge_line_agree_on_every_sample(sample_plans):
    name, plans = sample_plans
    limits = {w.name: w.max_wait_days for w in Scenario.model_validate(sample(name)).workloads}
    for option, plan in plans.items():
        if plan.bridge is None or plan.bridge.start_day >= plan.ready_day:
            continue
        first, on_bridge = plan.bridge.start_day, 0.0
        for o in plan.result.workloads:
            t = o.runs_table
            for rel, start, served in zip(
                t.release_day, t.start_day, t.served_gpu_hours, strict=True
            ):
                if rel >= plan.ready_day - 1e-9 or start is None:
                    continue
                if start < plan.ready_day - 1e-9:  # started on the bridge: it pays for it
                    on_bridge += served
                else:  # left in the option's queue: it meets its maximum wait there
                    wait = start - max(rel, first)
                    assert wait <= limits[o.name] + WAIT_TOLERANCE_DAYS + 1e-9, (name, option)
        # the bridge line serves every run it took (and the serving and steady work before go-live)
        assert plan.bridge.served_gpu_hours.sum() >= on_bridge * (1 - 1e-9), (name, option)
        assert plan.service.met, (name, option)


@settings(max_examples=60, derandomize=True)
@given(portfolios(), st.floats(0.0, 1.0), st.integers(0, 20))
def test_the_bridged_queue_starts_runs_as_the_plain_one_does(case, share, days):
    # the go-live falls among the runs' releases, the bridge's first slot a quarter of it
    demand, capacity = case
    p = cap.prepare(demand)
    slots = demand.months * SLOTS_PER_MONTH
    late = [0.0] * (demand.months // 3) + capacity[demand.months // 3 :]
    live = int(share * (int(p.rel.max(initial=0)) + 1)) + 1
    first = live // 4
    bstart = np.where(p.rel < live, np.maximum(p.rel, first), -1).astype(np.int64)
    limit = np.full(len(p.wl), days, dtype=np.int64)
    for c in (capacity, late):
        _, cap_slot = cap._capacity(c, demand.months)
        avail = cap_slot - cap._flat(p, cap_slot)[3] / SLOT_HOURS
        start, pinned = fifo_bridged(*p.fifo, avail, bstart[p.order], limit[p.order])
        assert (start.tolist(), pinned.tolist()) == plain_fifo(p, avail, slots, bstart, limit)


def test_compare_says_which_runs_the_bridge_takes_and_at_what_price():
    # the enterprise sample: Build goes live on day 93; of its 4 fine-tuning jobs released
    # before, the one released within 3 days of its go-live waits for it (a 3-day maximum wait)
    at = app(scenario=sample("enterprise"))
    at.session_state["_page"] = "compare"
    at.run()
    assert not at.exception and not at.error
    said = " ".join(m.value for m in [*at.markdown, *at.caption])
    shown = re.sub(r"\\(.)", r"\1", said).replace("\u200b", "")
    build = next(x for x in re.split(r"(?<=\.)\s|\n", shown) if "Build runs the work" in x)
    assert "the bridge takes 3 that would wait longer than their maximum wait, and 1 waits" in build
    assert (
        "at $2.35 a GPU-hour (the dedicated providers' 1-year rate, a short reservation)" in build
    )


def test_the_workload_page_sets_the_bridge_price_and_the_link_carries_it():
    at = app(scenario=sample("enterprise"))
    box = next(b for b in at.selectbox if b.key == "p_bridge_price")
    assert box.value == "committed_1y"
    box.set_value("on_demand").run()
    data = at.session_state["scenario"]
    assert data["options"]["bridge_price"] == "on_demand"
    assert decode(encode(Scenario.model_validate(data))).options.bridge_price == "on_demand"
    # bridging off: no price to choose
    next(t for t in at.toggle if t.key == "p_bridge").set_value(False).run()
    assert not [b for b in at.selectbox if b.key == "p_bridge_price"]


def test_a_bad_bridge_price_is_refused_naming_the_field():
    data = sample("enterprise")
    data["options"]["bridge_price"] = "cheap"
    with pytest.raises(ValidationError) as exc:
        Scenario.model_validate(data)
    assert "bridge_price" in str(exc.value) and "committed_1y" in str(exc.value)

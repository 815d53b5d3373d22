"""Bridging in a portfolio (issue 30, pricing/planning/bridging.py): demand released before a
fixed-size option's go-live runs on the cheapest hourly option compared, priced as its `bridge`
line, shown as a Gantt phase and named in Compare, the PDF and the text report; a run started on
the bridge finishes there; serving before the go-live is bridged at its demand; waits count from
release (the bridge's first day), so service levels compare on equal terms; `options.bridge:
false` keeps the work waiting for the go-live."""

from __future__ import annotations

import re

import numpy as np
import pytest

from app import report_pdf, report_text
from app.formatting import bridge_lines
from models.scenario import Scenario
from models.units import HOURS_PER_MONTH
from pricing.catalogue.loader import load_catalogue
from pricing.engine import compare
from pricing.planning.planner import plan_portfolio
from tests.builders import GENERATED, app, sample
from tests.readback import pdf_text

DRAWS = 100


def _scenario(name: str, **options) -> Scenario:
    data = sample(name)
    data["options"] |= options
    return Scenario.model_validate(data)


@pytest.fixture(scope="module")
def enterprise():
    return compare(_scenario("enterprise"), draws=DRAWS)


@pytest.fixture(scope="module")
def enterprise_off():
    return compare(_scenario("enterprise", bridge=False), draws=DRAWS)


@pytest.fixture(scope="module")
def lab_plans():
    return plan_portfolio(_scenario("lab"), load_catalogue())[1].plans


def _rate(c, key: str) -> float:
    return next(a.value for a in c.assumptions if a.key == key)


def test_a_late_option_runs_the_work_released_before_its_go_live_on_the_hourly_bridge(enterprise):
    build, rent = enterprise.option("build"), enterprise.option("rent")
    assert build.bridged_by == "rent" and build.work_start_day == rent.ready_day
    assert build.ready_day > rent.ready_day + 60
    # its fine-tuning jobs finish on the bridge long before its own cluster is ready
    assert build.first_result_day < rent.ready_day + 2 < build.ready_day
    phase = next(p for p in build.timeline if p.phase == "bridged on Rent dedicated")
    assert (phase.start_day, phase.end_day) == (rent.ready_day, build.ready_day)
    assert enterprise.option("cloud:on_demand").bridged_by is None  # ready before the bridge


def test_the_bridge_line_is_the_gpu_hours_it_holds_at_the_bridge_rate(lab_plans):
    c = compare(_scenario("lab"), draws=DRAWS)
    b = lab_plans["build"].bridge
    rate = _rate(c, "bridge_rent_usd_per_gpu_hour")
    support = _rate(c, "rent_support_pct") / 100
    hired = b.held_gpu_hours.sum() * rate * (1 + support)
    line = c.option("build").breakdown_usd["bridge"]
    # its rent and support, plus a setup fee and storage while hired: a few % more
    assert hired < line < hired * 1.05
    assert "bridge" not in c.option("rent").breakdown_usd  # the lab's work starts after day 11
    # an option's own GPUs idle for all they hold less what they serve, not what its bridge
    # serves (Managed's run goes on on the bridge after its go-live)
    for option in ("build", "managed"):
        o, plan = c.option(option), lab_plans[option]
        own = np.array(o.served_gpu_hours_by_month) - plan.bridge.served_gpu_hours
        held = np.array(o.capacity_gpus) * HOURS_PER_MONTH
        assert o.idle_gpu_hours == pytest.approx(np.maximum(held - own, 0.0).sum())


def test_a_run_started_on_the_bridge_finishes_there(lab_plans):
    managed = lab_plans["managed"]
    run = next(o for o in managed.result.workloads if o.kind == "pretrain").runs_table
    start, finish = run.start_day[0], run.finish_day[0]
    b = managed.bridge
    assert start == pytest.approx(b.start_day, abs=1.1) and start < managed.ready_day < finish
    # the bridge serves the whole run (GPUs × its days), past the go-live too
    gpu_hours = run.served_gpu_hours[0]
    assert b.served_gpu_hours.sum() >= gpu_hours * (1 - 1e-9)
    assert b.held_gpu_hours.sum() >= gpu_hours  # hired until the run ends, in whole days
    # and the option's own GPUs are busy with the rest only
    own = sum(managed.result.served_gpu_hours_by_month) - b.served_gpu_hours.sum()
    assert own < sum(managed.result.served_gpu_hours_by_month) - gpu_hours + 1.0


def test_serving_before_the_go_live_is_bridged_and_the_service_level_counts_from_release(
    enterprise, enterprise_off
):
    build = enterprise.option("build")
    waits = {d.name: d for d in build.workload_delays}
    # the service waits only for the bridge's first capacity (about day 11, as on every option:
    # nothing is ready sooner), not for Build's go-live on day 93
    bridge = enterprise.option(build.bridged_by)
    assert waits["assistant-api"].delay_days_max <= bridge.ready_day + 1.05 < build.ready_day
    assert waits["assistant-api"].delay_days_mean < 0.05
    assert build.service_level.met
    off = enterprise_off.option("build")
    assert not off.service_level.met  # the backlog of the months before go-live clears late


def test_bridging_off_keeps_every_portfolio_option_waiting_for_its_go_live(enterprise_off):
    for o in enterprise_off.options:
        assert o.bridged_by is None and "bridge" not in o.breakdown_usd
        assert all(not p.phase.startswith("bridged on") for p in o.timeline)
    build = enterprise_off.option("build")
    assert build.first_result_day > build.ready_day
    assert bridge_lines(enterprise_off) == []


def test_the_bridge_honours_public_cloud_allowed():
    plans = {}
    for allowed in (True, False):
        data = sample("enterprise")
        data["options"]["compare"] = ["build", "cloud:on_demand"]
        data["constraints"] = {"public_cloud_allowed": allowed}
        plans[allowed] = plan_portfolio(Scenario.model_validate(data), load_catalogue())[1].plans
    # cloud on demand, the only hourly option compared, bridges where public cloud is allowed
    assert plans[True]["build"].bridge.option == "cloud:on_demand"
    assert plans[False]["build"].bridge is None  # none else to hire by the hour: the work waits


def test_the_text_report_and_the_pdf_name_the_bridge(enterprise, monkeypatch):
    lines = bridge_lines(enterprise)
    build = next(x for x in lines if x.startswith("Build runs the work released before"))
    assert "on Rent dedicated capacity, hired by the hour, from day 11" in build
    assert "its bridge line" in build
    assert build in report_text.comparison_report(enterprise)
    monkeypatch.setattr(report_pdf, "charts_available", lambda *a, **k: False)
    text = re.sub(
        r"\s+", " ", pdf_text(report_pdf.build_pdf(enterprise, link="", generated=GENERATED))
    )
    assert re.sub(r"\s+", " ", build) in text


def test_compare_names_the_bridge_in_portfolio_mode():
    data = sample("enterprise")
    at = app(scenario=data)
    at.session_state["_page"] = "compare"
    at.run()
    assert not at.exception and not at.error
    said = " ".join(m.value for m in [*at.markdown, *at.caption])
    shown = re.sub(r"\\(.)", r"\1", said).replace("\u200b", "")
    c = compare(Scenario.model_validate(data))
    lines = bridge_lines(c)
    assert any(x.startswith("Build runs the work released before") for x in lines)
    for line in lines:
        assert line in shown, line


def test_the_workload_page_turns_portfolio_bridging_off():
    at = app(scenario=sample("enterprise"))
    toggle = next(t for t in at.toggle if t.key == "p_bridge")
    assert toggle.value is True
    toggle.set_value(False).run()
    assert at.session_state["scenario"]["options"]["bridge"] is False

"""Bridging to go-live (issue 30, "the same work delivered"): in a one-run scenario an option ready
later than the bridge (the cheapest of rent, managed and cloud on demand by the hour) runs the
work on the bridge's capacity until its go-live, priced as its own line, so options deliver the
same work from the same day; runs an option finishes alone are not bridged; with bridging off
and different work the answer ranks per delivered unit and says so."""

import copy

import pytest

from app.charts.timeline import _gantt_items
from app.formatting import bridge_lines, usd_rate
from app.recommendation_text import recommendation_text
from app.report_text import comparison_report
from models.scenario import Scenario
from pricing.catalogue.loader import load_catalogue
from pricing.decision import touches
from pricing.engine import compare
from tests.builders import app

HOURS_PER_DAY = 24
#: the issue's case: 1,024 H100 over 60 months at 85 % use (Build ready on day 181, rent on 11)
STEADY = {
    "workload": {"model": "llama3-70b", "tokens": 1.5e13},
    "cluster": {"gpu": "H100-SXM", "gpus": 1024},
    "usage": {"mode": "utilisation", "utilisation_pct": 85},
    "term": {"months": 60},
    "options": {"compare": ["build", "rent", "managed", "cloud:on_demand"]},
}


def _steady(**options) -> Scenario:
    data = copy.deepcopy(STEADY)
    data["options"] |= options
    return Scenario.model_validate(data)


@pytest.fixture(scope="module")
def bridged():
    return compare(_steady(), draws=200)


@pytest.fixture(scope="module")
def unbridged():
    return compare(_steady(bridge=False), draws=200)


def _figure(c, key: str) -> float:
    return next(a.value for a in c.assumptions if a.key == key)


def test_a_late_option_runs_on_the_cheapest_hourly_capacity_until_go_live(bridged):
    build, rent = bridged.option("build"), bridged.option("rent")
    rate = _figure(bridged, "bridge_rent_usd_per_gpu_hour")
    assert rate < _figure(bridged, "cloud_on_demand_usd_per_gpu_hour")  # so rent bridges
    assert build.bridged_by == "rent" and build.work_start_day == rent.ready_day
    assert rent.bridged_by is None and bridged.option("cloud:on_demand").bridged_by is None
    # the bridge's GPU-hours at its rate (options.bridge_price), its support on that, its setup
    # fee, and a little storage (no staff: the buyer's own team is already hired)
    hours = 1024 * HOURS_PER_DAY * (build.ready_day - build.work_start_day)
    support = _figure(bridged, "rent_support_pct") / 100
    setup = 128 * _figure(bridged, "rent_setup_fee_usd_per_node")
    base = hours * rate * (1 + support) + setup
    line = build.breakdown_usd["bridge"]
    assert base <= line <= base * 1.01, (line, base)


def test_the_bridge_price_is_an_input_and_the_bridge_line_says_which_it_used(bridged):
    # the default: a short reservation at the dedicated providers' 1-year rate (pricing/bridge.py)
    on_demand = compare(_steady(bridge_price="on_demand"), draws=200)
    b, od = bridged.option("build"), on_demand.option("build")
    assert (b.bridge_price, od.bridge_price) == ("committed_1y", "on_demand")
    assert _figure(bridged, "bridge_rent_usd_per_gpu_hour") == pytest.approx(
        load_catalogue().rental_price("H100-SXM", "committed_1y", provider_kind="marketplace")
    )
    assert b.bridge_usd_per_gpu_hour == _figure(bridged, "bridge_rent_usd_per_gpu_hour")
    assert od.bridge_usd_per_gpu_hour == _figure(on_demand, "rent_on_demand_usd_per_gpu_hour")
    assert b.bridge_usd_per_gpu_hour < od.bridge_usd_per_gpu_hour
    # only the bridge line moves, in proportion to the rate (its support and storage with it)
    assert b.breakdown_usd.keys() == od.breakdown_usd.keys()
    for key, value in b.breakdown_usd.items():
        if key != "bridge":
            assert value == pytest.approx(od.breakdown_usd[key], rel=1e-12), key
    share = b.breakdown_usd["bridge"] / od.breakdown_usd["bridge"]
    assert share == pytest.approx(b.bridge_usd_per_gpu_hour / od.bridge_usd_per_gpu_hour, rel=0.01)
    line = next(x for x in bridge_lines(bridged) if x.startswith("Build"))
    rate = usd_rate(b.bridge_usd_per_gpu_hour)
    assert (
        f"at {rate} a GPU-hour (the dedicated providers' 1-year rate, a short reservation)" in line
    )
    assert "on-demand rate" in next(x for x in bridge_lines(on_demand) if x.startswith("Build"))


def test_every_bridged_option_delivers_the_bridges_work_and_the_rest_of_its_cost_is_its_own(
    bridged, unbridged
):
    rent = bridged.option("rent")
    for option in ("build", "managed"):
        o, alone = bridged.option(option), unbridged.option(option)
        assert o.delivered_gpu_hours == pytest.approx(rent.delivered_gpu_hours, rel=1e-9)
        assert alone.delivered_gpu_hours < rent.delivered_gpu_hours * 0.999  # what it fixes
        assert o.first_result_day == pytest.approx(o.work_start_day + o.train_days)
        for line, usd in alone.breakdown_usd.items():
            if line != "egress":  # the bridged option ships the weights of more runs
                assert o.breakdown_usd[line] == pytest.approx(usd, rel=1e-12), line
        egress = o.breakdown_usd.get("egress", 0.0) - alone.breakdown_usd.get("egress", 0.0)
        assert o.total_usd == pytest.approx(alone.total_usd + o.breakdown_usd["bridge"] + egress)


def test_the_report_the_gantt_and_the_recommendation_say_it(bridged):
    build = bridged.option("build")
    lines = bridge_lines(bridged)
    assert lines[0].startswith(
        "Build runs the work on Rent dedicated capacity, hired by the hour, from day 11 to its "
        "go-live on day 181"
    )
    assert lines[0] in comparison_report(bridged)
    phase = build.timeline[-1]
    assert phase.phase == "bridged on Rent dedicated"
    assert (phase.start_day, phase.end_day) == (build.work_start_day, build.ready_day)
    run = _gantt_items(build, True)[-1]
    assert run[0] == "training" and run[1] == build.work_start_day  # the run starts on the bridge


def test_runs_an_option_finishes_alone_are_not_bridged():
    """The example: six runs that every option finishes in the term deliver the same work."""
    c = compare(Scenario(), decision=False)
    assert all(o.bridged_by is None and "bridge" not in o.breakdown_usd for o in c.options)


def test_runs_an_option_cannot_finish_alone_start_on_the_bridge():
    data = copy.deepcopy(STEADY)
    data["usage"] = {"mode": "runs", "runs": 200}
    data["options"]["compare"] = ["build", "rent"]
    c = compare(Scenario.model_validate(data), decision=False)
    build, rent = c.option("build"), c.option("rent")
    assert not rent.completes_workload  # nobody finishes 200 runs: the work is what fits
    assert build.bridged_by == "rent"
    assert build.runs_completed == pytest.approx(rent.runs_completed, rel=1e-9)
    off = compare(Scenario.model_validate(data | {"options": data["options"] | {"bridge": False}}))
    assert off.option("build").runs_completed < build.runs_completed


def test_with_bridging_off_different_work_is_ranked_per_delivered_unit(unbridged):
    rec = unbridged.recommendation
    assert rec.ranked_per == "GPU-hour"
    ok = [o for o in unbridged.options if o.available and o.completes_workload]
    best = min(ok, key=lambda o: o.npv_usd / o.delivered_gpu_hours)
    assert rec.option == best.option
    assert rec.npv_per_unit_usd == pytest.approx(best.npv_usd / best.delivered_gpu_hours)
    assert rec.probability_cheapest is None  # the draws rank NPVs, not this
    text = recommendation_text(rec)
    assert "lowest cost per delivered GPU-hour" in text and "bridging to go-live is off" in text
    assert not bridge_lines(unbridged)


def test_no_public_cloud_bridges_on_a_dedicated_rental():
    sc = _steady(bridge=True).model_dump(mode="json")
    sc["constraints"] = {"public_cloud_allowed": False}
    sc["options"]["compare"] = ["build", "cloud:on_demand", "managed"]
    c = compare(Scenario.model_validate(sc), decision=False)
    assert c.option("build").bridged_by == "managed"


def test_a_bridge_price_touches_the_option_it_bridges():
    key = "cloud_on_demand_usd_per_gpu_hour"
    assert not touches(key, "build")
    assert touches(key, "build", {"build": "cloud:on_demand"})
    assert not touches(key, "build", {"build": "rent"})


def test_the_workload_page_turns_bridging_off():
    at = app()
    toggle = next(t for t in at.toggle if t.key == "w_bridge")
    assert toggle.value is True
    toggle.set_value(False).run()
    assert at.session_state["scenario"]["options"]["bridge"] is False
    assert "bridge" not in Scenario().model_dump(mode="json")["options"]  # its JSON as before

"""The buyer's constraints (issue 30): with public cloud ruled out, no option that puts work on
public cloud is offered, planned, priced or recommended; a hybrid that bursts to cloud is not
offered; every other option's figures are what they were; every surface says so."""

import copy
import json

import pytest
from pydantic import ValidationError

from app import share_link
from app.report_pdf import build_pdf
from app.report_text import comparison_report
from app.views import guide
from models.constraints import NO_CLOUD_BURST, NO_PUBLIC_CLOUD, Constraints, excluded
from models.errors import InputError
from models.options import OPTIONS
from models.scenario import Scenario
from pricing.engine import compare
from tests.builders import app, sample
from tests.portal_app import goto
from tests.readback import flat, pdf_text

CLOUD = {"cloud:on_demand", "cloud:spot", "cloud:committed_1y", "cloud:committed_3y"}
EVERY = ["build", "rent", "managed", *sorted(CLOUD), "hybrid"]


def _enterprise(allowed: bool) -> Scenario:
    """The enterprise sample, every option compared (its cloud on-demand is cheapest)."""
    data = copy.deepcopy(sample("enterprise"))
    data["options"]["compare"] = EVERY
    if not allowed:
        data["constraints"] = {"public_cloud_allowed": False}
    return Scenario.model_validate(data)


@pytest.fixture(scope="module")
def pair():
    return compare(_enterprise(True), draws=200), compare(_enterprise(False), draws=200)


def test_the_table_rules_out_every_cloud_option_and_the_cloud_burst_only():
    ruled = excluded(Constraints(public_cloud_allowed=False))
    assert set(ruled) == CLOUD | {"hybrid"}
    assert {ruled[o] for o in CLOUD} == {NO_PUBLIC_CLOUD}
    assert ruled["hybrid"] == NO_CLOUD_BURST
    assert excluded(Constraints()) == {}
    # the registry says it: a new option on public cloud is ruled out by its record alone
    assert {o.id for o in OPTIONS if o.uses_public_cloud} == CLOUD | {"hybrid"}


def test_no_public_cloud_offers_and_recommends_none_and_leaves_the_rest_as_they_were(pair):
    free, ruled = pair
    assert ruled.recommendation.option not in CLOUD | {"hybrid"}
    for o in ruled.options:
        if o.option in CLOUD | {"hybrid"}:
            assert not o.available and o.note in (NO_PUBLIC_CLOUD, NO_CLOUD_BURST), o
            assert o.total_usd == 0 and o.delivered_gpu_hours == 0
        else:
            before = free.option(o.option)
            assert o.available
            assert (o.total_usd, o.npv_usd, o.ready_day) == (
                before.total_usd,
                before.npv_usd,
                before.ready_day,
            )
    # the draws rank the options that meet the service level (Build keeps work waiting here)
    assert set(ruled.uncertainty.options) <= {"build", "rent", "managed"}
    assert all(
        {f.cheapest_now, f.cheapest_after}.isdisjoint(CLOUD | {"hybrid"}) for f in ruled.flip_points
    )


def test_where_cloud_wins_the_constraint_decides():
    """Steady use at 10 % of 256 GPUs: paying per busy hour wins by far, until it is ruled out."""
    data = {
        "cluster": {"gpus": 256},
        "usage": {"mode": "utilisation", "utilisation_pct": 10},
        "options": {"compare": ["build", "rent", "cloud:on_demand"]},
    }
    free = compare(Scenario.model_validate(data), decision=False)
    assert free.recommendation.option == "cloud:on_demand"
    no = {**data, "constraints": {"public_cloud_allowed": False}}
    assert compare(Scenario.model_validate(no), decision=False).recommendation.option == "rent"


def test_a_one_run_scenario_leaves_cloud_out_too():
    data = {"options": {"compare": ["build", "rent", "cloud:on_demand", "cloud:spot"]}}
    c = compare(Scenario.model_validate({**data, "constraints": {"public_cloud_allowed": False}}))
    assert [o.option for o in c.options if o.available] == ["build", "rent"]
    assert c.recommendation.option in ("build", "rent")


def test_only_cloud_options_and_no_cloud_is_refused_naming_the_field():
    data = {
        "options": {"compare": ["cloud:on_demand", "cloud:spot"]},
        "constraints": {"public_cloud_allowed": False},
    }
    with pytest.raises(ValidationError) as e:
        Scenario.model_validate(data)
    cause = e.value.errors()[0]["ctx"]["error"]
    assert isinstance(cause, InputError) and cause.field == "constraints.public_cloud_allowed"
    assert "Build, Rent dedicated or Managed" in str(cause)
    with pytest.raises(ValidationError):
        Scenario.model_validate({**data, "constraints": {"public_cloud_allowed": "maybe"}})


def test_a_scenario_without_constraints_writes_no_constraints_and_a_link_keeps_them():
    assert "constraints" not in json.loads(Scenario().model_dump_json())
    sc = _enterprise(False)
    back = Scenario.model_validate(share_link.decode_link(share_link.encode(sc)).scenario)
    assert back.constraints.public_cloud_allowed is False
    assert back == sc


def test_the_text_report_the_pdf_and_the_guide_say_so(pair):
    free, ruled = pair
    text = comparison_report(ruled)
    assert "Constraints: no public cloud" in text
    assert (
        "Constraints: no public cloud (data residency); not offered: Cloud on-demand, Cloud spot, "
        "Cloud 1-yr commit, Cloud 3-yr commit, Own base + cloud burst\n"
    ) in text
    assert "Constraints:" not in comparison_report(free)
    pdf = flat(pdf_text(build_pdf(ruled, link="")))
    assert (
        flat("Constraints: no public cloud (data residency); not offered: Cloud on-demand") in pdf
    )
    assert "Public cloud on-demand lists at" in guide.renting_cost(free)
    quoted = guide.renting_cost(ruled)
    assert "lists at" not in quoted and "ruled out by your constraints" in quoted


def test_the_workload_toggle_rules_cloud_out_and_compare_says_it_once():
    at = app(scenario=_enterprise(True).model_dump(mode="json", exclude_defaults=True))
    toggle = next(t for t in at.toggle if t.key == "p_public_cloud")  # the portfolio's settings
    assert toggle.value is True
    toggle.set_value(False).run()
    assert at.session_state["scenario"]["constraints"]["public_cloud_allowed"] is False
    at = goto(at, "compare")
    assert not at.exception, at.exception
    infos = [i.value for i in at.info if "no public cloud" in i.value]  # markdown-escaped
    assert len(infos) == 1 and "Cloud on\\-demand" in infos[0]
    warned = " ".join(w.value for w in at.warning)
    assert "ruled out" not in warned  # said once, in the line above, not as a warning per option


def test_the_single_run_page_has_the_toggle_too():
    at = app()
    toggle = next(t for t in at.toggle if t.key == "w_public_cloud")
    toggle.set_value(False).run()
    assert not at.exception, at.exception
    assert at.session_state["scenario"]["constraints"] == {"public_cloud_allowed": False}
    at = goto(at, "guide")
    assert not at.exception, at.exception
    said = "\n".join(m.value for m in at.markdown)
    assert "ruled out by your constraints" in said and "Public cloud on-demand lists" not in said

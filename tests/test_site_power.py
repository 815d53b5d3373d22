"""The buyer's site (issue 30): an owned cluster beyond the site's stated power or cooling gets a
facility upgrade (its own lead time and cost) or, with upgrades not allowed, is not offered; a
quoted hardware lead time moves the ready day; every option shows the power it draws; nothing
moves without a stated constraint."""

import json

import pytest

from app import share_link
from app.cli import main as cli
from app.formatting import constraints_line
from app.report_pdf import build_pdf
from app.report_text import comparison_report
from models.scenario import Scenario
from pricing.engine import compare
from tests.builders import UTILISED, app, sample, scenario
from tests.portal_app import goto
from tests.readback import field_errors, flat, pdf_text

#: RUNS: 64 H100 in 8 nodes of 10.2 kW (DGX H100, gpus.csv) = 81.6 kW of IT load
IT_KW = 8 * 10.2


def _cost(sc: Scenario):
    return compare(sc, decision=False)


def _phase(o, name: str):
    return next(p for p in o.timeline if p.phase == name)


@pytest.fixture(scope="module")
def free():
    return _cost(scenario())


def test_without_a_stated_site_nothing_moves_and_the_power_is_shown(free):
    for o in free.options:
        assert "facility upgrade" not in o.breakdown_usd
        assert o.power.upgrade == "" and o.power.upgrade_usd is None
        assert o.power.it_power_kw == pytest.approx(IT_KW)
        assert o.power.facility_power_kw == pytest.approx(IT_KW * 1.54)  # Uptime 2025 PUE
        assert o.power.on_buyer_site is (o.option == "build")
    assert constraints_line(free) == []
    assert "Power drawn (in all at PUE 1.54): 82 kW of IT load, 126 kW in all" in (
        comparison_report(free)
    )


def test_beyond_the_site_build_pays_an_upgrade_and_waits_for_it(free):
    c = _cost(scenario(constraints={"site_power_kw": 50}))
    build, before = c.option("build"), free.option("build")
    extra = IT_KW - 50
    assert build.breakdown_usd["facility upgrade"] == pytest.approx(extra * 11_700)  # C&W 2025
    assert build.power.upgrade == "+32 kW of power"
    assert build.power.upgrade_usd == pytest.approx(extra * 11_700)
    facility = _phase(build, "facility")
    assert "facility upgrade (+32 kW of power): 4–6 months" in facility.note
    assert facility.end_day - facility.start_day == pytest.approx(5 * 365.25 / 12, rel=0.02)
    assert build.power.upgrade_days == pytest.approx(facility.end_day - facility.start_day)
    assert build.ready_day > before.ready_day
    for o in ("rent", "managed", "cloud:on_demand"):  # at the provider's: the same figures
        assert c.option(o).npv_usd == free.option(o).npv_usd
        assert c.option(o).power.upgrade == ""
    text = comparison_report(c)
    assert "Build needs a facility upgrade beyond your site: +32 kW of power" in text
    assert "Constraints: site with 50 kW of IT power (facility upgrades allowed)" in text


def test_a_stated_site_that_fits_is_existing_space():
    """1,024 H100 draw 1,306 kW: without a site, a colocation build-out (4-6 months); on a
    stated site of 2 MW, the fit-out of existing space (4-8 weeks), so Build is ready sooner."""
    big = {"cluster__gpus": 1024}
    unsaid = _cost(scenario(**big)).option("build")
    stated = _cost(scenario(**big, constraints={"site_power_kw": 2000})).option("build")
    assert "colocation build-out" in _phase(unsaid, "facility").note
    assert "existing colocation space" in _phase(stated, "facility").note
    assert stated.ready_day < unsaid.ready_day
    assert "facility upgrade" not in stated.breakdown_usd and stated.power.upgrade == ""


def test_without_upgrades_an_owned_cluster_beyond_the_site_is_not_offered(free):
    sc = scenario(constraints={"site_power_kw": 50, "facility_upgrade_allowed": False})
    c = compare(sc, draws=100)
    build = c.option("build")
    assert not build.available and build.total_usd == 0
    assert "constraints.facility_upgrade_allowed" in build.note and "+32 kW" in build.note
    assert c.recommendation.option != "build"
    for o in ("rent", "managed", "cloud:on_demand"):
        assert c.option(o).npv_usd == free.option(o).npv_usd
    assert constraints_line(c) == [
        "Constraints: site with 50 kW of IT power (no upgrades); not offered: Build"
    ]


def test_gb200_needs_a_liquid_ready_site_and_b200_does_not():
    gb = _cost(scenario(cluster__gpu="GB200", constraints={"site_cooling": "air"}))
    build = gb.option("build")
    kw = build.power.it_power_kw
    assert build.power.cooling == "liquid"
    assert build.breakdown_usd["facility upgrade"] == pytest.approx(kw * 2000)  # STL 2026
    assert "liquid-cooling retrofit" in build.power.upgrade
    liquid = _cost(scenario(cluster__gpu="GB200", constraints={"site_cooling": "liquid"}))
    assert "facility upgrade" not in liquid.option("build").breakdown_usd
    b200 = _cost(scenario(cluster__gpu="B200", constraints={"site_cooling": "air"}))
    assert b200.option("build").power.cooling == "air"
    assert "facility upgrade" not in b200.option("build").breakdown_usd


def test_a_quoted_lead_time_moves_the_ready_day_and_the_bridge():
    site = {"site_power_kw": 10_000}
    sooner = _cost(scenario(UTILISED, constraints={**site, "hardware_lead_time_weeks": 4}))
    later = _cost(scenario(UTILISED, constraints={**site, "hardware_lead_time_weeks": 40}))
    a, b = sooner.option("build"), later.option("build")
    assert b.ready_day - a.ready_day == pytest.approx(36 * 7)
    assert "40 weeks as quoted to the buyer" in _phase(b, "procurement").note
    assert b.bridged_by is not None  # steady use: bridged to its go-live, for longer
    assert b.breakdown_usd["bridge"] > a.breakdown_usd.get("bridge", 0.0)


def test_a_portfolio_plans_build_against_the_site():
    data = sample("lab")
    data["constraints"] = {"site_power_kw": 500, "facility_upgrade_allowed": False}
    ruled = _cost(Scenario.model_validate(data))
    assert not ruled.option("build").available
    assert "constraints.site_power_kw" in ruled.option("build").note
    data["constraints"] = {"site_power_kw": 500}
    upgraded = _cost(Scenario.model_validate(data)).option("build")
    assert upgraded.breakdown_usd["facility upgrade"] == pytest.approx(
        (upgraded.power.it_power_kw - 500) * 11_700
    )


@pytest.mark.parametrize(
    ("constraints", "field", "allowed"),
    [
        ({"site_power_kw": -5}, "constraints.site_power_kw", "more than 0 and at most"),
        ({"site_power_kw": 1e12}, "constraints.site_power_kw", "more than 0 and at most"),
        ({"hardware_lead_time_weeks": 500}, "constraints.hardware_lead_time_weeks", "at most 156"),
        ({"site_cooling": "water"}, "constraints.site_cooling", "'air' or 'liquid'"),
    ],
)
def test_bad_site_figures_are_refused_naming_the_field(
    tmp_path, capsys, constraints, field, allowed
):
    data = json.loads(scenario().model_dump_json())
    data["constraints"] = constraints
    path = tmp_path / "s.json"
    path.write_text(json.dumps(data))
    assert cli(["compare", str(path)]) == 2
    said = capsys.readouterr().err
    assert field in said and allowed in said and "Traceback" not in said


def test_a_link_keeps_the_site_and_the_pdf_shows_it():
    sc = scenario(
        constraints={"site_power_kw": 50, "site_cooling": "air", "hardware_lead_time_weeks": 20}
    )
    back = Scenario.model_validate(share_link.decode_link(share_link.encode(sc)).scenario)
    assert back == sc and back.constraints.site_power_kw == 50
    c = compare(sc, draws=100)
    pdf = flat(pdf_text(build_pdf(c, link="")))
    assert flat("Build needs a facility upgrade beyond your site: +32 kW of power") in pdf
    assert flat("Power drawn (in all at PUE 1.54): 82 kW of IT load") in pdf
    assert flat("quoted hardware lead time 20 weeks") in pdf


def test_the_workload_page_sets_the_site_and_compare_shows_the_upgrade():
    at = app(scenario=json.loads(scenario().model_dump_json(exclude_defaults=True)))
    power = next(t for t in at.text_input if t.key == "w_site_power")
    power.set_value("50").run()
    at.selectbox(key="w_site_cooling").set_value("air").run()
    assert not at.exception, at.exception
    assert at.session_state["scenario"]["constraints"] == {
        "site_power_kw": 50,
        "site_cooling": "air",
    }
    at = goto(at, "compare")
    assert not at.exception, at.exception
    warned = " ".join(w.value for w in at.warning).replace("\\", "").replace("\u200b", "")
    assert "Build needs a facility upgrade beyond your site: +32 kW of power" in warned
    said = " ".join(c.value for c in at.caption).replace("\\", "").replace("\u200b", "")
    assert "Power drawn (in all at PUE 1.54): 82 kW of IT load" in said


def test_the_workload_page_names_the_field_of_a_bad_power():
    at = app(scenario=json.loads(scenario().model_dump_json(exclude_defaults=True)))
    next(t for t in at.text_input if t.key == "w_site_power").set_value("-5").run()
    assert not at.exception, at.exception
    said = field_errors(at)
    assert "constraints.site_power_kw" in said and "more than 0 and at most" in said


def test_the_portfolio_page_has_the_site_inputs_too():
    at = app(scenario=sample("lab"))
    next(t for t in at.text_input if t.key == "p_site_power").set_value("500").run()
    at.toggle(key="p_upgrade").set_value(False).run()
    assert not at.exception, at.exception
    assert at.session_state["scenario"]["constraints"] == {
        "site_power_kw": 500,
        "facility_upgrade_allowed": False,
    }
    at = goto(at, "compare")
    assert not at.exception, at.exception
    infos = " ".join(i.value for i in at.info).replace("\\", "").replace("\u200b", "")
    assert "site with 500 kW of IT power (no upgrades); not offered: Build" in infos

"""The Workload page reaches every schema field a single run uses (issue 17): the providers that
price Rent and cloud, the loan length, the restart time; its terms carry plain-words help
(app/glossary.py); it ends with the step to Compare."""

from __future__ import annotations

import copy

from streamlit.testing.v1 import AppTest

from app import glossary, share_link, state
from app.scenario_files import EXAMPLE
from app.views import workload
from models.scenario import Scenario
from pricing.catalogue.loader import load_catalogue
from pricing.engine import compare
from tests.builders import app


def scenario_of(at: AppTest) -> Scenario:
    return Scenario.model_validate(at.session_state[state.KEY])


def test_the_rent_provider_is_an_input_and_travels_in_the_link():
    at = app()
    box = at.selectbox(key="w_rent_provider")
    assert box.value is None  # the catalogue median
    names = [o for o in box.options if o != "catalogue median of providers"]
    rentals = load_catalogue().rentals("H100-SXM", "on_demand")
    expected = sorted({r.provider for r in rentals if r.provider_kind in workload.RENT_KINDS})
    assert names == expected and names
    box.set_value(names[0]).run()
    sc = scenario_of(at)
    assert sc.options.rent_provider == names[0]
    assert share_link.decode(share_link.encode(sc)).options.rent_provider == names[0]
    # it prices Rent: the rent figure now names that provider
    rent = next(a for a in compare(sc).assumptions if a.key == "rent_usd_per_gpu_hour")
    assert names[0] in rent.source


def test_the_cloud_provider_is_an_input():
    at = app()
    box = at.selectbox(key="w_cloud_provider")
    names = [o for o in box.options if o != "catalogue median of providers"]
    assert names
    box.set_value(names[-1]).run()
    assert scenario_of(at).options.cloud_provider == names[-1]


def test_a_linked_provider_the_catalogue_lacks_is_shown_and_kept():
    """A link may name any provider (the schema allows 60 characters): the box shows it, and the
    engine refuses it by name, rather than the page silently dropping it."""
    data = copy.deepcopy(EXAMPLE)
    data["options"]["rent_provider"] = "Nobody Cloud"
    at = app(scenario=data)
    assert at.selectbox(key="w_rent_provider").value == "Nobody Cloud"
    assert scenario_of(at).options.rent_provider == "Nobody Cloud"


def test_the_loan_length_shows_with_a_loan_and_is_bounded_by_the_schema():
    at = app()
    assert not [s for s in at.slider if s.key == "w_loan_years"]
    at.selectbox(key="w_fin").set_value("loan").run()
    years = at.slider(key="w_loan_years")
    assert (years.min, years.max, years.value) == (1, 10, 3)
    years.set_value(7).run()
    assert scenario_of(at).term.loan_years == 7


def test_the_restart_time_is_an_input_that_moves_goodput():
    at = app()
    box = at.number_input(key="w_restart")
    assert box.value == 10.0 and box.min == 0.0 and box.max == 24 * 60
    before = next(m.value for m in at.metric if m.label == "Goodput")
    box.set_value(240.0).run()
    assert scenario_of(at).reliability.restart_minutes == 240.0
    assert next(m.value for m in at.metric if m.label == "Goodput") != before


def test_the_terms_have_plain_words_help():
    at = app()
    helps = {m.label: m.help for m in at.metric}
    assert glossary.MFU in helps["MFU"] and glossary.GOODPUT in helps["Goodput"]
    layout = next(m for m in at.markdown if m.value.startswith("**Layout:**"))
    for term in (glossary.TP, glossary.PP, glossary.DP, glossary.ZERO):
        assert term in layout.help


def test_the_page_ends_with_the_step_to_compare():
    at = app()
    texts = [m.value for m in at.main.markdown]
    assert texts[-1] == "Next: Compare the options (cost, time and risk)"

"""The Side by side page in a real browser (Chromium, Playwright, `streamlit run`): a link carrying
two saved scenarios opens with both compared and their curves on one chart; saving a third puts it
in the address."""

from __future__ import annotations

import json
import re

import pytest
from test_e2e_portal import scenario_in_address, wait_idle, watched  # noqa: F401  (fixture)

from app import share_link
from app.scenario_files import EXAMPLE
from models.scenario import Scenario
from models.scenario_set import ScenarioSet

pytestmark = [pytest.mark.browser, pytest.mark.e2e]
PROBE = re.compile(r"/side-by-side/_stcore/(health|host-config)$")


def _variant(gpu: str) -> dict:
    data = json.loads(json.dumps(EXAMPLE))
    data["cluster"]["gpu"] = gpu
    return data


def test_a_linked_set_is_compared_and_a_third_is_saved(portal_url, watched):  # noqa: F811
    page, errors = watched
    saved = ScenarioSet(
        scenarios=[
            {"name": "On H100", "scenario": _variant("H100-SXM")},
            {"name": "On B200", "scenario": _variant("B200")},
        ],
        picked=["On H100", "On B200"],
    )
    token = share_link.encode(Scenario.model_validate(EXAMPLE), {"side_by_side": saved})
    page.goto(f"{portal_url}side-by-side?s={token}")
    page.get_by_role("heading", name="Side by side").wait_for()
    chart = page.locator(".js-plotly-plot").first
    chart.wait_for()
    wait_idle(page)
    assert page.locator(".js-plotly-plot").count() == 1
    legend = chart.locator(".legendtext").all_text_contents()
    assert "On H100 · Build" in legend and "On B200 · Cloud on-demand" in legend
    assert page.get_by_text("On B200: one training run of Llama 3 70B on 1,024 × B200").count() == 1

    box = page.get_by_role("textbox", name="Save this scenario as")
    box.fill("third")
    page.get_by_role("button", name="Save", exact=True).click()
    page.get_by_text("Saved “third”.").wait_for()
    wait_idle(page)
    link = share_link.decode_link(share_link.token_from_url(page.url))
    names = [s["name"] for s in link.sections["side_by_side"]["scenarios"]]
    assert names == ["On H100", "On B200", "third"]
    assert scenario_in_address(page) == share_link.decode_data(token)
    # the frontend's base-path probe of a page path 404s by design (test_e2e_portal.PROBE, whose
    # pattern has no hyphen); any other error fails
    errors = [e for e in errors if not PROBE.search(e.split(": ", 1)[-1])]
    assert errors == [], errors

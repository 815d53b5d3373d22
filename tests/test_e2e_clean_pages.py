"""Every page at 1440×1000 in a real browser (Debian's Chromium, Playwright): a fresh deep link to
each leaves no error or warning of the app's in the console, and the Workload page's labels are
not cut off and its last step opens Compare (issue 17)."""

from __future__ import annotations

import copy
import pathlib
import re

import pytest

from app import share_link
from app.scenario_files import EXAMPLE
from models.options import OPTION_IDS
from models.scenario import Scenario

pytestmark = [pytest.mark.browser, pytest.mark.e2e]
ARTIFACTS = pathlib.Path(__file__).resolve().parents[1] / "test-artifacts"
TIMEOUT = 90_000
VIEWPORT = {"width": 1440, "height": 1000}
#: page paths and their titles (app/main.py)
PAGES = {
    "": "Workload",
    "compare": "Compare",
    "serve": "Serve",
    "finetune": "Fine-tune",
    "assumptions": "Assumptions",
    "guide": "Guide",
    "validation": "Validation",
}
#: Streamlit's own probes for the server's base path from a deep link (/compare/_stcore/health,
#: /compare/_stcore/host-config, then the root's): 404 by design, logged by the browser as
#: "Failed to load resource"; not the app's
PROBE = re.compile(r"/[a-z-]+/_stcore/(health|host-config)$")


@pytest.fixture
def wide(browser, request):
    """A fresh 1440×1000 page with its console errors and warnings, uncaught exceptions and failed
    requests (except Streamlit's base-path probes) collected; a screenshot at the end."""
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    problems: list[str] = []
    probes: list[str] = []
    page.on("pageerror", lambda e: problems.append(f"pageerror: {e}"))
    page.on(
        "response",
        lambda r: (
            (probes if PROBE.search(r.url) else problems).append(f"HTTP {r.status}: {r.url}")
            if r.status >= 400
            else None
        ),
    )

    def console(m) -> None:
        if m.type not in ("error", "warning"):
            return
        if m.text.startswith("Failed to load resource") and probes:
            return  # the probe's 404, recorded above by its response
        problems.append(f"console {m.type}: {m.text}")

    page.on("console", console)
    page.set_default_timeout(TIMEOUT)
    yield page, problems
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{request.node.name}.png"), full_page=True)
    context.close()


def wait_idle(page) -> None:
    page.wait_for_timeout(500)
    page.locator("[data-testid='stStatusWidget']").wait_for(state="detached", timeout=TIMEOUT)
    page.wait_for_timeout(500)


@pytest.mark.parametrize("path", list(PAGES))
def test_a_fresh_deep_link_leaves_a_clean_console(portal_url, wide, path):
    page, problems = wide
    page.goto(portal_url + path)
    page.get_by_role("heading", name=PAGES[path], exact=True).first.wait_for()
    wait_idle(page)
    assert problems == [], problems


#: text on the page cut off to fit: a select's value (an input narrower than its text) or a label
#: or chip that ends in an ellipsis (a file uploader's input is hidden at 0 px high, not text)
CLIPPED = """() => [...document.querySelectorAll("[data-testid='stMain'] *")]
  .filter(e => e.offsetParent !== null && e.scrollWidth > e.clientWidth + 1 && e.type !== "file"
    && (e.tagName === "INPUT" || getComputedStyle(e).textOverflow === "ellipsis"))
  .map(e => e.innerText || e.value)"""


def test_the_workload_labels_are_whole_and_the_next_step_opens_compare(portal_url, wide):
    page, problems = wide
    every_option = {**copy.deepcopy(EXAMPLE), "options": {"compare": list(OPTION_IDS)}}
    page.goto(f"{portal_url}?s={share_link.encode(Scenario.model_validate(every_option))}")
    page.get_by_role("heading", name="Workload", exact=True).first.wait_for()
    wait_idle(page)
    page.get_by_text("Execution plan (training software)").click()
    page.get_by_label("Attention kernel").first.wait_for()
    assert page.evaluate(CLIPPED) == []
    wait_idle(page)  # a click during a rerun can be dropped (one 90 s timeout in CI, 2026-12-03)
    page.get_by_role("link", name=re.compile("Next: Compare the options")).click()
    page.wait_for_url(re.compile("/compare"), timeout=TIMEOUT)
    page.get_by_role("heading", name="Compare", exact=True).first.wait_for()
    wait_idle(page)
    assert "/compare" in page.url
    assert problems == [], problems

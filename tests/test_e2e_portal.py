"""The portal in a real browser: Debian's Chromium driven by Playwright against `streamlit run`.

Screenshots of each test's last state are kept in test-artifacts/ (ignored by git).
"""

from __future__ import annotations

import pathlib
import re

import pytest

from app import share_link

pytestmark = [pytest.mark.browser, pytest.mark.e2e]
ARTIFACTS = pathlib.Path(__file__).resolve().parents[1] / "test-artifacts"
TIMEOUT = 60_000
PROBE = re.compile(r"/[a-z]+/_stcore/(health|host-config)$")


@pytest.fixture
def watched(page, request):
    """The page, with console errors and uncaught exceptions collected and a screenshot at the end."""
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(f"pageerror: {e}"))
    # A failed request is checked by its response below; the frontend's probe of a page path for
    # the server's base path (/compare/_stcore/health, then /_stcore/health) 404s by design.
    page.on(
        "console",
        lambda m: (
            errors.append(f"console: {m.text}")
            if m.type == "error" and not m.text.startswith("Failed to load resource")
            else None
        ),
    )
    page.on(
        "response",
        lambda r: (
            errors.append(f"HTTP {r.status}: {r.url}")
            if r.status >= 400 and not PROBE.search(r.url)
            else None
        ),
    )
    page.set_default_timeout(TIMEOUT)
    yield page, errors
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{request.node.name}.png"), full_page=True)


def metric_value(page, label: str) -> str:
    box = page.locator("[data-testid='stMetric']", has_text=label).first
    return box.locator("[data-testid='stMetricValue']").inner_text()


def wait_idle(page) -> None:
    """Until Streamlit has finished the current run (its status widget goes away)."""
    page.wait_for_timeout(300)
    page.locator("[data-testid='stStatusWidget']").wait_for(state="detached", timeout=TIMEOUT)


def choose(page, label: str, option: str) -> None:
    page.get_by_label(label, exact=True).first.click()
    page.get_by_role("option", name=re.compile(re.escape(option))).first.click()
    wait_idle(page)


def test_defaults_show_the_sizing(portal_url, watched):
    page, errors = watched
    page.goto(portal_url)
    page.get_by_role("heading", name="Workload").wait_for()
    assert metric_value(page, "GPUs") == "1,024"
    assert float(metric_value(page, "Wall-clock days")) > 0
    assert errors == [], errors


def test_gpu_type_and_tokens_change_the_numbers(portal_url, watched):
    page, errors = watched
    page.goto(portal_url)
    page.get_by_role("heading", name="Workload").wait_for()
    days = metric_value(page, "Wall-clock days")
    choose(page, "GPU", "B200")
    page.wait_for_function(
        "d => ![...document.querySelectorAll('[data-testid=stMetricValue]')]"
        ".some(e => e.innerText === d)",
        arg=days,
    )
    b200 = float(metric_value(page, "Wall-clock days"))
    assert f"{b200:.1f}" != days
    tokens = page.get_by_role("spinbutton", name="Training tokens (billions)")
    tokens.fill("4000")
    tokens.press("Enter")
    wait_idle(page)
    page.wait_for_function(
        "d => ![...document.querySelectorAll('[data-testid=stMetricValue]')]"
        ".some(e => e.innerText === d)",
        arg=f"{b200:.1f}",
    )
    assert float(metric_value(page, "Wall-clock days")) == pytest.approx(2 * b200, rel=0.06)
    assert errors == [], errors


def test_compare_draws_charts_and_switches_views(portal_url, watched):
    page, errors = watched
    page.goto(portal_url + "compare")
    page.get_by_role("heading", name="Compare").wait_for()
    page.locator(".js-plotly-plot").nth(1).wait_for()
    wait_idle(page)  # a rerun still in flight can leave the previous run's charts on the page
    assert page.locator(".js-plotly-plot").count() == 2
    assert page.get_by_text("Cumulative cost over the term").count() >= 1
    page.get_by_text("Time", exact=True).click()
    page.get_by_text("Time to first result").first.wait_for()
    page.get_by_text("Training time against cluster size").first.wait_for()
    page.get_by_text("Sensitivity and uncertainty", exact=True).click()
    page.get_by_text("Sensitivity of the recommendation").first.wait_for()
    page.get_by_text("Uncertainty of the cost").first.wait_for()
    page.locator(".js-plotly-plot").nth(1).wait_for()
    wait_idle(page)
    assert page.get_by_role("heading", name="Totals").count() == 1
    assert errors == [], errors


def test_share_link_opens_the_same_scenario_elsewhere(portal_url, watched, browser):
    page, errors = watched
    page.goto(portal_url)
    page.get_by_role("heading", name="Workload").wait_for()
    gpus = page.get_by_role("spinbutton", name="GPUs")
    gpus.fill("512")
    gpus.press("Enter")
    wait_idle(page)
    page.get_by_role("button", name="Share link").click()
    code = page.locator("[data-testid='stSidebar'] [data-testid='stCode']")
    code.wait_for()
    url = code.inner_text().strip()
    assert "?s=" in url and len(url) < 2000
    assert share_link.decode(share_link.token_from_url(url)).cluster.gpus == 512
    days = metric_value(page, "Wall-clock days")
    fresh = browser.new_context(viewport={"width": 1280, "height": 900})
    other = fresh.new_page()
    other.goto(url)
    other.get_by_role("heading", name="Workload").wait_for()
    assert metric_value(other, "GPUs") == "512"
    assert metric_value(other, "Wall-clock days") == days
    fresh.close()
    assert errors == [], errors


def test_a_tampered_link_shows_the_message_and_the_defaults(portal_url, watched):
    page, errors = watched
    page.goto(portal_url + "?s=eJwLycgsVgCi4pLKlFSFtPyiXIWS1OISAEa8B2k-tampered")
    page.get_by_text("could not be opened").wait_for()
    assert metric_value(page, "GPUs") == "1,024"
    assert errors == [], errors


def test_guide_and_assumptions_render(portal_url, watched):
    page, errors = watched
    page.goto(portal_url + "guide")
    page.get_by_role("heading", name="How many GPUs?").wait_for()
    page.get_by_text(
        "job interruptions a week"
    ).wait_for()  # the heading can arrive before the text
    assert page.get_by_text("job interruptions a week").count() == 1
    page.goto(portal_url + "assumptions")
    page.get_by_role("heading", name="Public cloud").wait_for()
    tables = page.locator("[data-testid='stDataFrame']")
    tables.nth(3).wait_for()
    assert tables.count() == 4
    assert errors == [], errors


def test_validation_page_shows_the_errors_and_the_scatter(portal_url, watched):
    page, errors = watched
    page.goto(portal_url + "validation")
    page.get_by_role("heading", name="Error per kind").wait_for()
    visible = page.locator("[data-testid='stDataFrame']:visible")
    visible.nth(1).wait_for()  # the summary and every row
    page.get_by_text("Error by source", exact=False).click()
    visible.nth(2).wait_for()  # the table by source, in its expander
    chart = page.locator(".js-plotly-plot").first
    chart.wait_for()
    assert chart.locator(".scatterlayer .trace").count() >= 4  # three kinds and the not-scored rows
    assert page.get_by_text("Targets: step time and throughput").count() == 1
    page.get_by_role("heading", name="Where the model misses").scroll_into_view_if_needed()
    assert errors == [], errors


def test_pdf_and_csv_download_from_the_compare_page(portal_url, watched, tmp_path):
    import io

    from pypdf import PdfReader

    page, errors = watched
    page.goto(portal_url + "compare")
    page.get_by_role("heading", name="Downloads").wait_for()
    page.get_by_role("button", name="Prepare PDF report").click()
    button = page.get_by_role("button", name="Download PDF report")
    button.wait_for(timeout=120_000)  # the first PDF of the server starts Chromium for the charts
    with page.expect_download() as pdf:
        button.click()
    data = pathlib.Path(pdf.value.path()).read_bytes()
    assert data.startswith(b"%PDF-")
    reader = PdfReader(io.BytesIO(data))
    assert 3 <= len(reader.pages) <= 20
    assert "Recommendation" in reader.pages[0].extract_text()
    with page.expect_download() as csv_file:
        page.get_by_role("button", name="Monthly cash flows (CSV)").click()
    head = pathlib.Path(csv_file.value.path()).read_text().splitlines()[0]
    assert head.startswith("option,")
    assert errors == [], errors

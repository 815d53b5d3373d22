"""The portal in a real browser: Debian's Chromium driven by Playwright."""

import pytest

pytestmark = pytest.mark.browser


def test_portal_loads_in_chromium(portal_url, page):
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(portal_url)
    page.get_by_role("heading", name="Workload").wait_for(timeout=30_000)
    assert errors == []

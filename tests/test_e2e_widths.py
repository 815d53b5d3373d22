"""Every table a buyer reads, at 1,280 px wide in a real browser (Debian's Chromium, Playwright):
its columns are in view without scrolling sideways (issue 32: at 1,440 px the portfolio workloads
table hid every column after Model, and tables were clipped on the right). The one table with more
columns than a window holds, the portfolio's workloads (fifteen inputs, one row per workload),
keeps the columns that say which workload a row is (kind, name, team, model) pinned in view, with
the inputs of each kind scrolled to beside them."""

from __future__ import annotations

import json

import pytest

from app import share_link
from app.scenario_files import EXAMPLE, PORTFOLIOS
from tests.browser import ARTIFACTS, TIMEOUT, wait_idle

pytestmark = [pytest.mark.browser, pytest.mark.e2e]
WIDTH = 1280
#: (page path, scenario) pairs: the one-run example and a portfolio, on the pages with tables
PAGES = [
    ("", "run"),
    ("", "enterprise"),
    ("compare", "enterprise"),
    ("compare", "run"),
    ("side-by-side", "run"),
    ("serve", "run"),
    ("finetune", "run"),
]
#: Side by side shows its table for a saved set: the link carries two (the example on H100 and
#: on B200, both picked)
SAVED_SET = {
    "version": 1,
    "scenarios": [
        {"name": "H100", "scenario": {"version": 1, **EXAMPLE}},
        {
            "name": "B200",
            "scenario": {"version": 1, **EXAMPLE, "cluster": {**EXAMPLE["cluster"], "gpu": "B200"}},
        },
    ],
    "picked": ["H100", "B200"],
}


def _pinned_in_view(page) -> list[str]:
    """The workload table's pinned columns that are drawn inside the window (none when the table
    is not on the page)."""
    from app.views.portfolio import COLUMNS, KEY_COLUMNS

    grid = page.locator("[data-testid='stDataFrame']").first
    box = grid.bounding_box()
    heads = [COLUMNS[c][0] for c in KEY_COLUMNS]
    # the grid draws its header on a canvas; its accessible table lists the columns in order, once
    # drawn (a CI run read it empty once, 2026-12-03: wait for the first header cell)
    grid.locator("[role=columnheader]").first.wait_for(state="attached")
    names = grid.evaluate(
        "g => [...g.querySelectorAll('[role=columnheader]')].map(c => c.textContent)"
    )
    assert names[: len(heads)] == heads, names  # pinned: first, whatever the column order
    return heads if box and box["x"] >= 0 and box["x"] + 200 <= WIDTH else []


def _overflows(page) -> list[dict]:
    """Each data grid on the page whose columns are wider than the box it is drawn in, or whose
    box runs past the window's right edge: its first headers, and the widths."""
    return page.evaluate(
        """w => [...document.querySelectorAll("[data-testid='stDataFrame']")].map(g => {
            const s = g.querySelector('.dvn-scroller');
            const r = g.getBoundingClientRect();
            const heads = [...g.querySelectorAll('[role=columnheader]')].map(c => c.textContent);
            return {heads: heads.slice(0, 4), scroll: s ? s.scrollWidth : 0,
                    client: s ? s.clientWidth : 0, right: r.right};
        }).filter(x => x.scroll > x.client + 1 || x.right > w)""",
        WIDTH,
    )


def _clipped_chips(page) -> list[list[str]]:
    """The chips of each multiselect (the options compared, the saved scenarios picked) that are
    not all in view: the chip row scrolls sideways or runs past the window's right edge (at
    1,280 px the one-run page's five option chips scrolled in a 460-px row)."""
    return page.evaluate(
        """w => [...document.querySelectorAll("[data-testid='stMultiSelectTagsContainer']")]
            .filter(t => t.scrollWidth > t.clientWidth + 1 || t.getBoundingClientRect().right > w)
            .map(t => [...t.querySelectorAll('[data-tag]')].map(x => x.textContent))""",
        WIDTH,
    )


@pytest.mark.parametrize(("path", "which"), PAGES, ids=[f"{p or 'workload'}-{w}" for p, w in PAGES])
def test_every_table_fits_1280_wide(portal_url, browser, path, which):
    data = EXAMPLE if which == "run" else json.loads(PORTFOLIOS[which].read_text())
    if path == "side-by-side":
        data = {**data, "side_by_side": SAVED_SET}
    context = browser.new_context(viewport={"width": WIDTH, "height": 900})
    page = context.new_page()
    page.set_default_timeout(TIMEOUT)
    try:
        page.goto(f"{portal_url}{path}?s={share_link.encode_data(data)}")
        # the one-run Workload page has no table: its chips are what is checked there
        ready = (
            "[data-testid='stMultiSelectTagsContainer']"
            if (path, which) == ("", "run")
            else "[data-testid='stDataFrame']"
        )
        page.locator(ready).first.wait_for()
        wait_idle(page)
        page.wait_for_timeout(500)
        bad = _overflows(page)
        if path == "" and which != "run":  # the portfolio's workloads: pinned key columns
            assert _pinned_in_view(page)
            bad = [b for b in bad if b["heads"][0] != "Kind" or b["right"] > WIDTH]
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(
            path=str(ARTIFACTS / f"widths_{path or 'workload'}_{which}.png"), full_page=True
        )
        assert bad == [], "\n".join(map(str, bad))
        assert _clipped_chips(page) == []
    finally:
        context.close()

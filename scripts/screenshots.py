"""Starts the portal on a free loopback port with the example scenario and saves a 1440×1000
screenshot of the Workload, Compare, Side by side and Assumptions pages to docs/ (workload.png,
compare.png, side_by_side.png, assumptions.png; `-dark` before .png with --dark).

The Side by side page opens from a share link that carries the example scenario saved twice, on
H100-SXM and on B200, both picked, so it shows a comparison.

Run from the repository root: .venv/bin/python scripts/screenshots.py [--dark] [--out DIR]
(needs Debian's /usr/bin/chromium, or $BROWSER_PATH)
"""

from __future__ import annotations

import argparse
import copy
import pathlib
import sys

from playwright.sync_api import sync_playwright
from portal_process import CHROME_ARGS, CHROMIUM, ROOT, free_port, start_portal, wait_healthy

if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from app import share_link  # noqa: E402
from app.scenario_files import EXAMPLE  # noqa: E402
from models.scenario import Scenario  # noqa: E402
from models.scenario_set import ScenarioSet  # noqa: E402

VIEWPORT = {"width": 1440, "height": 1000}
#: file name, address path, the page's heading, what must be on screen before the shot
PAGES = (
    ("workload", "", "Workload", None),
    ("compare", "compare", "Compare", "[data-testid='stPlotlyChart']"),
    ("side_by_side", "side-by-side", "Side by side", "[data-testid='stPlotlyChart']"),
    ("assumptions", "assumptions", "Assumptions", "[data-testid='stDataFrame']"),
)


def example_token() -> str:
    """The example scenario, with it and its B200 twin saved and picked for Side by side."""
    b200 = copy.deepcopy(EXAMPLE)
    b200["cluster"]["gpu"] = "B200"
    saved = ScenarioSet.model_validate(
        {
            "scenarios": [
                {"name": "H100-SXM", "scenario": EXAMPLE},
                {"name": "B200", "scenario": b200},
            ],
            "picked": ["H100-SXM", "B200"],
        }
    )
    return share_link.encode(Scenario.model_validate(EXAMPLE), {"side_by_side": saved})


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dark", action="store_true", help="the dark theme")
    ap.add_argument("--out", default=str(ROOT / "docs"), help="folder for the PNGs (docs/)")
    args = ap.parse_args()
    port = free_port()
    proc = start_portal(port, *(["--theme.base=dark"] if args.dark else []))
    url = f"http://127.0.0.1:{port}/"
    token = example_token()
    try:
        wait_healthy(url, proc)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROME_ARGS)
            page = browser.new_page(viewport=VIEWPORT)
            page.set_default_timeout(90_000)
            suffix = "-dark" if args.dark else ""
            for name, path, heading, ready in PAGES:
                page.goto(f"{url}{path}?s={token}")
                page.get_by_role("heading", name=heading, exact=True).wait_for()
                if ready:
                    page.locator(ready).first.wait_for()
                page.wait_for_load_state("networkidle")
                page.wait_for_timeout(2500)  # charts finish drawing
                out = pathlib.Path(args.out) / f"{name}{suffix}.png"
                page.screenshot(path=str(out))
                print(out)
            browser.close()
    finally:
        proc.terminate()
        proc.wait(timeout=10)


if __name__ == "__main__":
    main()

"""Starts the portal on a free loopback port and saves a screenshot of each page to docs/.

Run: .venv/bin/python scripts/screenshots.py [--dark]   (needs Debian's /usr/bin/chromium)
"""

from __future__ import annotations

import argparse
import pathlib

from playwright.sync_api import sync_playwright
from portal_process import CHROME_ARGS, CHROMIUM, ROOT, free_port, start_portal, wait_healthy


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--dark", action="store_true")
    ap.add_argument("--out", default=str(ROOT / "docs"))
    args = ap.parse_args()
    port = free_port()
    proc = start_portal(port, *(["--theme.base=dark"] if args.dark else []))
    url = f"http://127.0.0.1:{port}/"
    try:
        wait_healthy(url, proc)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROME_ARGS)
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            suffix = "-dark" if args.dark else ""
            for name in ("workload", "compare", "assumptions", "guide"):
                page.goto(url + ("" if name == "workload" else name))
                page.get_by_role("heading", name=name.capitalize()).wait_for(timeout=60_000)
                page.wait_for_timeout(2500)
                path = pathlib.Path(args.out) / f"{name}{suffix}.png"
                page.screenshot(path=str(path), full_page=True)
                print(path)
            browser.close()
    finally:
        proc.terminate()
        proc.wait(timeout=10)


if __name__ == "__main__":
    main()

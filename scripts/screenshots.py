"""Starts the portal on a free loopback port and saves a screenshot of each page to docs/.

Run: .venv/bin/python scripts/screenshots.py [--dark]   (needs Debian's /usr/bin/chromium)
"""

from __future__ import annotations

import argparse
import pathlib
import socket
import subprocess
import sys
import time
import urllib.request

from playwright.sync_api import sync_playwright

ROOT = pathlib.Path(__file__).resolve().parents[1]
ARGS = ["--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--dark", action="store_true")
    ap.add_argument("--out", default=str(ROOT / "docs"))
    args = ap.parse_args()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    streamlit = pathlib.Path(sys.executable).with_name("streamlit")
    extra = ["--theme.base=dark"] if args.dark else []
    proc = subprocess.Popen([str(streamlit), "run", "app/main.py", f"--server.port={port}", *extra],
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/"
    try:
        for _ in range(300):
            try:
                if urllib.request.urlopen(url + "_stcore/health", timeout=1).read() == b"ok":
                    break
            except OSError:
                time.sleep(0.1)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
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

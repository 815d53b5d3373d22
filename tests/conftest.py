"""Shared fixtures: a real portal server and a real Chromium for the end-to-end tests."""

from __future__ import annotations

import os
import pathlib
import shutil
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
CHROMIUM = os.environ.get("BROWSER_PATH", "/usr/bin/chromium")
CHROME_ARGS = [
    "--no-sandbox",
    "--headless",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _require_chromium() -> None:
    if not shutil.which(CHROMIUM) and not pathlib.Path(CHROMIUM).exists():
        if os.environ.get("CI"):
            pytest.fail(f"Chromium not found at {CHROMIUM}; scripts/test.sh installs it")
        pytest.skip("Chromium is not installed (run scripts/test.sh to install it)")


@pytest.fixture(scope="session")
def portal_url():
    """Starts `streamlit run app/main.py` on a free loopback port; yields its base URL."""
    port = _free_port()
    streamlit = pathlib.Path(sys.executable).with_name("streamlit")
    proc = subprocess.Popen(
        [str(streamlit), "run", "app/main.py", f"--server.port={port}"],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    url = f"http://127.0.0.1:{port}/"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url + "_stcore/health", timeout=2) as r:
                if r.read() == b"ok":
                    break
        except OSError:
            time.sleep(0.2)
        if proc.poll() is not None:
            raise RuntimeError(f"portal exited early: {proc.stderr.read().decode()[-2000:]}")
    else:
        proc.terminate()
        raise RuntimeError("portal did not become healthy within 60 s")
    yield url
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()


@pytest.fixture(scope="session")
def browser():
    _require_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROME_ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    pg = context.new_page()
    yield pg
    context.close()

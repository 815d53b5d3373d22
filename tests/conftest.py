"""Shared fixtures: a real portal server and a real Chromium for the end-to-end tests."""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
from portal_process import CHROME_ARGS, CHROMIUM, free_port, start_portal, wait_healthy  # noqa: E402


def _require_chromium() -> None:
    if not shutil.which(CHROMIUM) and not pathlib.Path(CHROMIUM).exists():
        if os.environ.get("CI"):
            pytest.fail(f"Chromium not found at {CHROMIUM}; scripts/test.sh installs it")
        pytest.skip("Chromium is not installed (run scripts/test.sh to install it)")


@pytest.fixture(scope="session")
def portal_url():
    """Starts `streamlit run app/main.py` on a free loopback port; yields its base URL."""
    port = free_port()
    proc = start_portal(port, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}/"
    try:
        wait_healthy(url, proc)
    except RuntimeError:
        proc.terminate()
        raise
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

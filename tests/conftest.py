"""Shared test set-up: the Hypothesis profile, the made-up fixture catalogue and a slow-delivery
copy of the bundled one, and a real portal server and a real Chromium for the end-to-end tests.
What the tests build (scenarios, portal sessions) is in tests/builders.py."""

from __future__ import annotations

import csv
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

import pytest
from hypothesis import HealthCheck, settings

# Where PYTHONDONTWRITEBYTECODE is set (no __pycache__ in the tree), pytest rewrote every test
# file's asserts and Python recompiled every module the tests import, on each start: most of a
# 9-12 s collection. Their bytecode goes to a cache outside the tree instead (by path; a changed
# source is recompiled as usual), so a repeated `pytest` collects in about 2.5 s.
if sys.dont_write_bytecode and sys.pycache_prefix is None:
    sys.pycache_prefix = str(pathlib.Path(tempfile.gettempdir()) / "clusterplan-pycache")
    sys.dont_write_bytecode = False

ROOT = pathlib.Path(__file__).resolve().parents[1]
#: A catalogue of round made-up figures in the shape of pricing/data/ (tests/fixtures/catalogue/).
FIXTURE_CATALOGUE_DIR = pathlib.Path(__file__).resolve().with_name("fixtures") / "catalogue"

# One Hypothesis profile for the suite: no per-example deadline (the 200 ms default fails at random
# on a busy two-core machine) and no too-slow health check, for the same reason. Tests set only
# what differs from it (max_examples, derandomize).
settings.register_profile("planner", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("planner")

# The shared helpers' asserts explain a failure as a test's own do (pytest rewrites test modules
# only); registered before any test module imports them.
pytest.register_assert_rewrite("tests.builders", "tests.readback", "tests.portal_app")

sys.path.insert(0, str(ROOT / "scripts"))
from portal_process import CHROME_ARGS, CHROMIUM, free_port, start_portal, wait_healthy  # noqa: E402


def _require_chromium() -> None:
    if not shutil.which(CHROMIUM) and not pathlib.Path(CHROMIUM).exists():
        if os.environ.get("CI"):
            pytest.fail(f"Chromium not found at {CHROMIUM}; scripts/test.sh installs it")
        pytest.skip("Chromium is not installed (run scripts/test.sh to install it)")


@pytest.fixture(scope="session")
def fixture_catalogue():
    """The made-up test catalogue: tests that assert numbers read from a catalogue use this one, so a
    price refresh in pricing/data/ never breaks them."""
    from pricing.catalogue.loader import load_catalogue

    return load_catalogue(FIXTURE_CATALOGUE_DIR)


@pytest.fixture(scope="module")
def slow_delivery_catalogue(tmp_path_factory):
    """A copy of the bundled catalogue whose GPU lead times are all 30 weeks longer."""
    from pricing.catalogue.loader import DATA_DIR, load_catalogue

    folder = tmp_path_factory.mktemp("catalogue")
    for path in [*DATA_DIR.glob("*.csv"), DATA_DIR / "VERSION"]:
        shutil.copy(path, folder / path.name)
    with (DATA_DIR / "lead_times.csv").open(newline="") as f:
        rows = list(csv.DictReader(f))
    for row in rows:
        for col in ("lead_time_weeks_low", "lead_time_weeks_high"):
            row[col] = str(float(row[col]) + 30)
    with (folder / "lead_times.csv").open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    return load_catalogue(folder)


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


@pytest.fixture
def registry():
    """The process's models of one's own (models/shapes.py `_OWN`), left as the test found them."""
    from models import shapes

    saved = dict(shapes._OWN)
    yield shapes._OWN
    shapes._OWN.clear()
    shapes._OWN.update(saved)

"""Two portal replicas behind nginx (deploy/nginx.conf.template) on loopback: a share link made on
one replica opens the same scenario on the other, directly and through the load balancer.

Needs Debian's nginx (scripts/test.sh installs nginx-light) and Chromium; skipped without them
only when CI is unset.
"""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import sys
from urllib.parse import urlsplit, urlunsplit

import pytest

from app import share_link

pytestmark = [pytest.mark.browser, pytest.mark.e2e]
ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
from portal_process import free_port, render_nginx_conf, start_portal, wait_healthy  # noqa: E402

TIMEOUT = 60_000


def nginx_binary() -> str | None:
    return shutil.which("nginx") or next(
        (p for p in ("/usr/sbin/nginx", "/usr/local/sbin/nginx") if os.access(p, os.X_OK)), None
    )


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """Replicas A and B (`streamlit run`) and nginx in front of both; yields their base URLs."""
    nginx = nginx_binary()
    if nginx is None:
        if os.environ.get("CI"):
            pytest.fail("nginx not found; scripts/test.sh installs nginx-light")
        pytest.skip("nginx is not installed (run scripts/test.sh to install it)")
    ports = [free_port() for _ in range(2)]
    procs = [start_portal(port, stderr=subprocess.PIPE) for port in ports]
    prefix = tmp_path_factory.mktemp("nginx")
    prefix.chmod(0o755)
    listen = f"127.0.0.1:{free_port()}"
    conf = prefix / "nginx.conf"
    conf.write_text(render_nginx_conf(prefix, listen, [f"127.0.0.1:{p}" for p in ports]))
    lb = subprocess.Popen(
        [nginx, "-c", str(conf), "-p", str(prefix), "-g", "daemon off;"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    urls = {
        "a": f"http://127.0.0.1:{ports[0]}/",
        "b": f"http://127.0.0.1:{ports[1]}/",
        "lb": f"http://{listen}/",
    }
    try:
        for url in urls.values():
            wait_healthy(url, [*procs, lb])
        yield urls
    finally:
        for p in [lb, *procs]:
            p.terminate()
        for p in [lb, *procs]:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()


def metric_value(page, label: str) -> str:
    box = page.locator("[data-testid='stMetric']", has_text=label).first
    return box.locator("[data-testid='stMetricValue']").inner_text()


def at(url: str, base: str) -> str:
    """`url` with its scheme and host:port replaced by those of `base`."""
    parts, to = urlsplit(url), urlsplit(base)
    return urlunsplit(parts._replace(scheme=to.scheme, netloc=to.netloc))


def open_page(browser, url: str):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(TIMEOUT)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url)
    page.get_by_role("heading", name="Workload").wait_for()
    return context, page, errors


def share(page) -> str:
    page.get_by_role("button", name="Share link").click()
    code = page.locator("[data-testid='stSidebar'] [data-testid='stCode']")
    code.wait_for()
    return code.inner_text().strip()


def test_a_link_made_on_one_replica_opens_on_the_other_and_through_nginx(cluster, browser):
    context, page, errors = open_page(browser, cluster["a"])
    gpus = page.get_by_label("GPUs", exact=True).first
    gpus.fill("512")
    gpus.press("Enter")
    page.wait_for_timeout(300)
    page.locator("[data-testid='stStatusWidget']").wait_for(state="detached")
    url = share(page)
    assert url.startswith(cluster["a"].rstrip("/")) and "?s=" in url, url
    assert share_link.decode(share_link.token_from_url(url)).cluster.gpus == 512
    days = metric_value(page, "Whole-run days")
    context.close()

    for where in ("b", "lb"):
        context, page, errors = open_page(browser, at(url, cluster[where]))
        assert metric_value(page, "GPUs") == "512", where
        assert metric_value(page, "Whole-run days") == days, where
        if where == "lb":
            cookies = {c["name"]: c["value"] for c in context.cookies()}
            assert cookies.get("planner_route"), cookies  # the sticky-session cookie
            again = share(page)  # nginx passes the Host header, so the link names nginx's address
            assert again.startswith(cluster["lb"].rstrip("/")) and "?s=" in again, again
            assert share_link.decode(share_link.token_from_url(again)).cluster.gpus == 512
        assert errors == [], (where, errors)
        context.close()

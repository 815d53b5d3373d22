"""The portal as a process, for the browser tests, the load benchmarks and the screenshots:
a free loopback port, `streamlit run app/main.py` on it, a health wait, Chromium's launch flags,
and the nginx configuration for several replicas (deploy/nginx.conf.template)."""

from __future__ import annotations

import os
import pathlib
import socket
import subprocess
import sys
import time
import urllib.request

ROOT = pathlib.Path(__file__).resolve().parents[1]
CHROMIUM = os.environ.get("BROWSER_PATH", "/usr/bin/chromium")
#: Debian's Chromium as root, headless, and quiet on a machine whose only network is loopback
CHROME_ARGS = [
    "--no-sandbox",
    "--headless",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
NGINX_TEMPLATE = ROOT / "deploy" / "nginx.conf.template"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_portal(port: int, *extra: str, stderr=subprocess.DEVNULL) -> subprocess.Popen:
    """`streamlit run app/main.py` on 127.0.0.1:port, from the repository root (its config)."""
    streamlit = pathlib.Path(sys.executable).with_name("streamlit")
    return subprocess.Popen(
        [
            str(streamlit),
            "run",
            "app/main.py",
            f"--server.port={port}",
            "--server.address=127.0.0.1",
            "--server.headless=true",
            "--browser.gatherUsageStats=false",
            *extra,
        ],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=stderr,
    )


def wait_healthy(url: str, procs=(), seconds: float = 60) -> None:
    """Until `url` answers its health check; fails early if one of `procs` has exited."""
    procs = [procs] if isinstance(procs, subprocess.Popen) else list(procs)
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url + "_stcore/health", timeout=2) as r:
                if r.read() == b"ok":
                    return
        except OSError:
            time.sleep(0.2)
        for p in procs:
            if p.poll() is not None:
                tail = p.stderr.read().decode()[-2000:] if p.stderr else ""
                raise RuntimeError(f"{p.args[0]} exited early {tail}".strip())
    raise RuntimeError(f"{url} not healthy within {seconds:.0f} s")


def render_nginx_conf(prefix: pathlib.Path, listen: str, replicas: list[str]) -> str:
    """deploy/nginx.conf.template filled in: a prefix folder, the listen address, the replicas."""
    servers = "\n".join(f"        server {r} max_fails=0;" for r in replicas)
    text = NGINX_TEMPLATE.read_text()
    return (
        text.replace("@PREFIX@", str(prefix))
        .replace("@LISTEN@", listen)
        .replace("@SERVERS@", servers)
    )

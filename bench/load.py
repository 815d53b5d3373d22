"""Load test: N concurrent browser sessions change an input on the Workload page for a bounded time.

    .venv/bin/python bench/load.py [--sessions 50] [--seconds 60] [--url http://127.0.0.1:PORT/]

Without `--url` it starts `streamlit run app/main.py` itself on a free loopback port (and stops it at
the end). One Debian Chromium (Playwright, headless) holds N browser contexts, one page each; every
page loops until the time is up: type a new GPU count into the "GPUs" box, press Enter, and wait
until the sizing panel shows that count (the rerun latency). Reported: sessions, reruns, errors
(exceptions and timeouts, Streamlit exception boxes, uncaught page errors), p50/p95/max rerun
latency, and the server's resident memory (VmRSS of the server and its children, from /proc) before
the sessions connect, with all of them connected, and per session. Only loopback URLs are accepted.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import pathlib
import random
import socket
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from urllib.parse import urlsplit

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
from portal_process import (  # noqa: E402, F401  (load_ws uses them through this module)
    CHROME_ARGS,
    CHROMIUM,
    free_port,
    render_nginx_conf,
    start_portal,
    wait_healthy,
)

STEP_TIMEOUT_MS = 30_000
LOAD_TIMEOUT_MS = 120_000
#: pages loading at once while the sessions connect
RAMP_PARALLEL = 4
#: GPU counts the sessions type in (each session walks its own shuffled copy)
GPU_COUNTS = [256 + 64 * i for i in range(60)]


# ------------------------------------------------------------------------------------ the server


def _children(pid: int) -> list[int]:
    try:
        text = pathlib.Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    kids = [int(p) for p in text.split()]
    return kids + [g for k in kids for g in _children(k)]


def rss_mib(pid: int) -> float:
    """VmRSS of a process and all its descendants, MiB (0 when it is gone)."""
    total_kib = 0
    for p in [pid, *_children(pid)]:
        try:
            for line in pathlib.Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total_kib += int(line.split()[1])
        except OSError:
            pass
    return total_kib / 1024


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process and its descendants."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0
    for p in [pid, *_children(pid)]:
        try:
            fields = pathlib.Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
        except (OSError, IndexError, ValueError):
            pass
    return total / tick


def pid_listening_on(port: int) -> int | None:
    """The pid holding a listening TCP socket on this port (for --url), if it can be found."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = pathlib.Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            cols = line.split()
            if cols[3] == "0A" and int(cols[1].rsplit(":", 1)[1], 16) == port:
                inodes.add(cols[9])
    for proc in pathlib.Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            for fd in (proc / "fd").iterdir():
                target = os.readlink(fd)
                if target.startswith("socket:[") and target[8:-1] in inodes:
                    return int(proc.name)
        except OSError:
            continue
    return None


def require_loopback(url: str) -> None:
    host = urlsplit(url).hostname or ""
    try:
        addr = socket.gethostbyname(host)
    except OSError:
        addr = ""
    if not addr.startswith("127."):
        raise SystemExit(f"load.py only drives loopback addresses (127.0.0.0/8), not {host!r}")


# ---------------------------------------------------------------------------------- the sessions


@dataclass
class Tally:
    latencies_s: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    connected: int = 0


async def session(
    n: int,
    browser,
    url: str,
    stop: dict,
    tally: Tally,
    ready: asyncio.Event,
    all_ready: asyncio.Event,
    loading: asyncio.Semaphore,
) -> None:
    """One browser page: load, wait for every other page, then change the GPU count until stop['at']."""
    context = await browser.new_context(viewport={"width": 1280, "height": 900})
    page = await context.new_page()
    page.set_default_timeout(STEP_TIMEOUT_MS)
    page.on("pageerror", lambda e: tally.errors.append(f"session {n}: pageerror: {e}"))
    rng = random.Random(n)
    counts = GPU_COUNTS[:]
    rng.shuffle(counts)
    try:
        async with loading:  # pages open a few at a time (the ramp-up), then all run together
            await page.goto(url, wait_until="commit", timeout=LOAD_TIMEOUT_MS)
            await page.get_by_role("heading", name="Workload").wait_for(timeout=LOAD_TIMEOUT_MS)
            metric = page.locator("[data-testid='stMetric']", has_text="GPUs").first.locator(
                "[data-testid='stMetricValue']"
            )
            await metric.wait_for(timeout=LOAD_TIMEOUT_MS)
        tally.connected += 1
        ready.set()
        await all_ready.wait()
        box = page.get_by_label("GPUs", exact=True).first
        i = 0
        while time.monotonic() < stop["at"]:
            gpus = counts[i % len(counts)]
            i += 1
            shown = f"{gpus:,}"
            await box.fill(str(gpus))
            start = time.perf_counter()
            await box.press("Enter")
            try:
                await page.wait_for_function(
                    "s => { const m = [...document.querySelectorAll(\"[data-testid='stMetric']\")]"
                    ".find(e => e.innerText.startsWith('GPUs'));"
                    " return m && m.querySelector(\"[data-testid='stMetricValue']\").innerText === s; }",
                    arg=shown,
                    timeout=STEP_TIMEOUT_MS,
                )
            except Exception as exc:  # a timeout: counted, and the session goes on
                tally.errors.append(f"session {n}: no rerun to {shown}: {type(exc).__name__}")
                continue
            tally.latencies_s.append(time.perf_counter() - start)
            if await page.locator("[data-testid='stException']").count():
                tally.errors.append(f"session {n}: Streamlit exception on the page")
    except Exception as exc:
        tally.errors.append(f"session {n}: {type(exc).__name__}: {str(exc).splitlines()[0][:200]}")
        ready.set()
    finally:
        await context.close()


async def drive(url: str, sessions: int, seconds: float, server_pid: int | None) -> dict:
    from playwright.async_api import async_playwright

    tally = Tally()
    rss_cold = rss_mib(server_pid) if server_pid else None
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, args=CHROME_ARGS)
        # one page loaded and closed first, so the app's imports and caches are not counted per session
        warm = await browser.new_context()
        page = await warm.new_page()
        await page.goto(url)
        await page.get_by_role("heading", name="Workload").wait_for(timeout=60_000)
        await warm.close()
        await asyncio.sleep(2.0)
        rss_before = rss_mib(server_pid) if server_pid else None
        cpu_before = cpu_seconds(server_pid) if server_pid else None
        rss_peak = rss_before or 0.0
        all_ready = asyncio.Event()
        readies = [asyncio.Event() for _ in range(sessions)]
        connect_start = time.monotonic()
        stop = {"at": float("inf")}  # set once every page has loaded
        loading = asyncio.Semaphore(RAMP_PARALLEL)
        tasks = []
        for n in range(sessions):
            tasks.append(
                asyncio.create_task(
                    session(n, browser, url, stop, tally, readies[n], all_ready, loading)
                )
            )
        try:
            await asyncio.wait_for(asyncio.gather(*(e.wait() for e in readies)), timeout=600)
        except TimeoutError:
            tally.errors.append("not every session loaded within 600 s")
        connect_s = time.monotonic() - connect_start
        rss_connected = rss_mib(server_pid) if server_pid else None
        run_start = time.monotonic()
        stop["at"] = run_start + seconds
        all_ready.set()
        while not all(t.done() for t in tasks) and time.monotonic() < stop["at"] + 60:
            if server_pid:
                rss_peak = max(rss_peak, rss_mib(server_pid))
            await asyncio.sleep(1.0)
        run_s = time.monotonic() - run_start
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await browser.close()
    lat = sorted(tally.latencies_s)

    def pct(q: float) -> float | None:
        return lat[min(len(lat) - 1, int(q * len(lat)))] if lat else None

    result = {
        "sessions": sessions,
        "connected": tally.connected,
        "connect_s": connect_s,
        "seconds": run_s,
        "reruns": len(lat),
        "errors": len(tally.errors),
        "error_samples": tally.errors[:5],
        "p50_s": statistics.median(lat) if lat else None,
        "p95_s": pct(0.95),
        "max_s": lat[-1] if lat else None,
        "reruns_per_s": len(lat) / run_s if run_s else 0.0,
    }
    if server_pid:
        result.update(
            {
                "rss_cold_mib": rss_cold,
                "rss_before_mib": rss_before,
                "rss_connected_mib": rss_connected,
                "rss_peak_mib": rss_peak,
                "rss_per_session_mib": (rss_peak - rss_before) / sessions,
                "server_cpu_s": cpu_seconds(server_pid) - cpu_before,
            }
        )
    return result


def report(r: dict) -> str:
    def ms(v):
        return "-" if v is None else f"{v * 1000:,.0f} ms"

    lines = [
        f"sessions {r['sessions']} (connected {r['connected']} in {r['connect_s']:.1f} s), "
        f"{r['seconds']:.0f} s of input changes, {os.cpu_count()} CPUs shared by server and browser",
        f"reruns {r['reruns']} ({r['reruns_per_s']:.1f}/s), errors {r['errors']}",
        f"rerun latency p50 {ms(r['p50_s'])}, p95 {ms(r['p95_s'])}, max {ms(r['max_s'])}",
    ]
    if "rss_before_mib" in r:
        lines.append(
            f"server RSS {r['rss_cold_mib']:.0f} MiB at start, {r['rss_before_mib']:.0f} MiB after one "
            f"page (warm), {r['rss_connected_mib']:.0f} MiB with all "
            f"sessions loaded, {r['rss_peak_mib']:.0f} MiB peak: {r['rss_per_session_mib']:.1f} MiB per "
            f"session; server CPU {r['server_cpu_s']:.0f} s"
        )
    lines += [f"  {e}" for e in r["error_samples"]]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sessions", type=int, default=50)
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--url", help="a portal already running on a loopback address")
    args = ap.parse_args(argv)
    if not 1 <= args.sessions <= 500:
        ap.error("--sessions: 1 to 500")
    if not 1 <= args.seconds <= 3600:
        ap.error("--seconds: 1 to 3600")
    proc = None
    if args.url:
        url = args.url if args.url.endswith("/") else args.url + "/"
        require_loopback(url)
        wait_healthy(url, seconds=10)
        server_pid = pid_listening_on(urlsplit(url).port or 80)
    else:
        port = free_port()
        url = f"http://127.0.0.1:{port}/"
        proc = start_portal(port)
        server_pid = proc.pid
    try:
        if proc:
            wait_healthy(url, proc)
            time.sleep(1.0)
        result = asyncio.run(drive(url, args.sessions, args.seconds, server_pid))
    finally:
        if proc:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
    print(report(result))
    return 0 if result["errors"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())

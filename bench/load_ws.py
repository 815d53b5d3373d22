"""Load test over Streamlit's own websocket protocol: N concurrent sessions without browsers.

    .venv/bin/python bench/load_ws.py [--sessions 50] [--seconds 60] [--think 5 10] [--replicas 2]
                                      [--url http://127.0.0.1:PORT/]

`bench/load.py` drives real Chromium pages, but on a 2-core machine the browsers take the cores the
server needs. This client speaks what the page speaks: it opens `/_stcore/stream`, sends the
protobuf `BackMsg` a browser sends (a rerun with the widget states), and reads the `ForwardMsg`s
until `script_finished`. Each session opens the Workload page, then until the time is up waits a
"think time" (uniform, default 5-10 s: a person reading the numbers before the next change), sets
the GPUs input to a new value, and times the rerun until the script finishes; the rerun counts as
an error unless it finished cleanly and the GPUs metric shows the new value. Reported: sessions,
reruns and reruns/s, errors, p50/p95/max rerun latency (all, and once every session has finished
its first run: 50 first page loads at once are a burst of their own), the server's CPU seconds and resident
memory (VmRSS from /proc) before and with all sessions connected. Loopback addresses only.
"""

from __future__ import annotations

import argparse
import asyncio
import pathlib
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from urllib.parse import urlsplit

import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

# the server helpers (start, health, /proc readings): bench/load.py, as a package module when
# imported (`from bench import load_ws`), beside this file when run as a script
if __package__:
    from bench import load as browser_load
else:
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
    import load as browser_load

ROOT = pathlib.Path(__file__).resolve().parents[1]
FINISHED_OK = 0  # ForwardMsg.ScriptFinishedStatus.FINISHED_SUCCESSFULLY
STEP_TIMEOUT_S = 30.0


def rerun_msg(widget_id: str | None = None, value: int | None = None) -> bytes:
    """A rerun with the GPU count typed into its text box (the Workload page reads it as text)."""
    msg = BackMsg()
    msg.rerun_script.query_string = ""
    if widget_id is not None:
        w = msg.rerun_script.widget_states.widgets.add()
        w.id, w.string_value = widget_id, str(value)
    return msg.SerializeToString()


async def one_run(ws) -> tuple[str | None, str | None, int, bool]:
    """Reads one script run: (GPUs widget id, GPUs metric text, finish status, exception shown)."""
    widget_id = metric = None
    exception = False
    while True:
        fm = ForwardMsg()
        fm.ParseFromString(await asyncio.wait_for(ws.recv(), STEP_TIMEOUT_S))
        kind = fm.WhichOneof("type")
        if kind == "delta" and fm.delta.WhichOneof("type") == "new_element":
            el = fm.delta.new_element
            which = el.WhichOneof("type")
            if which == "text_input" and el.text_input.label == "GPUs":
                widget_id = el.text_input.id
            elif which == "metric" and el.metric.label == "GPUs":
                metric = el.metric.body
            elif which == "exception":
                exception = True
        elif kind == "script_finished":
            return widget_id, metric, fm.script_finished, exception


async def session(url: str, stop_at: float, think: tuple[float, float], stats: dict) -> None:
    parts = urlsplit(url)
    ws_url = f"ws://{parts.netloc}/_stcore/stream"
    rng = random.Random()
    try:
        async with websockets.connect(
            ws_url, subprotocols=["streamlit"], max_size=2**26, origin=f"http://{parts.netloc}"
        ) as ws:
            await ws.send(rerun_msg())
            widget_id, _, status, _ = await one_run(ws)
            if widget_id is None or status != FINISHED_OK:
                stats["errors"].append("first run: no GPUs input or not finished")
                return
            stats["connected"] += 1
            while True:
                await asyncio.sleep(rng.uniform(*think))
                if time.monotonic() >= stop_at:
                    return
                value = rng.randrange(64, 4096, 64)
                t = time.perf_counter()
                steady = stats["connected"] == stats["sessions"]  # every session past its first run
                await ws.send(rerun_msg(widget_id, value))
                _, metric, status, exception = await one_run(ws)
                stats["latencies"].append(time.perf_counter() - t)
                if steady:
                    stats["steady"].append(time.perf_counter() - t)
                if status != FINISHED_OK or exception or metric != f"{value:,}":
                    stats["errors"].append(f"rerun to {value}: status {status}, metric {metric!r}")
    except (TimeoutError, OSError, websockets.WebSocketException) as exc:
        stats["errors"].append(f"{type(exc).__name__}: {exc}")


def start_nginx(ports: list[int]) -> tuple[str, subprocess.Popen]:
    """nginx (Debian's) on a free loopback port in front of the replicas, with the deploy template:
    a websocket without the sticky cookie lands on a random replica."""
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    prefix = pathlib.Path(tempfile.mkdtemp(prefix="load-nginx-"))
    listen = f"127.0.0.1:{browser_load.free_port()}"
    conf = prefix / "nginx.conf"
    conf.write_text(
        browser_load.render_nginx_conf(prefix, listen, [f"127.0.0.1:{p}" for p in ports])
    )
    proc = subprocess.Popen(
        [nginx, "-c", str(conf), "-p", str(prefix), "-g", "daemon off;"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://{listen}/"
    browser_load.wait_healthy(url, proc)
    return url, proc


def _sum(read, pids: list[int]) -> float | None:
    return sum(read(p) for p in pids) if pids else None


async def drive(
    url: str, sessions: int, seconds: float, think: tuple[float, float], pids: list[int]
) -> dict:
    stats = {"latencies": [], "steady": [], "errors": [], "connected": 0, "sessions": sessions}
    rss0 = _sum(browser_load.rss_mib, pids)
    cpu0 = _sum(browser_load.cpu_seconds, pids)
    start = time.monotonic()
    stop_at = start + seconds
    tasks = []
    for _ in range(sessions):  # staggered arrival, as people open the link over a few seconds
        tasks.append(asyncio.create_task(session(url, stop_at, think, stats)))
        await asyncio.sleep(0.05)
    rss_peak = rss0
    while not all(t.done() for t in tasks):
        await asyncio.sleep(1.0)
        if pids:
            rss_peak = max(rss_peak, _sum(browser_load.rss_mib, pids))
    lat = sorted(stats["latencies"])
    elapsed = time.monotonic() - start

    def pct(q: float) -> float | None:
        return lat[min(len(lat) - 1, int(q * len(lat)))] if lat else None

    steady = sorted(stats["steady"])
    return {
        "steady_reruns": len(steady),
        "steady_p50_s": statistics.median(steady) if steady else None,
        "steady_p95_s": steady[min(len(steady) - 1, int(0.95 * len(steady)))] if steady else None,
        "sessions": sessions,
        "connected": stats["connected"],
        "seconds": elapsed,
        "reruns": len(lat),
        "reruns_per_s": len(lat) / elapsed,
        "errors": stats["errors"],
        "p50_s": statistics.median(lat) if lat else None,
        "p95_s": pct(0.95),
        "max_s": lat[-1] if lat else None,
        "rss_before_mib": rss0,
        "rss_peak_mib": rss_peak,
        "server_cpu_s": _sum(browser_load.cpu_seconds, pids) - cpu0 if pids else None,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sessions", type=int, default=50)
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--think", type=float, nargs=2, default=[5.0, 10.0], metavar=("MIN", "MAX"))
    ap.add_argument("--url", help="a portal already running on a loopback address")
    ap.add_argument(
        "--replicas",
        type=int,
        default=1,
        help="start this many portal processes behind nginx (deploy/nginx.conf.template)",
    )
    args = ap.parse_args(argv)
    procs: list[subprocess.Popen] = []
    pids: list[int] = []
    try:
        if args.url:
            browser_load.require_loopback(args.url)
            url = args.url
            pids = [p for p in [browser_load.pid_listening_on(urlsplit(url).port or 80)] if p]
        else:
            ports = [browser_load.free_port() for _ in range(args.replicas)]
            procs = [browser_load.start_portal(p) for p in ports]
            for port, proc in zip(ports, procs, strict=True):
                browser_load.wait_healthy(f"http://127.0.0.1:{port}/", proc)
            pids = [p.pid for p in procs]
            url = f"http://127.0.0.1:{ports[0]}/"
            if args.replicas > 1:
                url, lb = start_nginx(ports)
                procs.append(lb)
        r = asyncio.run(drive(url, args.sessions, args.seconds, tuple(args.think), pids))
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(timeout=15)
    ms = lambda v: "-" if v is None else f"{v * 1000:.0f} ms"  # noqa: E731
    print(
        f"{r['sessions']} sessions ({r['connected']} connected) for {r['seconds']:.0f} s, think time "
        f"{args.think[0]:g}-{args.think[1]:g} s: {r['reruns']} reruns ({r['reruns_per_s']:.1f}/s), "
        f"{len(r['errors'])} errors"
    )
    print(f"  rerun latency p50 {ms(r['p50_s'])}, p95 {ms(r['p95_s'])}, max {ms(r['max_s'])}")
    print(
        f"  once every session is connected ({r['steady_reruns']} reruns): p50 {ms(r['steady_p50_s'])}, "
        f"p95 {ms(r['steady_p95_s'])}"
    )
    if r["rss_before_mib"] is not None:
        per = (r["rss_peak_mib"] - r["rss_before_mib"]) / max(r["connected"], 1)
        print(
            f"  server memory {r['rss_before_mib']:.0f} -> {r['rss_peak_mib']:.0f} MiB ({per:.1f} MiB per session), "
            f"server CPU {r['server_cpu_s']:.1f} s"
        )
    for e in r["errors"][:5]:
        print("  error:", e)
    return 0 if not r["errors"] else 1


if __name__ == "__main__":
    sys.exit(main())

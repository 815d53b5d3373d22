"""Load test over Streamlit's own websocket protocol: N concurrent sessions without browsers.

    .venv/bin/python bench/load_ws.py [--sessions 50] [--seconds 60] [--think 5 10] [--url http://127.0.0.1:PORT/]

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
import statistics
import sys
import time
from urllib.parse import urlsplit

import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import load as browser_load  # noqa: E402  (the server helpers: start, health, /proc readings)

FINISHED_OK = 0  # ForwardMsg.ScriptFinishedStatus.FINISHED_SUCCESSFULLY
STEP_TIMEOUT_S = 30.0


def rerun_msg(widget_id: str | None = None, value: int | None = None) -> bytes:
    msg = BackMsg()
    msg.rerun_script.query_string = ""
    if widget_id is not None:
        w = msg.rerun_script.widget_states.widgets.add()
        w.id, w.int_value = widget_id, value
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
            if which == "number_input" and el.number_input.label == "GPUs":
                widget_id = el.number_input.id
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
        async with websockets.connect(ws_url, subprotocols=["streamlit"], max_size=2**26,
                                      origin=f"http://{parts.netloc}") as ws:
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


async def drive(url: str, sessions: int, seconds: float, think: tuple[float, float], pid: int | None) -> dict:
    stats = {"latencies": [], "steady": [], "errors": [], "connected": 0, "sessions": sessions}
    rss0 = browser_load.rss_mib(pid) if pid else None
    cpu0 = browser_load.cpu_seconds(pid) if pid else None
    start = time.monotonic()
    stop_at = start + seconds
    tasks = []
    for _ in range(sessions):  # staggered arrival, as people open the link over a few seconds
        tasks.append(asyncio.create_task(session(url, stop_at, think, stats)))
        await asyncio.sleep(0.05)
    rss_peak = rss0
    while not all(t.done() for t in tasks):
        await asyncio.sleep(1.0)
        if pid:
            rss_peak = max(rss_peak, browser_load.rss_mib(pid))
    lat = sorted(stats["latencies"])
    elapsed = time.monotonic() - start

    def pct(q: float) -> float | None:
        return lat[min(len(lat) - 1, int(q * len(lat)))] if lat else None

    steady = sorted(stats["steady"])
    return {
        "steady_reruns": len(steady),
        "steady_p50_s": statistics.median(steady) if steady else None,
        "steady_p95_s": steady[min(len(steady) - 1, int(0.95 * len(steady)))] if steady else None,
        "sessions": sessions, "connected": stats["connected"], "seconds": elapsed, "reruns": len(lat),
        "reruns_per_s": len(lat) / elapsed, "errors": stats["errors"],
        "p50_s": statistics.median(lat) if lat else None, "p95_s": pct(0.95), "max_s": lat[-1] if lat else None,
        "rss_before_mib": rss0, "rss_peak_mib": rss_peak,
        "server_cpu_s": browser_load.cpu_seconds(pid) - cpu0 if pid else None,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sessions", type=int, default=50)
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--think", type=float, nargs=2, default=[5.0, 10.0], metavar=("MIN", "MAX"))
    ap.add_argument("--url", help="a portal already running on a loopback address")
    args = ap.parse_args(argv)
    proc = None
    if args.url:
        browser_load.require_loopback(args.url)
        url = args.url
        pid = browser_load.pid_listening_on(urlsplit(url).port or 80)
    else:
        port = browser_load.free_port()
        proc = browser_load.start_portal(port)
        url = f"http://127.0.0.1:{port}/"
        browser_load.wait_healthy(url, proc)
        pid = proc.pid
    try:
        r = asyncio.run(drive(url, args.sessions, args.seconds, tuple(args.think), pid))
    finally:
        if proc:
            proc.terminate()
            proc.wait(timeout=15)
    ms = lambda v: "-" if v is None else f"{v * 1000:.0f} ms"  # noqa: E731
    print(f"{r['sessions']} sessions ({r['connected']} connected) for {r['seconds']:.0f} s, think time "
          f"{args.think[0]:g}-{args.think[1]:g} s: {r['reruns']} reruns ({r['reruns_per_s']:.1f}/s), "
          f"{len(r['errors'])} errors")
    print(f"  rerun latency p50 {ms(r['p50_s'])}, p95 {ms(r['p95_s'])}, max {ms(r['max_s'])}")
    print(f"  once every session is connected ({r['steady_reruns']} reruns): p50 {ms(r['steady_p50_s'])}, "
          f"p95 {ms(r['steady_p95_s'])}")
    if r["rss_before_mib"] is not None:
        per = (r["rss_peak_mib"] - r["rss_before_mib"]) / max(r["connected"], 1)
        print(f"  server memory {r['rss_before_mib']:.0f} -> {r['rss_peak_mib']:.0f} MiB ({per:.1f} MiB per session), "
              f"server CPU {r['server_cpu_s']:.1f} s")
    for e in r["errors"][:5]:
        print("  error:", e)
    return 0 if not r["errors"] else 1


if __name__ == "__main__":
    sys.exit(main())

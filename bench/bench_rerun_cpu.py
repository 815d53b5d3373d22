"""Server CPU seconds per rerun under a real `streamlit run` server (issue 32, "Measured").

    .venv/bin/python bench/bench_rerun_cpu.py [--reruns 30] [--url http://127.0.0.1:PORT/]

AppTest runs the page script in the test's own process and never serialises what the page sends,
so it misses what a real server spends on each rerun: turning every chart, table and text into
`ForwardMsg` protobufs, hashing and caching them, and writing them to the websocket. This bench
starts the portal on a free loopback port (scripts/portal_process.py, the bundled catalogue), opens
one websocket session per case the way bench/load_ws.py does, loads the page once (caches filled),
then sends N reruns one after another and reads the server's user + system CPU seconds from
/proc/<pid>/stat before and after each (clock ticks: 10 ms resolution, so the total over N reruns
is the figure to trust; p50/p95 are per rerun). Cases:

- `compare run`: the Compare page, the default scenario (the sample run), inputs unchanged;
- `compare portfolio`: the Compare page, the enterprise sample from its share link, unchanged;
- `workload gpus`: the Workload page with a new GPU count each rerun (what load_ws.py sends).

Only one session is open at a time, so the figures are CPU per rerun without queueing; wall time
per rerun is printed beside them. Loopback addresses only.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import pathlib
import statistics
import sys
import time
from urllib.parse import urlsplit

import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

ROOT = pathlib.Path(__file__).resolve().parents[1]
if __package__:
    from bench import load as browser_load
else:
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
    import load as browser_load
STEP_TIMEOUT_S = 120.0
FINISHED_OK = 0


def enterprise_query() -> str:
    """The enterprise sample's share-link query (`s=...`), as a colleague's link would carry it."""
    sys.path.insert(0, str(ROOT))
    from app import share_link
    from models.scenario import Scenario

    data = json.loads((ROOT / "app" / "data" / "portfolio_enterprise.json").read_text())
    return "s=" + share_link.encode(Scenario.model_validate(data))


def rerun_msg(page: str, query: str, widget: tuple[str, int] | None = None) -> bytes:
    msg = BackMsg()
    msg.rerun_script.query_string = query
    msg.rerun_script.page_name = page
    if widget is not None:
        w = msg.rerun_script.widget_states.widgets.add()
        w.id, w.string_value = widget[0], str(widget[1])
    return msg.SerializeToString()


async def one_run(ws) -> dict:
    """One script run: its finish status, exception shown, messages and bytes, the GPUs input id."""
    out = {"messages": 0, "bytes": 0, "exception": False, "gpus_id": None}
    while True:
        raw = await asyncio.wait_for(ws.recv(), STEP_TIMEOUT_S)
        fm = ForwardMsg()
        fm.ParseFromString(raw)
        out["messages"] += 1
        out["bytes"] += len(raw)
        kind = fm.WhichOneof("type")
        if kind == "delta" and fm.delta.WhichOneof("type") == "new_element":
            el = fm.delta.new_element
            which = el.WhichOneof("type")
            if which == "exception":
                out["exception"] = True
            elif which == "text_input" and el.text_input.label == "GPUs":
                out["gpus_id"] = el.text_input.id
        elif kind == "script_finished":
            out["status"] = fm.script_finished
            return out


async def case(url: str, pid: int | None, page: str, query: str, reruns: int, gpus: bool) -> dict:
    netloc = urlsplit(url).netloc
    async with websockets.connect(
        f"ws://{netloc}/_stcore/stream",
        subprotocols=["streamlit"],
        max_size=2**26,
        origin=f"http://{netloc}",
    ) as ws:
        await ws.send(rerun_msg(page, query))
        first = await one_run(ws)
        if first["status"] != FINISHED_OK or first["exception"]:
            raise SystemExit(f"{page}: the first run did not finish cleanly")
        cpu, wall, size = [], [], first["bytes"]
        for i in range(reruns):
            widget = (first["gpus_id"], 256 + 64 * i) if gpus else None
            c0, t0 = browser_load.cpu_seconds(pid) if pid else 0.0, time.perf_counter()
            await ws.send(rerun_msg(page, query, widget))
            r = await one_run(ws)
            wall.append(time.perf_counter() - t0)
            cpu.append((browser_load.cpu_seconds(pid) if pid else 0.0) - c0)
            if r["status"] != FINISHED_OK or r["exception"]:
                raise SystemExit(f"{page}: rerun {i} did not finish cleanly")
            size = r["bytes"]
    return {"cpu": cpu, "wall": wall, "bytes": size}


#: name: (page, the enterprise portfolio's link (else the default run), a new GPU count each rerun)
CASES = {
    "compare-run": ("compare", False, False),
    "compare-portfolio": ("compare", True, False),
    "workload-gpus": ("", False, True),
}


def pct(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reruns", type=int, default=30)
    ap.add_argument("--url", help="a portal already running on a loopback address")
    ap.add_argument("--cases", nargs="+", choices=CASES, default=list(CASES))
    args = ap.parse_args(argv)
    cases = {name: CASES[name] for name in args.cases}
    proc = None
    try:
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
        print(f"Server CPU per rerun, one session at a time ({args.reruns} reruns per case)")
        for name, (page, portfolio, gpus) in cases.items():
            query = enterprise_query() if portfolio else ""
            r = asyncio.run(case(url, pid, page, query, args.reruns, gpus))
            cpu, wall = r["cpu"], r["wall"]
            print(
                f"  {name:17}: CPU {sum(cpu) / len(cpu) * 1e3:4.0f} ms/rerun (p50 "
                f"{statistics.median(cpu) * 1e3:.0f}, p95 {pct(cpu, 0.95) * 1e3:.0f} ms), wall p50 "
                f"{statistics.median(wall) * 1e3:.0f} ms, p95 {pct(wall, 0.95) * 1e3:.0f} ms, "
                f"{r['bytes'] / 1024:.0f} KiB sent",
                flush=True,
            )
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(timeout=15)
    return 0


if __name__ == "__main__":
    sys.exit(main())

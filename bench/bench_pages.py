"""Each page's first load and a rerun, in seconds of script time (issue 32: "time each page's
first load and a rerun on an idle machine").

For each page, for the sample run (the example) and a portfolio (the enterprise sample), a new
portal session through Streamlit's AppTest (the real script and widgets, no browser or websocket):
the first load in a fresh process's first session (`cold`: the engine's and the page's caches
empty), a first load in a new session once they are filled (`first`: a new visitor), and a rerun
of that session with its inputs unchanged (`rerun`: what every widget change costs at least).
A browser adds the transfer and drawing on top (bench/load_ws.py measures a server under load;
bench/bench_rerun_cpu.py a real server's CPU per rerun). Each figure is wall time and, after the
slash, this process's CPU time (time.process_time, every thread): on a shared machine the wall
time grows with the other work, the CPU time much less.

Run: .venv/bin/python bench/bench_pages.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import copy
import json
import pathlib
import statistics
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
HARNESS = str(ROOT / "tests" / "portal_harness.py")
PAGES = (
    "workload",
    "compare",
    "side_by_side",
    "serve",
    "finetune",
    "assumptions",
    "guide",
    "validation",
)
SCENARIOS = {
    "run": ROOT / "app" / "data" / "example_scenario.json",
    "portfolio": ROOT / "app" / "data" / "portfolio_enterprise.json",
}


def session(page: str, scenario: dict):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(HARNESS, default_timeout=300)
    at.session_state["scenario"] = copy.deepcopy(scenario)
    at.session_state["_page"] = page
    return at


def timed(at) -> tuple[float, float]:
    """(wall seconds, CPU seconds of this process) of one run of `at`."""
    t, cpu = time.perf_counter(), time.process_time()
    at.run()
    took = time.perf_counter() - t, time.process_time() - cpu
    assert not at.exception, at.exception
    return took


def one(page: str, which: str, repeat: int) -> dict:
    """first load and rerun of `page` on scenario `which` in this (warm) process."""
    scenario = json.loads(SCENARIOS[which].read_text())
    firsts, reruns = [], []
    for _ in range(repeat):
        at = session(page, scenario)
        firsts.append(timed(at))
        reruns.append(timed(at))
    med = lambda xs, i: statistics.median(x[i] for x in xs)  # noqa: E731
    return {
        "first": (med(firsts, 0), med(firsts, 1)),
        "rerun": (med(reruns, 0), med(reruns, 1)),
    }


def cold(page: str, which: str) -> tuple[float, float]:
    """The first load in a fresh process (caches empty), from a child process of this script."""
    code = (
        "import sys, json, time; sys.path.insert(0, sys.argv[1]); "
        "from bench.bench_pages import session, timed, SCENARIOS; "
        "s = json.loads(SCENARIOS[sys.argv[3]].read_text()); "
        "print(*timed(session(sys.argv[2], s)))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(ROOT), page, which],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    wall, cpu = out.stdout.strip().splitlines()[-1].split()
    return float(wall), float(cpu)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    print("Page loads and reruns, wall / CPU ms (AppTest; median of --repeat sessions)")
    print(f"  {'page':13} {'scenario':9} {'cold':>11} {'first':>11} {'rerun':>11}")
    ms = lambda pair: f"{pair[0] * 1e3:5.0f}/{pair[1] * 1e3:<5.0f}"  # noqa: E731
    for page in PAGES:
        for which in SCENARIOS:
            c = cold(page, which)
            w = one(page, which, args.repeat)
            print(f"  {page:13} {which:9} {ms(c)} {ms(w['first'])} {ms(w['rerun'])}", flush=True)


if __name__ == "__main__":
    main()

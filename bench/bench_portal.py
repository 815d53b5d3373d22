"""Script rerun time of the Compare page after one input change (issue 4 target: p50 <= 150 ms),
for a training-run scenario (version 1, the example) and for a portfolio (version 2, the
enterprise sample: `clusterplan example --portfolio enterprise`; issue 15 target: p50 < 150 ms).

Each sample changes one input (v1: tokens, term or GPU count; v2: the serving workload's requests
per second, the term or the fixed size), cycling through values not seen before, so the cached
engine result cannot be reused, and times the page's rerun through Streamlit's AppTest (the real
script and widgets, no browser or websocket); then times reruns that hit the cache (the same input
set again).

Run: .venv/bin/python bench/bench_portal.py
"""

from __future__ import annotations

import copy
import json
import pathlib
import statistics
import time

from streamlit.testing.v1 import AppTest

ROOT = pathlib.Path(__file__).resolve().parents[1]
HARNESS = str(ROOT / "tests" / "portal_harness.py")
ENTERPRISE = ROOT / "app" / "data" / "portfolio_enterprise.json"


def v1_changes() -> list[tuple[tuple[str, ...], float]]:
    changes = []
    for i in range(12):
        changes.append((("workload", "tokens"), (1.5 + 0.1 * i) * 1e12))
        changes.append((("term", "months"), 24 + i))
        changes.append((("cluster", "gpus"), 512 + 64 * i))
    return changes


def v2_changes() -> list[tuple[tuple[str, ...], float]]:
    changes = []
    for i in range(12):
        changes.append((("workloads", 1, "rps"), 2.0 + 0.25 * (i + 1)))
        changes.append((("term", "months"), 24 + i))
        changes.append((("cluster", "gpus"), 64 + 8 * i))
    return changes


def _set(data: dict, path: tuple, value) -> None:
    node = data
    for part in path[:-1]:
        node = node.setdefault(part, {}) if isinstance(part, str) else node[part]
    node[path[-1]] = value


def measure(scenario: dict | None, changes: list) -> tuple[list[float], list[float]]:
    """(seconds of each rerun after a new input, of each rerun of an input set seen before)."""
    at = AppTest.from_file(HARNESS, default_timeout=120)
    if scenario is not None:
        at.session_state["scenario"] = copy.deepcopy(scenario)
    at.session_state["_page"] = "compare"
    at.run()
    assert not at.exception, at.exception

    def rerun(path, value) -> float:
        _set(at.session_state["scenario"], path, value)
        t = time.perf_counter()
        at.run()
        took = time.perf_counter() - t
        assert not at.exception and not at.error, (at.exception, [e.value for e in at.error])
        return took

    fresh = [rerun(path, value) for path, value in changes]
    cached = [rerun(path, value) for path, value in changes[:12]]
    return fresh, cached


def q(xs: list[float], p: float) -> float:
    return sorted(xs)[min(len(xs) - 1, int(p / 100 * len(xs)))] * 1e3


def main() -> None:
    print("Compare page rerun after one input change (AppTest, one session, this machine)")
    runs = {
        "v1 example   ": (None, v1_changes()),
        "v2 enterprise": (json.loads(ENTERPRISE.read_text()), v2_changes()),
    }
    for name, (scenario, changes) in runs.items():
        fresh, cached = measure(scenario, changes)
        print(
            f"  {name} new inputs   : p50 {statistics.median(fresh) * 1e3:.0f} ms, "
            f"p90 {q(fresh, 90):.0f} ms, max {max(fresh) * 1e3:.0f} ms over {len(fresh)} changes"
        )
        print(
            f"  {name} cached inputs: p50 {statistics.median(cached) * 1e3:.0f} ms, "
            f"p90 {q(cached, 90):.0f} ms over {len(cached)} changes"
        )


if __name__ == "__main__":
    main()

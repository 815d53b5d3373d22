"""Times a 20-workload portfolio over 60 months: sizing each workload by the core (once per
portfolio), deriving the monthly demand from the sizings (models/portfolio/demand.py demand_of) and serving
it on a capacity plan (models/portfolio/capacity.py simulate). The issue's target is 200 ms for the whole
comparison (all options, 2,000 Monte Carlo draws); demand and one simulation should be a small
share of it. Run: python -m bench.bench_portfolio"""

from __future__ import annotations

import statistics
import time

from models.portfolio.capacity import simulate
from models.portfolio.demand import demand_of, size_workload
from models.portfolio.workloads import parse_workloads

MONTHS = 60
GPU = "H100-SXM"


def portfolio() -> list:
    items = []
    for t in range(4):
        team = f"team{t}"
        items += [
            {"kind": "pretrain", "name": f"pre{t}", "team": team, "gpus": 256 * (t + 1),
             "tokens": 2e12, "runs_per_month": 0.25, "start_month": 3 * t, "duration_months": 48},
            {"kind": "finetune", "name": f"ft{t}", "team": team, "jobs_per_month": 8,
             "duration_months": 60},
            {"kind": "finetune", "name": f"ft-full{t}", "team": team, "method": "full",
             "gpus": 16, "jobs_per_month": 2, "duration_months": 60},
            {"kind": "serve", "name": f"serve{t}", "team": team, "rps": 5 + t,
             "growth_pct_per_month": 5, "duration_months": 60, "tpot_ms": 60},
            {"kind": "steady", "name": f"research{t}", "team": team, "gpus": 64,
             "utilisation_pct": 60, "duration_months": 60},
        ]  # fmt: skip
    return parse_workloads(items)


def timed(fn, repeats: int) -> tuple[float, object]:
    times, out = [], None
    for _ in range(repeats):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1e3, out


def main() -> None:
    ws = portfolio()
    t = time.perf_counter()
    sizings = [size_workload(w, GPU, field=f"workloads[{i}]") for i, w in enumerate(ws)]
    sizing_ms = (time.perf_counter() - t) * 1e3
    demand_ms, demand = timed(lambda: demand_of(ws, sizings, MONTHS, gpu=GPU), 20)
    peak = max(demand.peak_gpus)
    results = {}
    for label, cap in (
        ("short (70 % of peak)", [0.7 * peak] * MONTHS),
        ("peak", [peak] * MONTHS),
        ("base + burst", [0.5 * peak if m % 12 < 9 else 1.2 * peak for m in range(MONTHS)]),
    ):
        results[label] = timed(lambda cap=cap: simulate(demand, cap), 20)
    print(f"portfolio: {len(ws)} workloads, {len(demand.runs)} gang runs, {MONTHS} months, {GPU}")
    print(f"sizing by the core (once, uncached): {sizing_ms:8.1f} ms")
    print(f"demand from the sizings (median):    {demand_ms:8.2f} ms")
    for label, (ms, r) in results.items():
        print(
            f"simulate on {label:<22} {ms:8.2f} ms   served {r.served_gpu_hours / 1e6:6.2f} M, "
            f"queued {r.queued_gpu_hours / 1e6:5.2f} M, beyond {r.beyond_term_gpu_hours / 1e6:5.2f}"
            f" M, idle {r.idle_gpu_hours / 1e6:6.2f} M GPU-hours"
        )


if __name__ == "__main__":
    main()

"""Times the whole comparison of a 20-workload portfolio over 60 months (bench/bench_portfolio.py's
portfolio), all options, 2,000 Monte Carlo draws: pricing/engine.py compare on a version 2
scenario (a capacity plan and one simulation per option, pricing/planning/). The issue's
target is 200 ms. The first call sizes every workload by the core; later calls reuse the sizings
(models/portfolio/demand.py caches them: the records are frozen).

"before" runs the same comparison with the size search as it was: every probe a whole simulation
(models/portfolio/capacity.py simulate) instead of `unmet_gpu_hours` on the demand's prepared arrays; the
bench asserts that both give the same per-option results. Each time is given as wall clock and as
this process's CPU time (the figure to compare on a machine other work is loading).
Run: python -m bench.bench_portfolio_compare"""

from __future__ import annotations

import statistics
import time

from bench.bench_portfolio import portfolio
from models.options import OPTION_IDS
from models.portfolio.capacity import simulate
from models.scenario import Scenario
from pricing.catalogue.loader import load_catalogue
from pricing.engine import compare
from pricing.planning.planner import Planner

TARGET_MS = 200.0


def scenario() -> Scenario:
    return Scenario(
        version=2,
        workloads=portfolio(),
        term={"months": 60},
        options={"compare": list(OPTION_IDS)},
    )


def _whole_simulation_probe(self, option: str, gpus: int) -> float:
    """The search's step as it was: a whole simulation, without the prepared arrays."""
    cap = self.base_capacity(option, gpus)[1] + self.extra(option)
    return self.unmet(simulate(self.demand, cap[0], whole_gpus=cap[1]))


def _warm(s: Scenario, cat) -> tuple[float, float]:
    """(wall ms, CPU ms) of compare, medians of 5: the CPU time (time.process_time) is this
    process's own, so it holds on a machine other work is loading, where the wall time does not."""
    wall, cpu = [], []
    for _ in range(5):
        t, c = time.perf_counter(), time.process_time()
        compare(s, cat, draws=2000)
        wall.append((time.perf_counter() - t) * 1e3)
        cpu.append((time.process_time() - c) * 1e3)
    return statistics.median(wall), statistics.median(cpu)


def main() -> None:
    cat = load_catalogue()
    s = scenario()
    t = time.perf_counter()
    c = compare(s, cat, draws=2000)
    cold = (time.perf_counter() - t) * 1e3
    warm = _warm(s, cat)
    probe = Planner.probe
    Planner.probe = _whole_simulation_probe
    try:
        before = _warm(s, cat)
        old = compare(s, cat, draws=2000)
    finally:
        Planner.probe = probe
    assert [o.model_dump() for o in old.options] == [o.model_dump() for o in c.options], (
        "the probes changed a result"
    )
    print(
        f"portfolio: {len(s.workloads)} workloads, 60 months, {len(OPTION_IDS)} options, 2,000 draws"
    )
    for o in c.options:
        size = f"{o.capacity_size_gpus:,}" if o.capacity_size_gpus else "-"
        print(
            f"  {o.label:20s} {size:>7s} GPUs  NPV ${o.npv_usd / 1e6:8.1f}M  completes {o.completes_workload}"
        )
    print(f"compare, first call (sizing by the core included): {cold:7.1f} ms")
    print(
        f"compare, before (every probe a whole simulation):    {before[0]:7.1f} ms"
        f"  (CPU {before[1]:7.1f} ms)"
    )
    print(
        f"compare, warm (median of 5):                        {warm[0]:7.1f} ms"
        f"  (CPU {warm[1]:7.1f} ms; target {TARGET_MS:.0f} ms)"
    )
    print("per-option results before and after: identical")


if __name__ == "__main__":
    main()

"""Time of one full comparison: four options over 60 months with the tornado, a 2,000-draw Monte
Carlo and the flip-point search (issue 3 target: under 200 ms on this machine).

Run: .venv/bin/python bench/bench_compare.py
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import statistics  # noqa: E402
import time  # noqa: E402

from models.options import DEFAULT_COMPARE  # noqa: E402
from models.scenario import Scenario  # noqa: E402
from models.training.plan import plan_training  # noqa: E402
from pricing.catalogue.loader import load_catalogue  # noqa: E402
from pricing.engine import compare  # noqa: E402

SCENARIO = Scenario.model_validate(
    {
        "workload": {"model": "llama3-70b", "tokens": 2e12},
        "cluster": {"gpu": "H100-SXM", "gpus": 1024},
        "usage": {"mode": "utilisation", "utilisation_pct": 70},
        "term": {"months": 60},
        "options": {"compare": list(DEFAULT_COMPARE)},
    }
)


def main() -> None:
    load_catalogue()
    plan_training(SCENARIO)  # warm the import-time caches once, as a running portal would be
    times = []
    for _ in range(15):
        t = time.perf_counter()
        c = compare(SCENARIO, draws=2000)
        times.append(time.perf_counter() - t)
    print("full comparison: 4 options, 60 months, tornado, 2,000-draw Monte Carlo, flip points")
    print(
        f"  median {statistics.median(times) * 1e3:.0f} ms, min {min(times) * 1e3:.0f} ms, "
        f"max {max(times) * 1e3:.0f} ms over {len(times)} runs"
    )
    print(
        f"  tornado bars {len(c.sensitivity.bars) if c.sensitivity else 0}, flip points {len(c.flip_points)}, "
        f"recommendation: {c.recommendation.label}"
    )
    t = time.perf_counter()
    compare(SCENARIO, decision=False)
    print(f"  without decision support: {(time.perf_counter() - t) * 1e3:.0f} ms")


if __name__ == "__main__":
    main()

"""Prints the search that set SERVE_STEP_OVERHEAD_S_PER_LAYER (models/constants.py): on a 1 µs grid,
the worst |error| over the calibration rows (models/validation/serving.py DECLARED_CALIBRATION_PREFIXES) and,
for information only, the held-out median and worst. Run: python -m bench.serve_calibration"""

from __future__ import annotations

import statistics

from models import constants as C
from models.validation import serving as V


def errors_at(overhead_s: float) -> tuple[float, float, float]:
    old = C.SERVE_STEP_OVERHEAD_S_PER_LAYER
    C.SERVE_STEP_OVERHEAD_S_PER_LAYER = overhead_s
    try:
        rows = V._validate()["rows"]
    finally:
        C.SERVE_STEP_OVERHEAD_S_PER_LAYER = old
    cal = [abs(r["error"]) for r in rows if r["id"].startswith(V.DECLARED_CALIBRATION_PREFIXES)]
    held = [
        abs(r["error"])
        for r in rows
        if r["kind"] == "throughput" and not r["id"].startswith(V.DECLARED_CALIBRATION_PREFIXES)
    ]
    return max(cal), statistics.median(held), max(held)


def search(grid_us=range(0, 201)) -> float:
    best = min(grid_us, key=lambda us: errors_at(us * 1e-6)[0])
    return best * 1e-6


if __name__ == "__main__":
    for us in (0, 5, 10, 20, 40, 60, 80, 100, 150, 200):
        cal, med, worst = errors_at(us * 1e-6)
        print(
            f"{us:>4} µs/layer: calibration worst {cal:6.1%}   held-out throughput median {med:6.1%} worst {worst:6.1%}"
        )
    print(f"best on the calibration rows: {search() * 1e6:.0f} µs per layer per step")

"""The serving model beside a peer, NVIDIA's AIConfigurator, on the held-out measured rows
(issue 29, item 6): on each held-out row of models/data/validation/aiconfigurator_silicon.csv that
the model expresses (docs/reference/serving-evidence.md), both estimates' TPOT and TTFT errors
against the measurement, per backend, GPU and model class, and the time each takes per row.

The peer runs in its own environment (scripts/peer.sh installs it, pinned, into .venv-peer; it
runs offline) and is given each row as its own configuration (bench/peer/aic_estimates.py). Its
performance databases and calibration come from the same team as these measurements, so on these
rows it is not an independent estimate: the comparison says how far the model is from the best a
measured-kernel estimator does here, not who is right on unseen hardware.

Run: bash scripts/peer.sh && .venv/bin/python -m bench.serve_peer [--rows N]"""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys
import time

import numpy as np

from models.validation import silicon

ROOT = pathlib.Path(__file__).resolve().parents[1]
PEER = ROOT / ".venv-peer" / "bin" / "python"
ESTIMATES = ROOT / "bench" / "peer" / "aic_estimates.py"


def _median(values: list[float]) -> str:
    return f"{np.median(np.abs(values)) * 100:.0f}%" if values else "-"


def _signed(values: list[float]) -> str:
    return f"{np.median(values) * 100:+.0f}%" if values else "-"


def main() -> int:
    if not PEER.exists():
        print("the peer is not installed: bash scripts/peer.sh", file=sys.stderr)
        return 2
    limit = int(sys.argv[sys.argv.index("--rows") + 1]) if "--rows" in sys.argv else None
    rows = {r["id"]: r for r in silicon.load_rows()}
    t = time.perf_counter()
    scored = [s for s in silicon.score() if s.held_out and s.tpot_predicted_ms is not None]
    ours_s = (time.perf_counter() - t) / max(len(silicon.score()), 1)
    scored = scored[:limit]
    lines = "".join(json.dumps(rows[s.id]) + "\n" for s in scored)
    t = time.perf_counter()
    done = subprocess.run(
        [str(PEER), str(ESTIMATES)], input=lines, capture_output=True, text=True, check=True
    )
    peer_wall = time.perf_counter() - t
    peer = {e["id"]: e for e in map(json.loads, done.stdout.splitlines())}
    print(
        f"{len(scored)} held-out rows the model expresses; the model {ours_s * 1e3:.2f} ms a row "
        f"(every row of the file scored once), the peer {peer_wall / max(len(scored), 1):.2f} s a "
        f"row ({peer_wall:.0f} s in all, its start-up included)"
    )
    print(
        f"  {'backend':7} {'GPU':9} {'class':5} {'rows':>4} {'peer ok':>7}  "
        f"{'TPOT ours':>9} {'peer':>5} {'signed':>6} {'peer':>5}  {'TTFT ours':>9} {'peer':>5}"
    )
    groups: dict[tuple[str, str, str], list] = {}
    for s in scored:
        key = (s.backend, silicon.GPUS[s.system], silicon.model_class(s))
        groups.setdefault(key, []).append(s)
    everything = {"ours_tpot": [], "peer_tpot": [], "ours_ttft": [], "peer_ttft": []}
    for (backend, gpu, cls), group in sorted(groups.items()):
        both = [(s, peer[s.id]) for s in group if "tpot_ms" in peer.get(s.id, {})]
        e = {
            "ours_tpot": [s.tpot_error for s, _ in both],
            "peer_tpot": [p["tpot_ms"] / s.tpot_ms - 1 for s, p in both],
            "ours_ttft": [s.ttft_error for s, _ in both],
            "peer_ttft": [p["ttft_ms"] / s.ttft_ms - 1 for s, p in both],
        }
        for k, v in e.items():
            everything[k] += v
        print(
            f"  {backend:7} {gpu:9} {cls:5} {len(group):>4} {len(both):>7}  "
            f"{_median(e['ours_tpot']):>9} {_median(e['peer_tpot']):>5} "
            f"{_signed(e['ours_tpot']):>6} {_signed(e['peer_tpot']):>5}  "
            f"{_median(e['ours_ttft']):>9} {_median(e['peer_ttft']):>5}"
        )
    print(
        f"  {'all':23} {len(scored):>4} {len(everything['ours_tpot']):>7}  "
        f"{_median(everything['ours_tpot']):>9} {_median(everything['peer_tpot']):>5} "
        f"{_signed(everything['ours_tpot']):>6} {_signed(everything['peer_tpot']):>5}  "
        f"{_median(everything['ours_ttft']):>9} {_median(everything['peer_ttft']):>5}"
    )
    default = sum(1 for e in peer.values() if e.get("version") == "default")
    if default:
        print(f"the peer had no database for {default} rows' backend version: its default used")
    refused = [e["error"] for e in peer.values() if "error" in e]
    if refused:
        print(f"the peer refused {len(refused)} rows, e.g. {refused[0]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

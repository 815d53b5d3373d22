"""Start-up time of the command line (issue 17 target: `clusterplan --help`, `decode` and `link`
under 0.3 s on this machine): each command run in a fresh interpreter, median of several runs, and
whether it loaded pandas, plotly or the cost engine.

Run: .venv/bin/python bench/bench_cli_start.py [RUNS]
"""

from __future__ import annotations

import pathlib
import statistics
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "app" / "data" / "example_scenario.json"
TARGET_S = 0.3
HEAVY = ("pandas", "plotly", "pricing.engine")
#: runs the command through app.cli.main, then reports which heavy modules it loaded
PROBE = (
    "import sys, io, contextlib; from app.cli import main\n"
    "with contextlib.redirect_stdout(io.StringIO()):\n"
    "    try:\n"
    "        main(sys.argv[1:])\n"
    "    except SystemExit:\n"
    "        pass\n"
    f"print(','.join(m for m in {HEAVY!r} if m in sys.modules))"
)


def commands() -> dict[str, list[str]]:
    link = subprocess.run(
        [sys.executable, "-m", "app.cli", "link", str(EXAMPLE)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    return {
        "--help": ["--help"],
        "decode": ["decode", link],
        "link": ["link", str(EXAMPLE)],
    }


def time_command(args: list[str], runs: int) -> tuple[float, str]:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "app.cli", *args], cwd=ROOT, capture_output=True, check=False
        )
        times.append(time.perf_counter() - t0)
    loaded = (
        subprocess.run(
            [sys.executable, "-c", PROBE, *args], cwd=ROOT, capture_output=True, text=True
        )
        .stdout.strip()
        .splitlines()
    )
    return statistics.median(times), (loaded[-1] if loaded else "")


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    bare = time.perf_counter() - t0
    print(f"python itself: {bare:.3f} s")
    for name, args in commands().items():
        median, heavy = time_command(args, runs)
        verdict = "ok" if median < TARGET_S else f"over {TARGET_S} s"
        print(
            f"clusterplan {name:<7} {median:.3f} s median of {runs} ({verdict}); "
            f"loads: {heavy or 'none of ' + ', '.join(HEAVY)}"
        )


if __name__ == "__main__":
    main()

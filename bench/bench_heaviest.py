"""The heaviest scenarios the schema accepts, priced beside the example, in the same run (issue 27:
any accepted link's work is bounded; the target is at most 5x the example's compare time).

Each family pushes one kind of work to the schema's limits (models/scenario.py MAX_WORKLOADS, the
longest term, models/portfolio/workloads.py MAX_GPUS and MAX_GANG_RUNS), every option compared, 2,000 draws:

- queue: MAX_GANG_RUNS runs and jobs over MAX_WORKLOADS workloads of mixed GPU counts and lengths
  (the gang queue's work), each workload a distinct shape (no sizing shared);
- serve: MAX_WORKLOADS services growing month by month to the end of the term (one serving sizing
  per layout change, a flat demand on every month);
- mixed: a quarter of each kind, teams of five; and the same with the owned cluster grown in
  the most expansion phases the schema allows and refreshed every three years.
- giant: the attack that found the issue (every workload at MAX_GPUS GPUs and its highest rate):
  refused by the caps before anything is priced; its time is the time to the refusal.

For each: the first call (every workload sized by the core, the sizing, demand and representative
plan caches cleared) and the warm median of 5 and the fastest of them (those cached, as the portal's second look at a link
is), wall and this process's CPU time. The example is `clusterplan example` (version 1) and the enterprise sample (version 2).
Then the issue's own measure: `clusterplan compare FILE` as a fresh process (imports, the cold
sizing of every workload, the text report) for the example and each family, wall time, the median
of 3 (1 with --quick).
Run: python -m bench.bench_heaviest [--quick] [--workloads N] [--months M]"""

from __future__ import annotations

import json
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

from pydantic import ValidationError

from app import scenario_files
from models.errors import InputError
from models.options import OPTION_IDS
from models.portfolio import demand as demand_module
from models.portfolio.workloads import MAX_GANG_RUNS, MAX_GPUS, MAX_MONTHS
from models.scenario import MAX_EXPANSIONS, MAX_WORKLOADS, Scenario, Term, field_bounds
from pricing.catalogue.loader import load_catalogue
from pricing.engine import compare
from pricing.planning.context import clear_caches

TERM = int(field_bounds(Term, "months")["le"])
#: the portfolio's size: the schema's limit unless `--workloads N` (and `--months M`) ask less
WORKLOADS = MAX_WORKLOADS
FACTOR_TARGET = 5.0
_MODELS = ("llama3-8b", "llama3-70b", "mixtral-8x7b", "llama2-13b", "qwen3-30b-a3b")


def _scenario(workloads: list[dict], owned_plan: bool = False) -> Scenario:
    """Every option compared; `owned_plan`: the owned cluster also grows in the most expansion
    phases the schema allows and is refreshed every three years (more generations to simulate)."""
    options: dict = {"compare": list(OPTION_IDS)}
    if owned_plan:
        options["build_expansions"] = [
            {"gpus": 4096, "month": min(6 + 12 * k, TERM - 1)} for k in range(MAX_EXPANSIONS)
        ]
        options["build_refresh_after_months"] = 36
    return Scenario.model_validate(
        {"version": 2, "workloads": workloads, "term": {"months": TERM}, "options": options}
    )


def queue() -> Scenario:
    """MAX_GANG_RUNS gang runs over MAX_WORKLOADS workloads: pre-training runs of 64 to 4,096
    GPUs and fine-tuning jobs of 8 to 32 GPUs (a LoRA job's 32-sequence batch spreads over at most
    32: 64 and 128 were refused since fine-tuning plans with FSDP), releases staggered, each
    workload its own shape."""
    per = MAX_GANG_RUNS // WORKLOADS
    items = []
    for i in range(WORKLOADS):
        start = i % 12
        months = TERM - start
        if i % 2:
            items.append(
                {"kind": "finetune", "name": f"ft{i}", "team": f"t{i % 7}", "method": "lora",
                 "model": _MODELS[i % 2], "gpus": 8 << (i % 3), "tokens": 2e7 * (1 + i),
                 "jobs_per_month": min(100.0, per / months), "start_month": start,
                 "duration_months": months}
            )  # fmt: skip
        else:
            items.append(
                {"kind": "pretrain", "name": f"pt{i}", "team": f"t{i % 7}",
                 "model": _MODELS[i % len(_MODELS)], "gpus": 64 << (i % 7),
                 "tokens": 2e10 * (1 + i), "runs_per_month": min(30.0, per / months),
                 "start_month": start, "duration_months": months}
            )  # fmt: skip
    return _scenario(items)


def serve() -> Scenario:
    """MAX_WORKLOADS services, each growing 3 % a month over the whole term, latency objectives set."""
    items = [
        {"kind": "serve", "name": f"svc{i}", "team": f"t{i % 9}", "model": _MODELS[i % 3],
         "rps": 0.2 + 0.02 * i, "growth_pct_per_month": 3.0, "duration_months": TERM,
         "input_tokens": 500 + 37 * i, "output_tokens": 200 + 11 * i, "tpot_ms": 80.0}
        for i in range(WORKLOADS)
    ]  # fmt: skip
    return _scenario(items)


def mixed() -> Scenario:
    """A quarter of each kind, teams of five; the gang kinds release MAX_GANG_RUNS in all."""
    q = queue().workloads
    s = serve().workloads
    items = []
    for i in range(WORKLOADS):
        kind = i % 4
        if kind in (0, 1):
            w = q[i].model_dump()
            rate = "runs_per_month" if w["kind"] == "pretrain" else "jobs_per_month"
            w[rate] = min(w[rate] * 1.9, 30.0 if rate == "runs_per_month" else 100.0)
        elif kind == 2:
            w = s[i].model_dump()
        else:
            w = {"kind": "steady", "name": f"research{i}", "gpus": 16 << (i % 6),
                 "utilisation_pct": 40 + i % 50, "duration_months": TERM}  # fmt: skip
        w["team"] = f"team{i // 5}"
        items.append(w)
    return _scenario(items)


def mixed_owned() -> Scenario:
    """`mixed`, with the owned cluster's expansion phases and refreshes."""
    return _scenario([w.model_dump() for w in mixed().workloads], owned_plan=True)


def giant(n: int = 50, term: int = 60) -> dict:
    """The link of issue 27 (739 characters): n teams of llama3-405b at the most GPUs a run may
    have, 30 runs a month for ten years, in a `term`-month term, every option; refused by the
    runs cap before anything is priced (tests/test_capacity_bounds.py uses it too)."""
    return {
        "version": 2,
        "workloads": [
            {
                "kind": "pretrain",
                "name": f"w{i}",
                "model": "llama3-405b",
                "gpus": MAX_GPUS,
                "runs_per_month": 30,
                "duration_months": MAX_MONTHS,
            }
            for i in range(n)
        ],  # fmt: skip
        "term": {"months": term},
        "options": {"compare": list(OPTION_IDS)},
    }


def _times(build, cat, repeats: int) -> tuple[float, float, float, float]:
    """(first call ms, warm wall ms, warm CPU ms, fastest warm wall ms): the first with the sizing
    cache cleared, and the demands and representative plans derived before; warm: the median of
    `repeats` calls after it, and the fastest of them (the figure least moved by a busy machine)."""
    demand_module._size_cached.cache_clear()
    clear_caches()
    t = time.perf_counter()
    compare(build(), cat, draws=2000)
    first = (time.perf_counter() - t) * 1e3
    wall, cpu = [], []
    for _ in range(repeats):
        t, c = time.perf_counter(), time.process_time()
        compare(build(), cat, draws=2000)
        wall.append((time.perf_counter() - t) * 1e3)
        cpu.append((time.process_time() - c) * 1e3)
    return first, statistics.median(wall), statistics.median(cpu), min(wall)


def _cli_times(rows: dict, repeats: int) -> dict[str, float]:
    """Wall seconds of `clusterplan compare FILE` in a fresh process per scenario (median)."""
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        for label, build in rows.items():
            path = pathlib.Path(tmp, "s.json")
            path.write_text(build().model_dump_json(exclude_defaults=True))
            walls = []
            for _ in range(repeats):
                t = time.perf_counter()
                subprocess.run(
                    [sys.executable, "-m", "app.cli", "compare", str(path)],
                    check=True,
                    capture_output=True,
                )
                walls.append(time.perf_counter() - t)
            out[label] = statistics.median(walls)
    return out


def main() -> None:
    global WORKLOADS, TERM
    quick = "--quick" in sys.argv
    for flag, name in (("--workloads", "WORKLOADS"), ("--months", "TERM")):
        if flag in sys.argv:
            globals()[name] = int(sys.argv[sys.argv.index(flag) + 1])
    repeats = 1 if quick else 5
    cat = load_catalogue()
    enterprise = json.loads(scenario_files.PORTFOLIOS["enterprise"].read_text())
    rows = {
        "example (version 1)": lambda: Scenario(),
        "enterprise sample": lambda: Scenario.model_validate(enterprise),
    }
    rows |= {
        "heaviest: queue": queue,
        "heaviest: serve": serve,
        "heaviest: mixed": mixed,
        "heaviest: mixed, owned": mixed_owned,
    }
    print(
        f"limits: {WORKLOADS} workloads, {TERM}-month term, {MAX_GPUS:,} GPUs, "
        f"{MAX_GANG_RUNS:,} runs and jobs; {len(OPTION_IDS)} options, 2,000 draws"
    )
    out = {}
    for label, build in rows.items():
        out[label] = _times(build, cat, repeats)
        first, wall, cpu, _ = out[label]
        print(f"{label:29s} first {first:8.0f} ms   warm {wall:7.0f} ms (CPU {cpu:7.0f} ms)")
    t = time.perf_counter()
    try:
        Scenario.model_validate(giant())
        refused = "ACCEPTED"
    except (InputError, ValidationError) as exc:
        refused = f"refused: {str(exc).splitlines()[-2 if isinstance(exc, ValidationError) else 0][:100]}..."
    print(f"{'the issue link (refused)':29s} {(time.perf_counter() - t) * 1e3:8.1f} ms   {refused}")
    base_first, base_warm, _, base_fastest = out["example (version 1)"]
    heavy = [k for k in out if k.startswith("heaviest")]
    worst_first = max(out[k][0] for k in heavy)
    worst_warm = max(out[k][1] for k in heavy)
    worst_fastest = max(out[k][3] for k in heavy)
    print(
        f"heaviest / example: warm {worst_warm / base_warm:.1f}x (medians), "
        f"{worst_fastest / base_fastest:.1f}x (each one's fastest call), first call "
        f"{worst_first / base_first:.1f}x (target {FACTOR_TARGET:g}x)"
    )
    cli = _cli_times({k: v for k, v in rows.items() if k != "enterprise sample"}, 1 if quick else 3)
    base = cli.pop("example (version 1)")
    print(f"clusterplan compare FILE, a fresh process: example {base:.2f} s")
    for label, wall in cli.items():
        print(f"{label:29s} {wall:6.2f} s   {wall / base:.1f}x the example")


if __name__ == "__main__":
    main()

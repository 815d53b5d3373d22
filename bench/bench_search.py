"""Layout-search throughput and the time to size Llama 3 405B on 16,384 H100s.

Run: .venv/bin/python bench/bench_search.py
Targets (issue 2): >= 100,000 layouts per second on one core; < 0.5 s for the 405B sizing.
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import statistics  # noqa: E402
import time  # noqa: E402

from models.errors import InputError  # noqa: E402
from models.hardware import get_gpu  # noqa: E402
from models.scenario import Scenario  # noqa: E402
from models.shapes import get_preset  # noqa: E402
from models.training.job import Job  # noqa: E402
from models.training.memory import fits  # noqa: E402
from models.training.plan import plan_training  # noqa: E402
from models.training.search import all_layouts, evaluate  # noqa: E402

CASES = [  # (model, gpu, gpus, batch in sequences)
    ("llama3-405b", "H100-SXM", 16384, 2048),
    ("llama3-70b", "H100-SXM", 1024, 512),
    ("gpt3-175b", "A100-80GB", 1536, 1536),
    ("mixtral-8x7b", "H100-SXM", 256, 1024),
    ("deepseek-v3-like", "H200", 2048, 15360),
]


def throughput() -> None:
    print("layout search: enumerate + memory + step time + fit test, one core")
    print(f"{'case':40} {'layouts':>8} {'ms/search':>10} {'layouts/s':>12}")
    total_layouts = total_s = 0.0
    for model, gpu, gpus, batch in CASES:
        job = Job(get_preset(model), get_gpu(gpu), 4096, batch)
        times = []
        for _ in range(30):
            t = time.perf_counter()
            lay = all_layouts(job, gpus)
            mem, _step = evaluate(job, lay)
            fits(job, mem["total"])
            times.append(time.perf_counter() - t)
        med = statistics.median(times)
        total_layouts += len(lay)
        total_s += med
        print(
            f"{model + ' on ' + str(gpus) + ' ' + gpu:40} {len(lay):>8,} {med * 1e3:>10.2f} {len(lay) / med:>12,.0f}"
        )
    print(
        f"{'all cases':40} {int(total_layouts):>8,} {total_s * 1e3:>10.2f} {total_layouts / total_s:>12,.0f}"
    )

    # large batch: many layouts in one call shows the vectorized rate without per-call overhead
    job = Job(get_preset("deepseek-v3-like"), get_gpu("H100-SXM"), 4096, 65536)
    lay = all_layouts(job, 65536)
    times = []
    for _ in range(10):
        t = time.perf_counter()
        mem, _ = evaluate(job, lay)
        fits(job, mem["total"])
        times.append(time.perf_counter() - t)
    med = statistics.median(times)
    print(
        f"{'evaluate only, deepseek-v3-like on 65,536':40} {len(lay):>8,} {med * 1e3:>10.2f} {len(lay) / med:>12,.0f}"
    )


def sizing_405b() -> None:
    scenario = Scenario.model_validate(
        {
            "workload": {"model": "llama3-405b", "tokens": 15.6e12, "seq_len": 8192},
            "cluster": {"gpu": "H100-SXM", "gpus": 16384},
        }
    )
    times = []
    for _ in range(20):
        t = time.perf_counter()
        plan = plan_training(scenario)
        times.append(time.perf_counter() - t)
    print("\nsize Llama 3 405B, 15.6T tokens, on 16,384 H100-SXM (plan_training, fresh each time)")
    print(
        f"  median {statistics.median(times) * 1e3:.1f} ms, max {max(times) * 1e3:.1f} ms over {len(times)} runs"
    )
    print(
        f"  -> {plan.layout}, step {plan.step_time_s:.2f} s, MFU {plan.mfu:.1%}, "
        f"{plan.train_days:.1f} days, {plan.search.layouts_evaluated:,} layouts"
    )
    for days in (
        150,
        90,
    ):  # one the model meets (whole run on 16,384: about 131 days), one it refuses
        t = time.perf_counter()
        try:
            deadline = plan_training(
                Scenario.model_validate(
                    {
                        "workload": {"model": "llama3-405b", "tokens": 15.6e12, "seq_len": 8192},
                        "cluster": {"gpu": "H100-SXM", "deadline_days": days},
                    }
                ),
                curve=True,
            )
            found = f"{deadline.gpus:,} GPUs"
        except InputError as refused:  # the search still ran: a refusal names the fastest count
            found = f"refused ({refused})"
        print(f"  deadline {days} days with curve: {found} in {time.perf_counter() - t:.2f} s")


if __name__ == "__main__":
    throughput()
    sizing_405b()

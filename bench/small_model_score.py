"""Score the small-model terms against their adoption rule (docs/reference/training.md 7.2): the
held-out step-time and throughput rows of `clusterplan validate`, every scored row by size class of
active parameters, the whole runs' steady state (under 4B active apart), and 1-3B models on 256-512
H100, with the terms as committed, or with `--on` at constants.SMALL_MODEL_TERMS_FITTED.

    PYTHONPATH=. .venv/bin/python -m bench.small_model_score [--on]

Run it once off and once on (each run is its own process: the validation is cached per process)
and read the two side by side. Nothing here is fitted.
"""

from __future__ import annotations

import contextlib
import statistics
import sys

from models.scenario import Scenario
from models.training import small_gemm
from models.training.plan import plan_training
from models.validation.training import speed_error, validate, validate_heldout
from models.validation.training_rows import shape_of
from models.validation.whole_run import added_scores, whole_run_scores

#: the size classes the item is about (active parameters), as in training.md 7's results
SIZE_CLASSES = (("under 3B", 0.0, 3e9), ("3-20B", 3e9, 20e9), ("20B and over", 20e9, float("inf")))
#: whole runs counted as small for rule (b): under 4B active (training.md 7.2)
SMALL_WHOLE_RUN_ACTIVE = 4e9
#: 1-3B models on 256-512 H100: (preset, tokens) — 1T tokens, Pythia's published 300B
PROBES = (("llama3.2-1b", 1e12), ("llama3.2-3b", 1e12), ("pythia-1.4b", 3e11))


def _med(xs: list[float]) -> float:
    return statistics.median(xs) if xs else float("nan")


def _validation_lines() -> list[str]:
    v = validate()
    out = ["held-out rows (scored, not calibration): median / worst |error|"]
    for kind in ("step_time", "throughput", "gpu_hours"):
        m = v["by_kind_held_out"][kind]["model"]
        out.append(
            f"  {kind:11} {m['rows']:>3} rows  {m['median_abs_error']:6.1%} / {m['worst_abs_error']:6.1%}"
            f"  beyond the worst-case target: {len(m['beyond_worst_target'])}"
        )
    out.append("step-time/throughput rows by active size: median |error| / signed median in speed")
    for scored in (True, False):
        for label, lo, hi in SIZE_CLASSES:
            sel = [
                r
                for r in v["rows"]
                if r["scored"] == scored
                and r["kind"] in ("step_time", "throughput")
                and lo <= shape_of(r["model"]).params_active < hi
            ]
            if sel:
                out.append(
                    f"  {'scored' if scored else 'not scored':10} {label:13} {len(sel):>3} rows"
                    f"  {_med([abs(r['error']) for r in sel]):6.1%} / "
                    f"{_med([speed_error(r) for r in sel]):+6.1%}"
                )
    return out


def _whole_run_lines() -> list[str]:
    rows = validate_heldout()["rows"]
    small = [r for r in rows if r["params_active"] < SMALL_WHOLE_RUN_ACTIVE]
    s = whole_run_scores()
    pre = s["pre_fit"]["all"]
    fit = ", ".join(f"{p:.4f}" for p in s["fit"])
    d = added_scores()
    return [
        f"whole runs, steady state GPU-hours: all {len(rows)} median "
        f"{_med([abs(r['error']) for r in rows]):.1%} signed {_med([r['error'] for r in rows]):+.1%}; "
        f"under 4B active ({len(small)}) median {_med([abs(r['error']) for r in small]):.1%} "
        f"signed {_med([r['error'] for r in small]):+.1%}",
        f"whole-run fit by its rule on this steady state: ({fit}) (pre-fit "
        f"{pre['median_abs_error']:.1%}); leave-one-out {s['leave_one_out']['all']['median_abs_error']:.1%}"
        f" / {s['leave_one_out']['all']['signed_median']:+.1%}; band {s['band']}",
        f"added runs, committed F: median {d['whole_run']['all']['median_abs_error']:.1%} signed "
        f"{d['whole_run']['all']['signed_median']:+.1%}, band holds {d['whole_run']['band_coverage']:.0%}",
    ]


def _probe_lines() -> list[str]:
    out = [
        "model, GPUs: layout, step s, MFU, steady GPU-hours, whole-run GPU-hours, fixed+small share"
    ]
    for model, tokens in PROBES:
        for gpus in (256, 512):
            sc = Scenario.model_validate(
                {
                    "workload": {"model": model, "tokens": tokens},
                    "cluster": {"gpu": "H100-SXM", "gpus": gpus},
                    "term": {"months": 12},
                }
            )
            p = plan_training(sc)
            lay = p.layout
            out.append(
                f"  {model:12} {gpus:>4}: TP{lay.tp} PP{lay.pp} DP{lay.dp} mb{lay.micro_batch} "
                f"Z{lay.zero}  {p.step_time_s:.3f} s  {p.mfu:.1%}  {p.steady_gpu_hours:>9,.0f}  "
                f"{p.gpu_hours:>9,.0f}  {p.small_model_share:.0%}"
            )
    return out


def main() -> None:
    on = "--on" in sys.argv
    ctx = small_gemm.small_model_terms_on() if on else contextlib.nullcontext()
    with ctx:
        print("terms:", "ON (SMALL_MODEL_TERMS_FITTED)" if on else "as committed")
        print("\n".join(_validation_lines() + _whole_run_lines() + _probe_lines()))


if __name__ == "__main__":
    main()

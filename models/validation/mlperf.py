"""The serving model against MLPerf Inference's published Offline results
(`models/data/validation/mlperf_offline.csv`: v5.0 to v6.0, closed, one node, H100 to GB200 and
MI300X). The split (every row held out), the mean lengths per benchmark, the precision and engine
rules and the form were written down before the first score (docs/reference/mlperf-serving-
evidence.md, 2026-12-01); nothing is fitted on these rows.

A row's prediction is the most output tokens/s per GPU over the layouts the planner searches on
the submission's node (TP 1, 2, 4 or 8 that divides its GPUs, within the scale-up domain; EP 1 or
TP for a MoE model; the search's batches and the largest that fits), from models/serving/plan.py
`evaluate` at the benchmark's mean lengths. Error = predicted / published − 1 per GPU."""

from __future__ import annotations

import csv
import functools
from dataclasses import dataclass

import numpy as np

from models import DATA_DIR
from models.hardware import get_gpu
from models.serving.plan import BATCHES, TP_CHOICES, ServeInputs, evaluate, with_max_fit
from models.shapes import get_preset
from models.validation.summaries import error_summary, pct

ROWS = DATA_DIR / "validation" / "mlperf_offline.csv"
#: mean input tokens (the official datasets' per-sample lengths, openshift-psap/performance-
#: dashboard mlperf-data/summaries) and output tokens per sample (mlcommons/inference READMEs)
LENGTHS = {
    "llama2-70b-99": (222.33, 294.45),
    "llama3.1-405b": (9428.64, 684.68),
    "mixtral-8x7b": (427.39, 144.84),
    "deepseek-r1": (803.79, 3886.23),
}
#: the target of issue 29 for MLPerf rows: within this share, median
TARGET = 0.20


def load_rows() -> list[dict]:
    with ROWS.open(newline="") as f:
        return list(csv.DictReader(f))


def precision(gpu: str) -> str:
    """FP4 on Blackwell (NVIDIA's submissions quantise to NVFP4), FP8 on Hopper and MI300X."""
    return "fp4" if get_gpu(gpu).architecture == "blackwell" else "fp8"


def engine(gpu: str) -> str:
    """TensorRT-LLM on NVIDIA GPUs, vLLM on AMD's."""
    return "vllm" if get_gpu(gpu).architecture == "cdna3" else "tensorrt-llm"


@dataclass(frozen=True)
class Scored:
    id: str
    version: str
    gpu: str
    gpus: int
    benchmark: str
    published_tps_gpu: float
    predicted_tps_gpu: float | None
    tp: int | None = None
    batch: int | None = None

    @property
    def error(self) -> float | None:
        if self.predicted_tps_gpu is None:
            return None
        return self.predicted_tps_gpu / self.published_tps_gpu - 1


@functools.lru_cache(maxsize=64)
def best_tps_gpu(model: str, gpu: str, gpus: int, input_tokens: int, output_tokens: int):
    """(output tokens/s per GPU, TP, batch) of the best layout on a node of `gpus` GPUs, or None
    where nothing fits."""
    shape, spec = get_preset(model), get_gpu(gpu)
    inp = ServeInputs(model=model, gpu=gpu, precision=precision(gpu), engine=engine(gpu),
                      input_tokens=input_tokens, output_tokens=output_tokens)  # fmt: skip
    lay = []
    for t in TP_CHOICES:
        if t > min(gpus, spec.scaleup_domain_gpus) or gpus % t:
            continue
        eps = sorted({1, t}) if shape.is_moe and shape.experts % t == 0 else [1]
        lay += [(t, e) for e in eps]
    if not lay:
        return None
    tp = np.repeat([x[0] for x in lay], len(BATCHES)).astype(float)
    ep = np.repeat([x[1] for x in lay], len(BATCHES)).astype(float)
    ones = np.ones_like(tp)
    (tp, ep, _, _), b, _ = with_max_fit(inp, tp, ep, ones, ones, np.tile(BATCHES, len(lay)))
    r = evaluate(inp, tp, ep, b)
    tps = np.where(r["fits"], r["out_tps_gpu"], -np.inf)
    i = int(np.argmax(tps))
    return (float(tps[i]), int(tp[i]), int(b[i])) if np.isfinite(tps[i]) else None


def score_row(row: dict) -> Scored:
    i_tok, o_tok = LENGTHS[row["benchmark"]]
    gpus = int(row["gpus"])
    best = best_tps_gpu(row["model"], row["gpu"], gpus, round(i_tok), round(o_tok))
    base = {"id": row["id"], "version": row["version"], "gpu": row["gpu"], "gpus": gpus,
            "benchmark": row["benchmark"],
            "published_tps_gpu": float(row["tokens_per_s"]) / gpus}  # fmt: skip
    if best is None:
        return Scored(predicted_tps_gpu=None, **base)
    tps, tp, batch = best
    return Scored(predicted_tps_gpu=tps, tp=tp, batch=batch, **base)


@functools.cache
def score() -> tuple[Scored, ...]:
    return tuple(score_row(r) for r in load_rows())


def summary(errors: list[float]) -> dict:
    """error_summary, and how many rows are within the target."""
    return error_summary(errors) | {"within_target": sum(abs(x) <= TARGET for x in errors)}


def as_json() -> dict:
    rows = score()
    groups: dict[tuple[str, str], list[Scored]] = {}
    for s in rows:
        groups.setdefault((s.benchmark, s.gpu), []).append(s)
    return {
        "rows": len(rows),
        "not_fitting": sum(1 for s in rows if s.error is None),
        "all": summary([s.error for s in rows if s.error is not None]),
        "classes": [
            {"benchmark": b, "gpu": g} | summary([s.error for s in group if s.error is not None])
            for (b, g), group in sorted(groups.items())
        ],
    }


def report_lines() -> list[str]:
    data = as_json()
    a = data["all"]
    lines = [
        "MLPerf Inference Offline rows (docs/reference/mlperf-serving-evidence.md; every row held out, "
        "split and form written before the first score)",
        f"{data['rows']} rows; output tokens/s per GPU, the best layout on the submission's node; "
        f"median {pct(a['median_abs'])}, worst {pct(a['worst_abs'])}, signed "
        f"{pct(a['signed_median'], True)}; {a['within_target']} of {a['rows']} within "
        f"{TARGET:.0%} (target: median within {TARGET:.0%})",
        f"  {'benchmark':15} {'GPU':9} {'rows':>4}  {'median':>6} {'worst':>6} {'signed':>7}",
    ]
    for c in data["classes"]:
        lines.append(
            f"  {c['benchmark']:15} {c['gpu']:9} {c['rows']:>4}  {pct(c['median_abs']):>6} "
            f"{pct(c['worst_abs']):>6} {pct(c['signed_median'], True):>7}"
        )
    return lines

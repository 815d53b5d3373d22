"""The training model against published MoE pre-training throughput (issue 31 item 3;
`models/data/validation/moe_throughput.csv`: Megatron-Bridge's performance tables, NeMo 26.02 and
25.09, DeepSeek-V3, gpt-oss-120b, Qwen3-30B-A3B and Qwen3-235B-A22B on H100 to GB300). The rows, the
rows left out and the way they are scored were written down before the first score
(docs/reference/training.md section 6.4); every row is held out: nothing is fitted on them.

A row's prediction is tokens/s per GPU at its published layout (TP, PP, virtual stages, EP, micro
batch, GPU count, global batch, precision), the fastest fitting recompute mode where the source does
not say which (models/validation/training_predict.py `predict_step`, as for `runs.csv`). The rows are
force-balanced benchmarks (`moe_balance` "forced"), so the load-imbalance term
(models/training/moe_cost.py) is 1 on them: they score the balanced MoE physics.
Error = predicted / published − 1.
"""

from __future__ import annotations

import csv
import functools
from dataclasses import dataclass

from models import DATA_DIR
from models.validation.summaries import error_summary, pct
from models.validation.training_predict import predict_step

ROWS = DATA_DIR / "validation" / "moe_throughput.csv"


def load_rows() -> list[dict]:
    with ROWS.open(newline="") as f:
        return list(csv.DictReader(f))


@dataclass(frozen=True)
class Scored:
    id: str
    model: str
    gpu: str
    gpus: int
    release: str
    published: float
    predicted: float | None  # None: not scored (the row's notes say why)
    layout: str = ""
    fits: bool = True

    @property
    def error(self) -> float | None:
        return None if self.predicted is None else self.predicted / self.published - 1


def score_row(row: dict) -> Scored:
    base = {"id": row["id"], "model": row["model"], "gpu": row["gpu"], "gpus": int(row["gpus"]),
            "release": row["release"], "published": float(row["published"])}  # fmt: skip
    if row["scored"] != "1":
        return Scored(predicted=None, **base)
    p = predict_step(row)
    return Scored(predicted=p["predicted"], layout=p["layout"], fits=p["fits"], **base)


@functools.cache
def score() -> tuple[Scored, ...]:
    return tuple(score_row(r) for r in load_rows())


def as_json() -> dict:
    """Counts, the summary over the scored rows, one summary per model and per GPU, and each row."""
    rows = score()
    scored = [s for s in rows if s.error is not None]
    by_model: dict[str, list[Scored]] = {}
    by_gpu: dict[str, list[Scored]] = {}
    for s in scored:
        by_model.setdefault(s.model, []).append(s)
        by_gpu.setdefault(s.gpu, []).append(s)
    return {
        "rows": len(rows),
        "scored": len(scored),
        "not_scored": [s.id for s in rows if s.error is None],
        "all": error_summary(s.error for s in scored),
        "models": [
            {"model": m} | error_summary(s.error for s in g) for m, g in sorted(by_model.items())
        ],
        "gpus": [{"gpu": k} | error_summary(s.error for s in g) for k, g in sorted(by_gpu.items())],
        "detail": [
            {
                "id": s.id,
                "model": s.model,
                "gpu": s.gpu,
                "gpus": s.gpus,
                "release": s.release,
                "published": s.published,
                "predicted": s.predicted,
                "error": s.error,
                "layout": s.layout,
                "fits": s.fits,
            }  # fmt: skip
            for s in rows
        ],
    }


def report_lines() -> list[str]:
    data = as_json()
    a = data["all"]
    lines = [
        "MoE pre-training throughput, Megatron-Bridge's published tables (docs/reference/training.md "
        "6.4; every row held out, force-balanced)",
        f"{data['rows']} rows, {data['scored']} scored; tokens/s per GPU at the published layout; "
        f"median {pct(a['median_abs'])}, worst {pct(a['worst_abs'])}, signed "
        f"{pct(a['signed_median'], True)}",
        f"  {'model / GPU':18} {'rows':>4}  {'median':>6} {'worst':>6} {'signed':>7}",
    ]
    for c in data["models"] + data["gpus"]:
        lines.append(
            f"  {c.get('model') or c.get('gpu'):18} {c['rows']:>4}  {pct(c['median_abs']):>6} "
            f"{pct(c['worst_abs']):>6} {pct(c['signed_median'], True):>7}"
        )
    if data["not_scored"]:
        lines.append(f"  not scored (rule in the file's notes): {', '.join(data['not_scored'])}")
    return lines

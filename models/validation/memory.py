"""The memory model against published memory per GPU (`models/data/validation/memory.csv`).

Kinds of row, each with its source:
- `model_states`: weights, gradients and optimizer states per GPU for a ZeRO stage (no activations),
  in GB (1e9 bytes), as Rajbhandari et al. 2020 Fig. 1 gives them;
- `reserved`: a framework's logged peak reserved memory (PyTorch caching allocator, free blocks
  included) for a published layout, in GiB: an upper bound on the peak in use;
- `ran`: a layout a published run trained with on GPUs of this memory, so it fits; scored as the
  model's total over the GPU's memory (the fit test is `memory.fits`, MEMORY_HEADROOM of it).
A row without `interleave` is scored at the least-memory interleave the layout rules allow.
Besides these rows, every validation row with a published layout (`runs.csv`) ran, and
`validation.validate` marks those the memory model rejects (`layout_fits`); `summary` counts them.
Nothing here sets a constant: every row is held out.
"""

from __future__ import annotations

import csv
import functools
import statistics

import numpy as np

from models.hardware import get_gpu
from models.training.job import Job
from models.training.layouts import INTERLEAVES, Layouts
from models.training.memory import GIB, fits, memory_breakdown
from models.validation.training_rows import ROOT, shape_of

MEMORY_ROWS = ROOT / "memory.csv"
KINDS = ("model_states", "reserved", "ran")


def load_rows() -> list[dict]:
    with MEMORY_ROWS.open(newline="") as f:
        return list(csv.DictReader(f))


def _int(row: dict, key: str) -> int | None:
    return int(row[key]) if row.get(key) else None


def job_and_layouts(row: dict) -> tuple[Job, Layouts]:
    """The row's job and its published layout (each allowed interleave when none is published)."""
    batch = int(row["global_batch_seqs"])
    job = Job(
        shape_of(row["model"]),
        get_gpu(row["gpu"]),
        int(row["seq_len"]),
        batch,
        row["precision"],
        grad_bytes=int(row["grad_bytes"]),
        pp_ends_trimmed=row.get("pp_ends_trimmed") == "1",  # only where the source publishes it
    )
    layers, pp = job.shape.layers, int(row["pp"])
    given = _int(row, "interleave")
    vs = [given] if given else [v for v in INTERLEAVES if v == 1 or (pp > 1 and pp * v <= layers)]
    singles = [
        Layouts.single(
            batch,
            tp=int(row["tp"]),
            pp=pp,
            dp=int(row["dp"]),
            interleave=v,
            micro_batch=int(row["micro_batch"]),
            zero=int(row["zero"]),
            recompute=row["recompute"],
            sequence_parallel=int(row["sequence_parallel"]),
        )
        for v in vs
    ]
    lay = Layouts(
        **{
            k: np.concatenate([getattr(s, k) for s in singles])
            for k in Layouts.__dataclass_fields__
        }
    )
    return job, lay


def predict(row: dict) -> dict:
    """The model's figure in the row's unit, and whether the layout fits the GPU."""
    job, lay = job_and_layouts(row)
    mem = memory_breakdown(job, lay)
    i = int(np.argmin(mem["total"]))
    if row["kind"] == "model_states":
        value = float(mem["weights"][i] + mem["gradients"][i] + mem["optimizer"][i]) / 1e9
    else:
        value = float(mem["total"][i]) / GIB
    return {
        "predicted": value,
        "interleave": int(lay.interleave[i]),
        "fits": bool(fits(job, mem["total"][i : i + 1])[0]),
        "breakdown_gib": {k: float(v[i]) / GIB for k, v in mem.items()},
    }


@functools.cache
def validate_memory() -> dict:
    """Every memory row predicted, its error (predicted / published − 1), the errors per kind, and
    the published layouts of `runs.csv` that the memory model rejects."""
    from models.validation.training import validate  # the step-time rows' fit flags

    rows = []
    for r in load_rows():
        p = predict(r)
        pub = float(r["published"])
        rows.append(
            {
                "id": r["id"],
                "kind": r["kind"],
                "model": r["model"],
                "layout": (
                    f"TP{r['tp']} PP{r['pp']} DP{r['dp']} v{p['interleave']} mb{r['micro_batch']} "
                    f"Z{r['zero']} {r['recompute']}"
                ),
                "published": pub,
                "unit": r["unit"],
                "predicted": p["predicted"],
                "error": p["predicted"] / pub - 1,
                "fits": p["fits"],
                "breakdown_gib": p["breakdown_gib"],
                "source": r["source"],
                "notes": r["notes"],
            }
        )
    by_kind = {}
    for kind in KINDS:
        errs = [r["error"] for r in rows if r["kind"] == kind]
        if errs:
            by_kind[kind] = {
                "rows": len(errs),
                "median_abs_error": statistics.median(abs(e) for e in errs),
                "worst_abs_error": max(abs(e) for e in errs),
            }
    published = [r for r in validate()["rows"] if r["scored"]]
    return {
        "rows": rows,
        "by_kind": by_kind,
        "ran_rejected": [r["id"] for r in rows if r["kind"] == "ran" and not r["fits"]],
        "published_layouts": len(published),
        "published_layouts_rejected": [r["id"] for r in published if not r["layout_fits"]],
    }


def memory_report(res: dict) -> str:
    """`clusterplan validate`'s table of the memory rows (validate_memory)."""
    lines = [
        "\n== Memory per GPU against published figures (models/data/validation/memory.csv) ==",
        f"{'row':28} {'kind':12} {'layout':28} {'published':>10} {'model':>8} {'error':>7}  unit",
    ]
    for r in res["rows"]:
        fit = "" if r["kind"] != "ran" else ("  fits" if r["fits"] else "  REJECTED by the model")
        lines.append(
            f"{r['id']:28} {r['kind']:12} {r['layout']:28} {r['published']:>10.4g} "
            f"{r['predicted']:>8.4g} {r['error']:>+7.1%}  {r['unit']}{fit}"
        )
    for kind, s in res["by_kind"].items():
        lines.append(
            f"  {kind:12} {s['rows']:>2} rows: median {s['median_abs_error']:.1%}, "
            f"worst {s['worst_abs_error']:.1%}"
        )
    rej = res["published_layouts_rejected"]
    lines.append(
        f"published layouts in runs.csv the memory model rejects (#): {len(rej)} of "
        f"{res['published_layouts']} scored rows: {', '.join(rej) or 'none'}"
    )
    lines.append(
        "reserved: the allocator's peak reserved memory, an upper bound on the peak in use; "
        "ran: total over the GPU's memory (fits = within MEMORY_HEADROOM of it)"
    )
    return "\n".join(lines)

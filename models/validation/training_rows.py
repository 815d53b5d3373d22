"""The rows the training model is scored on (models/validation/training.py): the published runs and
benchmarks (`models/data/validation/runs.csv`, after Korthikanti et al. 2022 Table 5 read from
`models/data/korthikanti_table5.csv`), the model shapes they need beyond the presets (shapes.csv),
the rows left out (skipped.csv), the misses explained (misses.csv) and the held-out whole runs
(whole_runs_heldout.csv).
"""

from __future__ import annotations

import csv
import functools

from models import DATA_DIR
from models.shapes import ModelShape, load_presets
from models.validation.calibration import TABLE5, table5_rows

#: the validation data ship inside the package (package data), wherever it is installed
ROOT = DATA_DIR / "validation"
RUNS = ROOT / "runs.csv"
SHAPES = ROOT / "shapes.csv"
SKIPPED = ROOT / "skipped.csv"
MISSES = ROOT / "misses.csv"
#: the held-out whole runs, the planner choosing the layout (issue 16)
HELDOUT_RUNS = ROOT / "whole_runs_heldout.csv"


@functools.cache
def custom_shapes() -> dict[str, ModelShape]:
    with SHAPES.open(newline="") as f:
        rows = list(csv.DictReader(f))
    out = {}
    for r in rows:
        out[r["model_id"]] = ModelShape(
            model_id=r["model_id"],
            name=r["name"],
            layers=int(r["layers"]),
            hidden=int(r["hidden"]),
            heads=int(r["heads"]),
            kv_heads=int(r["kv_heads"]),
            ffn_hidden=int(r["ffn_hidden"]),
            vocab=int(r["vocab"]),
            gated_mlp=r["gated_mlp"] == "true",
            tied_embeddings=r["tied_embeddings"] == "true",
            dropout=r["dropout"] == "true",
            published_params_b=float(r["published_params_b"]),
            source=r["source"],
        )
    return out


def shape_of(model_id: str) -> ModelShape:
    presets = load_presets()
    return presets[model_id] if model_id in presets else custom_shapes()[model_id]


def load_runs() -> list[dict]:
    """Every validation row: Korthikanti Table 5 (from its data file) then `models/data/validation/runs.csv`."""
    rows = []
    for r in table5_rows():
        rows.append(
            {
                "id": f"korthikanti-{r['model_id']}-{r['recompute']}",
                "kind": "step_time",
                "model": r["model_id"],
                "gpu": r["gpu_id"],
                "gpus": str(int(r["tp"]) * int(r["pp"]) * int(r["dp"])),
                "seq_len": r["seq_len"],
                "global_batch_seqs": r["global_batch_seqs"],
                "precision": "bf16",
                "tp": r["tp"],
                "pp": r["pp"],
                "dp": r["dp"],
                "interleave": r["interleave"],
                "micro_batch": r["micro_batch"],
                "recompute": r["recompute"],
                "sequence_parallel": r["sequence_parallel"],
                "zero": "0",
                "flash_attention": "0",
                "tokens": "",
                "published": r["measured_step_s"],
                "unit": "s_per_step",
                "source": r["source"],
                "notes": f"layout from {TABLE5.parent.name}/{TABLE5.name}",
                "_table5": r,
            }
        )
    with RUNS.open(newline="") as f:
        rows.extend(csv.DictReader(f))
    return rows


def int_cell(row: dict, key: str) -> int | None:
    v = row.get(key, "")
    return int(float(v)) if v not in ("", None) else None


def load_misses() -> list[dict]:
    """`models/data/validation/misses.csv`: each scored row beyond its kind's worst-case target, the rows to read it
    against (`compare_with`, space-separated ids), what differs from them and the likely cause."""
    with MISSES.open(newline="") as f:
        return list(csv.DictReader(f))


def load_skipped() -> list[dict]:
    with SKIPPED.open(newline="") as f:
        return list(csv.DictReader(f))


def load_heldout_runs() -> list[dict]:
    """`models/data/validation/whole_runs_heldout.csv`: published whole runs entered before any
    prediction was made on them, each with its software stack class."""
    with HELDOUT_RUNS.open(newline="") as f:
        return list(csv.DictReader(f))

"""Korthikanti et al. 2022 Table 5 (measured A100 step times) replayed through the model.

The layouts are the paper's (Table 3) as encoded in Calculon's validation files; the runs predate
FlashAttention, so the model is told so. Used by the calibration tests and `bench/calibration.py`.
"""

from __future__ import annotations

import csv

from models import DATA_DIR
from models.hardware import get_gpu
from models.shapes import get_preset
from models.training.job import AttentionKernel, Job
from models.training.layouts import Layouts

TABLE5 = DATA_DIR / "korthikanti_table5.csv"


def table5_rows() -> list[dict]:
    with TABLE5.open(newline="") as f:
        return list(csv.DictReader(f))


def job_and_layout(row: dict, recompute: str | None = None, sequence_parallel: int | None = None):
    """The Job and single Layout of one Table 5 row (optionally with another recompute/SP setting)."""
    batch = int(row["global_batch_seqs"])
    job = Job(
        get_preset(row["model_id"]),
        get_gpu(row["gpu_id"]),
        int(row["seq_len"]),
        batch,
        "bf16",
        flash_attention=AttentionKernel.NONE,
        pp_ends_trimmed=False,  # Megatron-LM 2022: an even split of the layers
    )
    lay = Layouts.single(
        batch,
        tp=int(row["tp"]),
        pp=int(row["pp"]),
        dp=int(row["dp"]),
        micro_batch=int(row["micro_batch"]),
        interleave=int(row["interleave"]),
        recompute=recompute or row["recompute"],
        sequence_parallel=int(row["sequence_parallel"])
        if sequence_parallel is None
        else sequence_parallel,
    )
    return job, lay

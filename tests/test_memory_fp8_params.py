"""FP8 parameters (Job.fp8_params): weight memory by the Transformer Engine rule, and the MLPerf
layouts that ran with FP8_PARAMS=True fit once it is entered."""

from __future__ import annotations

import csv

import pytest

from models.errors import InputError
from models.hardware import get_gpu
from models.training.job import Job, stage_params
from models.training.layouts import Layouts
from models.training.memory import fits, memory_breakdown
from models.validation.training_predict import job_of, layouts_for
from models.validation.training_rows import ROOT, shape_of


def _gpt3_job(**kw) -> Job:
    return Job(shape_of("gpt3-175b"), get_gpu("H100-SXM"), 2048, 2048, "fp8", **kw)


@pytest.mark.parametrize("zero", [1, 3])
def test_fp8_param_weights_follow_the_transformer_engine_rule(zero):
    """fp8_model_init holds only the FP8 copy (1 byte) of each Transformer Engine weight; the
    embedding is not a TE module and stays BF16 (2 bytes); ZeRO-3 shards both over dp."""
    lay = Layouts.single(
        2048, tp=4, pp=8, dp=16, interleave=6, micro_batch=2, zero=zero, recompute="none"
    )
    job = _gpt3_job(fp8_params=True, pp_ends_trimmed=False)
    s = job.shape
    ne, _ = stage_params(job, lay)  # parameters on the first stage, split over tp
    emb = s.vocab * s.hidden / 4
    shard = 16 if zero == 3 else 1
    expected = ((ne[0] - emb) * 1 + emb * 2) / shard
    assert memory_breakdown(job, lay)["weights"][0] == pytest.approx(expected, rel=1e-9)
    # the default FP8 training holds BF16 and FP8 copies of every weight: 3 bytes
    plain = memory_breakdown(_gpt3_job(pp_ends_trimmed=False), lay)["weights"][0]
    assert plain == pytest.approx(ne[0] * 3 / shard, rel=1e-9)


def test_fp8_params_need_fp8_precision():
    with pytest.raises(InputError) as e:
        Job(shape_of("gpt3-175b"), get_gpu("H100-SXM"), 2048, 2048, "bf16", fp8_params=True)
    assert e.value.field == "fp8_params"


MLPERF_FP8_PARAMS = [
    "mlperf-v5.0-h100-405b-512",
    "mlperf-v4.0-h100-gpt3-512",
    "mlperf-v4.1-h100-gpt3-256",
    "mlperf-v4.1-h100-gpt3-512",
]


@pytest.mark.parametrize("row_id", MLPERF_FP8_PARAMS)
def test_mlperf_layouts_fit_with_their_published_fp8_params(row_id):
    """These runs trained without recompute (config_common.sh FP8_PARAMS=True); the memory model
    rejected them while it held BF16 + FP8 weights."""
    rows = {r["id"]: r for r in csv.DictReader((ROOT / "runs.csv").open(newline=""))}
    row = rows[row_id]
    assert row["fp8_params"] == "1"
    job = job_of(row)
    lay = layouts_for(row, job)
    assert len(lay) == 1 and lay.recompute[0] == 0
    assert fits(job, memory_breakdown(job, lay)["total"]).all()
    without = job_of({**row, "fp8_params": ""})
    assert not fits(without, memory_breakdown(without, lay)["total"]).any()

"""The serving model on MLPerf Inference's published Offline results (models/validation/mlperf.py):
the rows and their lengths are the ones docs/reference/mlperf-serving-evidence.md fixed before the
first score, the precision and engine rules are the page's, the prediction is the best layout the
model finds on the submission's node, and today's level holds."""

from __future__ import annotations

import contextlib
import io
import json
import pathlib
import re

import numpy as np
import pytest

from app.cli import main
from models.hardware import load_gpus
from models.serving.plan import ServeInputs, evaluate
from models.shapes import load_presets
from models.validation import mlperf
from tests.builders import app

PAGE = pathlib.Path(__file__).resolve().parents[1] / "docs/reference/mlperf-serving-evidence.md"


def run(args: list[str]) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(args) == 0
    return out.getvalue()


def test_the_rows_are_the_pages():
    """Every row a one-node Offline result on a GPU and a model the project has, of a benchmark
    whose lengths the page's table gives (and the same numbers), named by its public ID."""
    rows = mlperf.load_rows()
    assert len(rows) == 119 and len({r["id"] for r in rows}) == len(rows)
    table = {
        m.group(1): (float(m.group(2).replace(",", "")), float(m.group(3).replace(",", "")))
        for m in re.finditer(r"^\| ([\w.-]+) \| [\w.-]+ \| ([\d,.]+) \| ([\d,.]+) \|$",
                             PAGE.read_text(), re.M)
    }  # fmt: skip
    assert table == mlperf.LENGTHS
    for r in rows:
        assert r["gpu"] in load_gpus() and r["model"] in load_presets(), r["id"]
        assert r["benchmark"] in mlperf.LENGTHS and float(r["tokens_per_s"]) > 0
        assert f"public ID {r['public_id']}" in r["source"] and "Offline" in r["source"]
    assert "Every row is held out" in PAGE.read_text()


@pytest.mark.parametrize(
    ("gpu", "precision", "engine"),
    [("B200", "fp4", "tensorrt-llm"), ("GB200", "fp4", "tensorrt-llm"),
     ("H200", "fp8", "tensorrt-llm"), ("H100-SXM", "fp8", "tensorrt-llm"),
     ("MI300X", "fp8", "vllm")],
)  # fmt: skip
def test_the_precision_and_engine_rules_are_the_pages(gpu, precision, engine):
    assert (mlperf.precision(gpu), mlperf.engine(gpu)) == (precision, engine)


def test_a_prediction_is_the_best_fitting_layout_on_the_node():
    """Llama 2 70B on 8 H200: the model's output tokens/s per GPU at the layout and batch chosen,
    and no layout tried (TP 1 to 8, the search's batches) does better while fitting."""
    tps, tp, batch = mlperf.best_tps_gpu("llama2-70b", "H200", 8, 222, 294)
    inp = ServeInputs(model="llama2-70b", gpu="H200", precision="fp8", input_tokens=222,
                      output_tokens=294)  # fmt: skip
    r = evaluate(inp, [tp], [tp], [batch])
    assert bool(r["fits"][0]) and r["out_tps_gpu"][0] == pytest.approx(tps)
    for t in (1, 2, 4, 8):
        other = evaluate(inp, np.full(24, t), np.full(24, t), mlperf.BATCHES)
        assert np.all(np.where(other["fits"], other["out_tps_gpu"], 0) <= tps * (1 + 1e-12))
    # a node too small for the model fits nothing: no prediction, not a made-up one
    assert mlperf.best_tps_gpu("llama3.1-405b", "H100-SXM", 1, 9429, 685) is None


#: today's level: median 8.0 % over 119 rows, 95 within 20 % at the first score (2026-12-01); 8.6 %,
#: 95 within, with each engine's all-reduce latency per doubling of TP and the MoE constant refitted
#: beside it (serving-evidence.md, tenth amendment, 2026-12-02)
TODAY_MEDIAN, TODAY_WITHIN = 0.087, 95


def test_todays_level_holds():
    a = mlperf.as_json()["all"]
    assert a["rows"] == 119 and a["median_abs"] <= TODAY_MEDIAN, a
    assert a["within_target"] >= TODAY_WITHIN, a


def test_validate_prints_the_section_and_its_json():
    out = run(["validate"])
    assert (
        "== Serving, MLPerf Inference Offline (models/data/validation/mlperf_offline.csv) ==" in out
    )
    data = mlperf.as_json()
    line = next(x for x in out.split("\n") if re.match(r"\s+llama2-70b-99\s+H200\s", x))
    h200 = next(
        c for c in data["classes"] if (c["benchmark"], c["gpu"]) == ("llama2-70b-99", "H200")
    )
    assert line.split()[2] == str(h200["rows"])
    assert json.loads(run(["validate", "--json"]))["mlperf_offline"]["all"] == data["all"]


def test_the_validation_page_shows_the_table():
    at = app("validation")
    frames = [
        d.value
        for d in at.dataframe
        if "signed %" in d.value.columns and "benchmark" in d.value.columns
    ]
    assert len(frames) == 1
    data = mlperf.as_json()
    assert len(frames[0]) == len(data["classes"])
    assert frames[0].iloc[0]["median %"] == pytest.approx(100 * data["classes"][0]["median_abs"])

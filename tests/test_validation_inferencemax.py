"""SemiAnalysis InferenceMAX's rows (models/data/validation/inferencemax.csv; docs/reference/
serving-evidence.md, twentieth amendment): the data file's checks, the planner's `serve` as the one
path a row is predicted by, the page and the CLI reading the scores, and the rule that nothing
reads the rows to fit."""

from __future__ import annotations

import json
import math
import pathlib
import re

import pytest

from app.views.validation_inferencemax import inferencemax_table
from models.validation import inferencemax as I
from tests.builders import code_naming, csv_rows, run_cli

ROOT = pathlib.Path(__file__).resolve().parents[1]
ROWS = csv_rows(I.ROWS)
COMMIT = "2ef4d8350061db1c20adf6fcc03edaad36920e7e"


def test_every_row_names_its_file_commit_settings_and_date():
    for r in ROWS:
        assert re.search(
            rf"fergusfinn/fergusfinn\.github\.io public/benchmark-data/{r['lengths']}-70b/\S+\.json "
            rf"at commit {COMMIT}",
            r["source"],
        ), r["id"]
        assert r["as_of"] == "2025-10-21" and r["published"] == "2025-10-21"
        assert "jyothisambolu/InferenceMAX @ 86d696cb" in r["settings"]
        assert f"--max-concurrency {r['concurrency']} " in r["settings"]
        assert f"--random-input-len {r['input_tokens_set']} " in r["settings"]


def test_rows_per_engine_and_gpu_are_pinned_and_mi355x_is_not_entered():
    counts: dict[tuple[str, str], int] = {}
    for r in ROWS:
        counts[(r["engine"], r["gpu"])] = counts.get((r["engine"], r["gpu"]), 0) + 1
    assert counts == {
        ("tensorrt-llm", "B200"): 144,
        ("tensorrt-llm", "H200"): 72,
        ("vllm", "B200"): 120,
        ("vllm", "H100-SXM"): 45,
        ("vllm", "H200"): 60,
        ("vllm", "MI300X"): 60,
        ("vllm", "MI325X"): 60,
    }


def test_no_duplicates():
    assert len({r["id"] for r in ROWS}) == len(ROWS)
    keys = [
        (r["engine"], r["gpu"], r["precision"], r["lengths"], r["tp"], r["concurrency"])
        for r in ROWS
    ]
    assert len(set(keys)) == len(keys)


def test_lengths_are_the_clients_means():
    """bench_serving's random dataset draws lengths uniformly from [int(0.8 L), L]: the mean,
    rounded up, is what the planner is given."""
    for r in ROWS:
        for col in ("input", "output"):
            n = int(r[f"{col}_tokens_set"])
            assert int(r[f"{col}_tokens"]) == math.ceil((int(n * 0.8) + n) / 2), r["id"]


def test_units_hold_against_each_other():
    """Per row: E2E latency ≈ TTFT + TPOT · (O − 1) (ms and s), Little's law on the replica
    (total tokens/s per GPU × TP ≈ C · (I + O) / E2E latency: the TP and concurrency as run), and
    output tokens/s per GPU = total × Ō / (Ī + Ō)."""
    for r in ROWS:
        i, o = float(r["input_tokens"]), float(r["output_tokens"])
        e2el = float(r["e2el_s_median"])
        assert float(r["ttft_ms_median"]) > 0 and float(r["tpot_ms_median"]) > 0
        latency = (float(r["ttft_ms_median"]) + float(r["tpot_ms_median"]) * (o - 1)) / 1e3
        assert latency / e2el - 1 == pytest.approx(0, abs=0.15), r["id"]
        total = float(r["total_tokens_per_s_per_gpu"])
        little = int(r["concurrency"]) * (i + o) / e2el / int(r["tp"])
        assert little / total - 1 == pytest.approx(0, abs=0.15), r["id"]
        i_mean = (int(int(r["input_tokens_set"]) * 0.8) + int(r["input_tokens_set"])) / 2
        o_mean = (int(int(r["output_tokens_set"]) * 0.8) + int(r["output_tokens_set"])) / 2
        derived = total * o_mean / (i_mean + o_mean)
        assert float(r["output_tokens_per_s_per_gpu"]) == pytest.approx(derived, abs=1e-3)


def _one_per_class() -> list[dict]:
    seen: dict[tuple, dict] = {}
    for r in ROWS:
        if r["tp"] != r["concurrency"]:  # a row a swap of TP and concurrency would move
            seen.setdefault((r["engine"], r["gpu"], r["precision"]), r)
    return list(seen.values())


@pytest.mark.parametrize("row", _one_per_class(), ids=lambda r: r["id"])
def test_a_rows_prediction_is_the_planners_serve(row):
    """One path: the module's figures are `clusterplan serve --gpus TP --users C`'s."""
    rc, out, err = run_cli(
        "serve",
        *("--model", row["model"], "--gpu", row["gpu"], "--precision", row["precision"]),
        *("--kv-precision", row["kv_precision"]),
        *("--engine", f"{row['engine']}:{row['engine_version']}"),
        *("--input-tokens", row["input_tokens"], "--output-tokens", row["output_tokens"]),
        *("--gpus", row["tp"], "--users", row["concurrency"], "--json"),
    )
    assert rc == 0, err
    plan = json.loads(out)
    assert (plan["tp"], plan["gpus"]) == (int(row["tp"]), int(row["tp"]))
    predicted = I.predict(row)
    for metric, _ in I.METRICS:
        assert predicted[metric] == pytest.approx(plan[metric], rel=1e-12), metric


def test_the_scores_as_first_reported():
    """The figures written in the twentieth amendment (all rows, as committed), with TTFT as the
    twenty-first amendment and its correction moved it (157.2 / +157.2 / 27.3 unseen -> in-sample
    below): a model
    change that moves them must be reported there, not silently."""
    a = I.as_json()["all"]
    assert a["rows"] == 561 and a["refused"] == 0
    got = {
        m: tuple(round(100 * a[m][k], 1) for k in ("median_abs", "signed_median", "within_band"))
        for m, _ in I.METRICS
    }
    assert got == {
        # 15.0 / +9.4 / 86.8 until the thirty-second amendment's vLLM (ROCm) 0.10.2 build, scored
        # once on the 120 MI300X and MI325X rows (unseen for that amendment): as below
        # then 15.1 / -0.6 / 90.6 until the thirty-fourth amendment's time per sequence and layer
        # of that build (scored once, 2026-12-03): as below
        "tpot_ms": (13.3, -0.3, 90.9),
        # the lead's correction (roofline server time): 53.8 -> 53.7; then the twenty-ninth
        # amendment's own first token (in-sample: these rows motivated it): 56.6 / +53.7 / 35.5;
        # 28.9 / -0.1 / 60.4 until the thirty-second amendment
        # 24.4 / -17.8 / 74.0 until the thirty-fourth amendment
        "ttft_ms": (24.3, -17.9, 74.0),
        # 13.4 / -4.0 / 97.1 until the thirty-second amendment
        # 15.5 / +5.2 / 90.2 until the thirty-fourth amendment
        "output_tokens_per_s_per_gpu": (14.7, 4.6, 93.8),
    }


def test_validate_prints_and_serialises_the_block():
    rc, out, _ = run_cli("validate")
    assert rc == 0
    section = out.split("== Serving, third party: InferenceMAX")[1]
    assert "all rows" in section and "vllm MI325X fp8 8k1k" in section
    rc, out, _ = run_cli("validate", "--json")
    assert json.loads(out)["serving_inferencemax"]["rows"] == 561


def test_the_page_table_reads_the_scores():
    data = I.as_json()
    table = inferencemax_table(data)
    assert len(table) == 1 + len(data["classes"]) == 28
    first = table.iloc[0]
    assert first["rows"] == 561
    assert first["TPOT median |error| %"] == pytest.approx(
        100 * data["all"]["tpot_ms"]["median_abs"]
    )


def test_nothing_fits_on_the_rows():
    """The rule: the rows are unseen; no fit (bench/) or model module reads them."""
    readers = code_naming("inferencemax")
    assert readers == [
        "models/validation/inferencemax.py",
        "models/validation/thirdparty_moe.py",
        "models/validation/thirdparty_serving3.py",
        "models/validation/thirdparty_serving4.py",
        "models/validation/thirdparty_sets.py",
    ]
    # the other sets borrow the summaries only, never this set's rows or predictions
    for path in readers[1:]:
        other = (ROOT / path).read_text(encoding="utf-8")
        assert not re.search(
            r"inferencemax\.(load_rows|ROWS|predict|errors|as_json)|inferencemax\.csv", other
        ), path

"""Evidence rows for CUDA releases older than the ones AIConfigurator measured
(models/data/validation/older_cuda_serving.csv; docs/reference/serving-evidence.md, thirtieth
amendment): the file's own checks only. Nothing here predicts or scores a row."""

from __future__ import annotations

import pathlib
import re

from models.hardware import load_gpus
from models.serving.builds import CUDA_MEASURED, check_version
from models.shapes import load_presets
from tests import builders as B
from tests.builders import csv_rows

DATA = pathlib.Path(__file__).resolve().parents[1] / "models" / "data" / "validation"
PATH = DATA / "older_cuda_serving.csv"
ROWS = csv_rows(PATH)
EXTRA = ["statistic", "expressible", "not_expressible_reason"]
NUMBERS = [
    "gpus",
    "tp",
    "ep",
    "input_tokens",
    "output_tokens",
    "concurrency",
    "output_tokens_per_s",
    "ttft_ms",
    "tpot_ms",
]
#: what an expressible row must give the planner (lengths, users in flight, a layout)
NEEDED = ["gpus", "tp", "ep", "input_tokens", "output_tokens", "concurrency"]


def _release(version: str) -> tuple[int, ...]:
    """0.5.4 -> (0, 5, 4); 0.4.3.post2 -> (0, 4, 3)."""
    return tuple(int(x) for x in re.findall(r"\d+", version.split("+")[0])[:3])


def test_columns_are_amd_servings_plus_three():
    header = PATH.read_text(encoding="utf-8").splitlines()[0].split(",")
    amd = (DATA / "amd_serving.csv").read_text(encoding="utf-8").splitlines()[0].split(",")
    assert header == amd + EXTRA


def test_ids_unique_and_every_row_sourced_and_dated():
    assert len(ROWS) >= 8
    assert len({r["id"] for r in ROWS}) == len(ROWS)
    for r in ROWS:
        assert r["source"].strip() and r["source_id"].strip(), r["id"]
        assert r["as_of"] == "2026-12-03", r["id"]
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", r["published"]), r["id"]
        assert r["settings"].strip(), r["id"]


def test_engines_and_versions_are_older_than_the_measured_ones():
    for r in ROWS:
        assert r["engine"] in ("vllm", "sglang"), r["id"]
        assert check_version(r["engine_version"]) == r["engine_version"]
        lowest = CUDA_MEASURED[r["engine"]][0]
        assert _release(r["engine_version"]) < _release(lowest), r["id"]


def test_gpus_and_models_are_the_planners():
    gpus = load_gpus()
    presets = load_presets()
    for r in ROWS:
        assert r["gpu"] in gpus, r["id"]
        if r["expressible"] == "yes":
            assert r["model"] in presets, r["id"]


def test_numbers_positive_and_statistic_and_expressible_say_what_they_mean():
    B.expressible_counts(ROWS)  # yes or no, a reason exactly when no
    for r in ROWS:
        assert r["statistic"] in ("mean", "median"), r["id"]
        for k in NUMBERS:
            if r[k] != "":
                assert float(r[k]) > 0, (r["id"], k)
        if r["expressible"] == "yes":
            assert all(r[k] != "" for k in NEEDED), r["id"]
            assert r["tpot_ms"] != "" or r["output_tokens_per_s"] != "", r["id"]
            assert int(r["gpus"]) == int(r["tp"]) * int(r["ep"]) or r["ep"] == "1", r["id"]


def test_rows_per_source_engine_and_class_are_pinned():
    moe = {"mixtral-8x7b"}
    counts: dict[tuple, int] = {}
    for r in ROWS:
        k = (r["source_id"], r["engine"], r["engine_version"], r["model"] in moe, r["expressible"])
        counts[k] = counts.get(k, 0) + 1
    assert counts == {
        ("lambda-vllm-benchmark-2024", "vllm", "0.5.4", True, "yes"): 8,
        ("lambda-vllm-benchmark-2024", "vllm", "0.5.4", False, "yes"): 8,
        ("sglang-benchmark-vllm060-2024", "vllm", "0.6.0", False, "no"): 6,
        ("sglang-benchmark-vllm060-2024", "sglang", "0.3.0", False, "no"): 6,
    }


def test_no_source_the_brief_rules_out_and_no_row_of_another_file():
    banned = ("dstack", "aiconfigurator", "inferencemax", "inferencex")
    for r in ROWS:
        text = (r["source"] + r["settings"]).lower()
        assert not any(b in text for b in banned), r["id"]
    ours = {r["id"] for r in ROWS}
    for path in sorted(DATA.glob("*.csv")):
        if path != PATH:
            assert not ours & {row.get("id") for row in csv_rows(path)}, path.name

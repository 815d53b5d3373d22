"""The second batch of whole runs added after the fit (models/data/validation/whole_runs_added2.csv;
docs/reference/whole-run-model.md, 'Second batch'): every row parses, names a known preset, GPU and
stack class, quotes a source, agrees with its own derivation, repeats no run already scored, and was
committed after the fit. These checks plan nothing: the rows were entered before any was scored."""

from __future__ import annotations

import csv
import pathlib
import subprocess

import pytest

from models.hardware import load_gpus
from models.shapes import load_presets

ROOT = pathlib.Path(__file__).resolve().parents[1]
DATA = ROOT / "models" / "data" / "validation"
ADDED2 = DATA / "whole_runs_added2.csv"


def _rows(path: pathlib.Path) -> list[dict]:
    with path.open(newline="") as f:
        return list(csv.DictReader(f))


@pytest.fixture(scope="module")
def rows() -> list[dict]:
    return _rows(ADDED2)


def test_the_batch_has_ten_rows_in_the_added_schema_plus_its_batch_note(rows):
    with (DATA / "whole_runs_added.csv").open(newline="") as f:
        first = next(csv.reader(f))
    with ADDED2.open(newline="") as f:
        header = next(csv.reader(f))
    assert header == [*first, "batch"]
    assert len(rows) == 10
    assert all("2026-12-02" in r["batch"] for r in rows)


def test_every_row_names_a_preset_gpu_and_stack_and_quotes_a_source(rows):
    presets, gpus = load_presets(), load_gpus()
    classes = {s["stack_class"] for s in _rows(DATA / "stack_classes.csv")}
    for r in rows:
        assert r["model"] in presets and r["gpu"] in gpus, r["id"]
        assert r["stack_class"] in classes, r["id"]
        assert r["source"].strip() and r["stack"].strip() and r["gpu_as_published"].strip()
        assert 2023 <= int(r["year"]) <= 2026, r["id"]
        shape = presets[r["model"]]
        assert float(r["params_total_b"]) == pytest.approx(shape.published_params_b, rel=0.02)
        active = shape.published_active_params_b or shape.published_params_b
        assert float(r["params_active_b"]) == pytest.approx(active, rel=0.02), r["id"]


def test_gpu_hours_are_the_published_gpus_times_days(rows):
    for r in rows:
        assert r["basis"] == "gpus_x_days" and r["gpu_count_published"] == "1", r["id"]
        want = int(r["gpus"]) * float(r["wall_days"]) * 24
        assert float(r["published_gpu_hours"]) == pytest.approx(want, rel=1e-9), r["id"]


def test_no_run_repeats_one_already_fitted_or_scored(rows):
    seen = set()
    for name in ("whole_runs_heldout.csv", "whole_runs_added.csv", "runs.csv"):
        seen |= {r["model"] for r in _rows(DATA / name) if "model" in r}
    assert not {r["model"] for r in rows} & seen
    assert len({r["id"] for r in rows}) == len(rows)


def _first_commit(*args: str) -> str:
    out = subprocess.run(
        ["git", "log", "--format=%H", "--reverse", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    lines = out.stdout.split()
    if out.returncode or not lines:
        pytest.skip("no git history here")
    return lines[0]


def test_the_batch_was_committed_after_the_fit():
    fit = _first_commit("-S", "WHOLE_RUN_FIT = (-", "--", "models/constants.py")
    added2 = _first_commit("--", "models/data/validation/whole_runs_added2.csv")
    merge_base = subprocess.run(["git", "merge-base", "--is-ancestor", fit, added2], cwd=ROOT)
    assert added2 != fit and merge_base.returncode == 0

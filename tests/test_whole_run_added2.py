"""The second batch of whole runs added after the fit (models/data/validation/whole_runs_added2.csv;
docs/reference/whole-run-model.md, 'Second batch'): every row parses, names a known preset, GPU and
stack class, quotes a source, agrees with its own derivation, repeats no run already scored, and was
committed after the fit. These checks plan nothing: the rows were entered before any was scored."""

from __future__ import annotations

import csv
import pathlib

import pytest

from models.hardware import load_gpus
from models.shapes import load_presets
from tests.builders import (
    check_scored_from_its_own_file,
    csv_rows,
    first_commit,
    is_ancestor,
)

ROOT = pathlib.Path(__file__).resolve().parents[1]
DATA = ROOT / "models" / "data" / "validation"
ADDED2 = DATA / "whole_runs_added2.csv"


@pytest.fixture(scope="module")
def rows() -> list[dict]:
    return csv_rows(ADDED2)


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
    classes = {s["stack_class"] for s in csv_rows(DATA / "stack_classes.csv")}
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
        seen |= {r["model"] for r in csv_rows(DATA / name) if "model" in r}
    assert not {r["model"] for r in rows} & seen
    assert len({r["id"] for r in rows}) == len(rows)


def test_the_batch_was_committed_after_the_fit():
    fit = first_commit("-S", "WHOLE_RUN_FIT = (-", "--", "models/constants.py")
    added2 = first_commit("--", "models/data/validation/whole_runs_added2.csv")
    assert added2 != fit and is_ancestor(fit, added2)


# --- scored with the committed fit and band (after the batch's commit) -----------------------------


def test_the_batch_is_scored_with_the_committed_factor_from_its_own_file():
    """Each run's error is its steady-state GPU-hours x F(N_active, G) with the committed
    parameters, over the published GPU-hours; the rows are the file's, in its order."""
    from models.validation import whole_run as W

    d = check_scored_from_its_own_file(W.ADDED2_RUNS)
    for r in d["rows"]:
        assert r["steady_error"] == pytest.approx(r["steady"] / r["published"] - 1)
    assert d["whole_run"]["all"]["rows"] == 10


def test_the_scores_are_read_from_the_file_not_kept(tmp_path):
    """A copy of the file with one row scores one row, the same as that row in the whole batch."""
    from models.validation import whole_run as W

    with ADDED2.open(newline="") as f:
        lines = f.read().splitlines(keepends=True)
    one = tmp_path / "one.csv"
    one.write_text(lines[0] + lines[1])
    d1, d = W.added_scores(one), W.added_scores(W.ADDED2_RUNS)
    assert [r["id"] for r in d1["rows"]] == [d["rows"][0]["id"]]
    assert d1["whole_run"]["errors"][0] == pytest.approx(d["whole_run"]["errors"][0])


def test_validate_prints_the_second_batch_as_a_block_of_its_own():
    from models.validation import whole_run as W
    from models.validation.whole_run_report import whole_run_report

    text = whole_run_report()
    assert [k for k, _, _ in W.ADDED_BATCHES][:2] == ["added", "added2"]
    first, second = text.split("second batch (entered 2026-12-02")
    second = second.split("third batch (entered 2026-12-02")[0]
    assert "whole_runs_added.csv" in first and "whole_runs_added2.csv" in second
    for r in csv_rows(ADDED2):
        assert second.count(f"  {r['id']} ") == 1 and r["id"] not in first
    s = W.added_scores(W.ADDED2_RUNS)["whole_run"]["all"]
    assert f"{s['median_abs_error']:>7.1%} {s['signed_median']:>+7.1%} (10)" in second

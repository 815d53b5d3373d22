"""The third batch of whole runs added after the fit (models/data/validation/whole_runs_added3.csv;
docs/reference/whole-run-model.md, 'Third batch'): every row parses, names a known preset, GPU and
stack class, quotes a source, agrees with its own derivation, repeats no run already fitted, scored
or entered, and was committed after the second batch by a commit that touched no scoring code.
These checks plan nothing: the rows are entered before any is scored, and the lead scores them
after merging the refitted form. Scored once under C3, the batch joined the fit in amendment 5."""

from __future__ import annotations

import pathlib

import pytest

from tests.builders import (
    SCORING_CODE,
    check_added_batch_schema,
    check_batch_names_known_parts,
    check_gpu_hours_basis,
    check_scored_from_its_own_file,
    csv_rows,
    files_of_commit,
    first_commit,
    is_ancestor,
)

ROOT = pathlib.Path(__file__).resolve().parents[1]
DATA = ROOT / "models" / "data" / "validation"
ADDED3 = DATA / "whole_runs_added3.csv"
#: every file already holding runs that were fitted, scored or entered before this batch
EARLIER = ("whole_runs_heldout.csv", "whole_runs_added.csv", "whole_runs_added2.csv", "runs.csv")
#: AWS p4d.24xlarge: 400 Gb/s EFA for 8 A100s (the value the other p4d rows carry)
P4D_SCALEOUT_GBIT_PER_GPU = 50.0


@pytest.fixture(scope="module")
def rows() -> list[dict]:
    return csv_rows(ADDED3)


def test_the_batch_has_the_second_batch_schema_and_its_own_batch_note(rows):
    check_added_batch_schema(rows, ADDED3, "whole_runs_added2.csv", 5)


def test_every_row_names_a_preset_gpu_and_stack_and_quotes_a_source(rows):
    check_batch_names_known_parts(rows, first_year=2023)


def test_gpu_hours_are_the_published_gpus_times_days_or_the_reported_figure(rows):
    """`gpus_x_days`: GPU-hours = GPUs x days x 24 from the row's own count and days; `reported`:
    the source's figure, with its published GPU count and no days."""
    check_gpu_hours_basis(rows)


def test_rows_on_p4d_carry_its_fabric(rows):
    for r in rows:
        if "p4d" in r["gpu_as_published"].lower():
            assert float(r["scaleout_gbit_per_s_per_gpu"]) == P4D_SCALEOUT_GBIT_PER_GPU, r["id"]


def test_no_run_repeats_one_already_fitted_scored_or_entered(rows):
    seen = set()
    for name in EARLIER:
        seen |= {r["model"] for r in csv_rows(DATA / name) if "model" in r}
    assert not {r["model"] for r in rows} & seen
    assert len({r["id"] for r in rows}) == len({r["model"] for r in rows}) == len(rows)


def test_the_batch_was_committed_after_the_second_batch_without_scoring_code():
    """The commit that first added the file comes after the fit and the second batch, and changed no
    scoring code: the rows went in before anything could score them."""
    fit = first_commit("-S", "WHOLE_RUN_FIT = (-", "--", "models/constants.py")
    added2 = first_commit("--", "models/data/validation/whole_runs_added2.csv")
    added3 = first_commit("--", "models/data/validation/whole_runs_added3.csv")
    assert added3 not in (fit, added2) and is_ancestor(fit, added3) and is_ancestor(added2, added3)
    touched = files_of_commit(added3)
    assert "models/data/validation/whole_runs_added3.csv" in touched
    assert not [p for p in touched if p.startswith(SCORING_CODE)], touched


def test_the_batch_was_scored_once_then_joined_the_fit_in_amendment_5():
    """Scored once under form C3 (37.1 % median, -37.1 % signed: the doc keeps that table), then
    joined the fit in amendment 5: it is in ADDED_BATCHES and FITTED_BATCHES, and each run's
    (now in-sample) error is still read from its own file, steady GPU-hours x the committed F over
    the published GPU-hours."""
    from models.validation import whole_run as W

    assert "added3" in [k for k, _, _ in W.ADDED_BATCHES]
    assert "added3" in W.FITTED_BATCHES  # joined the fit in amendment 5, after its one scoring
    check_scored_from_its_own_file(W.ADDED3_RUNS)


def test_validate_prints_the_third_batch_in_sample_and_the_doc_keeps_its_unseen_score():
    from models.validation import whole_run as W
    from models.validation.whole_run_report import whole_run_report

    third = whole_run_report().split("third batch (entered 2026-12-02")[1].split("fourth batch")[0]
    assert "whole_runs_added3.csv" in third and "in-sample, not evidence" in third
    assert "targets 25% median" not in third
    for r in csv_rows(ADDED3):
        assert third.count(f"  {r['id']} ") == 1
    s = W.added_scores(W.ADDED3_RUNS)["whole_run"]["all"]
    assert f"{s['median_abs_error']:>7.1%} {s['signed_median']:>+7.1%} ( 5)" in third
    doc = (ROOT / "docs/reference/whole-run-model.md").read_text()
    assert "| **whole run (committed F, C3)** | **37.1 %** | **−37.1 %** |" in doc

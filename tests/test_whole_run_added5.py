"""The fifth batch of whole runs added after the fit (models/data/validation/whole_runs_added5.csv;
docs/reference/whole-run-model.md, 'Fifth batch'), entered sealed: every row parses, names a known
preset, GPU and stack class, quotes a source, agrees with its own derivation (tokens from the
published steps and batch, GPU-hours from GPUs x days x 24), repeats no run already fitted, scored
or entered, and was committed after the fourth batch by a commit that touched no scoring code; the
file stays out of the scored batches until the lead scores it. These checks plan nothing."""

from __future__ import annotations

import pathlib

import pytest

from tests.builders import (
    SCORING_CODE,
    check_added_batch_schema,
    check_batch_names_known_parts,
    check_scored_from_its_own_file,
    csv_rows,
    files_of_commit,
    first_commit,
    is_ancestor,
)

ROOT = pathlib.Path(__file__).resolve().parents[1]
DATA = ROOT / "models" / "data" / "validation"
ADDED5 = DATA / "whole_runs_added5.csv"
#: every file already holding runs that were fitted, scored or entered before this batch
EARLIER = (
    "whole_runs_heldout.csv",
    "whole_runs_added.csv",
    "whole_runs_added2.csv",
    "whole_runs_added3.csv",
    "whole_runs_added4.csv",
    "runs.csv",
)
#: each source's steps and tokens per step as its script sets them (nanoGPT config/train_gpt2.py:
#: 600,000 iterations of 12 x 1024 x 5 x 8; llm.c run_gpt2_1558M.sh: 32,000 steps of 1,048,576),
#: and the days the source states
PUBLISHED = {
    "nanogpt-gpt2-124m": (600_000, 12 * 1024 * 5 * 8, 4.0),
    "llmc-gpt2-1558m": (32_000, 1_048_576, 1.0),
}


@pytest.fixture(scope="module")
def rows() -> list[dict]:
    return csv_rows(ADDED5)


def test_the_batch_has_the_fourth_batch_schema_and_its_own_batch_note(rows):
    check_added_batch_schema(rows, ADDED5, "whole_runs_added4.csv", 2)


def test_every_row_names_a_preset_gpu_and_stack_and_quotes_a_source(rows):
    # the preset counts its own parameters to the published size too
    check_batch_names_known_parts(rows, first_year=2019, count_own=True)


def test_tokens_and_gpu_hours_follow_from_the_published_steps_and_days(rows):
    """Tokens = the script's steps x tokens per step; GPU-hours = GPUs x the stated days x 24."""
    assert {r["model"] for r in rows} == set(PUBLISHED)
    for r in rows:
        steps, per_step, days = PUBLISHED[r["model"]]
        assert float(r["tokens"]) == pytest.approx(steps * per_step, rel=1e-9), r["id"]
        assert int(r["global_batch_seqs"]) * int(r["seq_len"]) == per_step, r["id"]
        assert r["basis"] == "gpus_x_days" and r["gpu_count_published"] == "1", r["id"]
        assert float(r["wall_days"]) == days, r["id"]
        want = int(r["gpus"]) * days * 24
        assert float(r["published_gpu_hours"]) == pytest.approx(want, rel=1e-9), r["id"]


def test_the_assumed_figures_are_marked(rows):
    """Each row flags what it assumes, and the llm.c row says its time is steps x step time."""
    for r in rows:
        assert "[assumed" in r["notes"], r["id"]
    (llmc,) = [r for r in rows if r["model"] == "llmc-gpt2-1558m"]
    assert "steps x step time" in llmc["notes"]
    (nano,) = [r for r in rows if r["model"] == "nanogpt-gpt2-124m"]
    assert "'wait ~5 days'" in nano["notes"]


def test_no_run_repeats_one_already_fitted_scored_or_entered(rows):
    seen = set()
    for name in EARLIER:
        seen |= {r["model"] for r in csv_rows(DATA / name) if "model" in r}
    assert not {r["model"] for r in rows} & seen
    assert len({r["id"] for r in rows}) == len({r["model"] for r in rows}) == len(rows)


def test_the_batch_is_scored_with_the_committed_form_and_never_fitted():
    """Unsealed by the lead once amendment 5 (form C9) was committed, and scored once under it: in
    ADDED_BATCHES, not in FITTED_BATCHES, each run's error read from its own file as steady
    GPU-hours x the committed F over the published GPU-hours; the fit does not read it."""
    from models.validation import whole_run as W

    assert ("added5", ADDED5) in [(k, p) for k, _, p in W.ADDED_BATCHES]
    assert "added5" not in W.FITTED_BATCHES
    assert not {r["id"] for r in W.seen_rows()} & {r["id"] for r in csv_rows(ADDED5)}
    check_scored_from_its_own_file(W.ADDED5_RUNS)


def test_validate_prints_the_fifth_batch_against_the_targets_and_the_doc_its_score():
    from models.validation import whole_run as W
    from models.validation.whole_run_report import whole_run_report

    fifth = whole_run_report().split("fifth batch (entered sealed 2026-12-02")[1]
    assert "whole_runs_added5.csv" in fifth and "targets 25% median" in fifth
    for r in csv_rows(ADDED5):
        assert fifth.count(f"  {r['id']} ") == 1
    s = W.added_scores(W.ADDED5_RUNS)["whole_run"]["all"]
    assert f"{s['median_abs_error']:>7.1%} {s['signed_median']:>+7.1%} ( 2)" in fifth
    doc = (ROOT / "docs/reference/whole-run-model.md").read_text()
    pct = f"{s['median_abs_error'] * 100:.1f} % median, {s['signed_median'] * 100:+.1f} % signed"
    assert f"Whole run: **{pct}, band 2 of 2**" in doc


def test_the_batch_was_committed_after_the_fourth_batch_without_scoring_code():
    """The commit that first added the file comes after the fourth batch, and changed no scoring
    code: the rows went in before anything could score them."""
    added4 = first_commit("--", "models/data/validation/whole_runs_added4.csv")
    added5 = first_commit("--", "models/data/validation/whole_runs_added5.csv")
    assert added5 != added4 and is_ancestor(added4, added5)
    touched = files_of_commit(added5)
    assert "models/data/validation/whole_runs_added5.csv" in touched
    assert "docs/reference/whole-run-model.md" in touched
    assert not [p for p in touched if p.startswith(SCORING_CODE)], touched

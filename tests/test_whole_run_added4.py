"""The fourth batch of whole runs added after the fit (models/data/validation/whole_runs_added4.csv;
docs/reference/whole-run-model.md, 'Fourth batch'), entered sealed: every row parses, names a known
preset, GPU and stack class, quotes a source, agrees with its own derivation, repeats no run already
fitted, scored or entered, and was committed after the third batch by a commit that touched no
scoring code. Scored once by the lead under C3, the batch joined the fit in amendment 5."""

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
ADDED4 = DATA / "whole_runs_added4.csv"
#: every file already holding runs that were fitted, scored or entered before this batch
EARLIER = (
    "whole_runs_heldout.csv",
    "whole_runs_added.csv",
    "whole_runs_added2.csv",
    "whole_runs_added3.csv",
    "runs.csv",
)
#: YuLan-Mini's GPU-hours from its team's estimate_mfu.py: 56 GPUs x 10 stages x 28 h, then
#: 48 GPUs x 15 stages x 32 h (the stable stage, 25 x 40B tokens)
YULAN_STAGES = ((56, 10 * 28), (48, 15 * 32))
YULAN_TOKENS = 25 * 40e9


@pytest.fixture(scope="module")
def rows() -> list[dict]:
    return csv_rows(ADDED4)


def test_the_batch_has_the_third_batch_schema_and_its_own_batch_note(rows):
    check_added_batch_schema(rows, ADDED4, "whole_runs_added3.csv", 3)


def test_every_row_names_a_preset_gpu_and_stack_and_quotes_a_source(rows):
    check_batch_names_known_parts(rows, first_year=2023)


def test_gpu_hours_are_the_published_gpus_times_days_or_the_reported_figure(rows):
    """`gpus_x_days`: GPU-hours = GPUs x days x 24 from the row's own count and days; `reported`:
    the source's figure (here derived from the team's own stage hours), with no days."""
    check_gpu_hours_basis(rows)


def test_yulan_mini_row_is_the_scripts_stable_stage(rows):
    """The YuLan-Mini row carries the stable stage its GPU-hours cover: the stage hours of the
    team's script, its 1.0T tokens, one of the two published counts, and says which count it took."""
    (r,) = [r for r in rows if r["model"] == "yulan-mini-2.4b"]
    assert float(r["published_gpu_hours"]) == sum(g * h for g, h in YULAN_STAGES)
    assert float(r["tokens"]) == YULAN_TOKENS
    assert int(r["gpus"]) in {g for g, _ in YULAN_STAGES} and r["gpu"] == "A800"
    assert "56 GPUs for stages 1-10, 48 for stages 11-25" in r["gpu_as_published"]


def test_assumed_a100_memory_is_marked(rows):
    """Where the card says only 'A100', the entered memory is flagged as an assumption."""
    for r in rows:
        if "memory not stated" in r["gpu_as_published"]:
            assert "[assumed" in r["notes"], r["id"]


def test_no_run_repeats_one_already_fitted_scored_or_entered(rows):
    seen = set()
    for name in EARLIER:
        seen |= {r["model"] for r in csv_rows(DATA / name) if "model" in r}
    assert not {r["model"] for r in rows} & seen
    assert len({r["id"] for r in rows}) == len({r["model"] for r in rows}) == len(rows)


def test_the_batch_was_scored_once_then_joined_the_fit_in_amendment_5():
    """Unsealed by the lead once form C3 was kept and scored once under it (40.1 % median, +12.3 %
    signed: the doc keeps that), then joined the fit in amendment 5: in ADDED_BATCHES and
    FITTED_BATCHES, each run's (now in-sample) error read from its own file, steady GPU-hours x
    the committed F over the published GPU-hours."""
    from models.validation import whole_run as W

    keys = [k for k, _, _ in W.ADDED_BATCHES]
    assert keys.index("added4") == keys.index("added3") + 1  # entered after the third
    assert "added4" in W.FITTED_BATCHES  # joined the fit in amendment 5, after its one scoring
    check_scored_from_its_own_file(W.ADDED4_RUNS)


def test_validate_prints_the_fourth_batch_in_sample_and_the_doc_keeps_its_unseen_score():
    from models.validation import whole_run as W
    from models.validation.whole_run_report import whole_run_report

    fourth = (
        whole_run_report()
        .split("fourth batch (entered sealed 2026-12-02")[1]
        .split("fifth batch")[0]
    )
    assert "whole_runs_added4.csv" in fourth and "in-sample, not evidence" in fourth
    assert "targets 25% median" not in fourth
    for r in csv_rows(ADDED4):
        assert fourth.count(f"  {r['id']} ") == 1
    s = W.added_scores(W.ADDED4_RUNS)["whole_run"]["all"]
    assert f"{s['median_abs_error']:>7.1%} {s['signed_median']:>+7.1%} ( 3)" in fourth
    doc = (ROOT / "docs/reference/whole-run-model.md").read_text()
    assert "Whole run: **40.1 % median, +12.3 % signed, band 2 of 3**" in doc


def test_the_batch_was_committed_after_the_third_batch_without_scoring_code():
    """The commit that first added the file comes after the third batch, and changed no scoring
    code: the rows went in before anything could score them."""
    added3 = first_commit("--", "models/data/validation/whole_runs_added3.csv")
    added4 = first_commit("--", "models/data/validation/whole_runs_added4.csv")
    assert added4 != added3 and is_ancestor(added3, added4)
    touched = files_of_commit(added4)
    assert "models/data/validation/whole_runs_added4.csv" in touched
    assert "docs/reference/whole-run-model.md" in touched
    assert not [p for p in touched if p.startswith(SCORING_CODE)], touched

"""The sixth batch of whole runs added after the fit (models/data/validation/whole_runs_added6.csv;
docs/reference/whole-run-model.md, 'Sixth batch'), entered sealed: every row parses, names a known
preset, GPU and stack class, quotes a source, agrees with its own derivation (tokens from the
published iterations and batch, GPU-hours from GPUs x hours), repeats no run already fitted, scored
or entered, and was committed after the fifth batch by a commit that touched no scoring code; the
file stays out of the scored and fitted batches until the lead scores it. These checks plan nothing."""

from __future__ import annotations

import pathlib

import pytest

from models.shapes import load_presets
from tests.builders import (
    check_added_batch_schema,
    check_batch_committed_sealed,
    check_batch_names_known_parts,
    check_batch_scored_never_fitted,
    csv_rows,
)

ROOT = pathlib.Path(__file__).resolve().parents[1]
DATA = ROOT / "models" / "data" / "validation"
ADDED6 = DATA / "whole_runs_added6.csv"
#: every file already holding runs that were fitted, scored or entered before this batch
EARLIER = (
    "whole_runs_heldout.csv",
    "whole_runs_added.csv",
    "whole_runs_added2.csv",
    "whole_runs_added3.csv",
    "whole_runs_added4.csv",
    "whole_runs_added5.csv",
    "runs.csv",
)
#: the card's iterations and tokens per iteration (nanochat-d34: 'Calculated number of iterations:
#: 169,150', 'total_batch_size: 524,288') and the hours it states ('~100 hours')
PUBLISHED = {"nanochat-d34": (169_150, 524_288, 100.0)}
#: the card's parameter count, which the preset's sizes reproduce exactly:
#: 2 x vocab x width (untied) + layers x 12 x width^2 (4 attention + 8 MLP matrices, no biases)
CARD_PARAMS = {"nanochat-d34": 2_217_082_880}


@pytest.fixture(scope="module")
def rows() -> list[dict]:
    return csv_rows(ADDED6)


def test_the_batch_has_the_earlier_schema_and_its_own_batch_note(rows):
    check_added_batch_schema(rows, ADDED6, "whole_runs_added5.csv", 1)


def test_every_row_names_a_preset_gpu_and_stack_and_quotes_a_source(rows):
    # the preset counts its own parameters to the published size too
    check_batch_names_known_parts(rows, first_year=2019, count_own=True)


def test_the_preset_sizes_give_the_cards_parameter_count(rows):
    presets = load_presets()
    for r in rows:
        s = presets[r["model"]]
        assert not s.gated_mlp and not s.tied_embeddings and s.kv_heads == s.heads, r["id"]
        count = 2 * s.vocab * s.hidden + s.layers * (4 * s.hidden**2 + 2 * s.hidden * s.ffn_hidden)
        assert count == CARD_PARAMS[r["model"]], r["id"]


def test_tokens_and_gpu_hours_follow_from_the_published_iterations_and_hours(rows):
    """Tokens = iterations x tokens per iteration; GPU-hours = GPUs x the stated hours, entered as
    days (hours / 24) so that GPUs x days x 24 gives them back."""
    assert {r["model"] for r in rows} == set(PUBLISHED)
    for r in rows:
        steps, per_step, hours = PUBLISHED[r["model"]]
        assert float(r["tokens"]) == pytest.approx(steps * per_step, rel=1e-9), r["id"]
        assert int(r["global_batch_seqs"]) * int(r["seq_len"]) == per_step, r["id"]
        assert r["basis"] == "gpus_x_days" and r["gpu_count_published"] == "1", r["id"]
        assert float(r["wall_days"]) == pytest.approx(hours / 24, rel=1e-9), r["id"]
        want = int(r["gpus"]) * float(r["wall_days"]) * 24
        assert float(r["published_gpu_hours"]) == pytest.approx(want, rel=1e-9), r["id"]
        assert float(r["published_gpu_hours"]) == pytest.approx(int(r["gpus"]) * hours), r["id"]


def test_the_assumed_figures_and_the_shared_author_are_marked(rows):
    for r in rows:
        assert "[assumed" in r["notes"], r["id"]
        assert "ran for ~100 hours (~4 days)" in r["source"], r["id"]
        assert "nanoGPT, llm.c" in r["notes"], r["id"]  # same author as the fifth batch, said


def test_no_run_repeats_one_already_fitted_scored_or_entered(rows):
    seen = set()
    for name in EARLIER:
        seen |= {r["model"] for r in csv_rows(DATA / name) if "model" in r}
    assert not {r["model"] for r in rows} & seen
    assert len({r["id"] for r in rows}) == len({r["model"] for r in rows}) == len(rows)


def test_the_batch_is_scored_but_never_fitted():
    """Unsealed by the lead for its one scoring: scored by `clusterplan validate`, never fitted."""
    check_batch_scored_never_fitted(ADDED6)


def test_the_batch_was_committed_after_the_fifth_batch_without_scoring_code():
    check_batch_committed_sealed(
        "models/data/validation/whole_runs_added5.csv",
        "models/data/validation/whole_runs_added6.csv",
        "## Sixth batch of runs added after the fit (entered sealed",
    )


def test_its_one_score_and_the_never_fitted_batches_pooled():
    """Scored once under C9 (2026-12-02, whole-run-model.md 'Sixth batch: results'): nanochat d34
    at +5.7 %, inside its band; with the fifth batch (nanoGPT -22.3 %, llm.c +31.3 %), 3 runs at
    22.3 % median, +5.7 % signed, band 3 of 3, and validate says which targets that meets."""
    from models.validation import whole_run as W
    from models.validation.whole_run_report import whole_run_report

    (err,) = W.added_scores(ADDED6)["whole_run"]["errors"]
    assert err == pytest.approx(0.057, abs=0.001)
    # pooled with the fifth (3 runs, 22.3 % median, +5.7 % signed, band 3 of 3) until the seventh
    # batch joined (tests/test_whole_run_added7.py pins the pool now)
    pooled = W.never_fitted_scores()
    assert pooled["batches"][:2] == ["added5", "added6"]
    paths = {k: path for k, _, path in W.ADDED_BATCHES}
    five_six = [
        e for k in ("added5", "added6") for e in W.added_scores(paths[k])["whole_run"]["errors"]
    ]
    assert sorted(round(e, 3) for e in five_six) == [-0.223, 0.057, 0.313]
    assert "batches added5 + added6" in whole_run_report()

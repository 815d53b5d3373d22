"""The seventh batch of whole runs added after the fit (models/data/validation/whole_runs_added7.csv;
docs/reference/whole-run-model.md, 'Seventh batch'), entered sealed: every row parses, names a known
preset, GPU and stack class, quotes a source, agrees with its own derivation (tokens from the logged
iterations and batch, GPU-hours from GPUs x the logged training time), repeats no run already fitted,
scored or entered, and was committed after the sixth batch by a commit that touched no scoring code;
the file stays out of the scored and fitted batches until the lead scores it. The leads looked at
and not entered are in skipped_heldout.csv, each with a reason. These checks plan nothing."""

from __future__ import annotations

import pathlib

import pytest

from models.shapes import load_presets
from tests.builders import (
    check_added_batch_schema,
    check_batch_committed_sealed,
    check_batch_names_known_parts,
    check_batch_scored_never_fitted,
    check_skipped_leads_listed,
    csv_rows,
)

ROOT = pathlib.Path(__file__).resolve().parents[1]
DATA = ROOT / "models" / "data" / "validation"
ADDED7 = DATA / "whole_runs_added7.csv"
#: every file already holding runs that were fitted, scored or entered before this batch
EARLIER = (
    "whole_runs_heldout.csv",
    "whole_runs_added.csv",
    "whole_runs_added2.csv",
    "whole_runs_added3.csv",
    "whole_runs_added4.csv",
    "whole_runs_added5.csv",
    "whole_runs_added6.csv",
    "runs.csv",
)
#: the log's iterations ('num_iterations : int = 2*10172'), sequences per iteration ('batch_size :
#: int = 8*60') and its final 'train_time:34957570ms'
PUBLISHED = {"modded-nanogpt-1.5b": (2 * 10172, 8 * 60, 34_957_570)}
#: 52 layers x (4 attention + 8 MLP matrices of width 1536, no biases) + one tied 50,304 x 1536
#: embedding, the sizes in the log's code
CODE_PARAMS = {"modded-nanogpt-1.5b": 52 * 12 * 1536**2 + 50_304 * 1536}
DOC = ROOT / "docs" / "reference" / "whole-run-model.md"
HEADING = "## Seventh batch of runs added after the fit (entered sealed"


@pytest.fixture(scope="module")
def rows() -> list[dict]:
    return csv_rows(ADDED7)


def test_the_batch_has_the_earlier_schema_and_its_own_batch_note(rows):
    check_added_batch_schema(rows, ADDED7, "whole_runs_added6.csv", 1)


def test_every_row_names_a_preset_gpu_and_stack_and_quotes_a_source(rows):
    # the preset counts its own parameters to the published size too
    check_batch_names_known_parts(rows, first_year=2019, count_own=True)


def test_the_preset_sizes_are_the_code_that_ran(rows):
    presets = load_presets()
    for r in rows:
        s = presets[r["model"]]
        assert not s.gated_mlp and s.tied_embeddings and s.kv_heads == s.heads, r["id"]
        count = s.vocab * s.hidden + s.layers * (4 * s.hidden**2 + 2 * s.hidden * s.ffn_hidden)
        assert count == CODE_PARAMS[r["model"]], r["id"]
        assert f"n_layer={s.layers}, n_head={s.heads}, n_embd={s.hidden}" in r["source"], r["id"]


def test_tokens_and_gpu_hours_follow_from_the_logged_iterations_and_time(rows):
    """Tokens = iterations x sequences x sequence length; GPU-hours = GPUs x the logged training
    time, entered as days so that GPUs x days x 24 gives them back."""
    assert {r["model"] for r in rows} == set(PUBLISHED)
    for r in rows:
        steps, seqs, ms = PUBLISHED[r["model"]]
        assert int(r["global_batch_seqs"]) == seqs, r["id"]
        assert float(r["tokens"]) == pytest.approx(steps * seqs * int(r["seq_len"]), rel=1e-9)
        assert f"train_time:{ms}ms" in r["source"], r["id"]
        assert r["basis"] == "gpus_x_days" and r["gpu_count_published"] == "1", r["id"]
        assert float(r["wall_days"]) == pytest.approx(ms / 86_400_000, rel=1e-9), r["id"]
        want = int(r["gpus"]) * float(r["wall_days"]) * 24
        assert float(r["published_gpu_hours"]) == pytest.approx(want, rel=1e-9), r["id"]
        assert float(r["published_gpu_hours"]) == pytest.approx(int(r["gpus"]) * ms / 3.6e6)


def test_the_assumed_figures_the_timed_clock_and_the_shared_lineage_are_marked(rows):
    for r in rows:
        assert "[assumed" in r["notes"], r["id"]
        assert "closer to a steady state" in r["notes"], r["id"]  # the clock skips validation
        assert "a5-llmc-gpt2-1558m" in r["notes"], r["id"]  # code descends from llm.c, said
        assert "descends from llm.c" in r["source"], r["id"]


def test_no_run_repeats_one_already_fitted_scored_or_entered(rows):
    seen = set()
    for name in EARLIER:
        seen |= {r["model"] for r in csv_rows(DATA / name) if "model" in r}
    assert not {r["model"] for r in rows} & seen
    assert len({r["id"] for r in rows}) == len({r["model"] for r in rows}) == len(rows)


def test_the_leads_not_entered_say_why_and_the_doc_lists_them():
    check_skipped_leads_listed(
        "seventh batch",
        "seventh batch (2026-12-02): ",
        16,
        HEADING,
        ("pico-decoder", "LLM-jp-13B", "Polyglot-Ko", "ZAYA1", "mGPT", "Wenzhong"),
    )


def test_the_batch_is_scored_but_never_fitted():
    """Unsealed by the lead for its one scoring: scored by `clusterplan validate`, never fitted."""
    check_batch_scored_never_fitted(ADDED7)


def test_the_batch_was_committed_after_the_sixth_batch_without_scoring_code():
    check_batch_committed_sealed(
        "models/data/validation/whole_runs_added6.csv",
        "models/data/validation/whole_runs_added7.csv",
        HEADING,
    )


def test_its_one_score_and_the_never_fitted_batches_pooled():
    """Scored once under C9 (2026-12-03, whole-run-model.md 'Seventh batch: results'): modded-nanogpt
    1.5B at -1.2 %, inside its band; with the fifth and sixth batches, 4 runs at 14.0 % median,
    +2.2 % signed, band 4 of 4, and validate says which targets that meets."""
    from models.validation import whole_run as W
    from models.validation.whole_run_report import whole_run_report

    (err,) = W.added_scores(ADDED7)["whole_run"]["errors"]
    assert err == pytest.approx(-0.012, abs=0.001)
    # pooled with the fifth and sixth (4 runs, 14.0 % median, +2.2 % signed, band 4 of 4) until the
    # eighth and ninth batches joined (tests/test_whole_run_added9.py pins the pool now)
    pooled = W.never_fitted_scores()
    assert pooled["batches"][:3] == ["added5", "added6", "added7"]
    assert "batches added5 + added6 + added7" in whole_run_report()

"""The ninth batch of whole runs added after the fit (models/data/validation/whole_runs_added9.csv;
docs/reference/whole-run-model.md, 'Ninth batch'), entered sealed: every row parses, names a known
preset, GPU and stack class, quotes a source, agrees with its own derivation (tokens from the card's
steps and the specification file's batch, GPU-hours from GPUs x the card's wall-clock hours), runs on
more than one node, repeats no run already fitted, scored or entered, and was committed after the
seventh batch by a commit that touched no scoring code; the file stays out of the scored and fitted
batches until the lead scores it. The leads looked at and not entered are in skipped_heldout.csv,
each with a reason. These checks plan nothing."""

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
ADDED9 = DATA / "whole_runs_added9.csv"
#: every file already holding runs that were fitted, scored or entered before this batch (the
#: parallel eighth batch too, where it has been merged)
EARLIER = (
    "whole_runs_heldout.csv",
    "whole_runs_added.csv",
    "whole_runs_added2.csv",
    "whole_runs_added3.csv",
    "whole_runs_added4.csv",
    "whole_runs_added5.csv",
    "whole_runs_added6.csv",
    "whole_runs_added7.csv",
    "runs.csv",
)
#: the card's steps ('Number of steps: 1,960,000'), the specification file's batch in tokens
#: ('total_batch_size: 262144') and the card's hours ('Training time: ~ 845 hours')
PUBLISHED = {"tucano-2b4": (1_960_000, 262_144, 845)}
#: the card's 'Size: 2,444,618,240 parameters'
CARD_PARAMS = {"tucano-2b4": 2_444_618_240}
#: the specification file's sizes, as quoted in the preset's source
SPEC_LINES = {
    "tucano-2b4": (
        "'num_hidden_layers: 24'",
        "'num_attention_heads: 16'",
        "'num_key_value_heads: 4'",
        "'hidden_size: 2560'",
        "'intermediate_size: 10240'",
        "'vocab_size: 32000'",
    )
}
DOC = ROOT / "docs" / "reference" / "whole-run-model.md"
HEADING = "## Ninth batch of runs added after the fit (entered sealed"
SKIPPED_LEADS = 17


@pytest.fixture(scope="module")
def rows() -> list[dict]:
    return csv_rows(ADDED9)


def test_the_batch_has_the_earlier_schema_and_its_own_batch_note(rows):
    check_added_batch_schema(rows, ADDED9, "whole_runs_added7.csv", 1)


def test_every_row_names_a_preset_gpu_and_stack_and_quotes_a_source(rows):
    check_batch_names_known_parts(rows, first_year=2019, count_own=True)


def test_the_preset_is_the_specification_file_and_counts_the_card_exactly(rows):
    """Llama shape from the run's specification file: gated SiLU MLP, untied embedding and head, four
    KV heads; its own count is the card's parameter count to the unit."""
    presets = load_presets()
    source = {r["model_id"]: r["source"] for r in csv_rows(ROOT / "models/data/model_presets.csv")}
    for r in rows:
        s = presets[r["model"]]
        assert s.gated_mlp and not s.tied_embeddings and s.kv_heads < s.heads, r["id"]
        assert s.params_total == CARD_PARAMS[r["model"]], r["id"]
        assert all(line in source[r["model"]] for line in SPEC_LINES[r["model"]]), r["id"]
        assert f"{CARD_PARAMS[r['model']]:,} parameters" in r["source"], r["id"]


def test_tokens_and_gpu_hours_follow_from_the_card_and_the_specification(rows):
    """Tokens = the card's steps x the specification's batch; GPU-hours = GPUs x the card's hours,
    entered as days so that GPUs x days x 24 gives them back."""
    assert {r["model"] for r in rows} == set(PUBLISHED)
    for r in rows:
        steps, batch_tokens, hours = PUBLISHED[r["model"]]
        assert int(r["global_batch_seqs"]) * int(r["seq_len"]) == batch_tokens, r["id"]
        assert float(r["tokens"]) == pytest.approx(steps * batch_tokens, rel=1e-12), r["id"]
        assert f"Number of steps: {steps:,}" in r["source"], r["id"]
        assert f"'total_batch_size: {batch_tokens}'" in r["source"], r["id"]
        assert f"'Training time: ~ {hours} hours'" in r["source"], r["id"]
        assert r["basis"] == "gpus_x_days" and r["gpu_count_published"] == "1", r["id"]
        assert float(r["wall_days"]) == pytest.approx(hours / 24, rel=1e-12), r["id"]
        want = int(r["gpus"]) * float(r["wall_days"]) * 24
        assert float(r["published_gpu_hours"]) == pytest.approx(want, rel=1e-12), r["id"]
        assert float(r["published_gpu_hours"]) == int(r["gpus"]) * hours, r["id"]


def test_the_run_spans_more_than_one_node_as_its_launch_script_says(rows):
    """The gap the batch was asked to fill: 16 GPUs launched as 4 Slurm nodes of 4."""
    for r in rows:
        assert int(r["gpus"]) >= 16, r["id"]
        assert "'#SBATCH --nodes=4'" in r["source"] and "'export WORLD_SIZE=16'" in r["source"]


def test_the_assumed_figures_the_clock_and_the_disagreements_are_marked(rows):
    for r in rows:
        assert "[assumed" in r["notes"], r["id"]
        assert "wall-clock of the 16-GPU job" in r["notes"], r["id"]  # not a sum over GPUs
        assert "844.4 hours" in r["notes"], r["id"]  # the CodeCarbon log that backs the card
        assert "5,900 GPU hours" in r["notes"], r["id"]  # the page that disagrees, said
        assert "980,000" in r["notes"], r["id"]  # the validation log's half count, said
        assert "55% Model Flop Utilization" in r["notes"], r["id"]  # seen, not used


def test_no_run_repeats_one_already_fitted_scored_or_entered(rows):
    seen = set()
    names = EARLIER + tuple(p.name for p in DATA.glob("whole_runs_added8.csv"))
    for name in names:
        seen |= {r["model"] for r in csv_rows(DATA / name) if "model" in r}
    assert not {r["model"] for r in rows} & seen
    assert len({r["id"] for r in rows}) == len({r["model"] for r in rows}) == len(rows)


def test_the_leads_not_entered_say_why_and_the_doc_lists_them():
    check_skipped_leads_listed(
        "ninth batch",
        "ninth batch (2026-12-03): ",
        SKIPPED_LEADS,
        HEADING,
        (
            "Viking",
            "HPLT",
            "EuroLLM-1.7B",
            "PLaMo-13B",
            "LLM-jp-3",
            "Tucano-1b1",
            "Nanbeige",
        ),
    )


def test_the_batch_is_scored_but_never_fitted():
    """Unsealed by the lead for its one scoring: scored by `clusterplan validate`, never fitted."""
    check_batch_scored_never_fitted(ADDED9)


def test_the_batch_was_committed_after_the_seventh_batch_without_scoring_code():
    check_batch_committed_sealed(
        "models/data/validation/whole_runs_added7.csv",
        "models/data/validation/whole_runs_added9.csv",
        HEADING,
    )


def test_its_one_score_and_the_never_fitted_batches_pooled():
    """Scored once under C9 (2026-12-03, whole-run-model.md 'Eighth and ninth batches: results'):
    Tucano-2b4 on 16 A100 at +8.6 %, inside its band; with the fifth to eighth batches, 6 runs at
    15.5 % median, +7.1 % signed, band 5 of 6."""
    from models.validation import whole_run as W
    from models.validation.whole_run_report import whole_run_report

    scores = W.added_scores(ADDED9)
    (err,) = scores["whole_run"]["errors"]
    assert err == pytest.approx(0.086, abs=0.001)
    assert scores["whole_run"]["band_coverage"] == 1.0
    # pooled with the fifth to eighth (6 runs, 15.5 % median, +7.1 % signed, band 5 of 6) until the
    # tenth batch joined (tests/test_whole_run_added10.py pins the pool now)
    pooled = W.never_fitted_scores()
    assert pooled["batches"][:5] == ["added5", "added6", "added7", "added8", "added9"]
    assert "added8 + added9" in whole_run_report()

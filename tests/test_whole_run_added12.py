"""The twelfth batch of whole runs added after the fit (docs/reference/whole-run-model.md, 'Twelfth
batch'): the brief's lead, Phi-3.5-MoE, turned out to be a run the committed form is already fitted
on (add-phi-3.5-moe, first batch), and GRIN MoE shares its pre-training, so no run is entered. What
the batch leaves: the leads looked at, appended to skipped_heldout.csv with the source read and the
reason; a doc section naming them; the new shape source checked against the existing preset (its
parameter counts recomputed from the shape). These checks keep that record honest and keep the batch
sealed: no twelfth-batch file exists and nothing of it is wired into the scored or fitted batches.
They plan nothing."""

from __future__ import annotations

import pathlib

import pytest

from models.shapes import load_presets
from tests.builders import check_no_batch_entered, check_skipped_leads_listed, csv_rows

ROOT = pathlib.Path(__file__).resolve().parents[1]
DATA = ROOT / "models" / "data" / "validation"
DOC = ROOT / "docs" / "reference" / "whole-run-model.md"
HEADING = "## Twelfth batch of runs added after the fit (entered sealed"
MARK = "twelfth batch (2026-12-03): "
SKIPPED_LEADS = 5
LEADS = ("Phi-3.5-MoE", "GRIN MoE", "A.X K1", "K-EXAONE", "Marin")
#: transformers' PhimoeConfig defaults (configuration_phimoe.py, stored commit 040e1a7), as the
#: skipped row quotes them; the GRIN paper's Table 1 prints the same sizes
CONFIG_DEFAULTS = (
    "vocab_size=32064",
    "hidden_size=4096",
    "intermediate_size=6400",
    "num_hidden_layers=32",
    "num_attention_heads=32",
    "num_key_value_heads=8",
    "num_local_experts=16",
    "num_experts_per_tok=2",
    "tie_word_embeddings=False",
)
#: the GRIN paper: '42B parameters in total and 6.6B activated parameters'; the card: '6.6B active'
PAPER_TOTAL_B, PAPER_ACTIVE_B = 42.0, 6.6


def _skipped() -> list[dict]:
    return [s for s in csv_rows(DATA / "skipped_heldout.csv") if "twelfth batch" in s["reason"]]


def _row(lead: str) -> dict:
    (row,) = [s for s in _skipped() if s["run"].startswith(lead)]
    return row


def test_the_leads_not_entered_say_where_they_were_read_and_why():
    section = check_skipped_leads_listed("twelfth batch", MARK, SKIPPED_LEADS, HEADING, LEADS)
    for s in _skipped():
        assert len(s["reason"]) > len(MARK) + 40, s["run"]
        assert "2026-12-03" in s["source"] or "commit" in s["source"], s["run"]
    assert "No run is entered" in section and "What the author had seen" in section


def test_the_rejection_holds_phi_35_moe_is_a_fitted_run():
    """The brief's lead is the first batch's add-phi-3.5-moe, in a batch the form is fitted on, with
    the preset the new source describes; GRIN shares that run's pre-training and source group."""
    from models.validation import whole_run as W

    fitted = [p for k, _, p in W.ADDED_BATCHES if k in W.FITTED_BATCHES]
    owners = [p.name for p in fitted for r in csv_rows(p) if r["model"] == "phi-3.5-moe"]
    assert owners == ["whole_runs_added.csv"]
    assert W.source_groups()["add-phi-3.5-moe"] == "Phi (Microsoft)"
    assert "already a fitted run" in DOC.read_text()
    assert "add-phi-3.5-moe" in _row("Phi-3.5-MoE")["reason"]
    grin = _row("GRIN MoE")
    assert "'GRIN MoE is pre-trained on 4T tokens'" in grin["source"]
    assert "released as Phi-3.5-MoE'" in grin["source"] and "add-phi-3.5-moe" in grin["reason"]


def test_the_new_shape_source_is_quoted_and_matches_the_preset():
    """The configuration class's defaults, quoted in the row, are the preset's sizes."""
    row = _row("Phi-3.5-MoE")
    assert "configuration_phimoe.py (stored commit 040e1a7" in row["source"]
    assert "'Instantiating a configuration with the defaults will yield a similar" in row["source"]
    for default in CONFIG_DEFAULTS:
        assert default in row["source"], default
    for quote in ("'GPUs:** 512 H100-80G'", "'Training time:** 23 days'", "4.9T tokens'"):
        assert quote in row["source"], quote
    s = load_presets()["phi-3.5-moe"]
    assert (s.vocab, s.hidden, s.ffn_hidden, s.layers) == (32_064, 4096, 6400, 32)
    assert (s.heads, s.kv_heads, s.experts, s.experts_per_token) == (32, 8, 16, 2)
    assert s.gated_mlp and not s.tied_embeddings and s.shared_experts == 0


def test_the_presets_counts_follow_from_the_shape_and_match_the_paper():
    """Counted by hand from the shape (attention with 8 KV heads, 16 gated experts of 6,400 and a
    router per layer, two norms per layer and a final one, untied embedding and head): 41.87B in
    all and 6.64B with 2 experts active; the paper's 42B and 6.6B."""
    s = load_presets()["phi-3.5-moe"]
    kv = s.kv_heads * s.hidden // s.heads
    attention = s.hidden * (s.hidden + 2 * kv) + s.hidden**2
    expert = 3 * s.hidden * s.ffn_hidden
    fixed = attention + s.hidden * s.experts + 2 * s.hidden
    ends = 2 * s.vocab * s.hidden + s.hidden
    total = s.layers * (fixed + s.experts * expert) + ends
    active = s.layers * (fixed + s.experts_per_token * expert) + ends
    assert (total, active) == (41_872_527_360, 6_640_373_760)
    assert (s.params_total, s.params_active) == (total, active)
    assert total / 1e9 == pytest.approx(PAPER_TOTAL_B, rel=0.005)
    assert active / 1e9 == pytest.approx(PAPER_ACTIVE_B, rel=0.01)
    assert total / 1e9 == pytest.approx(s.published_params_b, rel=0.001)


def test_the_doc_section_comes_last_and_says_what_was_checked():
    doc = DOC.read_text()
    assert doc.count(HEADING) == 1
    section = doc[doc.index(HEADING) :]
    assert doc.index("### Tenth batch: results, and the eleventh") < doc.index(HEADING)
    assert doc.index("## Eleventh batch of runs added after the fit") < doc.index(HEADING)
    for fact in ("41.87B", "6.64B", '"42B parameters in total and 6.6B activated parameters"'):
        assert fact in section, fact
    assert "[assumed: the same]" in section and "e229042" in section


def test_no_twelfth_batch_file_is_entered_scored_or_fitted():
    """Nothing was entered: no file, no ADDED_BATCHES entry, no FITTED_BATCHES key, no a12- row in
    any batch file, and no code names a twelfth-batch file."""
    check_no_batch_entered(12)

"""The eighth batch of whole runs added after the fit (models/data/validation/whole_runs_added8.csv;
docs/reference/whole-run-model.md, 'Eighth batch'), entered sealed: every row parses, names a known
preset, GPU and stack class, quotes a source, agrees with its own derivation (GPU-hours from the
published GPUs x days, the batch from the published tokens per batch), repeats no run already fitted,
scored or entered, and was committed after the seventh batch by a commit that touched no scoring
code; the file stays out of the scored and fitted batches until the lead scores it. The leads looked
at and not entered are in skipped_heldout.csv, each with a reason. These checks plan nothing."""

from __future__ import annotations

import csv
import pathlib

import pytest

from models.shapes import load_presets
from tests.builders import (
    check_batch_committed_sealed,
    check_batch_names_known_parts,
    check_batch_scored_never_fitted,
    check_skipped_leads_listed,
    csv_rows,
)

ROOT = pathlib.Path(__file__).resolve().parents[1]
DATA = ROOT / "models" / "data" / "validation"
ADDED8 = DATA / "whole_runs_added8.csv"
#: the report's GPUs ('a total of 512 A800-80G SXM GPUs'), days ('a total of 39 days'), tokens
#: ('3.2 trillion tokens') and tokens per batch (Table 3, '16M', read as 2^24)
PUBLISHED = {"skywork-13b": (512, 39, 3.2e12, 2**24)}
#: the report's Table 3 sizes: untied 65,536 x 4,608 embedding and head + 52 layers x (4 attention
#: matrices of 4,608^2 + 3 SwiGLU matrices of 4,608 x 12,288), norms left out
TABLE3_PARAMS = {"skywork-13b": 2 * 65_536 * 4_608 + 52 * (4 * 4_608**2 + 3 * 4_608 * 12_288)}
DOC = ROOT / "docs" / "reference" / "whole-run-model.md"
HEADING = "## Eighth batch of runs added after the fit (entered sealed"
SKIPPED_MARK = "eighth batch (2026-12-03): "


@pytest.fixture(scope="module")
def rows() -> list[dict]:
    return csv_rows(ADDED8)


def test_the_batch_has_the_earlier_schema_and_its_own_batch_note(rows):
    """The seventh batch's header, one row with every cell present, ids `a8-`, a batch note dated
    the day it was entered, and notes saying the row went in before any error was computed."""
    with (DATA / "whole_runs_added7.csv").open(newline="") as f:
        before = next(csv.reader(f))
    with ADDED8.open(newline="") as f:
        assert next(csv.reader(f)) == before
    assert len(rows) == 1
    for r in rows:
        assert None not in r and all(v is not None for v in r.values()), r["id"]
        assert r["id"].startswith("a8-"), r["id"]
        assert r["batch"].startswith("added8: entered 2026-12-03"), r["id"]
        assert "before any of their errors was computed" in r["notes"], r["id"]


def test_every_row_names_a_preset_gpu_and_stack_and_quotes_a_source(rows):
    # the preset counts its own parameters to the published size too
    check_batch_names_known_parts(rows, first_year=2019, count_own=True)


def test_the_preset_sizes_are_the_reports_table(rows):
    presets = load_presets()
    for r in rows:
        s = presets[r["model"]]
        assert s.gated_mlp and not s.tied_embeddings and s.kv_heads == s.heads, r["id"]
        assert s.experts == 1, r["id"]  # dense
        count = 2 * s.vocab * s.hidden + s.layers * (4 * s.hidden**2 + 3 * s.hidden * s.ffn_hidden)
        assert count == TABLE3_PARAMS[r["model"]], r["id"]
        assert count / 1e9 == pytest.approx(float(r["params_total_b"]), rel=1e-3), r["id"]


def test_gpu_hours_tokens_and_batch_follow_from_the_published_figures(rows):
    """GPU-hours = the published GPUs x days x 24; tokens as published; sequences per batch x
    sequence length = the published tokens per batch."""
    assert {r["model"] for r in rows} == set(PUBLISHED)
    for r in rows:
        gpus, days, tokens, per_batch = PUBLISHED[r["model"]]
        assert r["basis"] == "gpus_x_days" and r["gpu_count_published"] == "1", r["id"]
        assert int(r["gpus"]) == gpus and float(r["wall_days"]) == days, r["id"]
        assert float(r["published_gpu_hours"]) == gpus * days * 24, r["id"]
        assert float(r["tokens"]) == tokens, r["id"]
        assert int(r["global_batch_seqs"]) * int(r["seq_len"]) == per_batch, r["id"]
        assert f"a total of {gpus} A800-80G SXM GPUs" in r["source"], r["id"]
        assert f"spanned a total of {days} days" in r["source"], r["id"]


def test_the_run_spans_nodes_and_its_assumptions_are_marked(rows):
    """The batch's point: runs on more than one node (the four never-fitted runs before it are single
    8-GPU nodes). The figures read into the source are marked as assumed."""
    for r in rows:
        assert int(r["gpus"]) > 8, r["id"]
        assert r["notes"].count("[assumed") >= 4, r["id"]  # stages in the days, batch, RoCE, tying
        assert "per node" in r["notes"] and r["scaleout_gbit_per_s_per_gpu"] == "100", r["id"]
        assert "seen and are not used" in r["notes"], r["id"]  # the printed throughput and MFU
        assert (r["tp"], r["pp"], r["zero"]) == ("1", "2", "1"), r["id"]  # 'DP256, PP2, and ZeRO-1'


def test_no_run_repeats_one_already_fitted_scored_or_entered(rows):
    seen = set()
    for path in sorted(DATA.glob("whole_runs*.csv")) + [DATA / "runs.csv"]:
        if path != ADDED8:
            seen |= {r["model"] for r in csv_rows(path) if "model" in r}
    assert not {r["model"] for r in rows} & seen
    assert len({r["id"] for r in rows}) == len({r["model"] for r in rows}) == len(rows)


def test_the_leads_not_entered_say_why_and_the_doc_lists_them():
    check_skipped_leads_listed(
        "eighth batch",
        SKIPPED_MARK,
        12,
        HEADING,
        ("dots.llm1", "Trinity Mini", "DeepSeek-V2-Lite", "Moonlight", "Orion-14B", "Ling"),
    )


def test_the_batch_is_scored_but_never_fitted():
    """Unsealed by the lead for its one scoring: scored by `clusterplan validate`, never fitted."""
    check_batch_scored_never_fitted(ADDED8)


def test_the_batch_was_committed_after_the_seventh_batch_without_scoring_code():
    check_batch_committed_sealed(
        "models/data/validation/whole_runs_added7.csv",
        "models/data/validation/whole_runs_added8.csv",
        HEADING,
    )


def test_its_one_score():
    """Scored once under C9 (2026-12-03, whole-run-model.md 'Eighth and ninth batches: results'):
    Skywork-13B on 512 A800, steady state +19.5 %, whole run +67.3 % (pessimistic), outside its
    band: the first never-fitted multi-node run misses, and it is kept as it scored."""
    from models.validation import whole_run as W

    scores = W.added_scores(ADDED8)
    (err,) = scores["whole_run"]["errors"]
    assert err == pytest.approx(0.673, abs=0.001)
    assert scores["whole_run"]["band_coverage"] == 0.0

"""The eleventh batch of whole runs added after the fit (docs/reference/whole-run-model.md, 'Eleventh
batch'): no run met every rule, so no run is entered. What the batch leaves is its search record: the
leads looked at, each appended to skipped_heldout.csv with the source read and the reason, and a doc
section naming them. These checks keep that record honest and keep the batch sealed: no eleventh-batch
file exists, and nothing of it is wired into the scored or fitted batches. They plan nothing."""

from __future__ import annotations

import pathlib

from tests.builders import check_no_batch_entered, csv_rows

ROOT = pathlib.Path(__file__).resolve().parents[1]
DATA = ROOT / "models" / "data" / "validation"
DOC = ROOT / "docs" / "reference" / "whole-run-model.md"
HEADING = "## Eleventh batch of runs added after the fit (entered sealed"
MARK = "eleventh batch (2026-12-03): "
SKIPPED_LEADS = 11
#: the leads the brief named first, each of which must have its own row (the search record is complete)
BRIEF_LEADS = (
    "DeepSeek LLM 7B",
    "OLMo 2 1B",
    "DataDecide",
    "Gemstones",
    "TinyLlama v1.1",
    "Muennighoff",
)


def _skipped() -> list[dict]:
    return [s for s in csv_rows(DATA / "skipped_heldout.csv") if "eleventh batch" in s["reason"]]


def test_the_leads_not_entered_say_where_they_were_read_and_why():
    skipped = _skipped()
    assert len(skipped) == SKIPPED_LEADS
    for s in skipped:
        assert s["reason"].startswith(MARK), s["run"]
        assert s["run"].strip() and s["source"].strip(), s["run"]
        # a reason, not just the mark; and a date or commit for what was read
        assert len(s["reason"]) > len(MARK) + 40, s["run"]
        assert "2026-12-03" in s["source"] or "snapshot" in s["source"], s["run"]
    runs = " ".join(s["run"] for s in skipped)
    for lead in BRIEF_LEADS:
        assert lead in runs, lead


def test_a_lead_checked_again_names_its_new_source_or_says_the_earlier_row_stands():
    """The brief's rule: a run already skipped is re-entered only with a new source, said as such."""
    earlier = [
        s for s in csv_rows(DATA / "skipped_heldout.csv") if "eleventh batch" not in s["reason"]
    ]
    for lead in ("Apertus", "OpenCoder", "Gemstones", "OLMo 2", "LLM-jp"):
        assert any(lead in s["run"] for s in earlier), lead
        (row,) = [s for s in _skipped() if lead in s["run"]]
        assert "new source" in row["reason"] or "earlier row" in row["reason"], lead


def test_the_doc_section_comes_last_and_names_the_leads():
    doc = DOC.read_text()
    assert doc.count(HEADING) == 1
    section = doc[doc.index(HEADING) :]
    # appended after the ninth batch's section and its results, so a parallel batch merges cleanly
    assert doc.index("## Ninth batch of runs added after the fit") < doc.index(HEADING)
    assert doc.index("### Eighth and ninth batches: results") < doc.index(HEADING)
    assert f"{SKIPPED_LEADS} rows appended to `skipped_heldout.csv`" in section
    assert "no run is entered" in section
    for lead in (
        "Du et al. 2024",
        "Apertus",
        "DeepSeek LLM 7B",
        "GatorTronGPT",
        "DataDecide",
        "OpenCoder",
    ):
        assert lead in section, lead
    assert "What the author had seen" in section


def test_no_eleventh_batch_file_is_entered_scored_or_fitted():
    """Nothing was entered: no file, no ADDED_BATCHES entry, no FITTED_BATCHES key, no seen row."""
    check_no_batch_entered(11)

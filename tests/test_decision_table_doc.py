"""docs/compare.md quotes the decision table (which option wins a steady workload by size, use and
term); the quote is the command's own output today (`bench/decision_table.py --markdown`). It had
gone stale after two changes of the bundled figures, which no documented-block check covered."""

from __future__ import annotations

import pathlib

from bench import decision_table

DOC = pathlib.Path(__file__).resolve().parents[1] / "docs" / "compare.md"


def test_the_documented_decision_table_is_the_commands_output(capsys):
    assert decision_table.main(["--markdown"]) == 0
    tables = capsys.readouterr().out.strip()
    assert tables.count("| GPUs |") == 4
    assert tables in DOC.read_text(), "docs/compare.md: rerun bench/decision_table.py --markdown"

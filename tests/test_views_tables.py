"""Tables with more columns than a 1,280 px window shows keep their key columns pinned at the
left (issue 32): every table of the Validation page its first column (the row's name), and the
portfolio's workloads table its kind, name, team and model. tests/test_e2e_widths.py checks in a
browser that the other pages' tables fit without scrolling sideways."""

from __future__ import annotations

import json

from app.views.portfolio import COLUMNS, KEY_COLUMNS
from tests.builders import app, sample


def pinned(frame) -> list[str]:
    """The names of a shown table's pinned columns, in the order of its data."""
    config = json.loads(frame.proto.columns or "{}")
    return [c for c in config if config[c].get("pinned")]


def test_every_validation_table_pins_its_first_column():
    at = app("validation")
    tables = list(at.dataframe)
    assert len(tables) >= 15
    for t in tables:
        first = str(t.value.columns[0])
        assert first in pinned(t), (first, list(t.value.columns)[:4])


def test_the_workloads_table_pins_its_key_columns():
    at = app("workload", scenario=sample("enterprise"))
    editor = next(e for e in at.dataframe if "kind" in e.value.columns)
    config = json.loads(editor.proto.columns)
    assert [k for k in KEY_COLUMNS if config.get(k, {}).get("pinned")] == list(KEY_COLUMNS), {
        k: config.get(k) for k in KEY_COLUMNS
    }
    assert [COLUMNS[k][0] for k in KEY_COLUMNS] == ["Kind", "Name", "Team", "Model"]

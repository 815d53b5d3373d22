"""One path for both kinds of scenario (a single training run, a portfolio): the engine and every
presenter pick what differs from a table keyed by `Scenario.kind` (app/kinds.py, the per-module
`*_OF` tables) and never ask which kind they have. Only the editors may: the Workload page and
the session state keep one scenario of each kind to switch between."""

from __future__ import annotations

import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
#: what asking the kind looks like: the version flag, a missing portfolio, a kind compared
ASKS = re.compile(
    r"is_portfolio|\.portfolio is (?:not )?None|\.kind\s*[!=]=\s*[\"'](?:run|portfolio)"
)
#: the editors: which kind is in force decides which editor shows, and each kind's draft is kept
EDITORS = {"app/state.py", "app/views/workload.py"}
PRESENTERS = sorted(
    str(p.relative_to(ROOT))
    for p in (ROOT / "app").rglob("*.py")
    if str(p.relative_to(ROOT)) not in EDITORS
) + ["pricing/engine.py", "pricing/valuation.py"]


def asks_the_kind(text: str) -> list[str]:
    """The lines of `text` that ask which kind of scenario they have (comments left out)."""
    return [line.strip() for line in text.splitlines() if ASKS.search(line.split("#", 1)[0])]


def test_the_pattern_finds_each_way_of_asking():
    asked = [
        "if c.portfolio is not None:",
        "x = a if sc.is_portfolio else b",
        "if inp.portfolio is None: return",
        'one_run = c.scenario.kind == "run"',
    ]
    assert asks_the_kind("\n".join(asked)) == asked
    assert not asks_the_kind("head = _HEAD_OF[c.scenario.kind](c)  # not portfolio is None")


@pytest.mark.parametrize("path", PRESENTERS)
def test_no_presenter_asks_which_kind_of_scenario_it_has(path):
    assert asks_the_kind((ROOT / path).read_text()) == []

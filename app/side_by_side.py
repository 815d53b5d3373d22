"""Side by side, presented: the one table the portal, the PDF and `clusterplan compare A B [C]`
show, the terminal report, and the JSON list of comparisons. Every cell is read from
pricing/side_by_side.py `SideBySide` (itself each scenario's own Comparison's fields); nothing is
recomputed. No Streamlit or plotly here: the CLI imports this module.
"""

from __future__ import annotations

import json
import pathlib
from collections.abc import Sequence

from app.exports import comparison_data
from app.formatting import days, on_day, usd, usd_rate
from models.scenario_set import MAX_NAME_CHARS
from pricing.results import Comparison
from pricing.side_by_side import SideBySide, SideOption, SideScenario

HEADER = [
    "Scenario",
    "Option",
    "Total (nominal)",
    "NPV",
    "Ready",
    "Training days",
    "$ per delivered GPU-hour",
]


def portfolio_words(s: SideScenario) -> str:
    """'portfolio of 3 workloads': what a portfolio's row says in place of one run's days."""
    return f"portfolio of {s.workloads:,} workload{'' if s.workloads == 1 else 's'}"


def _cells(s: SideScenario, o: SideOption) -> list[str]:
    if not o.available:
        return ["not available"] + ["-"] * 4
    return [
        usd(o.total_usd),
        usd(o.npv_usd),
        on_day(o.ready_day),
        _DAYS_CELL_OF[s.kind](s, o),
        usd_rate(o.usd_per_gpu_hour),
    ]


def days_note(sbs: SideBySide) -> str:
    """What the training-days column means, and why a portfolio's row has none."""
    kinds = dict.fromkeys(s.kind for s in sbs.scenarios)  # each kind shown, in order
    return "training days: one run on that option" + "".join(_DAYS_NOTE_OF[k] for k in kinds)


def table_rows(sbs: SideBySide, grouped: bool = False) -> list[list[str]]:
    """HEADER, then one row per scenario and option (scenarios in order, each one's options in its
    comparison's order); the option a scenario's own comparison recommends is marked
    '(recommended)'. `grouped`: a scenario's name only on its first row (printed tables)."""
    rows = [list(HEADER)]
    for s in sbs.scenarios:
        for i, o in enumerate(s.options):
            mark = " (recommended)" if o.option == s.recommended else ""
            name = s.name if i == 0 or not grouped else ""
            rows.append([name, o.label + mark, *_cells(s, o)])
    return rows


def _text_table(rows: list[list[str]]) -> list[str]:
    """Aligned columns: the scenario and the option left, the figures right."""
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return [
        "  "
        + "  ".join(
            cell.ljust(w) if i < 2 else cell.rjust(w)
            for i, (cell, w) in enumerate(zip(row, widths, strict=True))
        ).rstrip()
        for row in rows
    ]


def scenario_line(s: SideScenario) -> str:
    """What one named scenario plans (one training run, or a portfolio of workloads), and what its
    own comparison recommends."""
    rec = s.recommended_label or "none (no option completes the workload)"
    plans = _PLANS_OF[s.kind](s)
    return f"{s.name}: {plans}, {s.term_months}-month term; recommended: {rec}"


def _portfolio_plans(s: SideScenario) -> str:
    teams = f"{s.teams:,} team{'' if s.teams == 1 else 's'}"
    return f"{portfolio_words(s)} ({teams}) on {s.gpu}, peak {s.peak_gpus or 0:,} GPUs demanded"


#: for each kind of scenario (models/scenario.py `Scenario.kind`): its row's training-days cell,
#: what the column's note adds for it, and what it plans in `scenario_line`
_DAYS_CELL_OF = {
    "run": lambda s, o: days(o.train_days),
    "portfolio": lambda s, o: portfolio_words(s),
}
_DAYS_NOTE_OF = {
    "run": "",
    "portfolio": (
        "; a portfolio has no one run (its work is many runs of several workloads): its "
        "row says so, and its Compare page gives each workload's delays"
    ),
}
_PLANS_OF = {
    "run": lambda s: f"one training run of {s.model} on {s.gpus:,} × {s.gpu}",
    "portfolio": _portfolio_plans,
}


def report(sbs: SideBySide) -> str:
    """The terminal report of `clusterplan compare A.json B.json [C.json]`."""
    lines = [f"Side by side: {len(sbs.scenarios)} scenarios", ""]
    lines += [f"  {scenario_line(s)}" for s in sbs.scenarios]
    lines += [""] + _text_table(table_rows(sbs, grouped=True))
    lines += [
        "",
        "Totals and NPV over each scenario's term (USD); ready: the day the cluster is ready, "
        f"counted from the decision; {days_note(sbs)}.",
    ]
    return "\n".join(lines)


def comparisons_json(comparisons: Sequence[Comparison]) -> str:
    """A JSON list of the whole comparisons, in the order given; as `clusterplan compare --json`
    prints one (numbers that are not finite written as null)."""
    return json.dumps([comparison_data(c) for c in comparisons], indent=2, allow_nan=False)


def _clean(text: str, limit: int = MAX_NAME_CHARS) -> str:
    """A printable one-line name of at most `limit` characters (kept from its end: a path's file)."""
    text = " ".join("".join(ch if ch.isprintable() else " " for ch in text).split()) or "scenario"
    return text if len(text) <= limit else "…" + text[-(limit - 1) :]


def file_names(paths: Sequence[str]) -> list[str]:
    """Scenario names for files: each file's stem ('-': 'standard input'); the path as given when
    two stems are the same, and ' (2)', ' (3)' after a name given twice. Printable and at most
    MAX_NAME_CHARS characters, so every name passes models/scenario_set.py check_name."""
    stems = ["standard input" if p == "-" else pathlib.Path(p).stem or p for p in paths]
    if len(set(stems)) != len(stems):
        stems = ["standard input" if p == "-" else p for p in paths]
    names: list[str] = []
    for stem in stems:
        name, k = _clean(stem), 2
        while name in names:
            name, k = _clean(stem, MAX_NAME_CHARS - 4) + f" ({k})", k + 1
        names.append(name)
    return names

"""What the portal, the reports and the exports say differently of each kind of scenario
(models/scenario.py `Scenario.kind`: "run", one training run, version 1; "portfolio", workloads
over time, version 2). Every presenter reads the record of its scenario's kind here, or its own
table keyed by the kind (the CSV writer, the text report's head and sections, the PDF's sections,
the Compare page's body, the guide's answers), and never asks which kind it has: a new kind is a
record here and an entry in those tables."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from app.formatting import si
from models.scenario import Scenario
from models.shapes import load_presets
from pricing.results import Comparison


def teams(sc: Scenario) -> int:
    """How many teams a portfolio's workloads belong to."""
    return len({w.team for w in sc.workloads})


def _run_summary(sc: Scenario) -> str:
    w, c = sc.workload, sc.cluster
    preset = load_presets().get(w.model) if w.model else None
    model = preset.name if preset else (w.model or f"custom {si(w.params or 0)} parameters")
    size = (
        f"{c.gpus:,} GPUs"
        if c.gpus
        else (f"deadline {c.deadline_days:g} days" if c.deadline_days else "the efficient size")
    )
    return f"{model} · {si(w.tokens)} tokens · {c.gpu} · {size} · {sc.term.months} months"


def _portfolio_summary(sc: Scenario) -> str:
    c = sc.cluster
    size = f"{c.gpus:,} GPUs" if c.gpus else "sized to the demand"
    return (
        f"Portfolio: {len(sc.workloads)} workloads of {teams(sc)} team(s) · {c.gpu} · {size} · "
        f"{sc.term.months} months"
    )


@dataclass(frozen=True)
class KindWords:
    #: the scenario table's row naming the work, and the row saying how much of it there is
    work_row: str
    usage_row: str
    #: the provisioning table's column of a run's length
    run_column: str
    #: the report's default title
    title: Callable[[Comparison], str]
    #: the name a scenario is offered to be saved under on Side by side
    save_name: Callable[[Scenario], str]
    #: the scenario in one line (the sidebar's)
    summary: Callable[[Scenario], str]


WORDS: dict[str, KindWords] = {
    "run": KindWords(
        work_row="Workload",
        usage_row="Usage",
        run_column="One run",
        title=lambda c: f"{c.training.model} on {c.training.gpus:,} × {c.training.gpu}",
        save_name=lambda sc: f"{sc.cluster.gpu}, {sc.term.months} months",
        summary=_run_summary,
    ),
    "portfolio": KindWords(
        work_row="Workloads",
        usage_row="Demand",
        run_column="Longest run",
        title=lambda c: (
            f"Portfolio of {len(c.scenario.workloads)} workloads on {c.scenario.cluster.gpu}"
        ),
        save_name=lambda sc: (
            f"Portfolio, {len(sc.workloads)} workloads, {sc.cluster.gpu}, {sc.term.months} months"
        ),
        summary=_portfolio_summary,
    ),
}


def words(sc: Scenario) -> KindWords:
    return WORDS[sc.kind]

"""Two or three named scenarios side by side (e.g. the same job on H100 vs B200, a 1-year vs a
3-year commitment): per scenario and option the totals, NPV, ready day, training days, cost per
delivered GPU-hour and the cumulative cost curve. A portfolio (scenario version 2) is marked as one
(`SideScenario.is_portfolio`, its workloads, teams and peak GPUs), so that no presentation shows it
as "one training run" of its representative workload beside a scenario that is one run.

Every figure is copied from that scenario's own `Comparison` (pricing/engine.py `compare`, the one
scenario -> comparison function every entry point calls); nothing here is recomputed. The portal,
the PDF, the share link and `clusterplan compare A.json B.json` read this one result.

The saved, named scenarios are models/scenario_set.py `ScenarioSet`; `side_by_side` builds the
result from comparisons already made, `compare_named` makes them with `compare`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from models.record import Record
from models.scenario import Scenario
from models.scenario_set import check_count, check_name, check_unique
from pricing.results import Comparison

if TYPE_CHECKING:
    from pricing.catalogue.loader import Catalogue

# ---------------------------------------------------------------------------------- the result


class SideOption(Record):
    """One option of one scenario, as its Comparison's OptionResult gives it."""

    option: str
    label: str
    available: bool
    completes_workload: bool
    total_usd: float
    npv_usd: float
    #: day the option's cluster is ready (days from the decision, day 0)
    ready_day: float
    #: wall-clock days of one training run on this option; for a portfolio, its representative
    #: run's (the comparison's own field), which is not the portfolio's work: see
    #: SideScenario.is_portfolio
    train_days: float
    first_result_day: float | None
    usd_per_gpu_hour: float | None
    #: nominal USD at the end of each month of the term
    cumulative_usd: list[float]


class SideScenario(Record):
    """One named scenario: what it plans and each of its options' figures."""

    name: str
    #: the training run's model and GPUs; a portfolio's representative run's
    model: str
    gpu: str
    gpus: int
    term_months: int
    #: a portfolio (scenario version 2): many runs of several workloads, not one training run
    is_portfolio: bool = False
    #: the workloads it plans (1: a single training run) and the teams they are charged to
    workloads: int = 1
    teams: int = 1
    #: a portfolio's largest monthly peak of GPUs demanded (unconstrained); None for one run
    peak_gpus: int | None = None
    #: the option the scenario's own comparison recommends (None: none completes)
    recommended: str | None
    recommended_label: str | None
    options: list[SideOption]

    @property
    def kind(self) -> str:
        """The scenario's kind (models/scenario.py `Scenario.kind`)."""
        return "portfolio" if self.is_portfolio else "run"


class SideBySide(Record):
    """2-3 named scenarios, in the order given."""

    scenarios: list[SideScenario]


def _option(o) -> SideOption:
    return SideOption(
        option=o.option,
        label=o.label,
        available=o.available,
        completes_workload=o.completes_workload,
        total_usd=o.total_usd,
        npv_usd=o.npv_usd,
        ready_day=o.ready_day,
        train_days=o.train_days,
        first_result_day=o.first_result_day,
        usd_per_gpu_hour=o.usd_per_gpu_hour,
        cumulative_usd=list(o.cumulative_usd),
    )


def side_by_side(named: Sequence[tuple[str, Comparison]]) -> SideBySide:
    """The side-by-side result of 2-3 (name, comparison) pairs, in that order; every figure is
    the comparison's own field. InputError (field `scenarios`) for another count or a repeated
    name."""
    check_count(len(named))
    names = [check_name(n, f"scenarios[{i}].name") for i, (n, _) in enumerate(named)]
    check_unique(names)
    out = []
    for name, c in zip(names, (c for _, c in named), strict=True):
        t, rec, p = c.training, c.recommendation, c.portfolio
        workloads = c.scenario.workloads if p is not None else []
        out.append(
            SideScenario(
                name=name,
                model=t.model,
                gpu=t.gpu,
                gpus=t.gpus,
                term_months=c.scenario.term.months,
                is_portfolio=p is not None,
                workloads=len(workloads) if p is not None else 1,
                teams=len({w.team for w in workloads}) if p is not None else 1,
                peak_gpus=round(max(p.peak_gpus, default=0)) if p is not None else None,
                recommended=rec.option,
                recommended_label=rec.label,
                options=[_option(o) for o in c.options],
            )
        )
    return SideBySide(scenarios=out)


def compare_named(
    named: Sequence[tuple[str, Scenario]], catalogue: Catalogue | None = None
) -> tuple[SideBySide, list[Comparison]]:
    """`compare` each scenario (pricing/engine.py), then `side_by_side`; the comparisons too, in
    the same order. The count and names are checked before any comparison is made."""
    from pricing.engine import compare  # the engine imports the catalogue: only when comparing

    check_count(len(named))
    check_unique([check_name(n, f"scenarios[{i}].name") for i, (n, _) in enumerate(named)])
    comparisons = [compare(sc, catalogue) for _, sc in named]
    return side_by_side([(n, c) for (n, _), c in zip(named, comparisons, strict=True)]), comparisons

"""Two or three named scenarios side by side (e.g. the same job on H100 vs B200, a 1-year vs a
3-year commitment): per scenario and option the totals, NPV, ready day, training days, cost per
delivered GPU-hour and the cumulative cost curve.

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
    from pricing.catalogue import Catalogue

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
    #: wall-clock days of one training run on this option
    train_days: float
    first_result_day: float | None
    usd_per_gpu_hour: float | None
    #: nominal USD at the end of each month of the term
    cumulative_usd: list[float]


class SideScenario(Record):
    """One named scenario: what it plans and each of its options' figures."""

    name: str
    model: str
    gpu: str
    gpus: int
    term_months: int
    #: the option the scenario's own comparison recommends (None: none completes)
    recommended: str | None
    recommended_label: str | None
    options: list[SideOption]


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
        t, rec = c.training, c.recommendation
        out.append(
            SideScenario(
                name=name,
                model=t.model,
                gpu=t.gpu,
                gpus=t.gpus,
                term_months=c.scenario.term.months,
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

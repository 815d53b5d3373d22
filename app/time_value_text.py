"""The value of time as Compare, the PDF and the text report show it (pricing/time_value.py): one
table, its own "value of time" adjustment beside each option's NPV, read from
`OptionResult.value_of_time` and never recomputed. It is not a cash line: the cash flows, totals,
CSV and chargeback never include it. Without a value per day there is no table."""

from __future__ import annotations

from models.numbers import days, usd
from pricing.results import Comparison

HEADING = (
    "Value of time: the buyer's value per day of earlier results, added to each option's NPV in "
    "the ranking only (not a cash flow, in no total)"
)
HEADER = ["option", "NPV (cash)", "value of time", "in the ranking", "later by"]


def _portfolio_basis(c: Comparison) -> str:
    parts = [
        f"{w.name} {usd(w.value_usd_per_day_earlier)}/day"
        for w in c.scenario.workloads or []
        if w.value_usd_per_day_earlier is not None
    ]
    return (
        "Per workload, a day less of its mean wait (runs' start less release, go-live included), "
        "against the completing option where it waits least: " + ", ".join(parts)
    )


def _run_basis(c: Comparison) -> str:
    usage = c.scenario.usage
    earliest = next((o.value_of_time.earliest_label for o in c.options if o.value_of_time), "")
    return (
        f"Per training run, {usd(usage.value_usd_per_day_earlier)} a day: each of "
        f"{usage.runs:g} runs' result against the earliest first result ({earliest})"
    )


#: what was valued, in words, for each kind of scenario (models/scenario.py `Scenario.kind`)
_BASIS_OF = {"run": _run_basis, "portfolio": _portfolio_basis}


def basis(c: Comparison) -> str:
    """What was valued, in a line: the runs' value per day, or each valued workload's."""
    return _BASIS_OF[c.scenario.kind](c)


def time_value_rows(c: Comparison) -> list[list[str]]:
    """The header and one row per ranked option (none without a value of time)."""
    ranked = [o for o in c.options if o.value_of_time is not None]
    if not ranked:
        return []
    return [HEADER] + [
        [
            o.label,
            usd(o.npv_usd),
            usd(o.value_of_time.value_usd),
            usd(o.value_of_time.ranked_npv_usd),
            days(o.value_of_time.delay_days),
        ]
        for o in ranked
    ]


def workload_lines(c: Comparison) -> list[str]:
    """A portfolio's valued workloads per option: 'Build: train 12 days later ($1.2M)'."""
    out = []
    for o in c.options:
        tv = o.value_of_time
        if tv is None or not tv.workloads:
            continue
        parts = [f"{w.name} {days(w.delay_days)} later ({usd(w.value_usd)})" for w in tv.workloads]
        out.append(f"{o.label}: " + "; ".join(parts))
    return out


def time_value_lines(c: Comparison) -> list[str]:
    """The text report's section (empty without a value of time)."""
    rows = time_value_rows(c)
    if not rows:
        return []
    widths = [max(len(r[i]) for r in rows) for i in range(len(HEADER))]
    table = [
        "  "
        + "  ".join(
            cell.ljust(w) if i == 0 else cell.rjust(w)
            for i, (cell, w) in enumerate(zip(r, widths, strict=True))
        )
        for r in rows
    ]
    notes = [f"  {line}" for line in [basis(c), *workload_lines(c)]]
    return ["", f"{HEADING}:", *table, *notes]

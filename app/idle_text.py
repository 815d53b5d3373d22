"""The words for a fixed-size option held mostly idle by a rare, large run (Comparison.idle_gang,
pricing/idle_capacity.py): one sentence per option, read from the engine's fields, for Compare,
the PDF and the text report alike."""

from __future__ import annotations

from models.numbers import days, gpus, pct, usd
from pricing.idle_capacity import IDLE_SHARE_MIN
from pricing.results import Comparison, IdleGangNote

#: the heading above the lines (text report, Compare, PDF)
IDLE_HEADING = "Held mostly idle by a rare run at the efficient size"
_BOUND = {
    "spacing": "the {d} between its runs (a run ends before the next is released)",
    "term": "the {d} from its last release to the term's end (the last run ends in the term)",
}


def _rate(n: IdleGangNote) -> str:
    every = 1 / n.runs_per_month
    return (
        f"one run every {every:.3g} months" if every > 1 else f"{n.runs_per_month:g} runs a month"
    )


def idle_gang_line(n: IdleGangNote) -> str:
    """'Build holds 2,048 GPUs and leaves 98 % of their GPU-hours idle ...' with the remedy."""
    head = (
        f"{n.label} holds {gpus(n.size_gpus)} and leaves {pct(n.idle_share)} of the GPU-hours it "
        f"holds idle (over {pct(IDLE_SHARE_MIN)}): {n.workload} ({_rate(n)}) needs "
        f"{gpus(n.run_gpus)} at once for {days(n.run_days)} a run, the efficient size the planner "
        f"chose because the workload gives no GPU count."
    )
    bound = _BOUND[n.longest_by].format(d=days(n.longest_run_days))
    if n.smaller_gpus is None or n.smaller_total_usd is None:
        return (
            f"{head} No smaller count runs it within {bound}; a GPU count ({n.field}), a hybrid or "
            "cloud for this work may cost less."
        )
    service = {
        True: ", every workload within its maximum wait",
        False: ", though a workload then waits longer than its maximum wait",
        None: "",
    }[n.smaller_meets_service_level]
    return (
        f"{head} Give it a GPU count ({n.field}): on {gpus(n.smaller_gpus)} a run takes "
        f"{days(n.smaller_run_days)}, within {bound}, and {n.label} then holds "
        f"{gpus(n.smaller_size_gpus or 0)} for {usd(n.smaller_total_usd)} "
        f"(NPV {usd(n.smaller_npv_usd)}, against {usd(n.npv_usd)}), "
        f"{pct(n.smaller_idle_share)} idle{service}."
    )


def idle_gang_lines(c: Comparison) -> list[str]:
    """One line per note, in the options' order (none where no option is so held)."""
    return [idle_gang_line(n) for n in c.idle_gang]

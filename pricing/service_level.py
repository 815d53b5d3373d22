"""The service level in the recommendation (issue 30): of the options that complete the work, only
those whose plans meet every workload's `max_wait_days` are ranked (as only those meeting a
deadline are, pricing/decision.py `recommend`); when none does, all are ranked and the answer
says so first, naming the one that comes closest (the least excess wait in all)."""

from __future__ import annotations

from pricing.results import OptionNpv, OptionResult


def meets(r: OptionResult) -> bool:
    """Whether an option meets its service level (a version 1 result, without one, does)."""
    return r.service_level is None or r.service_level.met


def service_facts(completing: list[OptionResult]) -> tuple[list[OptionResult], dict]:
    """(the options to rank, the Recommendation's service-level facts) of the completing ones."""
    if all(r.service_level is None for r in completing):
        return completing, {}
    served = [r for r in completing if meets(r)]
    if not served:  # none meets it: rank them all, and say which comes closest
        closest = min(completing, key=lambda r: (r.service_level.excess_days, r.npv_usd))
        return completing, dict(
            meets_service_level=False,
            closest_service=_npv(closest),
            closest_service_level=closest.service_level,
        )
    cheapest = min(r.npv_usd for r in served)
    slow = sorted((r for r in completing if not meets(r)), key=lambda r: r.npv_usd)
    return served, dict(
        meets_service_level=True,
        cheaper_but_slow=[_npv(r) for r in slow if r.npv_usd < cheapest],
    )


def _npv(r: OptionResult) -> OptionNpv:
    return OptionNpv(option=r.option, label=r.label, npv_usd=r.npv_usd)

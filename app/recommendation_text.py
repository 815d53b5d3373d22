"""The recommendation in words: one place writes what pricing/decision.py `recommend` decided
(the Compare page, the text report, the PDF, the JSON export and the CLI all read it from here).
The core returns facts (who wins, by how much, how sure, who misses the deadline and by how many
days); this module only words them."""

from __future__ import annotations

from app.formatting import sentence
from models.numbers import day_count, days, on_day, pct, usd, usd_rate
from pricing.results import DeadlineMiss, DemandShape, OptionNpv, Recommendation, WorkloadWait

#: how each way of billing meets a peaky demand (DemandShape.billing)
SHAPE_REASON = {
    "per_use": "paying only for the GPU-hours used is cheapest",
    "hybrid": "owning the base and bursting the peaks is cheapest",
    "fixed": "holding a cluster sized for the demand is cheapest",
}


#: the most workloads named as waiting past their service level
WAIT_MISSES_NAMED = 3


def recommendation_text(rec: Recommendation) -> str:
    """The answer in a paragraph: the cheapest option and its NPV against the next, how sure
    (the share of the draws, or a close call), when it is ready and who delivers first, the
    deadline, the demand's shape and the workloads that wait longer."""
    if rec.option is None:
        if rec.none_reason == "unavailable":
            notes = "; ".join(rec.unavailable_notes)
            return "No compared option is available" + (f" ({notes})" if notes else "")
        return "No option completes the workload within the term"
    ready = _ready(rec)
    if rec.ranked_per is not None:  # bridging off: the options deliver different work
        return f"{_per_unit(rec)}; {ready}"
    npv = f"NPV {usd(rec.npv_usd)}"
    among = ""
    if rec.chosen_on_time:
        among = f" of the options that deliver by the {rec.deadline_days:g}-day deadline"
    lowest = (
        f"{rec.label} has the lowest cost over {rec.months} months{among} "
        f"({npv}{_below(rec, rec.runner_up)}"
        if rec.ranked_npv_usd is None
        else f"{_ranked_first(rec, among)} ({npv}{_with_time(rec)}"
    )
    if rec.closest_late is not None:  # no option meets the deadline: the caveat comes first
        closest = rec.closest_late
        lowest = (
            f"No option delivers by the {rec.deadline_days:g}-day deadline ({closest.label} comes "
            f"closest: it {_delivers(closest, rec.deadline_days)}). " + lowest
        )
    if rec.closest_service is not None:  # no option meets the service level: said first
        lowest = f"{no_service_text(rec)}. {lowest}"
    if rec.probability_cheapest is None:
        return f"{lowest}); {ready}"
    n = f"{rec.draws:,} draws"
    p = rec.probability_cheapest
    if not rec.close_call:
        first = "first" if rec.ranked_npv_usd is not None else "cheapest"
        return f"{lowest}; {first} in {pct(p)} of {n}); {ready}"
    other = rec.contender
    why = (
        f"Too close to call between {rec.label} and {other.label}: {rec.label} is cheapest "
        f"in {pct(p)} of {n}, {other.label} in {pct(rec.contender_probability_cheapest)}"
    )
    if rec.gap_within_spread:
        gap = "the NPV gap"
        if other.npv_usd > 0:
            gap += f" ({pct(1 - rec.npv_usd / other.npv_usd)})"
            spread_text = f" (±{pct(rec.gap_spread_usd / other.npv_usd)})"
        else:
            spread_text = ""
        why += f", and {gap} is within the spread of that gap over the draws{spread_text}"
    if rec.ranked_npv_usd is not None:
        lead = f"{_ranked_first(rec, among)} ({npv}{_with_time(rec)})"
        return f"{why}. On the base figures {lead}; {ready}"
    return why + (
        f". On the base figures {rec.label} costs least over {rec.months} months{among} "
        f"({npv}{_below(rec, other)}); " + ready
    )


def _ready(rec: Recommendation) -> str:
    """When it is ready, who gives the first result sooner, the cheaper options that miss the
    deadline or the service level, the demand's shape and the workloads that wait longer: the
    lines of `_ready_lines` in one run of text."""
    return ". ".join(_ready_lines(rec))


def _ready_lines(rec: Recommendation) -> list[str]:
    """`_ready`'s parts, one a line (the first lower-case, as it follows a semicolon): when it is
    ready, who gives the first result sooner (only when it is sooner as shown: "day 1 vs 1" says
    nothing), the cheaper options that miss the deadline or keep work waiting, the demand's shape
    and the workloads that wait longer."""
    ready = f"it is ready on {on_day(rec.ready_day)}"
    lines = [ready]
    f_day, b_day = rec.fastest_first_result_day, rec.first_result_day
    if (
        rec.fastest_option != rec.option
        and f_day is not None
        and (b_day is None or on_day(f_day) != on_day(b_day))
    ):
        vs = f" vs {on_day(b_day)}" if b_day is not None else f"; {rec.label} finishes no run"
        lines.append(f"{rec.fastest_label} gives the first result soonest ({on_day(f_day)}{vs})")
    if rec.cheaper_but_late:
        lines.append(
            "; ".join(
                f"{r.label} is cheaper but {_delivers(r, rec.deadline_days)}"
                for r in rec.cheaper_but_late
            )
        )
    if rec.cheaper_but_slow:
        lines.append(
            "; ".join(
                f"{r.label} is cheaper but keeps work waiting longer than its maximum wait"
                for r in rec.cheaper_but_slow
            )
        )
    if rec.demand_shape is not None:
        lines.append(shape_text(rec.demand_shape, rec))
    if rec.longer_waits:
        lines.append(waits_text(rec.longer_waits, rec.longer_waits_more))
    if rec.time_trade is not None:
        lines.append(time_trade_text(rec))
    return lines


def headline(rec: Recommendation) -> str:
    """The answer in one sentence a buyer can repeat in a meeting: which option, how much cheaper
    than the next and over what term, and how sure (the share of the Monte Carlo draws, or a close
    call); a caveat that changes the answer's meaning (no option meets the deadline or the service
    level) is said in it too. The reasons follow as `reasons`; `recommendation_text` is the whole
    argument in a paragraph."""
    if rec.option is None:
        return sentence(recommendation_text(rec)) + "."
    if rec.ranked_per is not None:
        return sentence(_per_unit_claim(rec)) + "."
    other = rec.contender if rec.close_call and rec.contender is not None else rec.runner_up
    gap = _below(rec, other).lstrip(", ").replace(" below ", " cheaper than ", 1)
    text = f"{rec.label}: " + (f"{gap} " if gap else "the lowest cost ")
    text += f"over {rec.months} months (NPV {usd(rec.npv_usd)})"
    if rec.ranked_npv_usd is not None:  # the buyer's value of time decides: said so, not "cheaper"
        text = (
            f"{rec.label}: first over {rec.months} months with the value of time "
            f"({usd(rec.ranked_npv_usd)} in the ranking, NPV {usd(rec.npv_usd)} in cash)"
        )
    if rec.chosen_on_time:
        text += f" among the options that deliver by the {rec.deadline_days:g}-day deadline"
    if rec.probability_cheapest is not None:
        p, n = pct(rec.probability_cheapest), f"{rec.draws:,} draws"
        if rec.close_call and rec.contender is not None:
            text += (
                f", but too close to call: cheapest in {p} of {n}, {rec.contender.label} in "
                f"{pct(rec.contender_probability_cheapest)}"
            )
        else:
            first = "first" if rec.ranked_npv_usd is not None else "cheapest"
            text += f", {first} in {p} of {n}"
    if rec.closest_late is not None:
        text += f"; no option meets the {rec.deadline_days:g}-day deadline"
    if rec.closest_service is not None:
        text += "; no option keeps every workload within its maximum wait"
    return text + "."


def reasons(rec: Recommendation) -> list[str]:
    """The reasons behind `headline`, a short line each: the caveats in full, the close call's
    gap against its spread, then `_ready_lines`."""
    if rec.option is None:
        return []
    if rec.ranked_per is not None:  # bridging off: why per unit, then when it is ready
        return [sentence(_per_unit_why(rec)), *(sentence(x) for x in _ready_lines(rec))]
    out = []
    if rec.closest_late is not None:
        out.append(
            f"No option delivers by the {rec.deadline_days:g}-day deadline: "
            f"{rec.closest_late.label} comes closest, it "
            f"{_delivers(rec.closest_late, rec.deadline_days)}"
        )
    if rec.closest_service is not None:
        out.append(no_service_text(rec))
    if rec.close_call and rec.gap_within_spread and rec.contender is not None:
        out.append(
            "The NPV gap is within the spread of that gap over the draws"
            + (
                f" (±{pct(rec.gap_spread_usd / rec.contender.npv_usd)})"
                if rec.contender.npv_usd > 0 and rec.gap_spread_usd is not None
                else ""
            )
        )
    out += [sentence(line) for line in _ready_lines(rec)]
    return out


def _ranked_first(rec: Recommendation, among: str = "") -> str:
    """'Rent ranks first over 60 months with the value of time'."""
    return f"{rec.label} ranks first over {rec.months} months{among} with the value of time"


def _with_time(rec: Recommendation) -> str:
    """', plus $0 value of time for later results: $41.32M in the ranking'."""
    return (
        f", plus {usd(rec.value_of_time_usd)} value of time for later results: "
        f"{usd(rec.ranked_npv_usd)} in the ranking"
    )


def time_trade_text(rec: Recommendation) -> str:
    """How much of the margin is the value of time (pricing/time_value.py `facts`): 'Build is
    $1.34M cheaper; Rent dedicated's extra $1.34M buys results 170 days earlier, valued at
    $25.53M' (the other option cheaper in cash), else 'Rent is also $6.35M cheaper than Managed
    in cash; the value of time adds $5.38M to that (its results come 9 days later)'."""
    t = rec.time_trade
    cash = t.npv_usd - rec.npv_usd  # > 0: the other option costs more in cash
    time = t.value_usd - t.best_value_usd  # > 0: the other option's results are worth less
    if cash < 0:
        return (
            f"{t.label} is {usd(-cash)} cheaper; {rec.label}'s extra {usd(-cash)} buys results "
            f"{days(abs(t.days_later))} {'earlier' if t.days_later >= 0 else 'later'}, valued "
            f"at {usd(time)} (the buyer's value of time, not a cash line)"
        )
    lead = f"{rec.label} is also {usd(cash)} cheaper than {t.label} in cash"
    if t.days_later >= 0:
        return (
            f"{lead}; the value of time adds {usd(time)} to that ({t.label}'s results come "
            f"{days(t.days_later)} later)"
        )
    return (
        f"{lead}; {t.label}'s results come {days(-t.days_later)} earlier, valued at "
        f"{usd(-time)}, less than that"
    )


def no_service_text(rec: Recommendation) -> str:
    """ "No option keeps every workload within its maximum wait (Rent comes closest: …)"."""
    level = rec.closest_service_level
    misses = ", ".join(
        f"{m.name} waits up to {days(m.wait_days)} against {days(m.max_wait_days)}"
        for m in level.misses[:WAIT_MISSES_NAMED]
    )
    more = len(level.misses) - WAIT_MISSES_NAMED
    misses += f" and {more} more" if more > 0 else ""
    return (
        "No option keeps every workload within its service level (its maximum wait; "
        f"{rec.closest_service.label} comes closest, {days(level.excess_days)} over in all: "
        f"{misses})"
    )


def service_notes(options: list) -> list[str]:
    """Each option's service level in a line (OptionResult.service_level): met, or who waits
    longer than its max_wait_days (counted from the later of release and the ready day)."""
    out = []
    for o in options:
        level = o.service_level
        if level is None:
            continue
        if level.met:
            out.append(f"{o.label}: every workload within its maximum wait")
            continue
        who = "; ".join(
            f"{m.name} waits up to {days(m.wait_days)} (max {days(m.max_wait_days)})"
            for m in level.misses
        )
        out.append(f"{o.label}: misses the service level, {who}")
    return out


def _per_unit(rec: Recommendation) -> str:
    """The answer ranked per delivered unit (bridging off): the cheapest per unit, against the
    next, and why the unit."""
    return f"{_per_unit_claim(rec)}: {_per_unit_why(rec)}"


def _per_unit_claim(rec: Recommendation) -> str:
    """'Build has the lowest cost per delivered run over 36 months (NPV $3.1M per run against …)'."""
    unit = rec.ranked_per
    text = (
        f"{rec.label} has the lowest cost per delivered {unit} over {rec.months} months (NPV "
        + ("plus value of time " if rec.ranked_npv_usd is not None else "")
        + f"{usd_rate(rec.npv_per_unit_usd, unit)}"
    )
    if rec.runner_up is not None and rec.runner_up_npv_per_unit_usd is not None:
        text += (
            f" against {usd_rate(rec.runner_up_npv_per_unit_usd, unit)} for {rec.runner_up.label}"
        )
    return text + ")"


def _per_unit_why(rec: Recommendation) -> str:
    return (
        "bridging to go-live is off, so the options deliver different work and are ranked per "
        f"{rec.ranked_per}, not on their NPVs"
    )


def _below(rec: Recommendation, other: OptionNpv | None) -> str:
    """ ", 12 % below Rent" (nothing when there is no other, or its NPV is not positive)."""
    if other is None or other.npv_usd <= 0:
        return ""
    return f", {pct(1 - rec.npv_usd / other.npv_usd)} below {other.label}"


def _delivers(r: DeadlineMiss, deadline: float) -> str:
    """'delivers on day 240, 60 days after the 180-day deadline' (the first run's end)."""
    if r.first_result_day is None:
        return "finishes no run within the term"
    return (
        f"delivers on {on_day(r.first_result_day)}, {day_count(r.days_past_deadline or 0)} "
        f"after the {deadline:g}-day deadline"
    )


def shape_text(shape: DemandShape, rec: Recommendation) -> str:
    """'Demand peaks at 3.2× the average month with work (1,024 vs 320 GPUs at work): Build
    leaves 41 % of the GPU-hours it holds idle, Rent 55 %; paying only ... is cheapest'."""

    def gpus(x: float) -> str:
        return f"{x:,.0f}" if x >= 10 else f"{x:.2g}"

    text = (
        f"Demand peaks at {rec.peak_to_mean_demand:,.1f}× the average month with work "
        f"({gpus(shape.peak_gpus)} vs {gpus(shape.mean_gpus)} GPUs at work): {rec.label} leaves "
        f"{pct(rec.idle_share)} of the GPU-hours it holds idle"
    )
    if shape.most_idle_label is not None:
        text += f", {shape.most_idle_label} {pct(shape.most_idle_share)}"
    return f"{text}; {SHAPE_REASON.get(shape.billing, SHAPE_REASON['fixed'])}"


def waits_text(waits: list[WorkloadWait], more: int) -> str:
    """'Its work waits longer: research up to 457 days (8.1 days on Cloud on-demand)'."""
    named = [
        f"{w.name} up to {days(w.delay_days_max)} ({days(w.least_delay_days_max)} on "
        f"{w.least_label})"
        for w in waits
    ]
    return "Its work waits longer: " + "; ".join(named) + (f"; and {more} more" if more else "")

"""The recommendation's words (app/recommendation_text.py), one test per sentence template, from
facts made by hand: the core decides (tests/test_decision.py asserts its facts), this module only
words what it decided."""

from __future__ import annotations

from app.recommendation_text import headline, reasons, recommendation_text, shape_text, waits_text
from pricing.results import (
    DeadlineMiss,
    DemandShape,
    OptionNpv,
    Recommendation,
    WorkloadWait,
)

RENT = OptionNpv(option="rent", label="Rent dedicated", npv_usd=21_560_000.0)


def chosen(**facts) -> Recommendation:
    """Cloud on-demand recommended over 36 months at $19.84M, ready on day 7.3, first result on
    day 30; Rent dedicated next by NPV; no Monte Carlo unless the facts say so."""
    base = dict(
        option="cloud:on_demand",
        label="Cloud on-demand",
        fastest_option="cloud:on_demand",
        fastest_label="Cloud on-demand",
        npv_usd=19_840_000.0,
        months=36,
        ready_day=7.3,
        first_result_day=30.0,
        fastest_first_result_day=30.0,
        runner_up=RENT,
    )
    return Recommendation(**(base | facts))


def test_no_option_available_names_each_reason():
    rec = Recommendation(
        option=None, none_reason="unavailable", unavailable_notes=["Spot: 64 GPUs at most"]
    )
    assert recommendation_text(rec) == "No compared option is available (Spot: 64 GPUs at most)"
    bare = Recommendation(option=None, none_reason="unavailable")
    assert recommendation_text(bare) == "No compared option is available"


def test_no_option_completes():
    rec = Recommendation(option=None, none_reason="incomplete")
    assert recommendation_text(rec) == "No option completes the workload within the term"


def test_without_draws_the_cost_and_the_ready_day():
    assert recommendation_text(chosen()) == (
        "Cloud on-demand has the lowest cost over 36 months (NPV $19.84M, 8 % below Rent "
        "dedicated); it is ready on day 8"
    )


def test_no_below_when_the_other_npv_is_not_positive():
    free = RENT.model_copy(update={"npv_usd": 0.0})
    assert "below" not in recommendation_text(chosen(runner_up=free))


def test_a_clear_winner_gives_its_share_of_the_draws():
    rec = chosen(probability_cheapest=0.7055, draws=2000, contender=RENT)
    assert recommendation_text(rec) == (
        "Cloud on-demand has the lowest cost over 36 months (NPV $19.84M, 8 % below Rent "
        "dedicated; cheapest in 71 % of 2,000 draws); it is ready on day 8"
    )


def test_a_close_call_names_both_sides():
    rec = chosen(
        probability_cheapest=0.55,
        draws=2000,
        contender=RENT,
        contender_probability_cheapest=0.45,
        close_call=True,
        contenders=["cloud:on_demand", "rent"],
    )
    assert recommendation_text(rec) == (
        "Too close to call between Cloud on-demand and Rent dedicated: Cloud on-demand is "
        "cheapest in 55 % of 2,000 draws, Rent dedicated in 45 %. On the base figures Cloud "
        "on-demand costs least over 36 months (NPV $19.84M, 8 % below Rent dedicated); it is "
        "ready on day 8"
    )


def test_a_close_call_within_the_spread_says_how_wide():
    rec = chosen(
        probability_cheapest=0.8,
        draws=2000,
        contender=RENT,
        contender_probability_cheapest=0.2,
        close_call=True,
        gap_spread_usd=4_312_000.0,
        gap_within_spread=True,
    )
    assert ", and the NPV gap (8 %) is within the spread of that gap over the draws (±20 %)." in (
        recommendation_text(rec)
    )


def test_a_sooner_first_result_elsewhere_is_named():
    rec = chosen(fastest_option="rent", fastest_label="Rent dedicated", fastest_first_result_day=20)
    assert recommendation_text(rec).endswith(
        "it is ready on day 8. Rent dedicated gives the first result soonest (day 20 vs day 30)"
    )
    none = chosen(
        fastest_option="rent",
        fastest_label="Rent dedicated",
        fastest_first_result_day=20,
        first_result_day=None,
    )
    assert recommendation_text(none).endswith("(day 20; Cloud on-demand finishes no run)")
    same_day = chosen(
        fastest_option="rent", fastest_label="Rent dedicated", fastest_first_result_day=29.5
    )
    assert "soonest" not in recommendation_text(same_day)  # day 30 both, as shown


def test_cheaper_options_that_miss_the_deadline():
    late = DeadlineMiss(
        option="build", label="Build", npv_usd=1.0, first_result_day=240, days_past_deadline=60
    )
    rec = chosen(deadline_days=180, chosen_on_time=True, cheaper_but_late=[late])
    assert recommendation_text(rec) == (
        "Cloud on-demand has the lowest cost over 36 months of the options that deliver by the "
        "180-day deadline (NPV $19.84M, 8 % below Rent dedicated); it is ready on day 8. Build is "
        "cheaper but delivers on day 240, 60 days after the 180-day deadline"
    )


def test_no_option_meets_the_deadline_comes_first():
    closest = DeadlineMiss(
        option="rent",
        label="Rent dedicated",
        npv_usd=1.0,
        first_result_day=None,
        days_past_deadline=None,
    )
    rec = chosen(deadline_days=90, closest_late=closest)
    assert recommendation_text(rec).startswith(
        "No option delivers by the 90-day deadline (Rent dedicated comes closest: it finishes no "
        "run within the term). Cloud on-demand has the lowest cost"
    )


def test_the_demand_shape():
    shape = DemandShape(
        peak_gpus=1024.0,
        mean_gpus=320.0,
        billing="per_use",
        most_idle_label="Build",
        most_idle_share=0.55,
    )
    rec = chosen(demand_shape=shape, peak_to_mean_demand=3.2, idle_share=0.0)
    assert shape_text(shape, rec) == (
        "Demand peaks at 3.2× the average month with work (1,024 vs 320 GPUs at work): Cloud "
        "on-demand leaves 0 % of the GPU-hours it holds idle, Build 55 %; paying only for the "
        "GPU-hours used is cheapest"
    )
    assert recommendation_text(rec).endswith(". " + shape_text(shape, rec))
    owned = shape.model_copy(update={"billing": "owned", "most_idle_label": None})
    assert shape_text(owned, rec).endswith(
        "idle; holding a cluster sized for the demand is cheapest"
    )


def test_workloads_that_wait_longer():
    wait = WorkloadWait(
        name="research", delay_days_max=457.0, least_delay_days_max=8.1, least_label="Rent"
    )
    assert (
        waits_text([wait], 0) == "Its work waits longer: research up to 457 days (8.1 days on Rent)"
    )
    assert waits_text([wait], 2).endswith("; and 2 more")
    rec = chosen(longer_waits=[wait], longer_waits_more=2)
    assert recommendation_text(rec).endswith(". " + waits_text([wait], 2))


# ------------------------------------------------------------- the answer first (issue 32)


def test_the_headline_says_which_how_much_cheaper_and_how_sure():
    """One sentence a buyer can repeat: the option, how much cheaper than the next over the term
    and its NPV, and the share of the draws; the reasons follow as lines."""
    rec = chosen(probability_cheapest=0.9, draws=2000, contender=RENT)
    assert headline(rec) == (
        "Cloud on-demand: 8 % cheaper than Rent dedicated over 36 months (NPV $19.84M), cheapest "
        "in 90 % of 2,000 draws."
    )
    assert reasons(rec) == ["It is ready on day 8"]


def test_a_close_call_says_so_in_the_headline_and_its_spread_in_a_reason():
    rec = chosen(
        probability_cheapest=0.8,
        draws=2000,
        contender=RENT,
        contender_probability_cheapest=0.2,
        close_call=True,
        gap_spread_usd=4_312_000.0,
        gap_within_spread=True,
    )
    assert headline(rec) == (
        "Cloud on-demand: 8 % cheaper than Rent dedicated over 36 months (NPV $19.84M), but too "
        "close to call: cheapest in 80 % of 2,000 draws, Rent dedicated in 20 %."
    )
    assert reasons(rec)[0] == "The NPV gap is within the spread of that gap over the draws (±20 %)"


def test_a_caveat_that_changes_the_answer_is_in_the_headline_and_said_in_full_first():
    closest = DeadlineMiss(
        option="rent",
        label="Rent dedicated",
        npv_usd=1.0,
        first_result_day=240,
        days_past_deadline=150,
    )
    rec = chosen(deadline_days=90, closest_late=closest)
    assert headline(rec).endswith("; no option meets the 90-day deadline.")
    assert reasons(rec)[0] == (
        "No option delivers by the 90-day deadline: Rent dedicated comes closest, it delivers on "
        "day 240, 150 days after the 90-day deadline"
    )
    late = DeadlineMiss(
        option="build", label="Build", npv_usd=1.0, first_result_day=240, days_past_deadline=60
    )
    on_time = chosen(deadline_days=180, chosen_on_time=True, cheaper_but_late=[late])
    assert (
        "over 36 months (NPV $19.84M) among the options that deliver by the 180-day deadline."
        in (headline(on_time))
    )
    assert reasons(on_time) == [
        "It is ready on day 8",
        "Build is cheaper but delivers on day 240, 60 days after the 180-day deadline",
    ]


def test_every_fact_of_the_paragraph_is_in_the_headline_or_a_reason():
    """The short form drops nothing the paragraph says: a sooner first result, the demand's shape
    and the waits each get their own line."""
    rec = chosen(
        fastest_option="rent",
        fastest_label="Rent dedicated",
        fastest_first_result_day=20,
        longer_waits=[
            WorkloadWait(
                name="research",
                delay_days_max=457,
                least_delay_days_max=8.1,
                least_label="Cloud on-demand",
            )
        ],
    )
    lines = reasons(rec)
    assert lines[1] == "Rent dedicated gives the first result soonest (day 20 vs day 30)"
    assert lines[-1].startswith("Its work waits longer: research up to 457 days")


def test_a_per_unit_answer_leads_with_its_claim_and_gives_why_and_when_as_reasons():
    """Bridging off: the headline is the per-unit claim, whole (it lost its closing parenthesis
    when cut out of the paragraph), the reasons say why per unit and when it is ready."""
    rec = chosen(
        ranked_per="GPU-hour",
        npv_per_unit_usd=2.5,
        runner_up_npv_per_unit_usd=2.75,
    )
    assert headline(rec) == (
        "Cloud on-demand has the lowest cost per delivered GPU-hour over 36 months (NPV $2.50 per "
        "GPU-hour against $2.75 per GPU-hour for Rent dedicated)."
    )
    assert reasons(rec) == [
        "Bridging to go-live is off, so the options deliver different work and are ranked per "
        "GPU-hour, not on their NPVs",
        "It is ready on day 8",
    ]
    assert recommendation_text(rec).startswith(headline(rec)[:-1] + ": bridging to go-live is off")

"""A portfolio (scenario version 2) compared end to end (pricing/planning/): a flat
one-workload portfolio prices as the version 1 steady-use scenario it equals, demand is conserved
under every option's plan, a peaky portfolio favours paying per use for the reasons the numbers
give, the sample portfolios compare, and bad workloads are refused by name."""

from __future__ import annotations

import json
import math
import pathlib

import numpy as np
import pytest
from pydantic import ValidationError

from app import scenario_files
from models.options import OPTION_IDS, spec
from models.portfolio.demand import TrainingSettings, derive_demand
from models.scenario import MAX_GPUS, Scenario, explain_validation_error
from models.units import DAYS_PER_MONTH
from pricing.catalogue.loader import load_catalogue
from pricing.engine import compare
from pricing.planning.contracts import STEP_MIN_SAVING
from pricing.planning.option_context import option_inputs
from pricing.planning.planner import Planner, plan_portfolio
from pricing.planning.records import CONTRACTS
from tests.builders import patient, sample, scenario
from tests.readback import flat, pdf_text

#: the options both versions offer (hybrid needs a demand over time: version 2 only)
ALL = [o for o in OPTION_IDS if not spec(o).needs_demand]


def _pair(financing: str, months: int = 36) -> tuple[Scenario, Scenario]:
    """A v1 steady use of 64 GPUs at 100 % and the one-workload v2 portfolio that equals it (the
    representative model of a steady-only portfolio: llama3-8b with 1e9 tokens)."""
    common = {
        "cluster": {"gpus": 64},
        "term": {"months": months, "financing": financing},
        # neither bridged to go-live (pricing/bridge.py, pricing/planning/bridging.py): the
        # work from before each ready day waits in both
        "options": {"compare": ALL, "bridge": False},
    }
    v1 = Scenario.model_validate(
        {
            "workload": {"model": "llama3-8b", "tokens": 1e9},
            "usage": {"mode": "utilisation", "utilisation_pct": 100.0},
            **common,
        }
    )
    v2 = Scenario.model_validate(
        {
            "version": 2,
            "workloads": [
                {"kind": "steady", "name": "research", "gpus": 64, "utilisation_pct": 100.0,
                 "duration_months": months}
            ],
            **common,
        }
    )  # fmt: skip
    return v1, v2


@pytest.mark.parametrize("financing", ["cash", "loan", "lease"])
def test_flat_portfolio_reproduces_v1_steady_use(fixture_catalogue, financing):
    """Every option's NPV, less the egress line, within 1e-9 of the v1 path's. Egress differs by
    design: v1 steady use counts busy days / run days as runs that each ship their weights, a
    steady workload has no runs. At 100 % the v1 cluster is busy from its ready day; the portfolio's
    work from before it waits and keeps the capacity busy to the term end: the same GPU-hours."""
    v1, v2 = _pair(financing)
    a = compare(v1, fixture_catalogue, decision=False)
    b = compare(v2, fixture_catalogue, decision=False)
    rate = next(f.value for f in a.assumptions if f.key == "discount_rate_pct_per_year") / 100
    for x, y in zip(a.options, b.options, strict=True):
        assert (x.option, x.available) == (y.option, y.available)
        if not x.available:
            continue
        assert y.capacity_size_gpus == 64
        # the work from before the ready day never catches up on a cluster busy at 100 %
        assert (y.queued_gpu_hours > 0) == (y.ready_day > 0), x.option
        assert y.served_gpu_hours + y.queued_gpu_hours + y.beyond_term_gpu_hours == pytest.approx(
            y.demanded_gpu_hours, rel=1e-9
        )
        assert sum(y.chargeback_usd.values()) == pytest.approx(y.total_usd, rel=1e-9)
        assert y.breakdown_usd.get("egress", 0.0) == 0.0
        egress = x.monthly_by_category_usd.get("egress", [0.0] * 36)
        egress_npv = sum(v * (1 + rate) ** (-(m + 1) / 12) for m, v in enumerate(egress))
        lines = set(x.breakdown_usd) - {"egress"}
        assert lines == set(y.breakdown_usd) - {"egress"}, x.option
        for k in lines:
            assert y.breakdown_usd[k] == pytest.approx(x.breakdown_usd[k], rel=1e-9, abs=1e-6), (
                x.option,
                k,
            )
        assert y.total_usd == pytest.approx(x.total_usd - sum(egress), rel=1e-9), x.option
        assert y.npv_usd == pytest.approx(x.npv_usd - egress_npv, rel=1e-9), x.option


def test_v1_result_json_is_unchanged_by_the_portfolio_fields(fixture_catalogue):
    """A v1 comparison carries no portfolio keys (its JSON is what it was)."""
    v1, _ = _pair("cash")
    data = compare(v1, fixture_catalogue, decision=False).model_dump(mode="json")
    assert "portfolio" not in data and "workloads" not in data["scenario"]
    assert not {"capacity_gpus", "served_gpu_hours", "chargeback_usd"} & set(data["options"][0])


@pytest.mark.parametrize("name", sorted(scenario_files.PORTFOLIOS))
def test_samples_compare_and_conserve_demand(fixture_catalogue, name):
    """Each sample compares (decision support included), and under every option's plan served +
    queued + beyond the term = demanded, per workload and in total; the chargeback adds up to the
    total."""
    c = compare(scenario(sample(name)), fixture_catalogue, draws=200)
    assert c.portfolio is not None and c.recommendation.option is not None
    for o in c.options:
        if not o.available:
            continue
        total = o.served_gpu_hours + o.queued_gpu_hours + o.beyond_term_gpu_hours
        assert total == pytest.approx(o.demanded_gpu_hours, rel=1e-9)
        assert o.demanded_gpu_hours == pytest.approx(c.portfolio.demanded_gpu_hours, rel=1e-12)
        for w in o.workload_delays:
            parts = w.served_gpu_hours + w.queued_gpu_hours + w.beyond_term_gpu_hours
            assert parts == pytest.approx(w.demanded_gpu_hours, rel=1e-9, abs=1e-6)
        assert sum(o.chargeback_usd.values()) == pytest.approx(o.total_usd, rel=1e-9)
        assert o.served_gpu_hours == pytest.approx(sum(o.served_gpu_hours_by_month), rel=1e-9)


@pytest.mark.parametrize("name", sorted(scenario_files.PORTFOLIOS))
def test_no_result_and_no_served_hour_before_the_ready_day(fixture_catalogue, name):
    """Capacity exists from the option's ready day (models/portfolio/capacity.py slot_capacity), not from the
    start of its ready month: no run finishes before ready day + its length, nothing is served in
    a month that ends before the ready day, and the ready month serves no more than the size's
    GPU-hours after it. A composite option's earliest part (the cloud burst) sets its ready day."""
    # the own capacity's mechanics: not bridged (a bridge's are tests/test_portfolio_bridge.py's)
    s = scenario(sample(name), options__bridge=False).model_copy(deep=True)
    s.options.compare = list(OPTION_IDS)
    _, pf = plan_portfolio(s, fixture_catalogue)
    c = compare(s, fixture_catalogue, decision=False)
    for o in c.options:
        plan = pf.plans[o.option]
        sp = plan.split
        ready, size = (
            (min(sp.base_ready_day, sp.burst_ready_day), sp.base_gpus + sp.burst_gpus)
            if sp is not None
            else (plan.ready_day, plan.size_gpus)
        )
        for w in plan.result.workloads:
            for start in w.runs_table.start_day:
                assert start is None or start >= ready, (o.option, w.name, start, ready)
        if o.first_result_day is not None:
            assert o.first_result_day > ready, (o.option, o.first_result_day, ready)
        m = int(ready // DAYS_PER_MONTH)
        assert sum(o.served_gpu_hours_by_month[:m]) == 0.0, o.option
        if m >= len(o.served_gpu_hours_by_month):  # ready after the term: nothing served
            continue
        after = ((m + 1) * DAYS_PER_MONTH - ready) * 24 * size
        assert o.served_gpu_hours_by_month[m] <= after * (1 + 1e-12), o.option


def test_example_portfolio_cli_prints_a_valid_v2_scenario():
    for name in scenario_files.PORTFOLIOS:
        s = Scenario.model_validate_json(scenario_files.example_json(name))
        assert s.version == 2 and s == scenario(sample(name))


def test_peaky_portfolio_favours_paying_per_use(fixture_catalogue):
    """An inference service growing 10 % a month from 4 requests/s: its peak (month 36) is ~17×
    its first month, so a cluster sized for the peak sits mostly idle; cloud on-demand holds only
    the 8-GPU instances it uses. The numbers that decide it: build pays for its idle GPU-hours
    (more than it serves), the rental for fewer (it steps up), cloud only each instance's unused
    share, and so cloud's NPV is lower despite a higher price per GPU-hour. (At 2 requests/s the
    service needs 1-18 GPUs, mostly a fraction of one instance, and the rental wins:
    test_cloud_bills_whole_instances.)"""
    s = Scenario.model_validate(
        {
            "version": 2,
            "workloads": [
                {"kind": "serve", "name": "api", "model": "llama3-70b", "rps": 4,
                 "growth_pct_per_month": 10, "duration_months": 36, "tpot_ms": 50}
            ],
            "options": {"compare": ["build", "rent", "cloud:on_demand"]},
        }
    )  # fmt: skip
    c = compare(s, fixture_catalogue, decision=False)
    build, rent, cloud = (c.option(o) for o in ("build", "rent", "cloud:on_demand"))
    peak = max(c.portfolio.peak_gpus)
    assert peak >= 10 * min(g for g in c.portfolio.peak_gpus if g > 0)
    assert build.idle_gpu_hours > build.served_gpu_hours  # most of what build pays for is idle
    # the rental starts small and adds the rest as the traffic grows (a step up); still idle
    assert rent.resized_gpus == build.capacity_size_gpus > rent.capacity_size_gpus
    assert rent.idle_gpu_hours < build.idle_gpu_hours
    assert 0 < cloud.idle_gpu_hours < rent.idle_gpu_hours  # the instances' unused GPUs
    assert cloud.served_gpu_hours == pytest.approx(build.served_gpu_hours, rel=1e-9)
    assert cloud.usd_per_gpu_hour is not None
    assert cloud.npv_usd < build.npv_usd and cloud.npv_usd < rent.npv_usd
    assert c.recommendation.option == "cloud:on_demand"


def test_an_option_ready_too_late_does_not_complete(fixture_catalogue):
    """A run released at month 0 that runs most of the term: build's lead time
    pushes it past the term (work the unconstrained demand finishes), so build does not complete
    and is not recommended; rent, ready in days, completes. (1.3e13 tokens: under amendment 5's
    F, 1.32 at 64 GPUs where C3's was 1, the 1.8e13 used before ran past the term on any option.)"""
    s = Scenario.model_validate(
        {
            "version": 2,
            "term": {"months": 12},
            "workloads": [
                {"kind": "pretrain", "name": "long", "model": "llama3-8b", "gpus": 64,
                 "tokens": 1.3e13, "runs_per_month": 1, "duration_months": 1}
            ],
            "options": {"compare": ["build", "rent"], "bridge": False},  # build waits
        }
    )  # fmt: skip
    c = compare(s, fixture_catalogue, decision=False)
    build, rent = c.option("build"), c.option("rent")
    assert c.portfolio.beyond_term_gpu_hours == 0.0
    assert build.beyond_term_gpu_hours + build.queued_gpu_hours > 0
    assert not build.completes_workload and "queued or run past" in build.note
    assert rent.completes_workload
    assert c.recommendation.option == "rent"


@pytest.mark.parametrize(
    ("workloads", "field"),
    [
        ([{"kind": "steady", "name": "a"}, {"kind": "serve", "name": "b", "rps": -1}],
         "workloads[1].rps"),
        ([{"kind": "steady", "name": "a", "utilisation_pct": 120}], "workloads[0].utilisation_pct"),
        ([{"kind": "pretrain", "name": "a", "model": "nope"}], "workloads[0].model"),
        ([{"kind": "steady", "name": "a"}, {"kind": "steady", "name": "a"}], "workloads[1].name"),
        ([], "workloads"),
    ],
)  # fmt: skip
def test_bad_workloads_are_refused_by_name(workloads, field):
    with pytest.raises(ValidationError) as exc:
        Scenario.model_validate({"version": 2, "workloads": workloads})
    assert explain_validation_error(exc.value)[0][0] == field


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"version": 2}, "workloads"),
        ({"version": 1, "workloads": [{"kind": "steady", "name": "a"}]}, "workloads"),
        ({"version": 2, "workloads": [{"kind": "steady", "name": "a"}], "usage": {"runs": 3}},
         "usage"),
        ({"version": 2, "workloads": [{"kind": "steady", "name": "a"}],
          "cluster": {"deadline_days": 30}}, "cluster.deadline_days"),
    ],
)  # fmt: skip
def test_version_and_workloads_go_together(data, field):
    with pytest.raises(ValidationError) as exc:
        Scenario.model_validate(data)
    assert explain_validation_error(exc.value)[0][0] == field


def test_v2_json_round_trips_without_defaults():
    """What a share link writes (model_dump exclude_defaults) reads back as the same scenario:
    each workload keeps its `kind` even at its default."""
    s = scenario(sample("lab"))
    data = s.model_dump(mode="json", exclude_defaults=True)
    assert all("kind" in w for w in data["workloads"])
    assert Scenario.model_validate(data) == s


def test_the_summary_is_the_representative_run_on_the_gpus_the_demand_gave_it(fixture_catalogue):
    """The training summary of a portfolio is one run of its representative workload on that
    run's own GPU count: its days are the demand's run of it, its layout fills that count, and the
    PDF says whose run it is. (It used to mix the run planned on the smallest count that fits with
    the largest option's size: the lab sample read 1,025 GPUs and 1,020 days, the 70B run on 24.)"""
    from app.formatting import days
    from app.report_pdf import build_pdf
    from app.report_text import comparison_report
    from models.portfolio.demand import TrainingSettings, derive_demand

    def checked(sc: Scenario, name: str, gpus: int) -> float:
        c = compare(sc, fixture_catalogue, decision=False)
        p, t = c.portfolio, c.training
        run = next(
            w
            for w in derive_demand(
                sc.workloads, sc.cluster.gpu, sc.term.months, training=TrainingSettings.of(sc)
            ).workloads
            if w.name == name
        )
        assert (p.representative_workload, p.representative_gpus, c.run_gpus) == (name, gpus, gpus)
        assert run.gpus_per_run == gpus
        assert t.train_days == pytest.approx(run.run_days, rel=1e-9)
        lay = t.layout
        assert lay.tp * lay.cp * lay.pp * lay.dp == gpus
        assert t.gpus == max(o.capacity_size_gpus for o in c.options)  # the infrastructure's size
        text = flat(pdf_text(build_pdf(c)))
        assert flat(f"one run of {name} on {gpus:,} × {sc.cluster.gpu}") in text
        cli = comparison_report(c).splitlines()[1]  # the CLI says the same under its heading
        assert cli.startswith(f"Representative run: one run of {name} on {gpus:,} × ")
        assert f": {days(t.train_days)} expected for the whole run (" in cli
        return t.train_days

    data = sample("lab")
    wide = checked(Scenario.model_validate(data), "base-70b", 1024)
    data["workloads"][1]["gpus"] = 512
    # base-8b to 128: at 256 or more its whole run's GPU-hours (15T tokens; F 1.35 at 256 since
    # the refit of 2026-12-02) pass the 70B run's on 512 and it becomes the representative
    data["workloads"][0]["gpus"] = 128
    narrow = checked(Scenario.model_validate(data), "base-70b", 512)
    assert 1.6 < narrow / wide < 2.4  # half the GPUs, about twice the days


def test_a_fine_tune_summary_says_it_is_planned_as_a_full_parameter_run(fixture_catalogue):
    """A fine-tune representative (LoRA on one GPU) is planned as a full-parameter run of its
    tokens, which does not fit one GPU: the summary takes the smallest count that does and the PDF
    says what it is; a portfolio with no gang workload says its run only sizes storage."""
    from app.report_pdf import build_pdf

    c = compare(scenario(sample("enterprise")), fixture_catalogue, decision=False)
    p = c.portfolio
    assert (p.representative_workload, p.representative_kind) == ("monthly-finetune", "finetune")
    assert p.representative_gpus > 1  # the LoRA run's single GPU cannot hold a full run
    assert flat(
        f"monthly-finetune as one full-parameter run of its tokens on {p.representative_gpus:,} ×"
    ) in flat(pdf_text(build_pdf(c)))
    c = compare(scenario(sample("university")), fixture_catalogue, decision=False)
    assert c.portfolio.representative_workload is None
    assert flat("no pre-training or fine-tuning workload; storage and checkpoints sized") in flat(
        pdf_text(build_pdf(c))
    )


@pytest.mark.parametrize("name", sorted(scenario_files.PORTFOLIOS))
def test_no_option_serves_work_in_a_month_it_holds_and_pays_for_no_capacity(
    fixture_catalogue, name
):
    """Every month an option serves work it holds capacity, and so pays for it. The lab's rental
    was given back after its minimum term (month 25) because the evaluations left after the 70B
    run (2.9 GPU-hours a month) fell under the plan's tolerance on undone work, while the
    simulation still served them on the returned GPUs, free."""
    # the own capacity (a bridge's hired months are its bridge line, tests/test_portfolio_bridge.py)
    c = compare(scenario(sample(name), options__bridge=False), fixture_catalogue, decision=False)
    for o in c.options:
        if not o.available:
            continue
        for month, (served, held) in enumerate(
            zip(o.served_gpu_hours_by_month, o.capacity_gpus, strict=True), start=1
        ):
            assert held > 0 or served <= 1e-6, (o.option, month, served, held)


def test_a_note_names_the_ready_day_the_tables_show(fixture_catalogue):
    """The note of an option that cannot finish the work gives its ready day as every table does
    (models/numbers.py on_day, rounded up): Rent dedicated, ready on day 10.5, read "ready on day
    10" in the note beside "day 11" in the table."""
    from models.numbers import on_day

    data = sample("lab")
    data["cluster"]["gpus"] = 512  # the 70B run's 1,024 GPUs never fit: a note says what is late
    c = compare(Scenario.model_validate(data), fixture_catalogue, decision=False)
    late = [o for o in c.options if o.available and not o.completes_workload]
    assert {o.option for o in late} >= {"build", "rent"}
    for o in late:
        assert o.note.endswith(f"GPUs ready on {on_day(o.ready_day)}"), (o.note, o.ready_day)
    # a ready day the two roundings disagree on (half a day rounds to even with :.0f)
    assert any(f"day {o.ready_day:,.0f}" != on_day(o.ready_day) for o in late)


def test_a_rental_held_for_a_trickle_says_what_it_holds_and_for_how_little():
    """The capacity rule of a rented, managed or committed option that keeps its whole size for
    three months or more after its last real work (5 % busy) to serve under 1 % says so, with the
    months and the GPU-hours read from its own monthly figures; owned and per-use options, and a
    busy tail, say nothing."""
    from pricing.engine import HOURS_PER_MONTH, trailing_hold

    full = 64 * HOURS_PER_MONTH
    served = np.array([0.9, 0.8, 0.001, 0.002, 0.001, 0.0]) * full
    held = np.array([64, 64, 64, 64, 64, 0.0])
    line = trailing_hold("rent", 64, held, served)
    assert line.startswith("; holds 64 GPUs in months 3–5 for ")
    # a second, smaller contract from day 100 (month 4), or from before the tail
    stepped = trailing_hold("rent", 64, held, served, (8, 100.0))
    assert stepped.startswith("; holds 64 GPUs in months 3–4, then 8 to month 5 for ")
    assert trailing_hold("rent", 64, held, served, (8, 10.0)).startswith("; holds 8 GPUs in ")
    assert f"for {served[2:5].sum():,.0f} GPU-hours of work (0.1 % busy)" in line
    assert trailing_hold("build", 64, held, served) == ""  # owned: held to the term anyway
    assert trailing_hold("cloud:on_demand", 64, held, served) == ""  # pays per use
    assert trailing_hold("rent", 64, held[:4].copy(), served[:4].copy()) == ""  # 2 months only
    busy = served.copy()
    busy[3] = 0.03 * full  # 1.1 % over the tail: not a trickle
    assert trailing_hold("rent", 64, held, busy) == ""

    c = compare(scenario(patient(sample("lab"))), decision=False)
    rent = c.option("rent")
    tail = np.array(rent.served_gpu_hours_by_month[13:])
    assert rent.capacity_rule.endswith(
        f"; holds 1,024 GPUs in months 14–25, then 8 to month 36 for {tail.sum():,.0f} GPU-hours "
        "of work (under 0.1 % busy): a smaller rental, a shorter commitment, a hybrid or cloud "
        "for that work may cost less"
    )
    assert "holds" not in c.option("build").capacity_rule


def test_a_rental_steps_down_to_what_the_work_left_needs_when_a_commitment_block_ends():
    """The lab rents 1,024 GPUs for a 70B run that ends in month 13, then evaluations on one node
    to month 36. On 1-year commitments the first contract ends at the block that covers the big
    run, and a second contract of one node, at its own price tier, serves the rest: every month
    after the step holds and pays for 8 GPUs, and the total is the one-contract total less the
    1,016 GPUs no longer rented. Nothing is served later or left undone."""
    from pricing.catalogue.loader import load_catalogue

    sc = scenario(patient(sample("lab")))
    _, portfolio = plan_portfolio(sc, load_catalogue())
    plan = portfolio.plans["rent"]
    step = plan.second
    year = 12 * DAYS_PER_MONTH
    peaks = np.asarray(portfolio.demand.peak_gpus)
    month = int(step.day // DAYS_PER_MONTH)
    assert step.gpus == 8 == 8 * np.ceil(max(peaks[month:]) / 8)  # one job's GPU, in a node
    assert max(peaks[:month]) > 512
    assert (step.day - plan.ready_day) / year == pytest.approx(2)  # two whole 1-year blocks
    assert peaks[int((step.day - year) // DAYS_PER_MONTH) :].max() > 8  # one block less: too early

    one = compare(sc.model_copy(update={"cluster": sc.cluster.model_copy(update={"gpus": 1024})}),
                  decision=False).option("rent")  # fmt: skip
    two = compare(sc, decision=False).option("rent")
    assert one.capacity_rule.startswith("1,024 GPUs (cluster.gpus)")  # a size given: one contract
    # equal up to the order of a float sum (the evaluations' 0.446 h jobs leave 3e-10 GPU-hours)
    assert two.served_gpu_hours == pytest.approx(one.served_gpu_hours, rel=1e-12)
    assert two.served_gpu_hours == pytest.approx(two.demanded_gpu_hours, rel=1e-12)
    assert two.completes_workload and two.queued_gpu_hours == 0
    after = slice(month + 1, sc.term.months)
    assert two.capacity_gpus[after] == [8.0] * len(range(*after.indices(sc.term.months)))
    big_rate = plan.inputs.figures["rent_usd_per_gpu_hour"].value
    small_rate = step.inputs.figures["rent_usd_per_gpu_hour"].value
    hours = 365.25 * 24 / 12
    rent_two = np.array(two.monthly_by_category_usd["rent"])
    rent_one = np.array(one.monthly_by_category_usd["rent"])
    inside = slice(month + 1, sc.term.months - 1)  # the last month also pays what runs past it
    assert rent_two[inside] == pytest.approx(8 * small_rate * hours)
    assert rent_one[inside] == pytest.approx(1024 * big_rate * hours)
    past = (plan.ready_day + 3 * year) - sc.term.months * DAYS_PER_MONTH  # the 2nd block's end
    # the last month's rent, and the months past the term as their own line, paid then
    assert rent_two[-1] == pytest.approx(8 * small_rate * hours)
    past_line = np.array(two.monthly_by_category_usd["past the term"])
    assert past_line[-1] == pytest.approx(8 * small_rate * hours * past / DAYS_PER_MONTH)
    assert not past_line[:-1].any()
    assert rent_two[: month - 1] == pytest.approx(rent_one[: month - 1])
    assert two.total_usd < one.total_usd - 1000 * big_rate * hours * 10  # 10 months of 1,000
    doc = (pathlib.Path(__file__).parents[1] / "docs" / "portfolios.md").read_text()
    quoted = (
        f"then 8 to month 36 (${two.total_usd / 1e6:,.2f}M; one 1,024-GPU contract\n"
        f"held to month 36 would be ${one.total_usd / 1e6:,.2f}M)"
    )
    assert quoted in doc, quoted


def test_when_a_rental_cannot_step_down():
    """Month-to-month rentals step down as soon as the big work ends; a whole-term commitment and
    a size the buyer fixed never do; owned and per-use options have nothing to step down."""
    monthly = plan_portfolio(
        scenario(sample("lab"), options__rent_commitment="monthly"), _catalogue()
    )[1]
    whole = plan_portfolio(
        scenario(sample("lab"), options__rent_commitment="whole_term"), _catalogue()
    )[1]
    step = monthly.plans["rent"].second
    peaks = np.asarray(monthly.demand.peak_gpus)
    month = int(step.day // DAYS_PER_MONTH)
    assert step.gpus == 8 and max(peaks[month - 1 : month]) > 8  # the month before still needs more
    assert (step.day - monthly.plans["rent"].ready_day) / DAYS_PER_MONTH == pytest.approx(
        round((step.day - monthly.plans["rent"].ready_day) / DAYS_PER_MONTH)
    )
    for plan in (whole.plans["rent"], whole.plans["managed"]):  # it may still step up
        assert plan.second is None or not plan.second.replaces
    assert step.replaces
    assert monthly.plans["build"].second is None
    assert monthly.plans["cloud:on_demand"].second is None


def _catalogue():
    from pricing.catalogue.loader import load_catalogue

    return load_catalogue()


def test_a_step_down_is_taken_only_where_it_costs_less_than_one_contract(monkeypatch):
    """contract_usd prices a contract as cashflows does (whole blocks, the minimum term, the setup
    fee per node); a second contract that would cost more than keeping the first is not signed."""
    sc = scenario(sample("lab"), options__rent_commitment="1y")
    planner = Planner(sc, _catalogue())
    f = planner.inputs(8).figures
    rate, setup = f["rent_usd_per_gpu_hour"].value, f["rent_setup_fee_usd_per_node"].value
    minimum = f["rent_min_term_months"].value * DAYS_PER_MONTH
    year = 12 * DAYS_PER_MONTH
    blocks = max(np.ceil(minimum / year - 1e-9), 1)  # 100 days of work: the minimum, in blocks
    assert planner.contract_usd("rent", 8, 50.0, 150.0) == pytest.approx(
        rate * 8 * blocks * year * 24 + setup
    )
    committed = planner.inputs(8).figures["cloud_committed_1y_usd_per_gpu_hour"].value
    assert planner.contract_usd("cloud:committed_1y", 8, 50.0, 50 + 1.5 * year) == pytest.approx(
        committed * 8 * 2 * year * 24  # two whole blocks, no setup fee
    )
    plan = planner.plan("rent")
    assert plan.second is not None

    def dearer(self, option, gpus, start, busy_end):  # a small contract priced out of reach
        return 1e12 if gpus < 1024 else real(self, option, gpus, start, busy_end)

    real = Planner.contract_usd
    monkeypatch.setattr(Planner, "contract_usd", dearer)
    assert Planner(sc, _catalogue()).plan("rent").second is None


def test_a_rental_steps_up_as_the_demand_grows():
    """The enterprise's service grows 10 % a month: its rental starts on one node, the most the
    work needs before the step, and adds the rest of the peak size from the start of a month. Each
    contract is paid at its own size's rate while held; the total is below one contract of the
    peak size, and no work is served later or left undone."""
    sc = scenario(sample("enterprise"))
    _, portfolio = plan_portfolio(sc, _catalogue())
    plan = portfolio.plans["rent"]
    step = plan.second
    assert step is not None and not step.replaces
    month = round(step.day / DAYS_PER_MONTH)
    assert step.day == pytest.approx(month * DAYS_PER_MONTH)  # a month's start
    peaks = np.asarray(portfolio.demand.peak_gpus)
    assert plan.size_gpus == 8 == 8 * np.ceil(max(peaks[:month]) / 8)
    assert plan.size_gpus + step.gpus == 8 * np.ceil(max(peaks) / 8)

    fixed = sc.model_copy(update={"cluster": sc.cluster.model_copy(update={"gpus": 24})})
    one = compare(fixed, decision=False).option("rent")
    two = compare(sc, decision=False).option("rent")
    assert (two.capacity_size_gpus, two.resized_gpus) == (8, 24)
    assert two.served_gpu_hours == pytest.approx(two.demanded_gpu_hours, rel=1e-12)
    assert one.served_gpu_hours == pytest.approx(two.demanded_gpu_hours, rel=1e-12)
    assert two.completes_workload and two.queued_gpu_hours == 0
    rate = {g: Planner(sc, _catalogue()).inputs(g).figures["rent_usd_per_gpu_hour"].value
            for g in (8, 16)}  # fmt: skip
    hours = 365.25 * 24 / 12
    rent = np.array(two.monthly_by_category_usd["rent"])
    assert rent[2:month] == pytest.approx(8 * rate[8] * hours)
    assert rent[month + 1 : sc.term.months - 1] == pytest.approx(
        (8 * rate[8] + 16 * rate[16]) * hours
    )
    assert two.total_usd < one.total_usd
    cloud = compare(sc, decision=False).option("cloud:on_demand")
    doc = (pathlib.Path(__file__).parents[1] / "docs" / "portfolios.md").read_text()
    quoted = (
        f"adds 16 from day {math.ceil(step.day):,} (Rent dedicated ${one.total_usd / 1e6:.2f}M → "
        f"${two.total_usd / 1e6:.2f}M; cloud on demand, ${cloud.total_usd / 1e6:.2f}M, costs more"
    )
    assert quoted in doc, quoted
    assert two.capacity_rule.endswith(
        f"starts at 8 GPUs, the most the work needs before day {math.ceil(step.day):,}, and adds "
        "16 then (a second contract, with its own price tier and minimum term, ordered its "
        "provisioning time ahead)"
    )


def test_a_second_contract_is_kept_only_where_the_whole_plan_costs_less():
    """A 64-GPU team from month 3 beside an 8-GPU one, 1-year rentals: contract_usd's test found
    8 GPUs then +64 $2e-10 cheaper than one 72-GPU contract, but two contracts side by side each
    pay storage and a platform team minimum: the whole plan cost $10,469 more, and served later.
    Now the plan is priced whole, every line, and one contract kept."""
    data = {
        "version": 2,
        "term": {"months": 12},
        "options": {"compare": ["rent"], "rent_commitment": "1y", "bridge": False},
        "workloads": [
            {"name": "small", "kind": "steady", "gpus": 8, "utilisation_pct": 100,
             "start_month": 0, "duration_months": 12},
            {"name": "big", "kind": "steady", "gpus": 64, "utilisation_pct": 100,
             "start_month": 3, "duration_months": 8},
        ],
    }  # fmt: skip
    sc = Scenario.model_validate(data)
    planner = Planner(sc, _catalogue())
    size, rule, ready, cap, r = planner.fixed("rent")
    grown = planner.step_up("rent", size, ready, r)
    assert grown is not None  # the contract-only test still finds a step up ...
    step, first, first_ready, cap2, r2 = grown
    one = planner._plan("rent", size, rule, ready, cap, r, None)
    two = planner._plan("rent", first, rule, first_ready, cap2, r2, None, step)
    assert planner.total_usd(two) > planner.total_usd(one)  # ... that costs more, whole
    plan = planner.plan("rent")
    assert plan.second is None and plan.size_gpus == 72
    fixed = compare(Scenario.model_validate({**data, "cluster": {"gpus": 72}}), _catalogue())
    assert compare(sc, _catalogue()).option("rent").total_usd == pytest.approx(
        fixed.option("rent").total_usd, rel=1e-12
    )
    assert planner.total_usd(one) == pytest.approx(fixed.option("rent").total_usd, rel=1e-12)


@pytest.mark.parametrize("name", ["lab", "enterprise"])
def test_the_samples_second_contracts_cost_less_whole(name):
    planner = Planner(scenario(sample(name)), _catalogue())
    for option in ("rent", "managed", "cloud:committed_1y"):
        plan = planner.plan(option)
        assert plan.second is not None, option
        size, rule, ready, cap, r = planner.fixed(option)
        one = planner._plan(option, size, rule, ready, cap, r, None)
        assert planner.total_usd(plan) < planner.total_usd(one), option


# ------------------------------------------------ demand past the largest cluster (262,144 GPUs)


def test_demand_past_the_largest_cluster_is_planned_up_to_it_and_the_rest_waits(
    fixture_catalogue,
):
    """Work needing more GPUs at once than the planner sizes (MAX_GPUS) gave a ValueError from the
    fabric sizing on every page; now each plan stops at MAX_GPUS, says so, and the rest waits."""
    data = {  # a run of MAX_GPUS GPUs beside 8,000 in steady use (within the GPU-months cap)
        "version": 2,
        "workloads": [
            {
                "kind": "pretrain",
                "name": "m",
                "model": "megatron-1t",
                "tokens": 1e13,
                "gpus": MAX_GPUS,
                "duration_months": 3,  # three runs of ~1.7 M GPU-months each
            },
            {
                "kind": "steady",
                "name": "s",
                "gpus": 8000,
                "utilisation_pct": 100,
                "duration_months": 36,
            },
        ],  # fmt: skip
        "options": {"compare": list(OPTION_IDS), "bridge": False},  # the rest waits
    }
    c = compare(Scenario.model_validate(data), fixture_catalogue)
    peak = max(c.portfolio.peak_gpus)
    assert peak > MAX_GPUS
    planned = [o for o in c.options if o.available]
    assert {o.option for o in planned} >= {"build", "rent", "cloud:committed_1y"}
    for o in planned:
        assert o.capacity_size_gpus <= MAX_GPUS
        assert o.queued_gpu_hours + o.beyond_term_gpu_hours > 0.5 * c.portfolio.demanded_gpu_hours
        assert f"demand peaks at {peak:,.0f} GPUs" in o.capacity_rule, o.capacity_rule
    for o in c.options:
        assert math.isfinite(o.total_usd)


def test_a_per_use_option_holds_at_most_the_largest_cluster(fixture_catalogue):
    d = {"version": 2, "workloads": [{"kind": "steady", "name": "a", "gpus": 150_000}]}
    d["workloads"].append({**d["workloads"][0], "name": "b"})
    scenario = Scenario.model_validate(d)
    planner = Planner(scenario, fixture_catalogue)  # the two together: 300,000 GPUs at once
    size, rule, *_ = planner.per_use("cloud:on_demand")
    assert max(planner.demand.peak_gpus) == 300_000 and size == MAX_GPUS == 262_144
    assert "demand peaks at 300,000 GPUs" in rule
    assert compare(scenario, fixture_catalogue).option("rent").available


def test_a_price_not_offered_at_the_largest_size_is_the_one_its_option_pays(fixture_catalogue):
    """At 4,096 GPUs the catalogue offers no on-demand price (NaN past its largest block); the
    on-demand option, sized per use to one GPU, pays its 1-GPU price. The base inputs took the
    4,096 figure, so the tornado read 'now nan USD/GPU-hour' and its swing moved nothing."""
    data = {
        "version": 2,
        "workloads": [{"kind": "steady", "name": "s", "gpus": 1}],
        "cluster": {"gpus": 4096},
        "options": {"compare": ["build", "rent", "cloud:on_demand", "cloud:spot"]},
    }
    scenario = Scenario.model_validate(data)
    key = "cloud_on_demand_usd_per_gpu_hour"
    assert math.isnan(Planner(scenario, fixture_catalogue).inputs(4096).value(key))
    base, _ = plan_portfolio(scenario, fixture_catalogue)
    paid = option_inputs(base, "cloud:on_demand").value(key)
    assert math.isfinite(paid) and base.value(key) == paid
    c = compare(scenario, fixture_catalogue)
    assert {a.key: a.value for a in c.assumptions}[key] == paid
    bar = next(b for b in c.sensitivity.bars if b.key == key)
    assert bar.base_value == paid
    assert bar.gap_low_usd != pytest.approx(bar.gap_high_usd)  # the swing moves what it pays


def test_committed_cloud_pays_storage_and_staff_while_its_work_runs_as_in_version_1(
    fixture_catalogue,
):
    """Six months of runs on a 1-year commitment: compute is paid for the whole block (take or
    pay), storage and the platform team only while the work runs, as on demand and as version 1
    bills them. They were paid to the term's end (36 months), about 6x over."""
    data = {
        "version": 2,
        "term": {"months": 36},
        "options": {"compare": ["cloud:on_demand", "cloud:committed_1y"]},
        "workloads": [
            {"name": "p", "kind": "pretrain", "model": "llama3-8b", "tokens": 1e12, "gpus": 64,
             "runs_per_month": 1, "start_month": 0, "duration_months": 6}
        ],
    }  # fmt: skip
    c = compare(Scenario.model_validate(data), fixture_catalogue)
    od, cm = c.option("cloud:on_demand"), c.option("cloud:committed_1y")
    last_work = max(np.flatnonzero(np.array(cm.served_gpu_hours_by_month) > 1)) + 1
    assert last_work <= 7
    for line in ("storage", "staff"):
        paid = np.flatnonzero(np.array(cm.monthly_by_category_usd[line]) > 0) + 1
        assert paid.max() == last_work, (line, paid)
        assert cm.breakdown_usd[line] == pytest.approx(od.breakdown_usd[line], rel=0.02), line
    compute = np.flatnonzero(np.array(cm.monthly_by_category_usd["compute"]) > 0) + 1
    assert compute.max() >= 12  # the block is paid whole


def _one_team(
    compare: list[str],
    gpus: int,
    utilisation_pct: float,
    start_month: int,
    duration_months: int,
    **options,
) -> dict:
    """A 36-month portfolio of one steady team, comparing `compare` (with `options`)."""
    return {
        "version": 2,
        "term": {"months": 36},
        "options": {"compare": compare, **options},
        "workloads": [
            {"kind": "steady", "name": "team", "gpus": gpus, "utilisation_pct": utilisation_pct,
             "start_month": start_month, "duration_months": duration_months}
        ],
    }  # fmt: skip


def test_a_contract_starts_with_the_work_not_on_its_ready_day(fixture_catalogue):
    """A team that starts in month 24 of 36: a rental, a managed cluster and a 1-year commitment
    were signed on their ready day (day 11) and paid 24 idle months, so on demand looked cheapest.
    A contract is now signed its provisioning time ahead of the first month with work; its
    timeline is shown there. Per-use cloud was already billed only when used."""
    data = _one_team(
        ["rent", "managed", "cloud:committed_1y", "cloud:on_demand"], 64, 100, 24, 12,
        rent_commitment="1y",
    )  # fmt: skip
    c = compare(Scenario.model_validate(data), fixture_catalogue)
    start = 24 * DAYS_PER_MONTH
    for option in ("rent", "managed", "cloud:committed_1y"):
        o = c.option(option)
        assert o.ready_day == pytest.approx(start), option
        paid = np.flatnonzero(np.array(o.monthly_usd) > 0)
        assert paid.min() == 24, (option, paid)  # nothing before the month the work starts
        assert o.timeline[-1].end_day == pytest.approx(o.ready_day)  # ordered its lead ahead
        assert o.timeline[0].start_day > 0
        assert o.queued_gpu_hours == 0 and o.completes_workload
    base, _ = plan_portfolio(Scenario.model_validate(data), fixture_catalogue)
    rate = option_inputs(base, "rent").value("rent_usd_per_gpu_hour")
    rent = c.option("rent")
    assert rent.capacity_size_gpus == 64
    assert rent.breakdown_usd["rent"] == pytest.approx(64 * rate * 12 * DAYS_PER_MONTH * 24)


def test_a_contract_is_sized_for_the_cheapest_whole_plan_not_the_fewest_gpus(fixture_catalogue):
    """A team of 256 GPUs at 50 % for 9 months: the smallest size that does the work by the
    term's end drains it for two years on a commitment held as long; a few more GPUs finish it
    sooner and the contract ends sooner. The larger sizes are priced whole and the cheapest kept."""
    data = patient(_one_team(["cloud:committed_1y", "rent"], 256, 50, 1, 9))
    sc = Scenario.model_validate(data)
    planner = Planner(sc, fixture_catalogue)
    for option in ("cloud:committed_1y", "rent"):
        smallest, rule, ready, cap, r = planner.fixed(option)
        assert planner.backlogged(r, ready)  # the work waits for capacity: more GPUs can help
        _, smallest_cost = planner.contracts(option, smallest, rule, ready, cap, r)
        plan = planner.plan(option)
        assert plan.size_gpus in planner.larger_sizes(smallest)
        assert planner.total_usd(plan) < smallest_cost * (1 - STEP_MIN_SAVING)
        assert plan.rule.startswith(
            f"{plan.size_gpus:,} GPUs, of the sizes tried from the smallest"
        )
        assert f"({smallest:,}) up to 2× it" in plan.rule
        for bigger in planner.larger_sizes(smallest):  # the one kept is the cheapest served
            ready2, cap2, r2 = planner.fixed_at(option, bigger)
            if planner.unmet(r2) <= planner.unmet(r) + planner.tol:
                _, cost = planner.contracts(option, bigger, rule, ready2, cap2, r2)
                assert planner.total_usd(plan) <= cost * (1 + 1e-12)
    fixed = compare(
        Scenario.model_validate({**data, "cluster": {"gpus": smallest}}), fixture_catalogue
    )
    chosen = compare(sc, fixture_catalogue)
    assert chosen.option("rent").total_usd < fixed.option("rent").total_usd


def test_owned_hardware_is_ordered_for_the_work_unless_phases_or_refreshes_time_it(
    fixture_catalogue,
):
    """The same late team: Build bought its cluster on day 0 and paid two idle years of power,
    space, staff and support, and sold younger-priced hardware at the end. One cluster is now
    ordered its build timeline ahead of the first month with work; with expansion phases (ordered
    by month) it is still ordered on day 0."""
    data = _one_team(["build", "managed:owned"], 64, 100, 24, 12)
    sc = Scenario.model_validate(data)
    c = compare(sc, fixture_catalogue)
    base, portfolio = plan_portfolio(sc, fixture_catalogue)
    start = 24 * DAYS_PER_MONTH
    for option in ("build", "managed:owned"):
        o, plan = c.option(option), portfolio.plans[option]
        assert o.ready_day == pytest.approx(start) and plan.order_day > 0, option
        assert o.timeline[0].start_day == pytest.approx(plan.order_day)
        assert o.timeline[-1].end_day == pytest.approx(o.ready_day)
        paid = np.flatnonzero(np.array(o.monthly_usd) != 0)
        assert paid.min() == int(plan.order_day // DAYS_PER_MONTH), (option, paid)  # the deposit
        assert plan.inputs.resale_age_years == pytest.approx(1.0)  # a year old at the term end
    phased = json.loads(json.dumps(data))
    phased["options"]["build_expansions"] = [{"gpus": 8, "month": 30}]
    p = plan_portfolio(Scenario.model_validate(phased), fixture_catalogue)[1].plans["build"]
    assert p.order_day == 0 and p.ready_day < 200  # phases are ordered by month: the base at once


def test_a_portfolio_peaking_near_200000_gpus_is_priced_within_the_largest_cluster(
    fixture_catalogue,
):
    """Issue 27: 150,000 GPUs of research beside runs of 49,152 peak at 199,152 GPUs, past the
    old cap of 65,536 and within 262,144: every option is sized for it with no cap in its rule,
    and the build's fabric is a 4-tier fat tree priced switch by switch (fixture: 20,000 USD a
    switch, 500 USD a transceiver)."""
    data = {
        "version": 2,
        "workloads": [
            {
                "kind": "steady",
                "name": "research",
                "gpus": 150_000,
                "utilisation_pct": 60,
                "duration_months": 36,
            },
            {
                "kind": "pretrain",
                "name": "frontier",
                "model": "llama3-405b",
                "gpus": 49_152,
                "runs_per_month": 0.25,
                "duration_months": 24,
            },
        ],  # fmt: skip
        "options": {  # not bridged: each sized for the whole peak on its own
            "compare": ["build", "rent", "managed", "cloud:committed_1y"],
            "bridge": False,
        },
    }
    c = compare(Scenario.model_validate(data), fixture_catalogue)
    assert max(c.portfolio.peak_gpus) == 199_152
    for o in c.options:
        assert o.available and math.isfinite(o.total_usd), o.option
        assert 65_536 < o.capacity_size_gpus <= MAX_GPUS, o.option
        assert "largest cluster the planner sizes" not in o.capacity_rule, o.capacity_rule
    fabric = c.training.fabric  # the build's size (its plan is the one the engine prices)
    assert fabric.gpus == c.option("build").capacity_size_gpus and fabric.tiers == 4
    assert c.operations.hardware_capex_usd["fabric"] == pytest.approx(
        fabric.switches * 20_000 + fabric.transceivers * 500
    )


@pytest.mark.parametrize("provider", [None, "Lambda"])
def test_a_contracts_rate_minimum_term_and_setup_fee_do_not_depend_on_its_size(provider):
    """`contract_usd` reads them at one node's inputs while a search tries hundreds of sizes:
    a contract option's figures at any size must be those."""
    data = sample("enterprise")
    if provider:
        data["options"]["rent_provider"] = provider
    planner = Planner(Scenario.model_validate(data), load_catalogue())
    keys = ["rent_min_term_months", "rent_setup_fee_usd_per_node"]
    keys += sorted({spec(o).price_key for o in OPTION_IDS if spec(o).billing in CONTRACTS})
    one = {k: planner.inputs(planner.node).figures[k] for k in keys}
    for nodes in (2, 3, 17, 128, 1000, 4096):
        figures = planner.inputs(nodes * planner.node).figures
        assert {k: figures[k] for k in keys} == one, nodes


def test_the_remembered_demand_is_the_one_of_these_workloads_gpu_term_and_settings():
    """context.py keeps the last demands derived (pricing one link again with other figures
    derives it once): a portfolio priced after another with the same workloads on another GPU,
    term or training settings gets its own demand, the one derived afresh."""
    base = sample("lab")  # pre-training runs: their days follow the software stack
    variants = [base, {**base, "cluster": {"gpu": "H200"}}, {**base, "term": {"months": 24}}]
    variants.append({**base, "execution": {"software_stack": "megatron-3d-classic"}})
    for data in variants:
        sc = Scenario.model_validate(data)
        planner = Planner(sc, load_catalogue())
        fresh = derive_demand(
            sc.workloads, sc.cluster.gpu, sc.term.months, training=TrainingSettings.of(sc)
        )
        assert planner.demand == fresh

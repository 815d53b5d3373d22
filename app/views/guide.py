"""Guide: the six questions a buyer brings, each answered with this scenario's numbers.

`answers` builds the text from the Comparison's typed fields (and the curve helpers in
models/training/sizing.py) without recomputing anything the engine returned; `render` shows it. For a
portfolio (scenario version 2) the first two answers and the deployment one speak about the whole
portfolio, from `Comparison.portfolio` (the demand month by month, by kind) and each option's
capacity plan and workload delays: no single training run stands for it.
"""

from __future__ import annotations

import math
import re

from app import glossary
from app.formatting import (
    days,
    deadline_sizing,
    gib,
    gpus,
    md_plain,
    on_day,
    pct,
    plural,
    usd,
    usd_rate,
)
from app.range_text import resale_line
from models.hardware import get_gpu
from models.options import Billing, spec
from models.training.sizing import EFFICIENT_SCALING, efficient_size, marginal_days_per_1000_gpus
from pricing.results import Comparison

#: the six questions, in the order the page asks them
QUESTIONS = (
    "Do we need a server or a cluster?",
    "How many GPUs?",
    "How much does a cluster cost?",
    "Build or rent?",
    "How long does deployment take?",
    "What does maintenance need?",
)
#: deadlines the "How many GPUs?" answer reads off the curve when the scenario sets none
EXAMPLE_DEADLINES_DAYS = (30, 60, 90)
#: the billing kinds that count as "build" and as "rent" when the buyer asks "build or rent?"
#: (cloud and managed are answered elsewhere: they are neither)
BUILD_BILLING = (Billing.OWNED,)
RENT_BILLING = (Billing.RENT,)


#: what a cluster gives over one server, said wherever the answer is "a cluster"
CLUSTER_ADDS = (
    "What a cluster adds over a server: a fast network between the servers (the fabric), so one "
    "job can span them; shared storage for data and checkpoints; a scheduler that queues jobs and "
    "shares the GPUs among teams; and failure handling (spare servers, health checks, restarts "
    "from the last checkpoint)."
)
#: a repository path in a source note ("(docs/reference/training.md 2.1)"): not for a buyer
_PATH_NOTE = re.compile(r"\s*\((?:[\w.-]+/)+[\w.-]+\.(?:md|csv|py)[^()]*\)")


def _failure_source(gpu_notes: str) -> str:
    """The GPU table's own sentence on where its failure rate comes from, without the repository
    paths the table's notes cite."""
    said = next((part for part in re.split(r"\.\s", gpu_notes) if "failure" in part.lower()), "")
    said = _PATH_NOTE.sub("", said)
    return said.strip().rstrip(".") or "the GPU table's rate"


def _staff(fte: float, who: str) -> str:
    """A staff figure as a buyer would say it: 'part of one engineer's time (0.2 FTE)' below one
    full-time post, else 'about 2.7 full-time {who}'."""
    if fte < 1:
        return f"part of one engineer's time ({fte:.1f} of a full-time post)"
    return f"about {fte:.1f} full-time {who}"


def _spares(nodes: float) -> str:
    """Spare servers in whole servers on hand (at least one), with the share the costs carry when
    that differs ('1 spare server (the costs carry 0.4 of one)')."""
    whole = max(1, math.ceil(nodes - 1e-9))
    text = plural(whole, "spare server")
    if abs(whole - nodes) > 0.05:
        text += f" (the costs carry {nodes:.1f} of {'one' if whole == 1 else 'them'})"
    return text


def server_or_cluster(c: Comparison) -> str:
    t = c.training
    gpu = get_gpu(t.gpu)
    node = gpu.gpus_per_node
    fewest = t.min_gpus
    plan = (
        f"The plan: {gpus(t.gpus)} in {plural(t.nodes, 'node')} of {node}, one run in "
        f"{days(t.train_days)}."
    )
    if fewest is None:
        return plan
    if fewest <= node:
        one = next((p for p in t.curve if p.gpus == node), None)
        text = (
            f"One server is enough to hold it: the model fits on {gpus(fewest)} of one "
            f"{node}-GPU {gpu.gpu_id} server ({gib(gpu.memory_gib)} each)."
        )
        if one is not None:
            text += f" On one full server a run takes {days(one.train_days)}."
        if t.gpus > node:
            text += f" More servers are for speed, not to fit. {plan} {CLUSTER_ADDS}"
        return text
    fabric = t.fabric
    return (
        f"A cluster: the model does not fit on one {node}-GPU {gpu.gpu_id} server. Its weights, "
        f"gradients and optimizer state need at least {gpus(fewest)} "
        f"({plural(-(-fewest // node), 'server')}) of {gib(gpu.memory_gib)} each. {plan} "
        f"The servers are joined by a {fabric.tiers}-tier fat tree of "
        f"{plural(fabric.switches, 'switch')} and {plural(fabric.transceivers, 'optical transceiver')}. "
        + CLUSTER_ADDS
    )


def how_many_gpus(c: Comparison) -> str:
    t = c.training
    parts = []
    if t.min_gpus is not None:
        parts.append(f"Fewest that fit in memory: {gpus(t.min_gpus)}.")
    sized_for = c.option(t.deadline_sized_for) if t.deadline_sized_for else None
    if sized_for is not None and c.scenario.cluster.deadline_days is not None:
        said = deadline_sizing(
            c.scenario.cluster.deadline_days,
            sized_for.label,
            sized_for.ready_day,
            sized_for.first_result_day,
        )
        parts.append(f"The deadline needs {gpus(t.gpus)}. {said}.")
    else:
        parts.append(f"Planned: {gpus(t.gpus)} ({t.sizing}), one run in {days(t.train_days)}.")
    curve = t.curve
    if len(curve) >= 2:
        points = [(p.gpus, p.train_days) for p in curve]
        effs = [p.scaling_efficiency for p in curve]
        best = efficient_size(points, effs)
        marginal = marginal_days_per_1000_gpus(points)
        if best is not None:
            i = next(k for k, p in enumerate(curve) if p.gpus == best)
            text = (
                f"Efficient size: {gpus(best)} ({days(curve[i].train_days)} a run, "
                f"{pct(curve[i].scaling_efficiency)} scaling efficiency), the largest count on the "
                f"curve that keeps at least {pct(EFFICIENT_SCALING)}."
            )
            if i + 1 < len(curve) and marginal[i + 1] is not None:
                nxt = curve[i + 1]
                text += (
                    f" Going on to {gpus(nxt.gpus)} saves {days(marginal[i + 1])} per extra "
                    f"1,000 GPUs (a run in {days(nxt.train_days)} at "
                    f"{pct(nxt.scaling_efficiency)})."
                )
            parts.append(text)
        if t.deadline_sized_for is None:
            needs = []
            for d in EXAMPLE_DEADLINES_DAYS:
                p = next((p for p in curve if p.train_days <= d), None)
                needs.append(
                    f"{d} days: {gpus(p.gpus)} ({days(p.train_days)})"
                    if p is not None
                    else f"{d} days: more than the curve's {gpus(curve[-1].gpus)}"
                )
            parts.append("On the curve, a run within " + "; ".join(needs) + ".")
    return " ".join(parts)


#: Build's cost lines that are paid to own the hardware (the rest of its lines run it; the
#: residual value comes back at the end)
CAPITAL_LINES = ("hardware", "sales tax", "facility")


def _lines(breakdown: dict[str, float], keys) -> str:
    return ", ".join(f"{k} {usd(v)}" for k, v in breakdown.items() if k in keys and v)


def buying_cost(c: Comparison) -> str:
    """What owning costs, as capital and as running cost: the hardware bought line by line
    (Operations.hardware_capex_usd, whose lines sum to Build's `hardware` line), the other capital
    lines, then Build's running lines over the term and the resale at its end (its breakdown_usd);
    "" when no owned option is compared."""
    build = next(
        (o for o in c.options if o.available and spec(o.option).billing in BUILD_BILLING), None
    )
    ops = c.operations
    if build is None or ops is None or not ops.hardware_capex_usd:
        return ""
    b = build.breakdown_usd
    capital = [k for k in b if k in CAPITAL_LINES and b[k]]
    running = [k for k in b if k not in CAPITAL_LINES and k != "residual value" and b[k]]
    text = (
        f"Buying {gpus(c.training.gpus)}: {usd(b.get('hardware', 0.0))} of hardware up front "
        f"({', '.join(f'{k} {usd(v)}' for k, v in ops.hardware_capex_usd.items() if v)})"
    )
    others = [k for k in capital if k != "hardware"]
    if others:
        text += f", and {_lines(b, others)}"
    text += (
        f". Running it over {c.scenario.term.months} months adds "
        f"{usd(sum(b[k] for k in running))} ({_lines(b, running)})"
    )
    if b.get("residual value"):
        text += f"; selling it at the end returns {usd(-b['residual value'])}"
    text += f". {build.label} in all: {usd(build.total_usd)} (NPV {usd(build.npv_usd)})."
    return text + (f" {resale}" if (resale := resale_line(c)) else "")


def cluster_cost(c: Comparison) -> str:
    """How much a cluster costs: bought (buying_cost) and rented (renting_cost), side by side."""
    return " ".join(part for part in (buying_cost(c), renting_cost(c)) if part)


def renting_cost(c: Comparison) -> str:
    sc = c.scenario
    fig = {a.key: a for a in c.assumptions}
    gpu = c.training.gpu
    parts = []
    rent = next((o for o in c.options if spec(o.option).billing is Billing.RENT), None)
    rate = fig.get("rent_usd_per_gpu_hour")
    if rate is not None and rate.value is not None:
        parts.append(
            f"A dedicated {gpu} cluster rents at {usd_rate(rate.value, 'GPU-hour')} in the "
            "catalogue, paid for every hour held."
        )
    if rent is not None and rent.available:
        parts.append(
            f"{rent.label} costs {usd(rent.total_usd)} over {sc.term.months} months "
            f"(NPV {usd(rent.npv_usd)}) with storage and support, "
            f"{usd_rate(rent.usd_per_gpu_hour, 'delivered GPU-hour')}."
        )
    cloud = fig.get("cloud_on_demand_usd_per_gpu_hour")
    if not sc.constraints.public_cloud_allowed:  # the buyer ruled it out: no price to quote
        parts.append("Public cloud is ruled out by your constraints, so no cloud price is quoted.")
    elif cloud is not None and cloud.value is not None:
        parts.append(
            f"Public cloud on-demand lists at {usd_rate(cloud.value, 'GPU-hour')}, paid only for "
            "the hours used."
        )
    return " ".join(parts) or "No rental price for this GPU in the catalogue."


def build_or_rent(c: Comparison) -> str:
    """Owned (build) against dedicated rent, by NPV, the break-even month included (on the
    discounted cumulative cost, OptionResult.breakeven_month_npv); cloud and managed are not an
    answer to it."""
    avail = [o for o in c.options if o.available]
    build = [o for o in avail if spec(o.option).billing in BUILD_BILLING]
    rent = [o for o in avail if spec(o.option).billing in RENT_BILLING]
    if not build or not rent:
        missing = "building" if not build else "renting"
        return f"Not compared: add a {missing} option on the Workload page to answer this."
    b = min(build, key=lambda o: o.npv_usd)
    r = min(rent, key=lambda o: o.npv_usd)
    cheap, dear = (b, r) if b.npv_usd <= r.npv_usd else (r, b)
    gap = dear.npv_usd - cheap.npv_usd
    rate = next((x.value for x in c.assumptions if x.key == "discount_rate_pct_per_year"), None)
    basis = f"at {rate:g} % a year" if rate is not None else "at the scenario's discount rate"
    text = (
        f"{'Build' if cheap is b else 'Rent'}, on net present value ({basis}, the one basis of "
        f"this answer): {cheap.label} costs {usd(cheap.npv_usd)} against {usd(dear.npv_usd)} for "
        f"{dear.label}, {usd(gap)} ({pct(gap / dear.npv_usd) if dear.npv_usd else '-'}) less over "
        f"{c.scenario.term.months} months."
    )
    # the break-even on the same discounted basis (the nominal one, on Compare's cumulative cost
    # chart, can fall in a month where the NPV still favours renting: issue 32)
    month = b.breakeven_month_npv.get(r.option)
    if month is not None:
        text += f" Owning catches up with renting in month {month}."
    elif cheap is r:
        text += " Owning does not catch up with renting within the term."
    text += f" {b.label} is ready on {on_day(b.ready_day)}, {r.label} on {on_day(r.ready_day)}."
    if c.recommendation.option not in (b.option, r.option) and c.recommendation.label:
        text += f" Of every option compared, {c.recommendation.label} costs least (see Compare)."
    return text


def deployment(c: Comparison) -> list[str]:
    lines = []
    for o in c.options:
        if not o.available:
            continue
        slowest = max(o.timeline, key=lambda p: p.end_day - p.start_day, default=None)
        why = (
            f" (longest phase: {slowest.phase}, {days(slowest.end_day - slowest.start_day)})"
            if slowest and slowest.end_day > slowest.start_day
            else ""
        )
        line = f"{o.label}: ready on {on_day(o.ready_day)}{why}"
        if o.first_result_day is not None:
            line += f"; first run done on {on_day(o.first_result_day)}"
        lines.append(line + ".")
    return lines


def maintenance(c: Comparison) -> str:
    """What running it takes, for the cluster the comparison costs (its GPUs, its failures, its
    staff and spares), with a staff share below one post said as part of an engineer's time and
    spares in whole servers; a portfolio names the training job its checkpoints are sized for."""
    t = c.training
    ops = c.operations
    gpu = get_gpu(t.gpu)
    fig = {a.key: a.value for a in c.assumptions}
    replaced = fig.get("part_replacement_pct_per_year")
    # a portfolio's figures are the engine's for the cluster it costs storage and checkpoints on
    # (pricing/planning/representative.py); its checkpoint is the representative job's
    p = c.portfolio
    checkpoint = f"{gib(t.checkpoint.size_gib)} every {t.checkpoint.interval_min:.0f} min"
    if p is not None:
        checkpoint += (
            f", for its training job {p.representative_workload} ({p.representative_model})"
            if p.representative_workload
            else f", sized for a {p.representative_model} run, as no workload here trains"
        )
    return (
        f"On the {gpus(t.gpus)} {'this portfolio is' if p is not None else 'this run is'} costed "
        f"on, expect about {ops.interruptions_per_week:.2g} job interruptions a week "
        f"({ops.failures_per_gpu_day:.2e} per GPU-day for {gpu.gpu_id}; "
        f"{_failure_source(gpu.notes)}), each costing a restart from the last checkpoint "
        f"({checkpoint}). Owning takes {_staff(ops.staff_fte, 'staff')} for operations, "
        f"{_spares(ops.spare_nodes)}, "
        + (f"{replaced:g} % of servers replaced a year, " if replaced is not None else "")
        + f"and {t.it_power_kw:,.0f} kW of IT power. Renting bare metal or cloud still takes "
        f"{_staff(ops.rented_staff_fte, 'engineers')} of the buyer's own for the scheduler, "
        "storage, software stack and job debugging. A managed service takes the operations on."
    )


def _peak(values: list[float]) -> tuple[float, int]:
    """(the largest value, its month counted from 1) of a monthly series."""
    i = max(range(len(values)), key=values.__getitem__)
    return values[i], i + 1


def portfolio_server_or_cluster(c: Comparison) -> str:
    """Server or cluster for a portfolio: by the most GPUs its demand needs at once."""
    p = c.portfolio
    gpu = get_gpu(c.scenario.cluster.gpu)
    node = gpu.gpus_per_node
    peak, month = _peak(p.peak_gpus)
    low, low_month = min((v, i + 1) for i, v in enumerate(p.peak_gpus))
    n = len(c.scenario.workloads)
    head = (
        f"A cluster: the {plural(n, 'workload')} together need up to {gpus(peak)} at once "
        f"(month {month}), more than one {node}-GPU {gpu.gpu_id} server holds."
        if peak > node
        else f"One server is enough: the {plural(n, 'workload')} together need at most "
        f"{gpus(peak)} at once (month {month}), and one {gpu.gpu_id} server holds {node}."
    )
    tail = f" {CLUSTER_ADDS}" if peak > node else ""
    return f"{head} The quietest month needs {gpus(low)} (month {low_month}).{tail}"


def portfolio_kind_lines(c: Comparison) -> list[str]:
    """One line per kind of work: its workloads with the GPU-hours each demands, and the kind's
    peak GPUs and busiest month (Comparison.portfolio, the cheapest option's workload records)."""
    p = c.portfolio
    option = c.option(c.recommendation.option) if c.recommendation.option else None
    option = option or next((o for o in c.options if o.available), None)
    delays = option.workload_delays if option else []
    lines = []
    for kind, peaks in p.peak_gpus_by_kind.items():
        peak, month = _peak(peaks)
        busiest, busiest_month = _peak(p.gpu_hours_by_kind[kind])
        named = ", ".join(
            f"{d.name} ({d.demanded_gpu_hours:,.0f} GPU-hours)" for d in delays if d.kind == kind
        )
        lines.append(
            f"{kind}: {named or 'no workload'}; up to {gpus(peak)} at once (month {month}), "
            f"{busiest:,.0f} GPU-hours in its busiest month (month {busiest_month})."
        )
    return lines


def portfolio_gpus(c: Comparison) -> list[str]:
    """How many GPUs for a portfolio: the demand month by month, a line per kind of work, and the
    size each option's capacity plan chose."""
    p = c.portfolio
    peak, month = _peak(p.gpu_hours)
    lines = [
        f"Demand: {p.gpu_hours[0]:,.0f} GPU-hours in month 1, {peak:,.0f} in the busiest month "
        f"(month {month}); {p.demanded_gpu_hours:,.0f} GPU-hours over {p.months} months, "
        f"{p.beyond_term_gpu_hours:,.0f} of them finishing after the term.",
        *portfolio_kind_lines(c),
    ]
    for o in c.options:
        if o.available and o.capacity_size_gpus:
            lines.append(f"{o.label}: {gpus(o.capacity_size_gpus)} ({o.capacity_rule}).")
    return lines


def portfolio_delays(c: Comparison) -> list[str]:
    """Per option: its ready day and the day its first run or job finishes, then which workloads
    wait for capacity and how long, what is still queued at the term end, and any work it can
    never serve (OptionResult fields)."""
    lines = []
    for o in c.options:
        if not o.available:
            continue
        line = f"{o.label}: ready on {on_day(o.ready_day)}"
        if o.first_result_day is not None:  # from the ready day on (capacity starts there)
            line += f"; first run done on {on_day(o.first_result_day)}"
        waits = [
            f"{d.name} waits up to {days(d.delay_days_max)} (mean {days(d.delay_days_mean)})"
            for d in o.workload_delays
            if d.delay_days_max
        ]
        line += "; " + ("; ".join(waits) if waits else "no workload waits for capacity")
        if (o.queued_gpu_hours or 0) >= 0.5:  # what rounds to 0 GPU-hours is not said
            line += f"; {o.queued_gpu_hours:,.0f} GPU-hours still queued at the term end"
        never = [d.name for d in o.workload_delays if d.never_served]
        if never:
            line += f"; never served: {', '.join(never)}"
        lines.append(line + ".")
    return lines


def answers(c: Comparison) -> dict[str, str | list[str]]:
    """Each of QUESTIONS with its answer (a paragraph, or a list of lines): the answers of the
    comparison's kind of scenario (`ANSWERS_OF`)."""
    return {q: answer(c) for q, answer in zip(QUESTIONS, ANSWERS_OF[c.scenario.kind], strict=True)}


#: the answer to each of QUESTIONS, in order, for each kind of scenario (models/scenario.py
#: `Scenario.kind`): a portfolio's own where its work is not one run's
ANSWERS_OF = {
    "run": (server_or_cluster, how_many_gpus, cluster_cost, build_or_rent, deployment, maintenance),
    "portfolio": (
        portfolio_server_or_cluster,
        portfolio_gpus,
        cluster_cost,
        build_or_rent,
        portfolio_delays,
        maintenance,
    ),
}


def render() -> None:
    import streamlit as st

    from app import state

    st.title("Guide")
    st.caption("The questions buyers ask first, answered for the scenario on the Workload page.")

    _, c = state.require_comparison("Working out the answers...")
    for question, answer in answers(c).items():
        st.subheader(question)
        if isinstance(answer, list):
            for line in answer:
                st.markdown(f"- {md_plain(line)}")
        else:
            st.markdown(md_plain(answer))
    st.subheader("Terms in plain words")
    for line in glossary.TERMS.values():
        st.markdown(f"- {md_plain(line)}")

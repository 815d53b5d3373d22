"""Guide: the six questions a buyer brings, each answered with this scenario's numbers.

`answers` builds the text from the Comparison's typed fields (and the curve helpers in
models/sizing.py) without recomputing anything the engine returned; `render` shows it.
"""

from __future__ import annotations

import re

from app import glossary
from app.formatting import (
    days,
    gib,
    gpus,
    md_plain,
    on_day,
    pct,
    plural,
    usd,
    usd_rate,
)
from models.hardware import get_gpu
from models.options import Billing, spec
from models.sizing import EFFICIENT_SCALING, efficient_size, marginal_days_per_1000_gpus
from pricing.results import Comparison

#: the six questions, in the order the page asks them
QUESTIONS = (
    "Do we need a server or a cluster?",
    "How many GPUs?",
    "What does renting cost?",
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


def _failure_source(gpu_notes: str) -> str:
    """The GPU table's own sentence on where its failure rate comes from."""
    said = next((part for part in re.split(r"\.\s", gpu_notes) if "failure" in part.lower()), "")
    return said.strip().rstrip(".") or "the GPU table's rate"


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
            text += f" More servers are for speed, not to fit. {plan}"
        return text
    fabric = t.fabric
    return (
        f"A cluster: the model does not fit on one {node}-GPU {gpu.gpu_id} server. Its weights, "
        f"gradients and optimizer state need at least {gpus(fewest)} "
        f"({plural(-(-fewest // node), 'server')}) of {gib(gpu.memory_gib)} each. {plan} "
        f"The servers are joined by a {fabric.tiers}-tier fat tree of "
        f"{plural(fabric.switches, 'switch')} and {plural(fabric.transceivers, 'optical transceiver')}."
    )


def how_many_gpus(c: Comparison) -> str:
    t = c.training
    label = {o.option: o.label for o in c.options}
    parts = []
    if t.min_gpus is not None:
        parts.append(f"Fewest that fit in memory: {gpus(t.min_gpus)}.")
    if t.deadline_sized_for is not None and t.train_days_budget is not None:
        parts.append(
            f"The deadline needs {gpus(t.gpus)}: {label.get(t.deadline_sized_for, t.deadline_sized_for)}, "
            f"the option that can deliver first, leaves "
            f"{days(t.train_days_budget)} to train, and {gpus(t.gpus)} finish a run in "
            f"{days(t.train_days)}."
        )
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
                    f" Going on to {gpus(nxt.gpus)} saves {marginal[i + 1]:,.1f} days per extra "
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
    if cloud is not None and cloud.value is not None:
        parts.append(
            f"Public cloud on-demand lists at {usd_rate(cloud.value, 'GPU-hour')}, paid only for "
            "the hours used."
        )
    return " ".join(parts) or "No rental price for this GPU in the catalogue."


def build_or_rent(c: Comparison) -> str:
    """Owned (build) against dedicated rent, by NPV; cloud and managed are not an answer to it."""
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
    text = (
        f"{'Build' if cheap is b else 'Rent'}: {cheap.label} costs NPV {usd(cheap.npv_usd)} "
        f"against {usd(dear.npv_usd)} for {dear.label}, {usd(gap)} "
        f"({pct(gap / dear.npv_usd) if dear.npv_usd else '-'}) less over "
        f"{c.scenario.term.months} months."
    )
    month = b.breakeven_month.get(r.option)
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
    t = c.training
    ops = c.operations
    gpu = get_gpu(t.gpu)
    fig = {a.key: a.value for a in c.assumptions}
    replaced = fig.get("part_replacement_pct_per_year")
    return (
        f"Expect about {ops.interruptions_per_week:.2g} job interruptions a week on "
        f"{gpus(t.gpus)} ({ops.failures_per_gpu_day:.2e} per GPU-day for {gpu.gpu_id}; "
        f"{_failure_source(gpu.notes)}), each costing a restart from the last checkpoint "
        f"({gib(t.checkpoint.size_gib)} every {t.checkpoint.interval_min:.0f} min). Owning means "
        f"an operations team of about {ops.staff_fte:.1f} full-time staff, "
        f"{ops.spare_nodes:.1f} spare {'node' if ops.spare_nodes == 1 else 'nodes'}, "
        + (f"{replaced:g} % of servers replaced a year, " if replaced is not None else "")
        + f"and {t.it_power_kw:,.0f} kW of IT power. Renting bare metal or cloud still needs about "
        f"{ops.rented_staff_fte:.1f} full-time engineers of the buyer's own for the scheduler, storage, "
        "software stack and job debugging. A managed service takes the operations on."
    )


def answers(c: Comparison) -> dict[str, str | list[str]]:
    """Each of QUESTIONS with its answer (a paragraph, or a list of lines)."""
    return dict(
        zip(
            QUESTIONS,
            (
                server_or_cluster(c),
                how_many_gpus(c),
                renting_cost(c),
                build_or_rent(c),
                deployment(c),
                maintenance(c),
            ),
            strict=True,
        )
    )


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

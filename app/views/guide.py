"""Guide: the questions a buyer brings, each answered with this scenario's numbers."""

import streamlit as st

from app import state
from app.formatting import days, md_plain, si, usd, usd_rate
from models.hardware import get_gpu
from models.options import Billing, spec
from models.units import BYTES_PER_GIB, HOURS_PER_MONTH


def render() -> None:
    st.title("Guide")
    st.caption("The questions buyers ask first, answered for the scenario on the Workload page.")

    sc, c = state.require_comparison("Working out the answers...")

    t = c.training
    gpu = get_gpu(t.gpu)
    fig = {a.key: a.value for a in c.assumptions}
    node = gpu.gpus_per_node

    st.subheader("Do we need a server or a cluster?")
    smallest = t.min_gpus
    if smallest is not None and smallest <= node:
        st.write(
            f"The model fits on one {node}-GPU {gpu.gpu_id} server ({smallest} GPU(s) at least). "
            f"On the {t.gpus:,} GPUs planned, one run takes {days(t.train_days)}."
        )
    else:
        st.write(
            f"A cluster: {t.gpus:,} {gpu.gpu_id} GPUs in {t.nodes:,} nodes of {node}, joined by a "
            f"{t.fabric.tiers}-tier fat tree of {t.fabric.switches:,} switches and "
            f"{t.fabric.transceivers:,} optical transceivers"
            + (
                f"; the model needs at least {smallest:,} GPUs to fit in memory."
                if smallest
                else "."
            )
        )

    st.subheader("How many GPUs?")
    curve = t.curve
    line = f"{t.gpus:,} GPUs ({t.sizing}): one run in {days(t.train_days)} at {t.mfu:.0%} MFU."
    if len(curve) >= 2:
        last = curve[-1]
        line += (
            f" With {last.gpus:,} GPUs a run would take {days(last.train_days)} at "
            f"{last.scaling_efficiency:.0%} scaling efficiency"
        )
        line += (
            ": past a point, more GPUs buy little time."
            if last.scaling_efficiency < 0.7
            else "; the Compare page's scaling chart shows where returns diminish."
        )
    st.write(line)

    st.subheader("What does renting cost?")
    rent = next((o for o in c.options if spec(o.option).billing is Billing.RENT), None)
    rate = fig.get("rent_usd_per_gpu_hour")
    if rate is not None:
        monthly = rate * t.gpus * HOURS_PER_MONTH
        st.write(
            f"A dedicated {gpu.gpu_id} cluster rents at about {usd_rate(rate)} per GPU-hour for this term, "
            f"{usd(monthly)} a month for {t.gpus:,} GPUs"
            + (
                f", {usd(rent.total_usd)} over {sc.term.months} months with storage and support."
                if rent
                else "."
            )
            + f" Public cloud on-demand lists at {usd_rate(fig.get('cloud_on_demand_usd_per_gpu_hour'))}."
        )

    st.subheader("Build or rent?")
    st.write(c.recommendation.why + ".")
    for f in c.flip_points[:4]:
        st.markdown(f"- {md_plain(f.text)}")

    st.subheader("How long does deployment take?")
    for o in c.options:
        if not o.available:
            continue
        slowest = max(o.timeline, key=lambda p: p.end_day - p.start_day, default=None)
        why = (
            f" (longest phase: {slowest.phase}, {days(slowest.end_day - slowest.start_day)})"
            if slowest
            else ""
        )
        st.markdown(
            f"- **{o.label}**: ready in {days(o.ready_day)}{why}; first run done on day "
            f"{o.first_result_day:,.0f}."
            if o.first_result_day is not None
            else f"- **{o.label}**: ready in {days(o.ready_day)}{why}."
        )

    st.subheader("What does maintenance need?")
    ops = c.operations
    st.write(
        f"Expect about {ops.interruptions_per_week:.1f} job interruptions a week on {t.gpus:,} GPUs "
        f"({ops.failures_per_gpu_day:.1e} per GPU-day, Llama 3's rate for H100), each costing a restart from the last "
        f"checkpoint ({si(t.checkpoint.size_gib * BYTES_PER_GIB, 'B')} every {t.checkpoint.interval_min:.0f} min). "
        f"Owning means an operations team of about {ops.staff_fte:.0f} people, {ops.spare_nodes:.1f} spare node(s), "
        f"{fig.get('part_replacement_pct_per_year', 0):g} % of servers replaced a year, and "
        f"{t.it_power_kw:,.0f} kW of IT power. Renting bare metal or cloud still needs about "
        f"{ops.rented_staff_fte:.1f} engineer(s) of the buyer's own for the scheduler, storage, software "
        "stack and job debugging. A managed service takes the operations on and restarts faster."
    )

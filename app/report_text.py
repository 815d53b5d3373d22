"""Plain-text tables of a training plan, for the terminal."""

from __future__ import annotations

from collections.abc import Mapping

from app.formatting import (
    band,
    bridge_lines,
    capacity_size,
    constraints_line,
    days,
    deadline_miss,
    deadline_sizing,
    depreciation_text,
    efficient_size_advice,
    gpus,
    on_day,
    pct,
    plan_length,
    plural,
    scaling_note,
    steady_state_text,
    term_text,
    training_run_text,
    usd_rate,
)
from app.formatting import si as _si
from app.formatting import usd as _usd
from app.idle_text import IDLE_HEADING, idle_gang_lines
from app.range_text import resale_line
from app.recommendation_text import headline, reasons, service_notes
from app.site_text import site_lines
from app.time_value_text import time_value_lines
from models.scenario import Execution
from models.training.plan import TrainingPlan
from models.units import DAYS_PER_MONTH
from models.validation.stacks import load_stacks
from pricing import price_checks
from pricing.catalogue import freshness
from pricing.results import Comparison


def _rows(rows: list[tuple[str, str]]) -> str:
    width = max(len(k) for k, _ in rows)
    return "\n".join(f"{k.ljust(width)}  {v}" for k, v in rows)


def attention_text(kernel: str, gpu: str | None = None) -> str:
    """The attention kernel as the GPU runs it: 'cudnn' (Transformer Engine's fused attention) is
    cuDNN on NVIDIA and Composable Kernel on AMD's ROCm build of Transformer Engine (same rates:
    models/constants.py ATTENTION_EFFICIENCY), so on an AMD GPU it reads 'TE fused (CK)'."""
    from models.serving.builds import is_amd

    return "TE fused (CK)" if kernel == "cudnn" and gpu and is_amd(gpu) else kernel


def execution_text(execution: Execution | Mapping | None, gpu: str | None = None) -> str:
    """'tuned Megatron-Core / NeMo | attention cudnn | TP comm overlap off | gradients fp32' (the
    software stack's name from models/validation/stacks.py; the kernel as `gpu` runs it,
    `attention_text`), and '| weights fp8' with FP8 parameters (written only when on); 'defaults'
    when the plan has none.

    Takes the scenario's `Execution`, or the plan's `TrainingPlan.execution` (its dump)."""
    if execution is None or (isinstance(execution, Mapping) and not execution):
        return "defaults"
    if isinstance(execution, Mapping):
        execution = Execution.model_validate(execution)
    attention = attention_text(execution.attention, gpu)
    return (
        f"{load_stacks()[execution.software_stack].name} | attention {attention} | TP comm overlap {'on' if execution.tp_comm_overlap else 'off'}"
        f" | gradients {execution.gradient_precision}"
        + (" | weights fp8" if execution.fp8_params else "")
    )


def _training_head(p: TrainingPlan) -> str:
    """The report's first line: the model, its parameters, the GPUs and how they were sized."""
    return (
        f"{p.model.name} ({_si(p.model.params)} params"
        + (f", {_si(p.model.active_params)} active" if p.model.experts > 1 else "")
        + f") on {p.gpus:,} x {p.gpu}  [sizing: {p.sizing}"
        + (
            f"; smallest that fits: {gpus(p.min_gpus)}"
            if p.min_gpus and p.sizing != "smallest that fits"
            else ""
        )
        + "]"
    )


def moe_step_text(step: Mapping[str, float]) -> str:
    """The MoE terms of a step, already inside its compute (models/training/moe_cost.py): the
    expert all-to-all left exposed and the routed experts' GEMM time beyond the balanced
    large-GEMM rate (small experts below the rate, the busiest rank's extra tokens); empty for a
    dense model."""
    a2a, gemm = step.get("moe_all_to_all", 0.0), step.get("moe_grouped_gemm", 0.0)
    if a2a <= 0 and gemm <= 0:
        return ""
    return f"of the compute, MoE all-to-all {a2a:.2f} s and small or uneven experts' GEMMs {gemm:.2f} s"


def small_model_step_text(p: TrainingPlan) -> str:
    """The share of a plan's step that does not shrink with the per-GPU work (the fixed per-step
    costs and the small-GEMM slowdown, models/training/small_gemm.py; TrainingPlan.small_model_share);
    empty where it is 0 (the terms are off by default, and on only ZeRO-3 plans pay them)."""
    if p.small_model_share <= 0:
        return ""
    return f"fixed per-step costs and small GEMMs: {pct(p.small_model_share)} of the step"


def _run_rows(p: TrainingPlan) -> list[tuple[str, str]]:
    """The rows of the run itself: layout, execution, memory, step time, efficiency, throughput,
    steps and one run's length."""
    lay, mem, step = p.layout, p.memory_gib_per_gpu, p.step_breakdown_s
    mem_parts = ", ".join(f"{k} {v:.1f}" for k, v in mem.items() if k != "total" and v >= 0.05)
    step_parts = ", ".join(
        f"{k.replace('_', ' ')} {step[k]:.2f}"
        for k in (
            "compute",
            "pipeline_bubble",
            "pipeline_p2p",
            "data_parallel",
            "optimizer",
        )
        + (("fixed_per_step",) if step.get("fixed_per_step", 0.0) > 0 else ())
    )
    moe = moe_step_text(step)
    return [
        (
            "Layout",
            f"TP {lay.tp}{f' | CP {lay.cp}' if lay.cp > 1 else ''} | PP {lay.pp} | DP {lay.dp}"
            f" | EP {lay.ep} | ZeRO-{lay.zero}"
            f" | recompute {lay.recompute} | micro-batch {lay.micro_batch}"
            f" | interleave {lay.interleave} | sequence parallel {'on' if lay.sequence_parallel else 'off'}",
        ),
        ("Execution", execution_text(p.execution, p.gpu)),
        (
            "Memory per GPU",
            f"{mem['total']:.1f} GiB of {p.memory_capacity_gib:g} GiB ({mem_parts})",
        ),
        (
            "Step time",
            f"{p.step_time_s:.3g} s ({step_parts} s{'; ' + moe if moe else ''})"
            + (f"; {small}" if (small := small_model_step_text(p)) else ""),
        ),
        ("Efficiency", f"MFU {pct(p.mfu, 1)}, {p.model_tflops_per_gpu:.0f} model TFLOP/s per GPU"),
        ("Throughput", f"{_si(p.tokens_per_s)} tokens/s ({p.tokens_per_s / p.gpus:,.0f} per GPU)"),
        ("Steps", f"{p.steps:,} of {_si(p.global_batch_tokens)} tokens"),
        (
            "One run",
            plan_length(p) + f", {_si(p.gpu_hours)} GPU-hours",
        ),
        ("Steady state", steady_state_text(p)),
    ]


def _infrastructure_rows(p: TrainingPlan) -> list[tuple[str, str]]:
    """The rows of what the run needs around it: failures, checkpoints, storage, fabric, and the
    layout search."""
    rel, fab = p.reliability, p.fabric
    return [
        (
            "Failures",
            f"job MTBF {rel.mtbf_hours:.1f} h, {plural(rel.expected_failures, 'failure')} expected,"
            f" restart {rel.restart_s / 60:.0f} min",
        ),
        (
            "Checkpoint",
            f"{p.checkpoint.size_gib:,.0f} GiB, written in {p.checkpoint.write_s:.0f} s at"
            f" {p.checkpoint.write_bandwidth_gbyte_per_s:,.0f} GB/s, every {p.checkpoint.interval_min:.0f} min",
        ),
        (
            "Storage",
            f"checkpoint writes need {p.storage.checkpoint_write_gbyte_per_s_needed:,.1f} GB/s for <= 1 % overhead;"
            f" dataset {p.storage.dataset_tb:,.1f} TB read at {p.storage.dataset_read_mbyte_per_s:,.1f} MB/s",
        ),
        (
            "Fabric",
            f"{plural(fab.nodes, 'node')}, {fab.endpoints:,} NIC ports x {fab.nic_gbit_per_s:g} Gb/s: {fab.tiers}-tier fat tree,"
            f" {fab.leaf_switches:,} leaf + {fab.spine_switches:,} spine"
            f"{' (two tiers)' if fab.tiers == 4 else ''} + {fab.core_switches:,} core switches,"
            f" {fab.transceivers:,} transceivers",
        ),
        (
            "Search",
            f"{p.search.layouts_evaluated:,.0f} layouts evaluated, {p.search.layouts_fitting:,.0f} fit,"
            f" {p.search.seconds:.2f} s",
        ),
    ]


def _training_rows(p: TrainingPlan) -> list[tuple[str, str]]:
    """Every row of the report's table, with the deadline the run was sized for and the model's
    likely range, where the plan has them."""
    rows = _run_rows(p) + _infrastructure_rows(p)
    if p.train_days_budget is not None:
        rows.insert(
            rows.index(next(r for r in rows if r[0] == "One run")) + 1,
            ("Deadline", f"sized to finish a run within {days(p.train_days_budget)}"),
        )
    likely = band(p.train_days_low, p.train_days_high).strip().strip("()")
    if likely:
        rows.append(
            (
                "Uncertainty",
                f"{likely}: the whole-run expectation's error range on published whole runs, each "
                "source left out of the fit in turn (clusterplan validate)",
            )
        )
    return rows


def _curve_lines(p: TrainingPlan) -> list[str]:
    """The table of training time against GPU count, with the chosen count marked ([] without a
    curve)."""
    out: list[str] = []
    if p.curve:
        out.append(
            "\nTraining time against GPU count (diminishing returns show as falling efficiency)"
        )
        out.append(
            f"{'GPUs':>8} {'step s':>8} {'MFU':>7} {'ideal':>11} {'whole run':>13}"
            f" {'GPU-hours':>11} {'efficiency':>10}"
        )
        for c in p.curve:
            mark = "  <- chosen" if c.gpus == p.gpus else ""
            out.append(
                f"{c.gpus:>8,} {c.step_time_s:>8.2f} {pct(c.mfu, 1):>7} {days(c.ideal_days):>11}"
                f" {days(c.train_days):>13} {_si(c.gpu_hours):>11}"
                f" {pct(c.scaling_efficiency):>10}{mark}"
            )
    return out


def training_report(p: TrainingPlan, answer=None) -> str:
    """`clusterplan train`'s tables: the plan's fields written by the shared number rules
    (models/numbers.py: days, pct, gpus, run_length), as the portal and the PDF write them;
    `answer` (pricing/results.py DeadlineAnswer): how a deadline sized it, as Compare says it."""
    rows = _training_rows(p)
    if answer is not None:
        said = deadline_sizing(
            answer.deadline_days, answer.label, answer.ready_day, answer.first_result_day
        )
        rows = [
            ("Deadline", said.removeprefix("Sized ")) if k == "Deadline" else (k, v)
            for k, v in rows
        ]
    out = [_training_head(p), _rows(rows)]
    advice = efficient_size_advice(p.gpus, p.efficient, deadline=p.sizing == "deadline")
    if advice:
        out.append(advice)
    if scaling := scaling_note(p.scaling, p.layout):
        out.append(scaling)
    out += _curve_lines(p)
    return "\n".join(out)


def _label(c: Comparison, option: str) -> str:
    """An option's label for its id (the id itself if the comparison has no such option)."""
    return next((o.label for o in c.options if o.option == option), option)


def _run_head(c: Comparison) -> str:
    t = c.training
    return (
        f"{t.model} on {t.gpus:,} x {t.gpu}: one run takes {days(t.train_days)}, the whole run"
        f" (steady state {days(t.steady_days)}, {days(t.ideal_days)} ideal, goodput "
        f"{pct(t.goodput, 1)}); {term_text(c.scenario.term)}"
    )


def _portfolio_head(c: Comparison) -> str:
    return portfolio_head(c) + f"\nRepresentative run: {training_run_text(c)}"


def comparison_report(c: Comparison) -> str:
    """`clusterplan compare`'s text: the kind's head (`_HEAD_OF`), the options, the decision
    support, then the kind's own sections (`_TAIL_OF`: a portfolio's demand and capacity)."""
    head = _HEAD_OF[c.scenario.kind](c)
    cols = f"{'option':20} {'total':>11} {'NPV':>11} {'$/GPU-h':>8} {'$/run':>11} {'ready':>9} {'first result':>12}"
    lines = [head]
    lines += deadline_sizing_line(c)
    lines += constraints_line(c) + site_lines(c)  # app/formatting.py, app/site_text.py
    lines += bridge_lines(c)
    lines += ["", cols]
    for o in c.options:
        if not o.available:
            lines.append(f"{o.label:20} not available: {o.note}")
            continue
        first, rate = on_day(o.first_result_day), usd_rate(o.usd_per_gpu_hour)
        lines.append(
            f"{o.label:20} {_usd(o.total_usd):>11} {_usd(o.npv_usd):>11} {rate:>8}"
            f" {_usd(o.usd_per_training_run):>11} {on_day(o.ready_day):>9} {first:>12}"
            + ("" if o.completes_workload else f"   ({o.note})")
        )
    deadline = c.scenario.cluster.deadline_days
    misses = [o for o in c.options if o.meets_deadline is False]
    if misses:
        lines.append("")
        lines += [
            deadline_miss(o.label, deadline, o.first_result_day, o.days_past_deadline)
            for o in misses
        ]
    lines += ["", after_tax_line(c)] + time_value_lines(c)  # app/time_value_text.py
    lines += [r for r in [resale_line(c)] if r]  # app/range_text.py
    lines += ["", "Recommendation: " + headline(c.recommendation)]
    lines += [f"  - {line}" for line in reasons(c.recommendation)]
    if c.idle_gang:  # app/idle_text.py: an option held mostly idle by a rare run, the remedy
        lines += ["", f"{IDLE_HEADING}:"] + [f"  {line}" for line in idle_gang_lines(c)]
    if c.stale_prices:
        lines += ["", f"Prices older than 12 months (catalogue as of {c.catalogue_as_of}):"]
        lines += [f"  {freshness.stale_line(p)}" for p in c.stale_prices]
    if c.planner_defaults:
        lines.append(freshness.planner_defaults_line(c))
    if c.price_inversions:
        lines += ["", f"{price_checks.INVERSIONS_HEADING}:"]
        lines += [f"  {price_checks.inversion_line(p)}" for p in c.price_inversions]
    s = c.sensitivity
    if s is not None:
        lines += [
            "",
            f"What moves the gap between {_label(c, s.cheapest)} and {_label(c, s.runner_up)} "
            f"(base {_usd(s.base_gap_usd)}), each input -25 % / +25 % (a ranged one to its "
            "range's ends):",
        ]
        for bar in s.bars[:8]:
            lines.append(
                f"  {bar.label:28} {_usd(bar.gap_low_usd):>11} {_usd(bar.gap_high_usd):>11}"
            )
    u = c.uncertainty
    if u is not None:
        lines += [
            "",
            f"Uncertainty ({u.draws:,} draws): NPV P10 / P50 / P90, chance of being cheapest",
        ]
        for o, q in u.options.items():
            lines.append(
                f"  {_label(c, o):20} {_usd(q.p10_usd):>11} {_usd(q.p50_usd):>11} {_usd(q.p90_usd):>11}"
                f"  {pct(q.probability_cheapest):>5}"
            )
    if c.flip_points:
        lines += ["", "Flip points:"] + [f"  {f.text}" for f in c.flip_points]
    lines += _TAIL_OF[c.scenario.kind](c)
    return "\n".join(lines)


# ------------------------------------------------ a portfolio's demand and capacity (version 2)
# The tables below are the PDF's "Demand and capacity" section and `compare`'s, cell for cell:
# each is a header row and rows of text, every number read from the engine's fields
# (pricing/results.py OptionResult, Comparison.portfolio).


def gpu_hours(x: float | None) -> str:
    """GPU-hours as a whole number with thousands separators; '-' for none."""
    return "-" if x is None else f"{x:,.0f}"


def portfolio_head(c: Comparison) -> str:
    """'3 workloads (2 teams) on H100-SXM: 1.2 M GPU-hours demanded ...; term 36 months'."""
    s, p = c.scenario, c.portfolio
    teams = len({w.team for w in s.workloads})
    return (
        f"Portfolio of {len(s.workloads)} workloads ({teams} team{'s' if teams != 1 else ''}) on "
        f"{s.cluster.gpu}: {gpu_hours(p.demanded_gpu_hours)} GPU-hours demanded, peak "
        f"{max(p.peak_gpus, default=0):,.0f} GPUs; {term_text(s.term)}"
    )


def _portfolio_options(c: Comparison) -> list:
    return [o for o in c.options if o.available and o.capacity_gpus]


def capacity_rows(c: Comparison) -> list[list[str]]:
    """Per option: its capacity plan's size and the term's GPU-hours demanded, served, queued
    (released, not started by the term end), beyond the term (started, finishing after) and idle."""
    rows = [["Option", "Size (GPUs)", "Demanded", "Served", "Queued", "Beyond term", "Idle"]]
    for o in _portfolio_options(c):
        size = capacity_size(o)
        rows.append(
            [
                o.label,
                size,
                *map(
                    gpu_hours,
                    (
                        o.demanded_gpu_hours,
                        o.served_gpu_hours,
                        o.queued_gpu_hours,
                        o.beyond_term_gpu_hours,
                        o.idle_gpu_hours,
                    ),
                ),
            ]
        )
    return rows


def term_month(day: float) -> int:
    """The month of the term a day from the decision falls in, counted from 1 as the charts and
    the CSV count months."""
    return int(day // DAYS_PER_MONTH) + 1


def refresh_lines(o) -> list[str]:
    """An owned option's hardware refreshes as read from `OptionResult.hardware_refreshes`:
    'refresh at month 22: new 1,024 GPUs ready day 640, old sold day 640'."""
    return [
        f"refresh at month {term_month(r.ready_day)}: new {r.gpus:,} GPUs ready "
        f"{on_day(r.ready_day)}, old sold {on_day(r.replaced_sold_day)}"
        for r in o.hardware_refreshes
    ]


def _delay(d) -> str:
    if d is None or d.delay_days_max is None:
        return "-"
    return f"{d.delay_days_max:,.1f} / {d.delay_days_mean or 0:,.1f}"


def delay_rows(c: Comparison) -> list[list[str]]:
    """Per workload and option: the longest and the mean wait in days (`WorkloadDelay`)."""
    options = _portfolio_options(c)
    rows = [["Workload", "Team", "Kind", *(o.label for o in options)]]
    by_option = [{d.name: d for d in o.workload_delays} for o in options]
    for w in c.scenario.workloads:
        rows.append([w.name, w.team, w.kind, *(_delay(d.get(w.name)) for d in by_option)])
    return rows


def delay_notes(c: Comparison) -> list[str]:
    """Why some workloads' runs are never served on an option's plan, one line each; then each
    option's service level (app/recommendation_text.py service_notes)."""
    return service_notes(_portfolio_options(c)) + [
        f"{o.label}, {d.name}: {d.never_served}"
        for o in _portfolio_options(c)
        for d in o.workload_delays
        if d.never_served
    ]


def chargeback_rows(c: Comparison) -> list[list[str]]:
    """Per team and option: its share of the option's total cost (`chargeback_usd`), then the
    option's total."""
    options = _portfolio_options(c)
    teams = list(dict.fromkeys(t for o in options for t in o.chargeback_usd))
    rows = [["Team", *(o.label for o in options)]]
    rows += [[t, *(_usd(o.chargeback_usd.get(t)) for o in options)] for t in teams]
    rows.append(["Total", *(_usd(o.total_usd) for o in options)])
    return rows


#: what the serving cost table's figures are (the page, the PDF and the terminal say the same)
TOKEN_COST_NOTE = (
    "each serving workload's share of an option's total cost (as the chargeback shares it) per "
    "million output tokens it serves over the term"
)


def token_cost_rows(c: Comparison) -> list[list[str]]:
    """Per serving workload and option: its cost per million output tokens
    (`usd_per_million_output_tokens`); only the header when the portfolio serves nothing."""
    options = _portfolio_options(c)
    names = list(dict.fromkeys(w for o in options for w in o.usd_per_million_output_tokens))
    rows = [["Serving workload", *(o.label for o in options)]]
    rows += [
        [w, *(usd_rate(o.usd_per_million_output_tokens.get(w)) for o in options)] for w in names
    ]
    return rows


def monthly_capacity_rows(c: Comparison) -> list[list[str]]:
    """Per month: the GPU-hours demanded, then the GPUs each option holds (`capacity_gpus`; the
    CSV has the GPU-hours served and idle too)."""
    options = _portfolio_options(c)
    rows = [["Month", "Demand (GPU-hours)", *(f"{o.label} (GPUs)" for o in options)]]
    if not options:
        return rows
    for m, demand in enumerate(options[0].demand_gpu_hours):
        rows.append(
            [str(m + 1), gpu_hours(demand), *(f"{o.capacity_gpus[m]:,.1f}" for o in options)]
        )
    return rows


def text_table(rows: list[list[str]], indent: str = "  ") -> list[str]:
    """Rows as aligned text: the first column left, the others right."""
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return [
        indent
        + "  ".join(
            cell.ljust(w) if i == 0 else cell.rjust(w)
            for i, (cell, w) in enumerate(zip(row, widths, strict=True))
        ).rstrip()
        for row in rows
    ]


def portfolio_report(c: Comparison) -> str:
    """The demand and capacity tables of a portfolio (the PDF's section of the same name)."""
    lines = ["Demand and capacity (GPU-hours over the term):"]
    lines += text_table(capacity_rows(c))
    lines += [f"  {o.label}: {o.capacity_rule}" for o in _portfolio_options(c) if o.capacity_rule]
    lines += ["", "Delay per workload (days: longest / mean):"]
    lines += text_table(delay_rows(c))
    lines += [f"  {n}" for n in delay_notes(c)]
    lines += ["", "Chargeback by team (nominal USD over the term):"]
    lines += text_table(chargeback_rows(c))
    if len(tokens := token_cost_rows(c)) > 1:
        lines += ["", f"Serving cost per million output tokens ({TOKEN_COST_NOTE}):"]
        lines += text_table(tokens)
    lines += ["", "Monthly capacity (GPUs held) against demand:"]
    lines += text_table(monthly_capacity_rows(c))
    return "\n".join(lines)


def deadline_sizing_line(c: Comparison) -> list[str]:
    """How a deadline sized the cluster, as one line (none without a deadline)."""
    t, deadline = c.training, c.scenario.cluster.deadline_days
    sized_for = c.option(t.deadline_sized_for) if t.deadline_sized_for else None
    if deadline is None or sized_for is None or t.train_days_budget is None:
        return []
    advice = efficient_size_advice(t.gpus, t.efficient)
    return [
        deadline_sizing(deadline, sized_for.label, sized_for.ready_day, sized_for.first_result_day),
        *([advice] if advice else []),
    ]


def comparison_csv(c: Comparison) -> str:
    import csv
    import io

    months = len(c.options[0].monthly_usd) if c.options else 0
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(
        [
            "option",
            "label",
            "available",
            "total_usd",
            "npv_usd",
            "usd_per_gpu_hour",
            "usd_per_training_run",
            "ready_day",
            "first_result_day",
        ]
        + [f"month_{m + 1}_usd" for m in range(months)]
    )
    for o in c.options:
        w.writerow(
            [
                o.option,
                o.label,
                o.available,
                f"{o.total_usd:.2f}",
                f"{o.npv_usd:.2f}",
                "" if o.usd_per_gpu_hour is None else f"{o.usd_per_gpu_hour:.4f}",
                "" if o.usd_per_training_run is None else f"{o.usd_per_training_run:.2f}",
                f"{o.ready_day:.1f}",
                "" if o.first_result_day is None else f"{o.first_result_day:.1f}",
            ]
            + [f"{v:.2f}" for v in o.monthly_usd]
        )
    return buf.getvalue()


def after_tax_line(c: Comparison) -> str:
    """The after-tax NPVs in one line, with the tax rate and depreciation period they use."""
    figures = {a.key: a.value for a in c.assumptions}
    parts = ", ".join(f"{o.label} {_usd(o.npv_after_tax_usd)}" for o in c.options if o.available)
    how = depreciation_text(c.scenario, figures.get("depreciation_years", 0))
    return f"NPV after tax ({figures.get('tax_rate_pct', 0):g} % tax, {how}): {parts}"


def accuracy_line() -> str:
    """How close the training model comes, in both modes, and the whole-run expectation's scores
    and its band's coverage on the runs it is fitted on, each left out in turn (clusterplan
    validate; models/validation/training.py modes_summary, models/validation/whole_run.py): one
    sentence for reports. Every batch added after the first fit is now in the fit (amendment 5 of
    docs/reference/whole-run-model.md), so no unseen batch is quoted."""
    from models.validation.training import modes_summary  # only reports with a plan need it
    from models.validation.whole_run import whole_run_scores

    modes = {(m["mode"], m["kind"]): m for m in modes_summary()}
    pub, w = modes[("published plan", "gpu_hours")], whole_run_scores()
    loo = w["leave_one_out"]
    return (
        f"Model accuracy on whole-run GPU-hours (clusterplan validate): given the published plan, "
        f"median error {pub['model_median']:.0%} over {pub['rows']} runs; with the planner's own plan, "
        f"steady state median {w['pre_fit']['all']['median_abs_error']:.0%}, whole-run expectation "
        f"median {loo['all']['median_abs_error']:.0%} (signed {loo['all']['signed_median']:+.0%}) "
        f"over {len(w['rows'])} runs, each with its source left out of the fit, rule of thumb "
        f"{w['rule_of_thumb']['median_abs_error']:.0%}. The band contains {loo['band_coverage']:.0%} "
        "of them; no run outside the fit has been scored against this form yet"
    )


#: each kind of scenario's (models/scenario.py `Scenario.kind`) head of `comparison_report` and
#: the sections it adds after the options and the decision support
_HEAD_OF = {"run": _run_head, "portfolio": _portfolio_head}
_TAIL_OF = {"run": lambda c: [], "portfolio": lambda c: ["", portfolio_report(c)]}

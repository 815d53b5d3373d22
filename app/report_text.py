"""Plain-text tables of a training plan, for the terminal."""

from __future__ import annotations

from models.training import TrainingPlan


def _si(x: float, unit: str = "") -> str:
    for div, suffix in ((1e15, " P"), (1e12, " T"), (1e9, " B"), (1e6, " M"), (1e3, " k")):
        if abs(x) >= div:
            return f"{x / div:.3g}{suffix}{unit}"
    return f"{x:.3g} {unit}".rstrip()


def _rows(rows: list[tuple[str, str]]) -> str:
    width = max(len(k) for k, _ in rows)
    return "\n".join(f"{k.ljust(width)}  {v}" for k, v in rows)


def training_report(p: TrainingPlan) -> str:
    lay, mem, step, rel, fab = p.layout, p.memory_gib_per_gpu, p.step_breakdown_s, p.reliability, p.fabric
    head = (
        f"{p.model['name']} ({_si(p.model['params'])} params"
        + (f", {_si(p.model['active_params'])} active" if p.model["experts"] > 1 else "")
        + f") on {p.gpus:,} x {p.gpu}  [sizing: {p.sizing}"
        + (f"; smallest that fits: {p.min_gpus:,}" if p.min_gpus and p.sizing != "smallest that fits" else "")
        + "]"
    )
    mem_parts = ", ".join(
        f"{k} {v:.1f}" for k, v in mem.items() if k != "total" and v >= 0.05
    )
    step_parts = ", ".join(
        f"{k.replace('_', ' ')} {step[k]:.2f}"
        for k in ("compute", "pipeline_bubble", "pipeline_p2p", "data_parallel", "optimizer")
    )
    rows = [
        ("Layout", f"TP {lay['tp']} | PP {lay['pp']} | DP {lay['dp']} | EP {lay['ep']} | ZeRO-{lay['zero']}"
                   f" | recompute {lay['recompute']} | micro-batch {lay['micro_batch']}"
                   f" | interleave {lay['interleave']} | sequence parallel {'on' if lay['sequence_parallel'] else 'off'}"),
        ("Memory per GPU", f"{mem['total']:.1f} GiB of {p.memory_capacity_gib:g} GiB ({mem_parts})"),
        ("Step time", f"{p.step_time_s:.3g} s ({step_parts} s)"),
        ("Efficiency", f"MFU {p.mfu:.1%}, {p.model_tflops_per_gpu:.0f} model TFLOP/s per GPU"),
        ("Throughput", f"{_si(p.tokens_per_s)} tokens/s ({p.tokens_per_s / p.gpus:,.0f} per GPU)"),
        ("Steps", f"{p.steps:,} of {_si(p.global_batch_tokens)} tokens"),
        ("Ideal time", f"{p.ideal_days:.1f} days (no failures)"),
        ("Goodput", f"{p.goodput:.1%}: job MTBF {rel.mtbf_hours:.1f} h, {rel.expected_failures:.0f} failures expected,"
                    f" restart {rel.restart_s / 60:.0f} min"),
        ("Wall clock", f"{p.train_days:.1f} days, {_si(p.gpu_hours)} GPU-hours"),
        ("Checkpoint", f"{p.checkpoint['size_gib']:,.0f} GiB, written in {p.checkpoint['write_s']:.0f} s at"
                       f" {p.checkpoint['write_bandwidth_gbyte_per_s']:,.0f} GB/s, every {p.checkpoint['interval_min']:.0f} min"),
        ("Storage", f"checkpoint writes need {p.storage['checkpoint_write_gbyte_per_s_needed']:,.1f} GB/s for <= 1 % overhead;"
                    f" dataset {p.storage['dataset_tb']:,.1f} TB read at {p.storage['dataset_read_mbyte_per_s']:,.1f} MB/s"),
        ("Fabric", f"{fab.nodes:,} nodes, {fab.endpoints:,} NIC ports x {fab.nic_gbit_per_s:g} Gb/s: {fab.tiers}-tier fat tree,"
                   f" {fab.leaf_switches:,} leaf + {fab.spine_switches:,} spine + {fab.core_switches:,} core switches,"
                   f" {fab.transceivers:,} transceivers"),
        ("Search", f"{p.search['layouts_evaluated']:,.0f} layouts evaluated, {p.search['layouts_fitting']:,.0f} fit,"
                   f" {p.search['seconds']:.2f} s"),
    ]
    out = [head, _rows(rows)]
    if p.curve:
        out.append("\nTraining time against GPU count (diminishing returns show as falling efficiency)")
        out.append(f"{'GPUs':>8} {'step s':>8} {'MFU':>6} {'ideal d':>8} {'wall d':>8} {'GPU-hours':>11} {'efficiency':>10}")
        for c in p.curve:
            mark = "  <- chosen" if c.gpus == p.gpus else ""
            out.append(f"{c.gpus:>8,} {c.step_time_s:>8.2f} {c.mfu:>6.1%} {c.ideal_days:>8.1f} {c.train_days:>8.1f}"
                       f" {_si(c.gpu_hours):>11} {c.scaling_efficiency:>10.0%}{mark}")
    return "\n".join(out)

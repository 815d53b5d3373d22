"""`clusterplan validate`'s text tables of the training model's held-out whole runs
(models/validation/training.py): the planner's plans with the band, the runs at their source's own
layout, and both modes side by side.
"""

from __future__ import annotations

from models.constants import BAND_COVERAGE
from models.validation.training import HELDOUT_TARGETS, band_summary
from models.validation.training_predict import RULE_GOODPUT
from models.validation.training_scores import summarise


def source_layout_report(rows: list[dict]) -> str:
    """`clusterplan validate`'s table of held-out runs at their source's own layout."""
    lines = [
        "\n== Held-out runs at the layout their source published (diagnostic; not the planner's "
        "plan) ==",
        f"{'row':22} {'stack class':20} {'layout (source)':34} {'MFU':>5} {'published':>10} "
        f"{'model':>10} {'error':>7} {'planner':>8}",
    ]
    for r in rows:
        lines.append(
            f"{r['id']:22} {r['stack_class']:20} {r['layout']:34} {r['mfu']:>5.0%} "
            f"{r['published']:>10.4g} {r['predicted']:>10.4g} {r['error']:>+7.1%} "
            f"{r['planner_error']:>+8.1%}{'' if r['fits'] else '  REJECTED by the memory model'}"
        )
    if rows:
        s = summarise([r["error"] for r in rows])
        lines.append(
            f"{s['rows']} runs at their source's layout: median {s['median_abs_error']:.1%}, worst "
            f"{s['worst_abs_error']:.1%}; planner: the error with the planner's layout (above); "
            "*: micro-batch not published, the fastest that fits"
        )
    return "\n".join(lines)


def heldout_report(res: dict) -> str:
    """`clusterplan validate`'s table of the held-out whole runs (validate_heldout)."""
    lines = [
        "\n== Held-out whole runs, the planner choosing the layout "
        "(models/data/validation/whole_runs_heldout.csv) ==",
        f"{'row':22} {'stack class':20} {'GPUs':>7} {'layout (planner)':34} {'MFU':>5} "
        f"{'published':>10} {'model':>10} {'error':>7} {'rule':>7}",
    ]
    for r in res["rows"]:
        gpus = f"{r['gpus']:,}{'+' if r['gpus_chosen'] else ''}"
        lines.append(
            f"{r['id']:22} {r['stack_class']:20} {gpus:>7} {r['layout']:34} {r['mfu']:>5.0%} "
            f"{r['published']:>10.4g} {r['predicted']:>10.4g} {r['error']:>+7.1%} {r['rule_error']:>+7.1%}"
        )
    m, t = res["model"], res["rule_of_thumb"]
    lines.append(
        f"GPU-hours, {m['rows']} runs: model median {m['median_abs_error']:.1%}, worst "
        f"{m['worst_abs_error']:.1%} (signed {m['min_error']:+.1%} to {m['max_error']:+.1%}); rule of "
        f"thumb (6ND at {res['rule_of_thumb_mfu']:.1%} MFU picked after the fact on these rows, "
        f"/{RULE_GOODPUT:g} goodput) median {t['median_abs_error']:.1%}, worst {t['worst_abs_error']:.1%}"
    )
    f = res["rescaling_floor"]
    lines.append(
        f"floor: the model x one factor picked after the fact on these rows is at best median "
        f"{f['median_abs_error']:.1%} (x{f['median_factor']:.2f}) and at best worst "
        f"{f['worst_abs_error']:.1%} (x{f['worst_factor']:.2f}); issue 16's targets: "
        f"{HELDOUT_TARGETS[0]:.0%} / {HELDOUT_TARGETS[1]:.0%}"
    )
    for c, f in res.get("rescaling_floor_by_scope", {}).items():
        lines.append(
            f"  floor, scope {c:14} median {f['median_abs_error']:.1%} (x{f['median_factor']:.2f}), "
            f"worst {f['worst_abs_error']:.1%} (x{f['worst_factor']:.2f})"
        )
    for c, s in res["by_stack_class"].items():
        lines.append(
            f"  {c:20} {s['rows']:>3} runs: median {s['median_abs_error']:.1%}, worst "
            f"{s['worst_abs_error']:.1%}, signed {s['min_error']:+.1%} to {s['max_error']:+.1%}"
        )
    for c, s in res["by_size_class"].items():
        lines.append(
            f"  size {c:15} {s['rows']:>3} runs: median {s['median_abs_error']:.1%}, worst "
            f"{s['worst_abs_error']:.1%}, signed {s['min_error']:+.1%} to {s['max_error']:+.1%}"
        )
    for c, s in res.get("by_gpu_count", {}).items():
        lines.append(
            f"  {c:20} {s['rows']:>3} runs: median {s['median_abs_error']:.1%}, worst "
            f"{s['worst_abs_error']:.1%}, signed {s['min_error']:+.1%} to {s['max_error']:+.1%}"
        )
    for c, s in res.get("by_scope", {}).items():
        lines.append(
            f"  scope {c:14} {s['rows']:>3} runs: median {s['median_abs_error']:.1%}, worst "
            f"{s['worst_abs_error']:.1%}, signed {s['min_error']:+.1%} to {s['max_error']:+.1%}"
        )
    b = band_summary()
    lines.append(
        f"band (train_days_low-high), split-conformal at {BAND_COVERAGE:.0%}: of a class's n sorted "
        f"signed errors the floor((n+1)*{(1 - BAND_COVERAGE) / 2:g})-th to the "
        f"ceil((n+1)*{1 - (1 - BAND_COVERAGE) / 2:g})-th; plans use their model's size class:"
    )
    for c in [*b["classes"], b["overall"]]:
        lines.append(
            f"  {c['size_class']:20} {c['runs']:>3} runs: errors {c['low']:+.0%} to {c['high']:+.0%} "
            f"(derived {c['derived'][0]:+.0%} to {c['derived'][1]:+.0%}), planned days "
            f"x{c['days_factor_low']:.2f} to x{c['days_factor_high']:.2f}; contains "
            f"{c['coverage']:.0%} of them"
        )
    lines.append(
        f"  coverage of the {b['runs']} held-out runs by their own class's band: {b['coverage']:.0%} "
        f"in sample; each run against the band the rule gives from the other runs (leave one out): "
        f"{b['leave_one_out_coverage']:.0%}"
    )
    lines.append(
        "+: GPU count not published; the planner's efficient size (the largest power-of-two node "
        "count whose run keeps at least 80% scaling efficiency)"
    )
    return "\n".join(lines)


def modes_report(modes: list[dict], band: dict) -> str:
    """`clusterplan validate`'s side-by-side table of the two modes (modes_summary) and the band."""
    lines = [
        "\n== Both modes side by side (|predicted / published - 1|; rule of thumb = 6ND at one MFU "
        "picked after the fact per table) ==",
        f"{'mode':15} {'kind':34} {'rows':>12} {'model median':>13} {'model worst':>12} "
        f"{'rule median':>12} {'rule worst':>11}",
    ]
    for m in modes:
        rows = f"{m['rows']}" + (
            f" ({m['calibration_rows']} cal.)" if m["calibration_rows"] else ""
        )
        lines.append(
            f"{m['mode']:15} {m['kind']:34} {rows:>12} {m['model_median']:>13.1%} "
            f"{m['model_worst']:>12.1%} {m['rule_median']:>12.1%} {m['rule_worst']:>11.1%}"
        )
    lines.append(
        f"band on planned days (planner's plan): contains {band['coverage']:.0%} of the "
        f"{band['runs']} held-out whole runs (their size class's band), "
        f"{band['leave_one_out_coverage']:.0%} left out of their band's derivation one at a time; "
        "cal.: rows that set a constant"
    )
    return "\n".join(lines)

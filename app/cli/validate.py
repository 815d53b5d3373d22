"""`clusterplan validate`: the model against published runs and benchmarks
(models/data/validation/)."""

from __future__ import annotations

import argparse

from app.cli.common import UsageError, print_json


def register(sub) -> None:
    v = sub.add_parser(
        "validate",
        help="the model against published runs and benchmarks (models/data/validation/runs.csv)",
    )
    v.add_argument(
        "--json", action="store_true", help="print every row and the error summary as JSON"
    )


def run(args: argparse.Namespace) -> int:
    # imported here: only this command needs it
    from models.validation import finetune as FV
    from models.validation import memory as MV
    from models.validation import mlperf, silicon
    from models.validation import moe_throughput as MT
    from models.validation import serving as SV
    from models.validation.training import (
        band_summary,
        modes_summary,
        validate,
        validate_heldout,
        validate_heldout_source_layout,
    )
    from models.validation.training_report import (
        heldout_report,
        modes_report,
        source_layout_report,
    )
    from models.validation.whole_run import added_scores, never_fitted_scores, whole_run_scores
    from models.validation.whole_run_report import whole_run_report

    try:
        result = validate()
        result_heldout = validate_heldout()
        serving, finetune = SV.validate(), FV.validate()
        memory = MV.validate_memory()
    except (OSError, ValueError, KeyError) as exc:
        raise UsageError(f"clusterplan validate: validation data: {exc}") from None
    if args.json:
        print_json(
            "clusterplan validate",
            {
                **result,
                "heldout_whole_runs": result_heldout,
                "band": band_summary(),
                "whole_run": {
                    k: v for k, v in whole_run_scores().items() if k not in ("rows", "in_sample")
                },
                "whole_run_added": added_scores(),
                "whole_run_never_fitted": never_fitted_scores(),
                "moe_throughput": MT.as_json(),
                "inference": serving,
                "finetune": finetune,
                "finetune_framework_classes": finetune_classes(),
                "memory": memory,
                "modes": modes_summary(result, result_heldout),
                "serving_measured": silicon.as_json(),
                "mlperf_offline": mlperf.as_json(),
                **builds_json(),
                **third_party_json(),
            },
            default=str,
        )
        return 0
    print_rows(result)
    print_errors_per_kind(result)
    print_by_source(result)
    print_misses(result["misses"])
    print(heldout_report(result_heldout))
    print(whole_run_report())
    print(source_layout_report(validate_heldout_source_layout()))
    print("\n== MoE pre-training throughput (models/data/validation/moe_throughput.csv) ==")
    print("\n".join(MT.report_lines()))
    print(modes_report(modes_summary(result, result_heldout), band_summary()))
    print(MV.memory_report(memory))
    print("\n== Inference serving (models/data/validation/inference.csv) ==")
    print(SV.report(serving))
    print("\n== Serving, measured (models/data/validation/aiconfigurator_silicon.csv) ==")
    print("\n".join(silicon.report_lines()))
    print("\n== Serving, MLPerf Inference Offline (models/data/validation/mlperf_offline.csv) ==")
    print("\n".join(mlperf.report_lines()))
    print_builds()
    print_third_party()
    print_finetune(FV.report(finetune))
    return 0


def builds_json() -> dict:
    """The engine builds' measured rows (ROCm builds; older CUDA releases) for --json."""
    from models.validation import amd, older_cuda

    return {"serving_amd": amd.as_json(), "serving_older_cuda": older_cuda.as_json()}


def print_builds() -> None:
    """The engine builds' measured rows: ROCm builds, then older CUDA releases."""
    from models.validation import amd, older_cuda

    print("\n== Serving on AMD GPUs, measured (models/data/validation/amd_serving.csv) ==")
    print("\n".join(amd.report_lines()))
    print(
        "\n== Serving on older CUDA releases, measured "
        "(models/data/validation/older_cuda_serving.csv) =="
    )
    print("\n".join(older_cuda.report_lines()))


def third_party_json() -> dict:
    """The third-party serving sets' --json entries, in the order validate prints them."""
    from models.validation import inferencemax, thirdparty_moe
    from models.validation import thirdparty_serving3 as TP3
    from models.validation import thirdparty_serving4 as TP4
    from models.validation import thirdparty_serving5 as TP5

    return {
        "serving_inferencemax": inferencemax.as_json(),
        "serving_thirdparty_moe": thirdparty_moe.as_json(),
        "serving_thirdparty_3": TP3.as_json(),
        "serving_thirdparty_4": TP4.as_json(),
        "serving_thirdparty_5": TP5.as_json(),
    }


def print_third_party() -> None:
    """The third-party serving sets, each scored once and never fitted: InferenceMAX, DeepSeek-R1,
    the third set, the fourth and the fifth (docs/reference/serving-evidence.md, twentieth,
    twenty-second, twenty-fifth, twenty-seventh and thirty-first amendments)."""
    from models.validation import inferencemax, thirdparty_moe
    from models.validation import thirdparty_serving3 as TP3
    from models.validation import thirdparty_serving4 as TP4
    from models.validation import thirdparty_serving5 as TP5

    print("\n== Serving, third party: InferenceMAX (models/data/validation/inferencemax.csv) ==")
    print("\n".join(inferencemax.report_lines()))
    print("\n== Serving, third party: DeepSeek-R1 (models/data/validation/thirdparty_moe.csv) ==")
    print("\n".join(thirdparty_moe.report_lines()))
    print(
        "\n== Serving, third party: third set (models/data/validation/thirdparty_serving3.csv) =="
    )
    print("\n".join(TP3.report_lines()))
    print(
        "\n== Serving, third party: fourth set (models/data/validation/thirdparty_serving4.csv) =="
    )
    print("\n".join(TP4.report_lines()))
    print(
        "\n== Serving, third party: fifth set (models/data/validation/thirdparty_serving5.csv) =="
    )
    print("\n".join(TP5.report_lines()))


def finetune_classes() -> dict:
    """Amendment 4's framework-class fit and its leave-one-source-out score (fine-tuning)."""
    from models.validation.finetune_classes import leave_one_source_out

    return leave_one_source_out()


def print_finetune(report: str) -> None:
    """The fine-tuning block: every row and batch, then amendment 4's framework classes."""
    from models.validation.finetune_classes import report_lines

    print("\n== Fine-tuning (models/data/validation/finetune.csv) ==")
    print(report)
    print("\n".join(report_lines(finetune_classes())))


def print_rows(result: dict) -> None:
    """The table of every row: its inputs, layout, published and modelled figures, both errors."""
    from models.validation.training import UNITS

    print(
        f"{'row':34} {'inputs':40} {'layout':36} {'published':>11} {'model':>11} {'error':>7} {'rule':>7}  unit"
    )
    for r in result["rows"]:
        gpus = f"{r['gpus']:,}{'*' if r['gpus_assumed'] else ''}"
        inputs = f"{r['model']} {gpus}x{r['gpu']} s{r['seq_len']} b{r['global_batch_seqs']} {r['precision']}"
        layout = r["layout"] + ("" if r["layout_fits"] else " #")
        print(
            f"{r['id']:34} {inputs:40} {layout:36} {r['published']:>11.4g} {r['predicted']:>11.4g} "
            f"{r['error']:>+7.1%} {r['rule_error']:>+7.1%}  {UNITS[r['unit']]}{'' if r['scored'] else '  [not scored]'}"
        )


def print_errors_per_kind(result: dict) -> None:
    """The model's and the rule of thumb's errors per kind: scored, held-out and all rows."""
    mfu = result["rule_of_thumb_mfu"]
    print(
        f"\nerrors per kind (|predicted / published - 1|); rule of thumb = 6ND at {mfu:.1%} MFU, "
        f"/{result['rule_of_thumb_goodput']:g} goodput for whole runs, MFU picked after the fact"
    )
    for title, key in (
        ("scored rows", "by_kind"),
        ("held-out rows (scored, not used to set any constant)", "by_kind_held_out"),
        ("all rows, [not scored] included", "by_kind_all_rows"),
    ):
        print(
            f"{title}:\n{'kind':12} {'rows':>4} {'model median':>13} {'model worst':>12} {'beyond':>7} "
            f"{'rule median':>12} {'rule worst':>11}"
        )
        for kind, s in result[key].items():
            m, t = s["model"], s["rule_of_thumb"]
            print(
                f"{kind:12} {m['rows']:>4} {m['median_abs_error']:>13.1%} {m['worst_abs_error']:>12.1%} "
                f"{len(m['beyond_worst_target']):>7} {t['median_abs_error']:>12.1%} {t['worst_abs_error']:>11.1%}"
            )


def print_by_source(result: dict) -> None:
    """The errors per source, the targets, what the table's marks mean, the figures not used."""
    from models.validation.training import TARGETS

    print(
        f"by source, every row (bias = mean error in speed, + = the model optimistic: faster or cheaper):\n"
        f"{'source':46} {'rows':>4} {'scored':>6} {'median':>7} {'worst':>7} {'bias':>7}"
    )
    for g in result["by_source"]:
        print(
            f"{g['source']:46} {g['rows']:>4} {g['scored_rows']:>6} {g['median_abs_error']:>7.1%} "
            f"{g['worst_abs_error']:>7.1%} {g['bias']:>+7.1%}"
        )
    targets = ", ".join(f"{k} {m:.0%}/{w:.0%}" for k, (m, w) in TARGETS.items())
    print(f"targets (median/worst): {targets}; beyond: rows over the worst-case target")
    print(
        "[not scored]: the row's notes in models/data/validation/runs.csv say why; *: GPU count not published, "
        "the count shown is assumed (the row's notes say why); #: the source ran this layout, the "
        "memory model says it does not fit"
    )
    print(
        f"{len(result['skipped'])} published figures not used (models/data/validation/skipped.csv says why)"
    )


def print_misses(m: dict) -> None:
    """The scored rows beyond the worst-case target, each read against the rows beside it."""
    print(
        "\nscored rows beyond the worst-case target, read against the rows beside them (models/data/validation/misses.csv):"
    )
    for e in m["explained"]:
        others = ", ".join(
            f"{o['id']} {o['error']:+.1%}" for o in e["compare_with"] if o["error"] is not None
        )
        print(
            f"- {e['id']} {e['error']:+.1%} (memory model: {e['memory_share']:.0%} of HBM); beside: {others}\n"
            f"  differs: {e['what_differs']}\n  likely cause: {e['likely_cause']}"
        )
    if m["unexplained"]:
        print(
            f"- not explained in models/data/validation/misses.csv: {', '.join(m['unexplained'])}"
        )

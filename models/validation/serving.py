"""The serving model against published inference measurements (`models/data/validation/inference.csv`).

Each row is predicted with its published settings: GPU, GPUs and TP, precision, input and output
tokens, and the batch where the source gives it; a max-throughput row without a batch gets the
batch with the most output tokens per GPU among those whose KV cache fits (the engine's max load).
Kinds: `throughput` (output tokens/s per GPU) and `ttft` (time to first token of one request, ms).

Beside it the rule of thumb a buyer would use: decode tokens/s per GPU = HBM bandwidth ÷ weight bytes
× batch (the same batch as the model's), and for TTFT 2 · params · input tokens at the dense peak.
No row sets a constant (the declared fit of SERVE_STEP_OVERHEAD_S_PER_LAYER was not adopted; see
models/constants.py), so every row is held out.
"""

from __future__ import annotations

import csv
import functools
import statistics

from models import DATA_DIR
from models.hardware import get_gpu
from models.serving.plan import ServeInputs, evaluate, plan_serving
from models.shapes import get_preset
from models.validation.training_scores import rescaling_floor

ROOT = DATA_DIR / "validation"
ROWS = ROOT / "inference.csv"
SKIPPED = ROOT / "inference_skipped.csv"
#: rows SERVE_STEP_OVERHEAD_S_PER_LAYER was to be fitted on (declared before the model was scored);
#: the fit was not adopted (models/constants.py), so no row sets a constant and all are held out
CALIBRATION_PREFIXES: tuple[str, ...] = ()
#: the declared calibration rows, for bench/serve_calibration.py
DECLARED_CALIBRATION_PREFIXES = ("trt061-h100-llama2-70b-",)
#: the issue's targets on held-out rows, output tokens/s per GPU: (median, worst) absolute error
TARGETS = {"throughput": (0.15, 0.35), "ttft": (0.15, 0.35)}
UNITS = {"output_tokens_per_s_per_gpu": "output tokens/s/GPU", "ttft_ms": "ms to first token"}
#: the software generation of each (engine, version) in inference.csv. The model assumes the newest
#: (models/serving/engines.py SOFTWARE_GENERATION); every row stays scored whatever its generation (the errors
#: were seen before this label was added, so it changes no scoring), and the errors are shown per
#: generation so an older engine's bias is visible. Versions: TensorRT-LLM's docs/source/performance.md
#: (0.5, 0.6.1: gptSessionBenchmark, static batching) and perf-overview.md (trtllm-bench, in-flight).
SOFTWARE_GENERATIONS = {
    ("TensorRT-LLM", "0.5"): "2023 static batching",
    ("TensorRT-LLM", "0.6.1"): "2023 static batching",
    ("TensorRT-LLM", "0.8a, XQA off"): "2024 static, no XQA",
    ("TensorRT-LLM", "0.8a, XQA on"): "2024 static, XQA",
    (
        "TensorRT-LLM (PyTorch backend)",
        "perf-overview at commit 03e27c7d",
    ): "2025 in-flight batching",
}
#: generations whose decode attention reads each K/V head once per query head of its group (no
#: grouped-query kernel: TensorRT-LLM before XQA, which NVIDIA's XQA-kernel blog dates to v0.8);
#: their rows are predicted with serving.evaluate(grouped_kv_decode=False). Added 2026-11-30 after
#: the 2023 Llama 2 70B long-output rows were seen 2.2–2.3× too fast (models/constants.py).
UNGROUPED_KV_DECODE = {"2023 static batching", "2024 static, no XQA"}
#: the generation models/serving/plan.py assumes
ASSUMED_GENERATION = "2025 in-flight batching"


def load_rows() -> list[dict]:
    with ROWS.open(newline="") as f:
        return list(csv.DictReader(f))


def load_skipped() -> list[dict]:
    with SKIPPED.open(newline="") as f:
        return list(csv.DictReader(f))


def inputs_of(row: dict) -> ServeInputs:
    return ServeInputs(
        model=row["model"],
        gpu=row["gpu"],
        precision=row["precision"],
        kv_precision=row["kv_precision"] or None,
        input_tokens=int(row["input_tokens"]),
        output_tokens=int(row["output_tokens"]),
        gpus=int(row["tp"]),
        batch=int(row["batch"]) if row["batch"] else None,
    )


def grouped_kv_decode(row: dict) -> bool:
    """Whether the row's engine reads each K/V head once per query group (UNGROUPED_KV_DECODE)."""
    gen = SOFTWARE_GENERATIONS.get((row["engine"], row["engine_version"]), "unlisted")
    return gen not in UNGROUPED_KV_DECODE


def predict(row: dict) -> dict:
    inp = inputs_of(row)
    grouped = grouped_kv_decode(row)
    if inp.batch:  # the published batch, whether or not the memory model agrees that it fits
        r = evaluate(inp, [inp.gpus], [1], [inp.batch], grouped)
        shape, gpu = get_preset(inp.model), get_gpu(inp.gpu)
        rule_s = (
            2
            * shape.params_active
            * inp.input_tokens
            / (inp.gpus * gpu.peak_tflops(inp.precision) * 1e12)
        )
        if row["kind"] == "ttft":
            return {
                "predicted": float(r["t_prefill"][0]) * 1e3,
                "rule": rule_s * 1e3,
                "batch": 1,
                "fits": bool(r["fits"][0]),
            }
        return {
            "predicted": float(r["out_tps_gpu"][0]),
            "rule": float(r["rule_tps_gpu"][0]),
            "batch": inp.batch,
            "fits": bool(r["fits"][0]),
        }
    plan = plan_serving(inp, grouped)
    return {
        "predicted": plan.output_tokens_per_s_per_gpu,
        "rule": plan.rule_of_thumb_tokens_per_s_per_gpu,
        "batch": plan.batch,
        "fits": True,
    }


def summarise(errors: list[float]) -> dict:
    a = [abs(e) for e in errors]
    return {
        "rows": len(a),
        "median_abs_error": statistics.median(a) if a else None,
        "worst_abs_error": max(a) if a else None,
        "min_error": min(errors) if a else None,
        "max_error": max(errors) if a else None,
    }


@functools.cache
def validate() -> dict:
    return _validate()


def _validate() -> dict:
    out = []
    for row in load_rows():
        p = predict(row)
        pub = float(row["published"])
        out.append(
            {
                **{
                    k: row[k]
                    for k in (
                        "id",
                        "kind",
                        "model",
                        "gpu",
                        "precision",
                        "unit",
                        "engine",
                        "engine_version",
                        "date",
                        "source",
                        "notes",
                    )
                },
                "tp": int(row["tp"]),
                "input_tokens": int(row["input_tokens"]),
                "output_tokens": int(row["output_tokens"]),
                "batch": p["batch"],
                "batch_published": bool(row["batch"]),
                "fits": p["fits"],
                "published": pub,
                "predicted": p["predicted"],
                "rule_of_thumb": p["rule"],
                "error": p["predicted"] / pub - 1,
                "rule_error": p["rule"] / pub - 1,
                "scored": row["scored"] != "0",
                "calibration": row["id"].startswith(CALIBRATION_PREFIXES),
                "software_generation": SOFTWARE_GENERATIONS.get(
                    (row["engine"], row["engine_version"]), "unlisted"
                ),
            }
        )

    def per_kind(rows):
        res = {}
        for kind in TARGETS:
            sel = [r for r in rows if r["kind"] == kind]
            if sel:
                res[kind] = {
                    "model": summarise([r["error"] for r in sel]),
                    "rule_of_thumb": summarise([r["rule_error"] for r in sel]),
                    "beyond_worst_target": [
                        r["id"] for r in sel if abs(r["error"]) > TARGETS[kind][1]
                    ],
                    # what one factor picked after the fact on these rows could reach
                    "floor": rescaling_floor(
                        [r["predicted"] for r in sel], [r["published"] for r in sel]
                    ),
                }
        return res

    scored = [r for r in out if r["scored"]]
    return {
        "rows": out,
        "by_kind": per_kind(scored),
        "by_kind_held_out": per_kind([r for r in scored if not r["calibration"]]),
        "by_kind_all_rows": per_kind(out),
        "by_generation": by_generation(out),
        "assumed_generation": ASSUMED_GENERATION,
        "skipped": load_skipped(),
    }


def by_generation(rows: list[dict]) -> list[dict]:
    """Per software generation and kind: rows, median and worst |error|, and the bias (mean error,
    + = the model faster than published for throughput, slower for TTFT)."""
    out = []
    for gen in sorted({r["software_generation"] for r in rows}):
        for kind in TARGETS:
            errs = [
                r["error"] for r in rows if r["software_generation"] == gen and r["kind"] == kind
            ]
            if errs:
                out.append(
                    {
                        "software_generation": gen,
                        "kind": kind,
                        "assumed_by_model": gen == ASSUMED_GENERATION,
                        **summarise(errs),
                        "bias": statistics.fmean(errs),
                    }
                )
    return out


def report(result: dict) -> str:
    """The rows, the errors per kind for scored, held-out and all rows beside the rule of thumb's, and
    the errors per software generation, as `clusterplan validate` prints them."""
    lines = [
        f"{'row':40} {'GPUs':>4} {'in/out':>11} {'batch':>6} {'published':>10} {'model':>10} "
        f"{'error':>7} {'rule':>8}  software"
    ]
    for r in result["rows"]:
        b = f"{r['batch']}{'' if r['batch_published'] else '*'}{'' if r['fits'] else '#'}"
        lines.append(
            f"{r['id']:40} {r['tp']:>4} {r['input_tokens']:>5}/{r['output_tokens']:<5} {b:>6} "
            f"{r['published']:>10.4g} {r['predicted']:>10.4g} {r['error']:>+7.1%} {r['rule_error']:>+8.0%}"
            f"  {r['software_generation']}"
            + ("" if r["scored"] else "  [not scored]")
            + ("  [calibration]" if r["calibration"] else "")
        )
    lines.append(
        "*: batch not published, the one with the most output tokens/s per GPU that fits (max load); "
        "#: the memory model finds the published batch does not fit"
    )
    lines.append(
        "errors per kind (|predicted / published - 1|); rule of thumb = HBM bandwidth / weight bytes x batch "
        "(TTFT: 2 x params x prompt at dense peak)"
    )
    for title, key in (
        ("scored rows", "by_kind"),
        ("held-out rows (scored, not used to set any constant)", "by_kind_held_out"),
        ("all rows, [not scored] included", "by_kind_all_rows"),
    ):
        lines.append(
            f"{title}:\n{'kind':12} {'rows':>4} {'model median':>13} {'model worst':>12} {'beyond':>7} "
            f"{'rule median':>12} {'rule worst':>11}"
        )
        for kind, s in result[key].items():
            m, t = s["model"], s["rule_of_thumb"]
            lines.append(
                f"{kind:12} {m['rows']:>4} {m['median_abs_error']:>13.1%} {m['worst_abs_error']:>12.1%} "
                f"{len(s['beyond_worst_target']):>7} {t['median_abs_error']:>12.1%} {t['worst_abs_error']:>11.1%}"
            )
    targets = ", ".join(f"{k} {m:.0%}/{w:.0%}" for k, (m, w) in TARGETS.items())
    lines.append(
        f"targets on held-out rows (median/worst): {targets}; beyond: rows over the worst-case target"
    )
    for kind, s in result["by_kind_held_out"].items():
        f = s["floor"]
        lines.append(
            f"floor, {kind}: the model x one factor picked after the fact on the held-out rows is at "
            f"best median {f['median_abs_error']:.1%} (x{f['median_factor']:.2f}) and at best worst "
            f"{f['worst_abs_error']:.1%} (x{f['worst_factor']:.2f})"
        )
    lines.append(
        f"by software generation (the model assumes {result['assumed_generation']}; bias = mean error):\n"
        f"{'generation':26} {'kind':10} {'rows':>4} {'median':>7} {'worst':>7} {'bias':>7}"
    )
    for g in result["by_generation"]:
        lines.append(
            f"{g['software_generation']:26} {g['kind']:10} {g['rows']:>4} {g['median_abs_error']:>7.1%} "
            f"{g['worst_abs_error']:>7.1%} {g['bias']:>+7.1%}"
        )
    lines.append(
        f"{len(result['skipped'])} published figures not used (models/data/validation/inference_skipped.csv says why)"
    )
    return "\n".join(lines)


if __name__ == "__main__":
    print(report(validate()))

"""The serving model against NVIDIA AIConfigurator's measured serving rows
(`models/data/validation/aiconfigurator_silicon.csv`, 5,221 end-to-end measurements of TensorRT-LLM,
SGLang and vLLM on H100 to GB300). The held-out split, the model's form as first scored and the
mapping of the file's models, GPUs, precisions and layouts were written down before the first score
(docs/reference/serving-evidence.md, 2026-12-01); what is fitted on the file (the engines' factors
and time-to-first-token constants, a MoE layer's fixed step) is fitted on tuning rows only.

Each expressible row is predicted at its own layout and concurrency with `models/serving/plan.py`
`evaluate`: an aggregated row's TPOT = t_step + B · t_prefill / O; a disaggregated row's TPOT = the
decode pool's t_step. TTFT (the ninth amendment, models/serving/engines.py `first_token_s`) = the
engine's a + t_prefill · (k + w · (C − 1)) + t_step, C the requests in flight on the request's
prefill server (`in_flight`), plus the K/V transfer for a disaggregated row (the prefill pool's
t_prefill, the decode pool's first step). Errors are predicted / measured − 1, reported per
split, backend, GPU and model class (dense, MoE)."""

from __future__ import annotations

import csv
import functools
import hashlib
import statistics
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from models import DATA_DIR
from models.errors import InputError
from models.hardware import get_gpu
from models.serving.engines import ENGINE_OF_BACKEND, ENGINES, first_token_s
from models.serving.plan import ServeInputs, evaluate
from models.serving.precision import serves_weight_only, weight_only
from models.shapes import get_preset
from models.validation.summaries import p90

ROWS = DATA_DIR / "validation" / "aiconfigurator_silicon.csv"
#: the file's models that have a preset (docs/reference/serving-evidence.md, "The mapping")
MODELS = {
    "meta-llama/Llama-3.1-70B": "llama3-70b",
    "meta-llama/Llama-3.1-8B-Instruct": "llama3.1-8b",
    "nvidia/Llama-3.1-8B-Instruct-FP8": "llama3.1-8b",
    "deepseek-ai/DeepSeek-R1": "deepseek-v3-like",
    "deepseek-ai/DeepSeek-V3": "deepseek-v3-like",
    "nvidia/DeepSeek-R1-NVFP4": "deepseek-v3-like",
    "nvidia/DeepSeek-V3.1-NVFP4": "deepseek-v3-like",
    # the third amendment (docs/reference/serving-evidence.md)
    "Qwen/Qwen3-32B": "qwen3-32b",
    "nvidia/Qwen3-32B-NVFP4": "qwen3-32b",
    "Qwen/Qwen3-235B-A22B-FP8": "qwen3-235b-a22b",
    # the sixth amendment
    "openai/gpt-oss-120b": "gpt-oss-120b",
    "MiniMaxAI/MiniMax-M2.5": "minimax-m2.5",
    "moonshotai/Kimi-K2.5": "kimi-k2.5",
    # the twelfth amendment: hybrid linear attention and sparse attention
    "Qwen/Qwen3.5-397B-A17B": "qwen3.5-397b-a17b",
    "zhipuai/GLM-5": "glm-5",
}
#: the models the twelfth amendment mapped: the fits of the earlier amendments (bench/) read the rows
#: of the models mapped when they were made, so they reproduce as they were
TWELFTH_MODELS = frozenset({"Qwen/Qwen3.5-397B-A17B", "zhipuai/GLM-5"})
GPUS = {
    "h100_sxm": "H100-SXM",
    "h200_sxm": "H200",
    "b200_sxm": "B200",
    "gb200": "GB200",
    # the eleventh amendment (2026-12-02): Blackwell Ultra, held out whole by the split
    "b300_sxm": "B300",
    "gb300": "GB300",
}
#: the whole GPU generation held out (Blackwell Ultra), whatever the hash says
HELD_OUT_SYSTEMS = frozenset({"b300_sxm", "gb300"})
#: one row in this many is held out, by the SHA-256 of its id
HELD_OUT_MODULUS = 10
#: the thirty-sixth amendment (2026-12-03): INT4 weight-only (`int4_wo`) as the planner's int4
PRECISIONS = {"bf16": "bf16", "fp8": "fp8", "fp4": "fp4", "int4": "int4"}


def held_out(row: dict) -> bool:
    """The split of docs/reference/serving-evidence.md: a fixed tenth by the id's SHA-256, and
    every Blackwell Ultra row."""
    digest = int(hashlib.sha256(row["id"].encode("utf-8")).hexdigest(), 16)
    return digest % HELD_OUT_MODULUS == 0 or row["system"] in HELD_OUT_SYSTEMS


def weight_only_row(row: dict) -> bool:
    """Whether the row runs weights the planner serves weight-only (`precision.weight_only`): FP4
    without FP4 tensor cores (the thirty-fifth amendment) or INT4 (the thirty-sixth)."""
    precision = _precision(row)
    return (
        row["system"] in GPUS
        and precision is not None
        and weight_only(GPUS[row["system"]], precision)
    )


def weight_only_fp4_row(row: dict) -> bool:
    """A weight-only row of FP4 weights: the thirty-fifth amendment's."""
    return weight_only_row(row) and _precision(row) == "fp4"


def load_rows(*, weight_only: bool = True) -> list[dict]:
    """The file's rows; without the weight-only rows (`weight_only` False: the thirty-fifth and
    thirty-sixth amendments) for the fits made before them (bench/), so that they reproduce as they
    were."""
    with ROWS.open(newline="") as f:
        rows = list(csv.DictReader(f))
    return rows if weight_only else [r for r in rows if not weight_only_row(r)]


def _size(cell: str) -> int:
    """A layout size as the file writes it: empty or 0 reads as 1."""
    return int(cell) if cell not in ("", "0") else 1


@dataclass(frozen=True)
class Pool:
    """One pool's layout: tensor-parallel GPUs, attention data-parallel groups of them (the
    experts spread over tp · dp GPUs) and the sequences in flight on one group."""

    tp: int
    batch: int
    dp: int = 1
    #: workers of the pool (a disaggregated row's; 1 for an aggregated row)
    workers: int = 1


def _pool(row: dict, prefix: str, moe: bool) -> tuple[Pool | None, str | None]:
    """(the pool of `prefix` ("" for an aggregated row, "prefill_", "decode_"), None) or (None,
        why it cannot be expressed). The MoE sizes are checked for a MoE model only (a dense model's
        rows write them as 1; docs/reference/serving-evidence.md, the first amendment). A pool with no
    batch size is not expressible (the fourth amendment: its workers are not in the file). Attention
    data-parallel groups (`attention_dp_size`) are expressed as such (the eighth amendment)."""
    tp, pp = _size(row[f"{prefix}tp_size"]), _size(row[f"{prefix}pp_size"])
    adp = _size(row[f"{prefix}attention_dp_size"])
    experts = _size(row[f"{prefix}moe_tp_size"]) * _size(row[f"{prefix}moe_ep_size"])
    if pp > 1:
        return None, "pipeline parallelism in a serving replica is not modelled"
    if moe and experts != tp * adp:  # the eighth amendment: experts over tp · adp GPUs
        return None, f"MoE TP × EP ({experts}) differs from the GPUs ({tp * adp})"
    if row[f"{prefix}batch_size"] in ("", "0"):  # the fourth amendment
        return None, "the pool's batch is not in the file (only the deployment's concurrency)"
    workers = _size(row[f"{prefix}num_workers"]) if prefix else 1
    return Pool(tp, int(row[f"{prefix}batch_size"]), adp, workers), None


def _precision(row: dict) -> str | None:
    if row["precision"] == "" and not row["gemm_quant_mode"] and not row["moe_quant_mode"]:
        return "bf16"
    return PRECISIONS.get(row["precision"])


def expressible(row: dict) -> tuple[dict | None, str | None]:
    """({model, gpu, precision, pools}, None), or (None, why the model cannot express the row)."""
    if row["system"] not in GPUS:
        return None, f"GPU {row['system']} is not in models/data/gpus.csv"
    if row["model_path"] not in MODELS:
        return None, f"no preset for {row['model_path']}"
    precision = _precision(row)
    if precision is None:
        return None, f"{row['precision']} weights are not modelled"
    gpu = get_gpu(GPUS[row["system"]])
    engine = ENGINE_OF_BACKEND[row["backend"]]
    if weight_only_row(row) and not serves_weight_only(engine, gpu, precision):
        # the thirty-fifth and thirty-sixth amendments: FP4 weights without FP4 tensor cores and
        # INT4 weights, where the engine serves them weight-only; elsewhere, not expressible
        return None, (
            f"{precision.upper()} weights on {gpu.gpu_id}: {engine} does not serve them "
            "weight-only there"
        )
    prefixes = ("",) if row["mode"] == "agg" else ("prefill_", "decode_")
    moe = get_preset(MODELS[row["model_path"]]).is_moe
    pools = []
    for prefix in prefixes:
        pool, why = _pool(row, prefix, moe)
        if pool is None:
            return None, f"{prefix.rstrip('_') or 'replica'}: {why}"
        pools.append(pool)
    setup = {"model": MODELS[row["model_path"]], "gpu": GPUS[row["system"]], "precision": precision}
    return setup | {"pools": pools}, None


@dataclass(frozen=True)
class Scored:
    """One row: what it measured, what the model predicts (None where it refuses or cannot
    express the row) and why not."""

    id: str
    backend: str
    system: str
    model: str
    moe: bool | None
    mode: str
    held_out: bool
    tpot_ms: float
    ttft_ms: float
    tpot_predicted_ms: float | None = None
    ttft_predicted_ms: float | None = None
    #: the rule of thumb's TPOT: a step reads the weights once at the HBM bandwidth (the same rule
    #: as models/validation/serving.py's, at the row's batch and GPUs)
    tpot_rule_ms: float | None = None
    refused: str = ""
    not_expressible: str = ""
    #: attention data-parallel groups of the pool that decodes (1: none)
    dp: int = 1
    #: the decoding pool's tp · dp GPUs span more than one scale-up domain (thirteenth and
    #: fourteenth amendments)
    beyond_domain: bool = False

    @property
    def tpot_error(self) -> float | None:
        return None if self.tpot_predicted_ms is None else self.tpot_predicted_ms / self.tpot_ms - 1

    @property
    def tpot_rule_error(self) -> float | None:
        return None if self.tpot_rule_ms is None else self.tpot_rule_ms / self.tpot_ms - 1

    @property
    def ttft_error(self) -> float | None:
        return None if self.ttft_predicted_ms is None else self.ttft_predicted_ms / self.ttft_ms - 1


def _inputs(setup: dict, row: dict) -> ServeInputs:
    """The row's service at its own engine (its `backend`; the second amendment's form)."""
    return ServeInputs(
        model=setup["model"],
        gpu=setup["gpu"],
        precision=setup["precision"],
        input_tokens=int(row["isl"]),
        output_tokens=int(row["osl"]),
        engine=ENGINE_OF_BACKEND[row["backend"]],
    )


def _figures(setup: dict, row: dict, pool: Pool) -> dict[str, float]:
    gpus = pool.tp * pool.dp
    r = evaluate(_inputs(setup, row), [pool.tp], [gpus], [pool.batch], dp=[pool.dp])
    return {k: float(np.asarray(v).ravel()[0]) for k, v in r.items()}


def _refusal(f: dict[str, float], pool: Pool, name: str) -> str:
    if f["fits"]:
        return ""
    if f["max_seqs"] < 1:
        return f"{name}: the weights and one sequence do not fit on TP{pool.tp}"
    return f"{name}: {int(f['max_seqs']):,} of {pool.batch:,} sequences fit on TP{pool.tp}"


def _rule_tpot_ms(f: dict[str, float], pool: Pool) -> float:
    """The rule of thumb's TPOT: `rule_tps_gpu` is output tokens/s per GPU at the batch."""
    return pool.batch / (f["rule_tps_gpu"] * pool.tp) * 1e3


def in_flight(setup: dict) -> float:
    """The requests in flight that share a request's prefill server (the ninth amendment's C): an
    aggregated row's batch (per attention group); a disaggregated row's concurrency (decode batch ×
    workers × attention groups) over its prefill workers × attention groups."""
    if len(setup["pools"]) == 1:
        return float(setup["pools"][0].batch)
    prefill, decode = setup["pools"]
    return decode.batch * decode.workers * decode.dp / (prefill.workers * prefill.dp)


def predict(setup: dict, row: dict) -> tuple[float, float, float, str]:
    """(TPOT ms, TTFT ms, the rule of thumb's TPOT ms, why refused or "") of an expressible row
    (module docstring). Every row is a closed loop at its concurrency, so its TTFT is the
    engine's first token at the requests in flight (`in_flight`; the ninth amendment)."""
    engine = ENGINE_OF_BACKEND[row["backend"]]
    moe = get_preset(setup["model"]).is_moe  # the eighteenth amendment's factor
    if row["mode"] == "agg":
        (pool,) = setup["pools"]
        f = _figures(setup, row, pool)
        rule = _rule_tpot_ms(f, pool)
        ttft = first_token_s(engine, f["t_prefill"], f["t_step"], in_flight(setup), moe=moe)
        return f["tpot"] * 1e3, ttft * 1e3, rule, _refusal(f, pool, "replica")
    prefill, decode = setup["pools"]
    p, d = _figures(setup, row, prefill), _figures(setup, row, decode)
    ttft = first_token_s(engine, p["t_prefill"], d["t_step"], in_flight(setup), moe=moe)
    ttft = ttft + p["t_kv"]
    why = _refusal(p, prefill, "prefill") or _refusal(d, decode, "decode")
    return d["t_step"] * 1e3, ttft * 1e3, _rule_tpot_ms(d, decode), why


def score_row(row: dict) -> Scored:
    base = {
        "id": row["id"],
        "backend": row["backend"],
        "system": row["system"],
        "model": row["model_path"],
        "mode": row["mode"],
        "held_out": held_out(row),
        "tpot_ms": float(row["silicon_tpot_ms"]),
        "ttft_ms": float(row["silicon_ttft_ms"]),
    }
    setup, why = expressible(row)
    if setup is None:
        return Scored(moe=None, not_expressible=why or "", **base)
    moe = get_preset(setup["model"]).is_moe
    decode = setup["pools"][-1]  # the decode pool (the only one of an aggregated row)
    base["dp"] = decode.dp
    base["beyond_domain"] = decode.tp * decode.dp > get_gpu(setup["gpu"]).scaleup_domain_gpus
    try:
        tpot, ttft, rule, refused = predict(setup, row)
    except InputError as exc:
        return Scored(moe=moe, refused=str(exc), **base)
    if refused:
        return Scored(moe=moe, refused=refused, **base)
    return Scored(
        moe=moe, tpot_predicted_ms=tpot, ttft_predicted_ms=ttft, tpot_rule_ms=rule, **base
    )


@functools.cache
def score() -> tuple[Scored, ...]:
    """Every row of the file, scored (cached: the file and the model do not change in a run)."""
    return tuple(score_row(row) for row in load_rows())


def summary(errors: Iterable[float]) -> dict[str, float | int | None]:
    """rows, median and 90th-percentile absolute error, signed median."""
    e = list(errors)
    if not e:
        return {"rows": 0, "median_abs": None, "p90_abs": None, "signed_median": None}
    a = np.abs(np.asarray(e))
    return {
        "rows": len(e),
        "median_abs": float(np.median(a)),
        "p90_abs": p90(a),
        "signed_median": statistics.median(e),
    }


def _not_expressible(rows: Iterable[Scored]) -> dict[str, int]:
    """How many rows each reason leaves out, the most first."""
    why: dict[str, int] = {}
    for s in rows:
        if s.not_expressible:
            why[s.not_expressible] = why.get(s.not_expressible, 0) + 1
    return dict(sorted(why.items(), key=lambda x: -x[1]))


def model_class(s: Scored) -> str:
    return "MoE" if s.moe else "dense"


def by_class(rows: Iterable[Scored]) -> dict[tuple[str, str, str, str], list[Scored]]:
    """The rows the model expresses, by (split, backend, GPU, model class)."""
    out: dict[tuple[str, str, str, str], list[Scored]] = {}
    for s in rows:
        if s.not_expressible:
            continue
        split = "held out" if s.held_out else "tuning"
        out.setdefault((split, s.backend, GPUS[s.system], model_class(s)), []).append(s)
    return dict(sorted(out.items()))


def report_lines() -> list[str]:
    """`clusterplan validate`'s table of these rows (docs/validation.md shows it), from
    `as_json`'s figures."""
    data = as_json()
    refused = sum(c["refused"] for c in data["classes"])
    lines = [
        "AIConfigurator measured serving rows (docs/reference/serving-evidence.md; split and form "
        "written before the first score)",
        f"{data['rows']:,} rows: {data['expressible']:,} expressible, {refused:,} of them refused "
        f"by the model; {data['held_out']:,} held out",
        "errors: predicted / measured - 1, absolute median and 90th percentile, and the signed "
        "median (negative: the model is too fast); rule: the rule of thumb's TPOT",
        f"  {'split':9} {'backend':7} {'GPU':9} {'class':5} {'rows':>5} {'refused':>7}  "
        f"{'TPOT median':>11} {'p90':>5} {'signed':>6}  {'rule':>5}  {'TTFT median':>11} "
        f"{'p90':>5} {'signed':>6}",
    ]
    for c in data["classes"]:
        tpot, rule, ttft = c["tpot"], c["tpot_rule_of_thumb"], c["ttft"]
        lines.append(
            f"  {c['split']:9} {c['backend']:7} {c['gpu']:9} {c['model_class']:5} {c['rows']:>5} "
            f"{c['refused']:>7}  {_pct(tpot['median_abs']):>11} {_pct(tpot['p90_abs']):>5} "
            f"{_pct(tpot['signed_median'], signed=True):>6}  {_pct(rule['median_abs']):>5}  "
            f"{_pct(ttft['median_abs']):>11} {_pct(ttft['p90_abs']):>5} "
            f"{_pct(ttft['signed_median'], signed=True):>6}"
        )
    lines.append(
        "Per engine (unseen: B300 and GB300, apart from the held-out rows; share: of the others' "
        "prefills an aggregated decode pays, fifteenth amendment):"
    )
    for c in data["per_engine"]:
        tpot, ttft = c["tpot"], c["ttft"]
        lines.append(
            f"  {c['split']:9} {c['backend']:7} {c['rows']:>5}  {_pct(tpot['median_abs']):>11} "
            f"{_pct(tpot['p90_abs']):>5} {_pct(tpot['signed_median'], signed=True):>6}  "
            f"TTFT {_pct(ttft['median_abs']):>5} {_pct(ttft['p90_abs']):>5} "
            f"{_pct(ttft['signed_median'], signed=True):>6}  share {c['prefill_share_in_decode']:.2f}"
        )
    lines.append(
        "Replicas beyond one scale-up domain (fourteenth amendment; unseen: B300 and GB300, apart "
        "from the held-out rows):"
    )
    for c in data["beyond_domain"]:
        tpot, ttft = c["tpot"], c["ttft"]
        lines.append(
            f"  {c['split']:9} {c['backend']:7} {c['rows']:>5}  {_pct(tpot['median_abs']):>11} "
            f"{_pct(tpot['p90_abs']):>5} {_pct(tpot['signed_median'], signed=True):>6}  "
            f"TTFT {_pct(ttft['median_abs']):>5}"
        )
    lines.append("Not expressible yet:")
    lines += [f"  {n:>5}  {reason}" for reason, n in data["not_expressible"].items()]
    return lines


def as_json() -> dict:
    """`clusterplan validate --json`'s summary of these rows: the counts, each class's errors
    (TPOT, the rule of thumb's TPOT, TTFT) and why rows are not expressed."""
    rows = score()
    classes = []
    for (split, backend, gpu, cls), group in by_class(rows).items():
        ok = [s for s in group if not s.refused]
        classes.append(
            {
                "split": split,
                "backend": backend,
                "gpu": gpu,
                "model_class": cls,
                "rows": len(group),
                "refused": len(group) - len(ok),
                "tpot": summary(s.tpot_error for s in ok),
                "tpot_rule_of_thumb": summary(s.tpot_rule_error for s in ok),
                "ttft": summary(s.ttft_error for s in ok),
            }
        )
    why = _not_expressible(rows)
    return {
        "beyond_domain": beyond_domain(rows),
        "per_engine": per_engine(rows),
        "rows": len(rows),
        "expressible": sum(1 for s in rows if not s.not_expressible),
        "held_out": sum(1 for s in rows if s.held_out),
        "classes": classes,
        "not_expressible": why,
    }


def split_name(system: str, held: bool) -> str:
    """tuning, held out, or unseen (the Blackwell Ultra rows, held out whole, apart)."""
    return "unseen" if system in HELD_OUT_SYSTEMS else "held out" if held else "tuning"


def _split_of(s: Scored) -> str:
    return split_name(s.system, s.held_out)


def _per_split_and_backend(rows: Iterable[Scored]) -> list[dict]:
    """Per split (tuning, held out, unseen) and backend, the scored rows: rows, TPOT and TTFT
    errors."""
    groups: dict[tuple[str, str], list[Scored]] = {}
    for s in rows:
        if s.tpot_error is not None:
            groups.setdefault((_split_of(s), s.backend), []).append(s)
    order = {"tuning": 0, "held out": 1, "unseen": 2}
    return [
        {
            "split": split,
            "backend": backend,
            "rows": len(group),
            "tpot": summary(s.tpot_error for s in group),
            "ttft": summary(s.ttft_error for s in group),
        }
        for (split, backend), group in sorted(
            groups.items(), key=lambda k: (order[k[0][0]], k[0][1])
        )
    ]


def beyond_domain(rows: Iterable[Scored]) -> list[dict]:
    """Per split (tuning, held out, unseen: the Blackwell Ultra rows apart) and backend, the
    scored rows whose decoding replica spans more than one scale-up domain: rows, TPOT and TTFT
    errors (docs/reference/serving-evidence.md, fourteenth amendment's tables)."""
    return _per_split_and_backend(s for s in rows if s.beyond_domain)


def per_engine(rows: Iterable[Scored]) -> list[dict]:
    """Per split (tuning, held out, unseen) and backend, every scored row: rows, TPOT and TTFT
    errors, and the engine's share of the others' prefills in an aggregated decode
    (`prefill_share_in_decode`, docs/reference/serving-evidence.md, fifteenth amendment)."""
    out = _per_split_and_backend(rows)
    for c in out:
        c["prefill_share_in_decode"] = ENGINES[
            ENGINE_OF_BACKEND[c["backend"]]
        ].prefill_share_in_decode
    return out


#: the fewest held-out rows of a plan's own engine and GPU (and class) whose bias is read instead of
#: the class's over every engine and GPU
MIN_ROWS_OF_A_CELL = 8


@functools.cache
def held_out_bias(
    moe: bool, engine: str | None = None, gpu: str | None = None, data_parallel: bool = False
) -> tuple[float, int, str]:
    """(the median signed TPOT error, rows, what they are) of the held-out rows a plan of one model
    class on `engine` and `gpu` should be read against (negative: the model is faster than
    measured): with attention data parallelism (`data_parallel`), the class's held-out rows that
    have it, on every engine and GPU (they are few); else that engine's and GPU's rows of the class
    when there are MIN_ROWS_OF_A_CELL of them, else the class's over every engine and GPU ("" for
    what they are)."""
    rows = [s for s in score() if s.held_out and s.tpot_error is not None and bool(s.moe) == moe]
    if data_parallel:
        own = [s for s in rows if s.dp > 1]
        if own:
            errors = [s.tpot_error for s in own]
            return statistics.median(errors), len(errors), "attention data-parallel layouts"
    backend = ENGINES[engine].backend if engine in ENGINES else None
    system = next((k for k, v in GPUS.items() if v == gpu), None)
    own = [s for s in rows if s.backend == backend and s.system == system]
    scope = f"{ENGINES[engine].label} on {gpu}" if own else ""
    if len(own) < MIN_ROWS_OF_A_CELL:
        own, scope = rows, ""
    errors = [s.tpot_error for s in own]
    return (statistics.median(errors), len(errors), scope) if errors else (0.0, 0, "")


def _pct(x: float | None, signed: bool = False) -> str:
    if x is None:
        return "-"
    return f"{x * 100:+.0f}%" if signed else f"{x * 100:.0f}%"

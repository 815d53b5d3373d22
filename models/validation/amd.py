"""The serving model against measured AMD serving rows (models/data/validation/amd_serving.csv;
docs/reference/serving-evidence.md, sixteenth amendment: the rows, the split and the form were
written before the first score).

Each row is one closed-loop run on MI300X: `concurrency` requests in flight at the row's TP, EP,
precision, lengths, engine and version. The model's row: models/serving/plan.py `evaluate` at that
layout with batch = concurrency and the users in flight (TTFT = the engine's first token with the
others' prefills; TPOT = t_step + φ_e · B · t_prefill / O; output tokens/s = B · O / (φ_e · B ·
t_prefill + O · t_step) for the replica, φ_e the engine's share of the others' prefills as the
planner charges it: the fifteenth amendment, SGLang 0.60; the sixteenth's note of 2026-12-02).
"Before" is the form the amendment replaced: the CUDA engine's factor on the roofline step (vLLM
× 1.10, SGLang × 1.17), with the same φ_e. "Sixteenth" is that amendment's form: the ROCm
build's step costs with the CUDA engine's time-to-first-token constants; "after" adds the build's
own constants where the seventeenth amendment adopted them (TTFT only moves between the two).
Error = predicted / measured − 1."""

from __future__ import annotations

import csv
import functools
import hashlib
import statistics
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from models import DATA_DIR
from models.serving import builds
from models.serving.engines import ENGINES, first_token_s
from models.serving.plan import ServeInputs, evaluate
from models.shapes import get_preset
from models.validation.summaries import p90, pct

ROWS = DATA_DIR / "validation" / "amd_serving.csv"
#: the source held out whole (the amendment's split)
HELD_OUT_SOURCE = "oci-llama405b-fp8-2024"


def held_out(row: dict) -> bool:
    """Held out: the id's SHA-256 (UTF-8) as a hexadecimal number is 0 modulo 10, or the row is
    of the source held out whole (HELD_OUT_SOURCE)."""
    tenth = int(hashlib.sha256(row["id"].encode("utf-8")).hexdigest(), 16) % 10 == 0
    return tenth or row["source_id"] == HELD_OUT_SOURCE


def load_rows() -> list[dict]:
    with ROWS.open(newline="") as f:
        return list(csv.DictReader(f))


def _num(cell: str) -> float | None:
    return float(cell) if cell not in ("", None) else None


@dataclass(frozen=True)
class Parts:
    """The roofline's pieces of a row, before any engine's step costs: what every form reads."""

    t_raw: float  # decode step, s (the roofline's, with the CUDA engine's all-reduce latencies)
    t_prefill: float  # one request's prefill, s
    layers: int
    batch: float
    output_tokens: float
    tp: int
    fits: bool
    #: the decode step the planner gives the row at its version (its engine's costs applied), s
    t_engine: float = 0.0
    #: the step's arithmetic at the roofline's rates, s (thirty-third amendment, F2)
    t_arith: float = 0.0


def inputs_of(row: dict) -> ServeInputs:
    """The service an AMD row measured, as the planner takes it (its batch: the users in flight)."""
    return ServeInputs(
        model=row["model"],
        gpu=row["gpu"],
        precision=row["precision"],
        kv_precision=row["kv_precision"] or None,
        engine=row["engine"],
        engine_version=row["engine_version"] or None,
        input_tokens=int(row["input_tokens"]),
        output_tokens=int(row["output_tokens"]),
        users=int(row["concurrency"]),
    )


def parts(row: dict) -> Parts:
    """The roofline's pieces of a measured row (this file's schema, whichever file it is in)."""
    return _parts(tuple(row.items()))


@functools.lru_cache(maxsize=512)
def _parts(items: tuple) -> Parts:
    row = dict(items)
    inp = inputs_of(row)
    tp, b = int(row["tp"]), float(row["concurrency"])
    r = {k: float(v[0]) for k, v in evaluate(inp, [tp], [int(row["ep"])], [b]).items()}
    layers = get_preset(inp.model).layers
    return Parts(
        r["t_roofline"], r["t_prefill"], layers, b, float(row["output_tokens"]), tp,
        bool(r["fits"]), r["t_step"], r["t_arith"],
    )  # fmt: skip


def figures(
    row: dict, k: float, s: float, ttft=None, m: float = 0.0, c: float = 0.0
) -> dict[str, float] | None:
    """(TPOT ms, TTFT ms, output tokens/s of the replica) at step costs (k, s) and the thirty-third
    amendment's terms (m per sequence and layer, c of the step's arithmetic), and TTFT constants
    `ttft` (a s, k, w; None: the CUDA engine's); None if refused."""
    p = parts(row)
    if not p.fits:
        return None
    t_step = step_s(p, k, s, m, c)
    ttft = first_token_s(row["engine"], p.t_prefill, t_step, p.batch, ttft)
    others = prefill_share(row) * p.batch * p.t_prefill  # the others' prefills a decode pays
    cycle = others + p.output_tokens * t_step
    return {
        "tpot_ms": (t_step + others / p.output_tokens) * 1e3,
        "ttft_ms": ttft * 1e3,
        "out_tps": p.batch * p.output_tokens / cycle,
    }


def step_s(p: Parts, k: float, s: float, m: float = 0.0, c: float = 0.0):
    """A ROCm build's decode step on a row's roofline pieces: k · R + L · s + m · B · L + c ·
    R_arith (sixteenth and thirty-third amendments; `p`'s fields may be arrays or the grid's)."""
    return builds.own_step_s(p.t_raw, p.layers, p.batch, p.t_arith, k, s, m, c)


def prefill_share(row: dict) -> float:
    """φ_e: the share of the others' prefills a row's engine's aggregated decode pays, as the
    planner charges it on every GPU (fifteenth amendment; models/serving/plan.py `evaluate`)."""
    return ENGINES[row["engine"]].prefill_share_in_decode


#: the forms scored (module docstring), oldest first
FORMS = ("before", "sixteenth", "after")


def costs(row: dict, form: str) -> tuple[float, float]:
    """(k, s) of a row's engine: "after" and "sixteenth" its ROCm build at its version (the
    default where none is stated); "before" the CUDA engine's factor, no fixed time."""
    if form == "before":
        return ENGINES[row["engine"]].decode_step_factor, 0.0
    b = _build(row)
    return b.step_factor, b.step_s_per_layer


def terms(row: dict, form: str) -> tuple[float, float]:
    """(m, c) of a row's ROCm build (thirty-third amendment; 0 where not adopted, and "before")."""
    if form == "before":
        return 0.0, 0.0
    b = _build(row)
    return b.step_s_per_seq_layer, b.step_arith_share


def ttft_constants(row: dict, form: str) -> tuple[float, float, float] | None:
    """The row's TTFT constants (a s, k, w): "after" its build's as fitted on rows of its load,
    where adopted (seventeenth amendment); otherwise None, the CUDA engine's."""
    return _build(row).ttft_rows if form == "after" else None


def same_line(row: dict, version: str) -> bool:
    """Whether a row ran the release line (major.minor) of `version`: a build is fitted on its own
    line's rows only (rows of a newer line without a build of their own resolve to it but fit
    nothing: the thirty-second amendment)."""
    return builds.release_line(row["engine_version"]) == builds.release_line(version)


def line_of(row: dict) -> tuple[str, str, str]:
    """(engine, model class dense|moe, release line) of a row of this schema."""
    cls = "moe" if get_preset(row["model"]).is_moe else "dense"
    return row["engine"], cls, builds.release_line(row["engine_version"])


def line_version(rows: list[dict]) -> str:
    """A release line's build version: the release most of its rows ran (a tie: the newer)."""
    counts = Counter(r["engine_version"] for r in rows)
    return max(counts, key=lambda v: (counts[v], builds._key(v)))


def _build(row: dict) -> builds.Build:
    """The ROCm build whose costs a row is scored with (its version; its model's class)."""
    moe = get_preset(row["model"]).is_moe
    return builds.resolve(row["engine"], row["gpu"], row["engine_version"] or None, moe)


def errors(row: dict, form: str = "after") -> dict[str, float | None]:
    """predicted / measured − 1 of TPOT, TTFT and output tokens/s (None where not published)."""
    f = figures(row, *costs(row, form), ttft_constants(row, form), *terms(row, form))
    out: dict[str, float | None] = {}
    for key, col in (
        ("tpot_ms", "tpot_ms"),
        ("ttft_ms", "ttft_ms"),
        ("out_tps", "output_tokens_per_s"),
    ):
        measured = _num(row[col])
        out[key] = None if f is None or measured is None else f[key] / measured - 1
    return out


def summary(errs: Iterable[float | None]) -> dict:
    e = [x for x in errs if x is not None]
    if not e:
        return {"rows": 0, "median_abs": None, "p90_abs": None, "signed_median": None}
    a = [abs(x) for x in e]
    return {
        "rows": len(e),
        "median_abs": statistics.median(a),
        "p90_abs": p90(a),
        "signed_median": statistics.median(e),
    }


def _group(row: dict) -> tuple[str, str, str]:
    version = _build(row)
    split = "held out" if held_out(row) else "tuning"
    costs = version.costs_version or ""
    if not row["engine_version"]:
        return row["engine"], f"unstated ({costs})", split
    if not same_line(row, costs):  # a release with no build of its own: its costs' version
        return row["engine"], f"{row['engine_version']} ({costs})", split
    return row["engine"], costs, split


@functools.cache
def as_json() -> dict:
    """Per engine, version (the one whose costs were used) and split: rows and the errors of
    TPOT, TTFT and output tokens/s, before and after."""
    rows = load_rows()
    groups: dict[tuple[str, str, str], list[dict]] = {}
    for r in rows:
        groups.setdefault(_group(r), []).append(r)
    classes = []
    for (engine, version, split), members in sorted(groups.items()):
        entry = {"engine": engine, "version": version, "split": split, "rows": len(members)}
        for form in FORMS:
            errs = [errors(r, form) for r in members]
            entry[form] = {
                m: summary(e[m] for e in errs) for m in ("tpot_ms", "ttft_ms", "out_tps")
            }
        classes.append(entry)
    return {
        "rows": len(rows),
        "held_out": sum(held_out(r) for r in rows),
        "refused": sum(1 for r in rows if figures(r, 1.0, 0.0) is None),
        "classes": classes,
    }


def _cell(c: dict, metric: str, forms: tuple[str, ...]) -> str:
    """Median |error| of each form, oldest first, then the signed median of the last."""
    last = c[forms[-1]][metric]
    moves = " -> ".join(f"{pct(c[f][metric]['median_abs']):>4}" for f in forms)
    return f"{moves} ({pct(last['signed_median'], True):>6})"


def report_lines() -> list[str]:
    data = as_json()
    lines = [
        "Measured AMD serving rows (models/data/validation/amd_serving.csv; docs/reference/"
        "serving-evidence.md, sixteenth and seventeenth amendments: split and forms written "
        "before the first score)",
        f"{data['rows']} rows on MI300X, {data['held_out']} held out, {data['refused']} refused; "
        "median |error| (signed median) before -> after the ROCm builds (TTFT: before -> their "
        "step costs -> their own TTFT constants)",
        f"  {'engine':7} {'version (costs)':20} {'split':9} {'rows':>4}  {'TPOT':>21}  {'TTFT':>29}  "
        f"{'output tok/s':>21}",
    ]
    for c in data["classes"]:
        cells = [
            _cell(c, "tpot_ms", ("before", "after")),
            _cell(c, "ttft_ms", FORMS),
            _cell(c, "out_tps", ("before", "after")),
        ]
        lines.append(
            f"  {c['engine']:7} {c['version']:20} {c['split']:9} {c['rows']:>4}  "
            + "  ".join(cells)
        )
    return lines

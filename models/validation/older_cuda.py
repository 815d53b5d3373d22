"""The serving model against measured runs of CUDA engine releases older than the ones
AIConfigurator measured (models/data/validation/older_cuda_serving.csv; docs/reference/
serving-evidence.md, thirtieth amendment: the rows were entered, and the form and the rule written,
before any fit or score).

Each expressible row is one closed loop of `concurrency` requests in flight at its GPU, TP, EP,
precision, lengths, engine and release, in amd_serving.csv's schema, scored as the AMD rows are
(models/validation/amd.py `figures`): TPOT = t_step + φ_e · B · t_prefill / O, with

- "record": t_step the CUDA engine's own step as the planner gives it without a version (its
  factor on the roofline step, with the nineteenth amendment's MoE term), the costs every older
  release took before this amendment;
- "build": t_step = k · roofline step + layers · s of the release line's build
  (models/serving/builds.py `CUDA_OLDER_BUILDS`) where the amendment's rule adopted one, else the
  record's.

Rows form release lines: engine × model class (dense or MoE) × release line (major.minor, e.g.
vLLM 0.7, SGLang 0.4). A line's fit (models/validation/step_fit.py, the sixteenth amendment's grid
rule) and its leave-one-source-out scores are computed here, so the report shows whether each
line meets the adoption rule (`ADOPTION`). Error = predicted / measured − 1."""

from __future__ import annotations

import csv
import functools

from models import DATA_DIR
from models.serving import builds
from models.serving.engines import ENGINES
from models.validation import amd, step_fit
from models.validation.summaries import error_summary, pct

ROWS = DATA_DIR / "validation" / "older_cuda_serving.csv"
#: the adoption rule (thirtieth amendment): at least this many rows with TPOT, at this many
#: concurrencies, and the fit's median |TPOT error| this much below the record's (in-sample and,
#: with two sources or more, on each source left out)
ADOPTION = {"rows": 8, "concurrencies": 3, "gain": 0.10}
#: what is scored: TPOT only. Each row is one burst (N prompts sent at once, ShareGPT lengths), so
#: its output tokens/s is the run's total over a duration its longest request sets, not the steady
#: rate the planner gives; it stays in the file, unscored (the amendment's results say why)
METRICS = (("tpot_ms", "tpot_ms"),)


@functools.cache
def load_rows() -> tuple[dict, ...]:
    with ROWS.open(newline="") as f:
        return tuple(csv.DictReader(f))


def scored(row: dict) -> bool:
    """Expressible, with a TPOT, and not refused by the planner."""
    return row["expressible"] == "yes" and bool(row["tpot_ms"]) and amd.parts(row).fits


def lines() -> dict[tuple[str, str, str], list[dict]]:
    """The scored rows of each release line."""
    out: dict[tuple[str, str, str], list[dict]] = {}
    for r in load_rows():
        if scored(r):
            out.setdefault(amd.line_of(r), []).append(r)
    return dict(sorted(out.items()))


def _errors(row: dict, f: dict[str, float] | None) -> dict[str, float | None]:
    return {
        m: None if f is None or not row[col] else f[m] / float(row[col]) - 1 for m, col in METRICS
    }


def errors(row: dict, form: str = "build", k_s: tuple[float, float] | None = None) -> dict:
    """predicted / measured − 1 of TPOT (`METRICS`): at the planner's step for the row's
    release ("build": its line's build where adopted, else the record) or without a version
    ("record"), or at explicit (k, s)."""
    if k_s is not None:
        return _errors(row, amd.figures(row, *k_s))
    p = amd.parts(row if form == "build" else row | {"engine_version": ""})
    return _errors(row, amd.figures(row, p.t_engine / p.t_raw, 0.0))


def median_abs(values) -> float | None:
    """The median |error| of the values given (None ones left out; None when none is left)."""
    return error_summary(x for x in values if x is not None)["median_abs"]


def _loso(rows: list[dict]) -> dict[str, dict]:
    """Per source (with two or more): the fit on the others, scored on it, and the record there."""
    sources = sorted({r["source_id"] for r in rows})
    out = {}
    for left in sources if len(sources) > 1 else ():
        rest = [r for r in rows if r["source_id"] != left]
        k, s, _ = step_fit.fit(rest)
        held = [r for r in rows if r["source_id"] == left]
        out[left] = {
            "rows": len(held),
            "k": k,
            "s_us": s * 1e6,
            "fit": median_abs(errors(r, k_s=(k, s))["tpot_ms"] for r in held),
            "record": median_abs(errors(r, "record")["tpot_ms"] for r in held),
        }
    return out


def line_entry(key: tuple[str, str, str], rows: list[dict]) -> dict:
    """A release line's rows, its fit and the adoption rule's parts, and the errors."""
    engine, cls, line = key
    k, s, obj = step_fit.fit(rows)
    record = [errors(r, "record") for r in rows]
    fitted = [errors(r, k_s=(k, s)) for r in rows]
    loso = _loso(rows)
    gain = ADOPTION["gain"]
    rec_med = median_abs(e["tpot_ms"] for e in record)
    fit_med = median_abs(e["tpot_ms"] for e in fitted)
    rule = {
        "rows": len(rows) >= ADOPTION["rows"],
        "concurrencies": len({r["concurrency"] for r in rows}) >= ADOPTION["concurrencies"],
        "in_sample": fit_med <= rec_med - gain,
        "left_out": all(v["fit"] <= v["record"] - gain for v in loso.values()),
    }
    return {
        "engine": engine,
        "class": cls,
        "line": line,
        "version": amd.line_version(rows),
        "rows": len(rows),
        "sources": sorted({r["source_id"] for r in rows}),
        "gpus": sorted({r["gpu"] for r in rows}),
        "fit": {"k": k, "s_us": s * 1e6, "objective": obj},
        "record": {m: _summary(e[m] for e in record) for m, _ in METRICS},
        "fitted": {m: _summary(e[m] for e in fitted) for m, _ in METRICS},
        "left_out": loso,
        "rule": rule,
        "meets_rule": all(rule.values()),
        "adopted": adopted(engine, cls, line),
    }


def _summary(errs) -> dict:
    return error_summary(x for x in errs if x is not None)


def build_of_line(engine: str, cls: str, line: str) -> builds.MeasuredBuild | None:
    """The build builds.py carries for this release line (the committed constants), if any."""
    return next(
        (
            b
            for b in builds.CUDA_OLDER_BUILDS.get(engine, ())
            if b.model_class == cls and builds.release_line(b.version) == line
        ),
        None,
    )


def adopted(engine: str, cls: str, line: str) -> bool:
    """Whether builds.py carries a build of this release line."""
    return build_of_line(engine, cls, line) is not None


def status(entry: dict) -> str:
    """A line's verdict in words: adopted, meets the rule (not yet in builds.py) or not adopted."""
    if entry["adopted"]:
        return "adopted"
    return "meets the rule" if entry["meets_rule"] else "not adopted"


@functools.cache
def as_json() -> dict:
    rows = load_rows()
    return {
        "rows": len(rows),
        "expressible": sum(r["expressible"] == "yes" for r in rows),
        "scored": sum(scored(r) for r in rows),
        "adoption_rule": ADOPTION,
        "lines": [line_entry(k, v) for k, v in lines().items()],
    }


def report_lines() -> list[str]:
    data = as_json()
    out = [
        "Measured runs of CUDA releases older than AIConfigurator's (models/data/validation/"
        "older_cuda_serving.csv; docs/reference/serving-evidence.md, thirtieth amendment: rows, "
        "form and rule written before any fit or score)",
        f"{data['rows']} rows, {data['expressible']} expressible, {data['scored']} scored (with "
        "TPOT, not refused); per release line: median |TPOT error| (signed) at the CUDA record's "
        "costs -> the line's fit k · roofline step + layers · s (in-sample), each source left out "
        f"(fit on the others); adopted: >= {ADOPTION['rows']} rows at >= "
        f"{ADOPTION['concurrencies']} concurrencies, {100 * ADOPTION['gain']:.0f} points better in-sample "
        "and on every source left out",
    ]
    for e in data["lines"]:
        rec, fit = e["record"]["tpot_ms"], e["fitted"]["tpot_ms"]
        label = ENGINES[e["engine"]].label
        out.append(
            f"  {label} {e['line']} {e['class']:5} (build {e['version']}; {e['rows']} rows, "
            f"{len(e['sources'])} source{'s' if len(e['sources']) > 1 else ''}, "
            f"{', '.join(e['gpus'])}): TPOT "
            f"{pct(rec['median_abs'])} ({pct(rec['signed_median'], True)}) -> "
            f"{pct(fit['median_abs'])} ({pct(fit['signed_median'], True)}) at k = "
            f"{e['fit']['k']:.2f}, s = {e['fit']['s_us']:.0f} µs; {status(e)}"
        )
        for src, v in e["left_out"].items():
            out.append(
                f"    {src} left out ({v['rows']} rows): {pct(v['record'])} -> {pct(v['fit'])} "
                f"(k = {v['k']:.2f}, s = {v['s_us']:.0f} µs)"
            )
    return out

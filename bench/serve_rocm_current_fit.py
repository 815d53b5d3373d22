"""Fits candidate ROCm builds for release lines no build in models/serving/builds.py `ROCM_BUILDS`
covers, by the rule docs/reference/serving-evidence.md fixed before the fit (thirty-second
amendment): the tuning rows of models/data/validation/amd_serving.csv (the file's split, amd.py
`held_out`; held-out rows are not read) are grouped by engine × model class × release line
(major.minor); a line with no build is a candidate, its version the release most of its rows ran
(a tie: the newer). Per candidate:

- rows of `UNPINNED_SOURCES` (lengths not pinned) are not read;
- step: (k, s) by the sixteenth amendment's grid rule (models/validation/step_fit.py) over its
  tuning rows with TPOT that the model does not refuse; adopted when it has at least `MIN_ROWS`
  such rows at `MIN_CONCURRENCIES` concurrencies and its median |TPOT error| is at least `GAIN`
  below the one those rows get today (the nearest existing build's costs);
- first token: (a, k, w) by the seventeenth amendment's grid (bench/serve_rocm_ttft_fit.py `fit`)
  over its tuning rows with TTFT, around the candidate's step, adopted (only with the step) when it
  has at least 3 such rows and beats the constants those rows get today, around the same step.

Prints each candidate, its fit, what today's builds give its rows, and the verdict.
Run: python -m bench.serve_rocm_current_fit"""

from __future__ import annotations

from bench import serve_rocm_ttft_fit as ttft_fit
from models.serving import builds
from models.serving.engines import first_token_s
from models.validation import amd, step_fit
from models.validation.summaries import error_summary

#: sources whose lengths are not pinned (SGLang's default --random-range-ratio 0.0 would halve the
#: mean lengths; neither states it): not fitted (thirty-second amendment)
UNPINNED_SOURCES = ("sglang-pr31044-mi300x-2026", "sglang-pr30812-mi300x-2026")
MIN_ROWS = 6
MIN_CONCURRENCIES = 3
GAIN = 0.10


def _built_lines() -> set[tuple[str, str, str]]:
    return {
        (b.engine, b.model_class, builds.release_line(b.version))
        for v in builds.ROCM_BUILDS.values()
        for b in v
    }


def candidates() -> dict[tuple[str, str, str], list[dict]]:
    """The tuning rows (fitting: not refused) of each release line no build covers."""
    built, out = _built_lines(), {}
    for r in amd.load_rows():
        if amd.held_out(r) or not r["engine_version"] or r["source_id"] in UNPINNED_SOURCES:
            continue
        if amd.figures(r, 1.0, 0.0) is None:
            continue
        if amd.line_of(r) not in built:
            out.setdefault(amd.line_of(r), []).append(r)
    return dict(sorted(out.items()))


def _median_abs(errs) -> float:
    return error_summary(list(errs))["median_abs"]


def today_ttft_error(rows: list[dict], k: float, s: float) -> float:
    """The median |TTFT error| with the constants the rows get today, around the step (k, s)."""
    errs = []
    for r in rows:
        p = amd.parts(r)
        predicted = first_token_s(
            r["engine"], p.t_prefill, amd.step_s(p, k, s), p.batch, amd._build(r).ttft_rows
        )
        errs.append(predicted / (float(r["ttft_ms"]) / 1e3) - 1)
    return _median_abs(errs)


def main() -> None:
    for (engine, cls, line), rows in candidates().items():
        tpot_rows = [r for r in rows if r["tpot_ms"]]
        head = f"{engine} {line} {cls} (version {amd.line_version(rows)}; {len(rows)} tuning rows)"
        if not tpot_rows:
            print(f"{head}: no TPOT rows; no build")
            continue
        k, s, _ = step_fit.fit(tpot_rows)
        fitted = _median_abs(
            amd.figures(r, k, s)["tpot_ms"] / float(r["tpot_ms"]) - 1 for r in tpot_rows
        )
        today = _median_abs(amd.errors(r)["tpot_ms"] for r in tpot_rows)
        conc = len({r["concurrency"] for r in tpot_rows})
        parts = {
            "rows": len(tpot_rows) >= MIN_ROWS,
            "concurrencies": conc >= MIN_CONCURRENCIES,
            "gain": fitted <= today - GAIN,
        }
        step_ok = all(parts.values())
        verdicts = ", ".join(f"{n} {'ok' if ok else 'FAILS'}" for n, ok in parts.items())
        print(
            f"{head}: step k = {k:.2f}, s = {s * 1e6:.0f} µs over {len(tpot_rows)} TPOT rows at "
            f"{conc} concurrencies: median |TPOT error| {fitted:.1%} against {today:.1%} today "
            f"({verdicts}): " + ("ADOPT" if step_ok else "no build")
        )
        ttft_rows = [r for r in rows if r["ttft_ms"]]
        if len(ttft_rows) < ttft_fit.MIN_ROWS:
            print(f"    first token: {len(ttft_rows)} rows with TTFT; not fitted")
            continue
        a, kt, w, err = ttft_fit.fit(ttft_fit.columns(ttft_rows, (k, s)))
        before = today_ttft_error(ttft_rows, k, s)
        verdict = "ADOPT" if step_ok and err < before else "not adopted"
        print(
            f"    first token: a = {a * 1e3:.0f} ms, k = {kt:.1f}, w = {w:.2f} over "
            f"{len(ttft_rows)} rows: median |TTFT error| {err:.1%} against {before:.1%} with "
            f"today's constants: {verdict}"
        )


if __name__ == "__main__":
    main()

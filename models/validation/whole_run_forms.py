"""Amendments 3 and 5's candidate forms of the whole-run factor (docs/reference/whole-run-model.md).

Amendment 5 (below the marker): AMENDMENT5_FORMS on the 61 seen runs, each scored leave one SOURCE
out (`candidate5_scores`), checked for whole-run days that do not rise with the GPU count on a fixed
grid (`monotonicity`), and chosen by `select5`. Amendment 3 (kept for its rule; `seen_rows` is now the
61): candidate forms of the whole-run factor scored on the seen runs
(docs/reference/whole-run-model.md, 'Amendment 3'): the 38 fitted runs and both added batches, each
planned as before. For each form (models/training/whole_run.py FORMS): the leave-one-out errors
(fit on 52, predict the one left out, features held inside the 53 runs' range), their summaries per
active-size class, stack class and batch of origin, the band from them, and the fit on all 53;
`select` applies the selection rule the amendment fixed before any of these was computed.
"""

from __future__ import annotations

import functools

from models.scenario import Scenario
from models.training.plan import Planner
from models.training.whole_run import FORMS, RunFeatures, whole_run_factor
from models.validation.training_rows import shape_of
from models.validation.whole_run import (
    band_by_size,
    band_hits,
    fit_rows,
    fit_weighted,
    group_summaries,
    leave_one_out_errors,
    leave_one_source_out_errors,
    run_error,
    score_summary,
    seen_rows,
)

#: the baseline of the selection rule: the current form, refitted on the 53
BASELINE = "C0"
#: the rule's thresholds: |signed LOO median| at most; a size class worse than the baseline by at
#: most; the margin the best must beat the baseline by; the tie window that prefers fewer parameters
MAX_SIGNED, MAX_CLASS_LOSS, MIN_GAIN, TIE = 0.05, 0.05, 0.02, 0.01
#: C4 is ineligible when its run-length coefficient is at or below this (whole-run days would fall
#: as the steady state lengthens)
MIN_DAYS_COEFFICIENT = -1.0


def feature_ranges(rows) -> dict[str, tuple[float, float]]:
    """{feature: (lowest, highest)} of the continuous features over these runs."""
    f = [r["features"] for r in rows]
    span = {
        "params": [x.params_active for x in f],
        "gpus": [x.gpus for x in f],
        "mfu": [x.mfu for x in f],
        "days": [x.steady_days for x in f],
    }
    return {k: (min(v), max(v)) for k, v in span.items()}


@functools.cache
def candidate_scores(form: str) -> dict:
    """One form on the 53: leave-one-out errors and their summaries (overall, per size class, stack
    class and batch), the band from them and its coverage, the fit on all 53 and its range."""
    rows = seen_rows()
    ranges = feature_ranges(rows)
    loo = leave_one_out_errors(rows, form, ranges)
    bands = band_by_size(rows, loo)
    scores = score_summary(rows, loo, bands)
    scores["by_batch"] = group_summaries(rows, loo, "batch")
    fit = fit_rows(rows, form)
    return {
        "form": form,
        "parameters": len(FORMS[form]) + 1,
        "fit": fit,
        "ranges": ranges,
        "leave_one_out": scores,
        "band": bands,
        "in_sample": [run_error(r, fit, form, ranges) for r in rows],
        "in_sample_coverage": band_hits(rows, loo, bands),
    }


def _eligible(s: dict, base: dict) -> bool:
    loo = s["leave_one_out"]
    if abs(loo["all"]["signed_median"]) > MAX_SIGNED:
        return False
    for name, c in loo["by_size_class"].items():
        if (
            c["median_abs_error"]
            > base["leave_one_out"]["by_size_class"][name]["median_abs_error"] + MAX_CLASS_LOSS
        ):
            return False
    names = FORMS[s["form"]]
    return "days" not in names or s["fit"][1 + names.index("days")] > MIN_DAYS_COEFFICIENT


def select(scores: dict[str, dict]) -> tuple[str, str]:
    """(chosen form, why) by amendment 3's rule: among eligible candidates the lowest leave-one-out
    median |error|, fewer parameters preferred within TIE of it, adopted only if MIN_GAIN below the
    baseline's; otherwise the baseline refitted on the 53."""
    base = scores[BASELINE]

    def med(f):
        return scores[f]["leave_one_out"]["all"]["median_abs_error"]

    ok = [f for f in scores if f != BASELINE and _eligible(scores[f], base)]
    if not ok:
        return BASELINE, "no candidate is eligible"
    best = min(ok, key=med)
    near = [f for f in ok if med(f) <= med(best) + TIE]
    best = min(near, key=lambda f: (scores[f]["parameters"], med(f)))
    if med(best) > med(BASELINE) - MIN_GAIN:
        return (
            BASELINE,
            f"{best} ({med(best):.1%}) does not beat {BASELINE} ({med(BASELINE):.1%}) by 2 points",
        )
    return best, f"{best} {med(best):.1%} against {BASELINE} {med(BASELINE):.1%}"


# ------------------------------------------------------------------ amendment 5 (2026-12-02)

#: amendment 5's candidates (docs/reference/whole-run-model.md, 'Amendment 5'): the two refitted
#: baselines first, then C8 and C9 (C0 and C3 with equal weight per source) and C10 (C0 + A100 era)
AMENDMENT5_FORMS = ("C0", "C3", "C8", "C9", "C10")
BASELINES5 = ("C0", "C3")
#: the monotonicity grid, fixed in the amendment: (preset, tokens, GPU, GPU counts, doubling)
MONOTONE_GRID = (
    ("llama3-8b", 15e12, "H100-SXM", (256, 512, 1024, 2048, 4096, 8192)),
    ("llama3-70b", 15e12, "H100-SXM", (1024, 2048, 4096, 8192, 16384)),
    ("llama3-405b", 15.6e12, "H100-SXM", (4096, 8192, 16384, 32768)),
    ("llama3.2-1b", 1e12, "A100-80GB", (32, 64, 128, 256, 512, 1024)),
)
#: the relative tolerance of "does not rise"
MONOTONE_TOLERANCE = 1e-9


@functools.cache
def grid_steady_days() -> tuple[tuple[str, tuple[float, ...]], ...]:
    """The steady-state days of each MONOTONE_GRID plan at each of its counts (the planner's searched
    layout, its default stack): they do not depend on the whole-run form."""
    out = []
    for model, tokens, gpu, counts in MONOTONE_GRID:
        scenario = Scenario.model_validate(
            {
                "workload": {"model": model, "tokens": tokens},
                "cluster": {"gpu": gpu, "gpus": counts[0]},
            }
        )
        planner = Planner(scenario)
        out.append((model, tuple(planner.steady_days(g)[0] for g in counts)))
    return tuple(out)


def monotonicity(form: str, fit, ranges) -> list[dict]:
    """Amendment 5's check (c): per grid plan, F and whole-run days at each count, and whether at
    every doubling the days do not rise (or, where the steady state rises, F does not)."""
    out = []
    for (model, _, gpu, counts), (_, steady) in zip(MONOTONE_GRID, grid_steady_days(), strict=True):
        active = shape_of(model).params_active
        f = [
            whole_run_factor(RunFeatures(active, g, stack=None, gpu=gpu), fit, form, ranges)
            for g in counts
        ]
        days = [s * x for s, x in zip(steady, f, strict=True)]
        ok = all(
            d2 <= d1 * (1 + MONOTONE_TOLERANCE) or (s2 > s1 and f2 <= f1 * (1 + MONOTONE_TOLERANCE))
            for d1, d2, s1, s2, f1, f2 in zip(
                days, days[1:], steady, steady[1:], f, f[1:], strict=False
            )
        )
        out.append(
            {"model": model, "gpu": gpu, "counts": counts, "steady": steady, "factor": f,
             "days": days, "passes": ok}
        )  # fmt: skip
    return out


@functools.cache
def candidate5_scores(form: str) -> dict:
    """One amendment-5 form on the 61 seen runs: leave-one-source-out errors and their summaries
    (overall, size class, stack class, batch), the band from them, the fit on all 61 (with the
    form's weights), its range and the monotonicity check."""
    rows = seen_rows()
    ranges = {k: v for k, v in feature_ranges(rows).items() if k in ("params", "gpus")}
    loso = leave_one_source_out_errors(rows, form, ranges)
    bands = band_by_size(rows, loso)
    scores = score_summary(rows, loso, bands)
    scores["by_batch"] = group_summaries(rows, loso, "batch")
    fit = fit_weighted(rows, form)
    mono = monotonicity(form, fit, ranges)
    return {
        "form": form,
        "parameters": len(FORMS[form]) + 1,
        "fit": fit,
        "ranges": ranges,
        "leave_one_source_out": scores,
        "band": bands,
        "monotonicity": mono,
        "monotone": all(m["passes"] for m in mono),
    }


def select5(scores: dict[str, dict]) -> tuple[str, str]:
    """(chosen form, why) by amendment 5's rule: a non-baseline candidate is adopted if (a) its
    leave-one-source-out median |error| is MIN_GAIN below both baselines', (b) its signed median is
    within MAX_SIGNED and (c) it is monotone; the lowest median, fewer parameters within TIE.
    Otherwise C3 refitted ("C3") if the refit passes (b) and (c), else "C3 committed"."""

    def med(f):
        return scores[f]["leave_one_source_out"]["all"]["median_abs_error"]

    def bc(f):
        signed = scores[f]["leave_one_source_out"]["all"]["signed_median"]
        return abs(signed) <= MAX_SIGNED and scores[f]["monotone"]

    bar = min(med(b) for b in BASELINES5) - MIN_GAIN
    ok = [f for f in scores if f not in BASELINES5 and bc(f) and med(f) <= bar]
    if ok:
        best = min(ok, key=med)
        near = [f for f in ok if med(f) <= med(best) + TIE]
        best = min(near, key=lambda f: (scores[f]["parameters"], med(f)))
        return best, f"{best} {med(best):.1%} against the baselines' best {bar + MIN_GAIN:.1%}"
    if bc("C3"):
        return (
            "C3",
            f"no candidate passes; C3 refitted on the 61 passes (b) and (c) ({med('C3'):.1%})",
        )
    return "C3 committed", "no candidate passes and C3 refitted fails (b) or (c)"

"""Amendment 3's candidate forms of the whole-run factor scored on the 53 seen runs
(docs/reference/whole-run-model.md, 'Amendment 3'): the 38 fitted runs and both added batches, each
planned as before. For each form (models/training/whole_run.py FORMS): the leave-one-out errors
(fit on 52, predict the one left out, features held inside the 53 runs' range), their summaries per
active-size class, stack class and batch of origin, the band from them, and the fit on all 53;
`select` applies the selection rule the amendment fixed before any of these was computed.
"""

from __future__ import annotations

import functools

from models.training.whole_run import FORMS
from models.validation.whole_run import (
    band_by_size,
    band_hits,
    fit_rows,
    group_summaries,
    leave_one_out_errors,
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

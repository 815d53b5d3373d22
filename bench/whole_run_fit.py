"""Reproduce the whole-run fit (docs/reference/whole-run-model.md): the parameters fitted on the
published whole runs, the leave-one-out scores beside the steady state's and the rule of thumb's,
and the band; with --added, each batch of runs added after the fit (ADDED_BATCHES: the first, then
the second entered 2026-12-02) scored with the committed parameters and band, read from its file.

    .venv/bin/python -m bench.whole_run_fit [--added] [--candidates]

--candidates: amendment 5's candidate forms, each scored leave one source out on the 61 seen runs,
the monotonicity check on its fixed grid, and the selection rule's choice
(models/validation/whole_run_forms.py).
"""

from __future__ import annotations

import sys

from models.constants import WHOLE_RUN_BAND_BY_SIZE, WHOLE_RUN_FIT, WHOLE_RUN_FORM
from models.validation.whole_run import ADDED_BATCHES, added_scores, whole_run_scores


def _line(name: str, s: dict) -> str:
    return (
        f"  {name:22} {s['rows']:>3} runs: median |err| {s['median_abs_error']:6.1%}, signed median "
        f"{s['signed_median']:+6.1%}, worst {s['worst_abs_error']:6.1%} "
        f"({s['min_error']:+.0%} to {s['max_error']:+.0%})"
    )


def _block(title: str, sc: dict) -> list[str]:
    out = [title, _line("all", sc["all"])]
    out += [_line(f"size {k}", v) for k, v in sc["by_size_class"].items()]
    out += [_line(k, v) for k, v in sc["by_stack_class"].items()]
    out.append(f"  band coverage: {sc['band_coverage']:.0%}")
    return out


def main() -> None:
    s = whole_run_scores()
    fit = ", ".join(f"{p:.4f}" for p in s["fit"])
    print(f"form {WHOLE_RUN_FORM} fit on {len(s['rows'])} runs: ({fit})")
    print(f"committed (constants.WHOLE_RUN_FIT): {WHOLE_RUN_FIT}")
    print(f"band from the leave-one-source-out errors (by active size): {s['band']}")
    print(f"committed (constants.WHOLE_RUN_BAND_BY_SIZE): {WHOLE_RUN_BAND_BY_SIZE}")
    print("\n".join(_block("pre-fit (steady state):", s["pre_fit"])))
    print("\n".join(_block("whole run, leave one source out:", s["leave_one_out"])))
    print("\n".join(_line(f"batch {k}", v) for k, v in s["leave_one_out"]["by_batch"].items()))
    r = s["rule_of_thumb"]
    print(_line("rule of thumb (38)", r))
    for row, e in zip(s["rows"], s["leave_one_out"]["errors"], strict=True):
        print(
            f"    {row['id']:24} {row['gpus']:>6} GPUs  active {row['params_active'] / 1e9:7.2f}B  "
            f"steady {row['steady_error']:+6.1%}  whole (LOSO) {e:+6.1%}"
        )
    if "--candidates" in sys.argv:
        print("\n".join(_candidates()))
    if "--added" in sys.argv:
        for _, title, path in ADDED_BATCHES:
            print("\n".join(_added(f"{title}, {path.name}", added_scores(path))))


def _added(title: str, d: dict) -> list[str]:
    """One batch's scores, steady state then whole run, and each run's errors."""
    out = _block(f"\nadded after the fit, {title}: pre-fit (steady state):", d["pre_fit"])
    out += _block("whole run (committed fit and band):", d["whole_run"])
    for row, e in zip(d["rows"], d["whole_run"]["errors"], strict=True):
        out.append(
            f"    {row['id']:24} {row['gpus']:>6} GPUs  active {row['params_active'] / 1e9:7.2f}B "
            f" F {row['factor']:.2f}  steady {row['steady_error']:+6.1%}  whole {e:+6.1%}"
        )
    return out


def _candidates() -> list[str]:
    """Amendment 5: each candidate's leave-one-source-out scores on the 61 seen runs, the
    monotonicity check on the fixed grid, and the selection rule's choice."""
    from models.training.whole_run import FORMS, WEIGHTED
    from models.validation.whole_run import source_groups
    from models.validation.whole_run_forms import (
        AMENDMENT5_FORMS,
        candidate5_scores,
        seen_rows,
        select5,
    )

    scores = {f: candidate5_scores(f) for f in AMENDMENT5_FORMS}
    out = []
    for f, s in scores.items():
        fit = ", ".join(f"{p:+.4f}" for p in s["fit"])
        how = "source-weighted" if f in WEIGHTED else "one weight per run"
        out += _block(
            f"\ncandidate {f} (1, {', '.join(FORMS[f])}; {how}): fit on 61 ({fit}); "
            "leave one source out:",
            s["leave_one_source_out"],
        )
        out += [_line(f"batch {k}", v) for k, v in s["leave_one_source_out"]["by_batch"].items()]
        out.append(f"  band: {s['band']}")
        for m in s["monotonicity"]:
            cells = ", ".join(
                f"{g}: F {x:.2f} {d:.1f} d"
                for g, x, d in zip(m["counts"], m["factor"], m["days"], strict=True)
            )
            out.append(f"  monotone {m['model']} on {m['gpu']}: {m['passes']} ({cells})")
    rows = seen_rows()
    out.append(f"ranges: {scores['C0']['ranges']}")
    out.append("    run                       " + " ".join(f"{f:>7}" for f in scores))
    for i, r in enumerate(rows):
        errs = " ".join(f"{scores[f]['leave_one_source_out']['errors'][i]:+7.1%}" for f in scores)
        out.append(f"    {r['id']:24} {source_groups()[r['id']][:12]:12} {errs}")
    chosen, why = select5(scores)
    out.append(f"selection rule (amendment 5): {chosen} ({why})")
    return out


if __name__ == "__main__":
    main()

"""`clusterplan validate`'s table of the whole-run expectation (models/validation/whole_run.py): the
steady state (pre-fit) and the whole-run expectation (post-fit, leave one source out) side by side with the
rule of thumb, per size class (active parameters) and stack class; then each batch of runs added
after the fit (ADDED_BATCHES), a block of its own.
"""

from __future__ import annotations

from models.constants import WHOLE_RUN_BAND_BY_SIZE
from models.training.whole_run import formula_text
from models.validation.whole_run import (
    ADDED_BATCHES,
    ADDED_TARGETS,
    FITTED_BATCHES,
    added_scores,
    never_fitted_scores,
    whole_run_scores,
)


def _cell(s: dict | None) -> str:
    if s is None:
        return f"{'':>20}"
    return f"{s['median_abs_error']:>7.1%} {s['signed_median']:>+7.1%} ({s['rows']:>2})"


def _side_by_side(title: str, pre: dict, post: dict, rule: dict | None) -> list[str]:
    head = f"{'':26} {'steady state (pre-fit)':>22} {'whole run (post-fit)':>22}"
    lines = [title, head + ("" if rule is None else f" {'rule of thumb':>22}")]
    lines.append(f"{'':26} {'median  signed (n)':>22} {'median  signed (n)':>22}")
    lines.append(
        f"{'all':26} {_cell(pre['all']):>22} {_cell(post['all']):>22}"
        + ("" if rule is None else f" {_cell(rule):>22}")
    )
    for key, label in (("by_size_class", "size "), ("by_stack_class", ""), ("by_batch", "batch ")):
        for name, s in post.get(key, {}).items():
            lines.append(f"{label + name:26} {_cell(pre[key][name]):>22} {_cell(s):>22}")
    lines.append(
        f"{'band holds':26} {'':>22} {post['band_coverage']:>21.0%} (its active-size class's band)"
    )
    return lines


def whole_run_report() -> str:
    """The whole-run model's fit, its leave-one-out scores beside the steady state's and the rule of
    thumb's, the band, and the runs added after the fit (docs/reference/whole-run-model.md)."""
    s = whole_run_scores()
    bands = ", ".join(
        f"{k} {lo:+.0%} to {hi:+.0%}" for k, (lo, hi) in WHOLE_RUN_BAND_BY_SIZE.items()
    )
    lines = [
        "\n== Whole-run expectation: steady state x F(N_active, G, stack) "
        "(docs/reference/whole-run-model.md) ==",
        f"F = {formula_text()}, fitted by least absolute deviations on the {len(s['rows'])} seen "
        "runs (whole_runs_heldout.csv and the first four added batches, each source weighted "
        f"equally; amendment 5); band (leave-one-source-out errors, by active size): {bands}",
    ]
    lines += _side_by_side(
        "GPU-hours |error| median and signed median, fitted runs, each scored with the fit "
        "on the other sources (leave one source out; rule of thumb on the 38 whose MFU it was picked on):",
        s["pre_fit"],
        s["leave_one_out"],
        s["rule_of_thumb"],
    )
    for key, title, path in ADDED_BATCHES:
        lines += _added_block(title, path.name, added_scores(path), key in FITTED_BATCHES)
    return "\n".join(lines + _never_fitted_line(never_fitted_scores()))


def _never_fitted_line(d: dict) -> list[str]:
    """The never-fitted batches pooled, against issue 31's targets (each met or not, said)."""
    a = d["all"]
    med, signed, band = ADDED_TARGETS
    met = (
        a["median_abs_error"] <= med,
        abs(a["signed_median"]) <= signed,
        d["band_coverage"] >= band,
    )
    verdict = ", ".join(
        f"{name} {'met' if ok else 'not met'}"
        for name, ok in zip(("median", "signed", "band"), met, strict=True)
    )
    return [
        f"Never fitted, scored once under the committed form, batches {' + '.join(d['batches'])} "
        f"together: {a['rows']} runs, median {a['median_abs_error']:.1%}, signed "
        f"{a['signed_median']:+.1%}, band holds {d['band_coverage']:.0%} ({verdict}; targets "
        f"{med:.0%}, +/-{signed:.0%}, {band:.0%})"
    ]


def _added_block(title: str, file_name: str, d: dict, fitted: bool) -> list[str]:
    """One batch of runs added after the fit: its summary beside the steady state, per size and
    stack class, the band's coverage, then each run's errors. A batch the committed form is fitted
    on (FITTED_BATCHES) is scored in sample and not set against the targets."""
    against = (
        "in the fit: in-sample, not evidence for the targets"
        if fitted
        else f"targets {ADDED_TARGETS[0]:.0%} median, signed within +/-{ADDED_TARGETS[1]:.0%}, "
        f"band holding {ADDED_TARGETS[2]:.0%}"
    )
    lines = _side_by_side(
        f"Runs added after the first fit, {title} ({file_name}), committed parameters and band; "
        f"{against}:",
        d["pre_fit"],
        d["whole_run"],
        None,
    )
    for r, e in zip(d["rows"], d["whole_run"]["errors"], strict=True):
        lines.append(
            f"  {r['id']:24} {r['gpus']:>6,}{'+' if r['gpus_chosen'] else ' '} GPUs, "
            f"{r['params_active'] / 1e9:6.1f}B active, F {r['factor']:.2f}: steady "
            f"{r['steady_error']:+6.1%}, whole run {e:+6.1%}"
        )
    return lines

"""The Validation page's whole-run section: the steady state (pre-fit) and the whole-run expectation
(post-fit, each run left out of the fit) side by side, the band, and each batch of runs added after
the fit (ADDED_BATCHES: the first batch, seen; the second, entered 2026-12-02 before any was scored),
a caption and a table of its own (models/validation/whole_run.py; docs/reference/whole-run-model.md)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from app.views.forms import pinned_table
from models.constants import WHOLE_RUN_BAND_BY_SIZE
from models.training.whole_run import formula_text
from models.validation.whole_run import (
    ADDED_BATCHES,
    ADDED_TARGETS,
    FITTED_BATCHES,
    added_scores,
    whole_run_scores,
)


def scores_table(pre: dict, post: dict) -> pd.DataFrame:
    """One row per group: median |error| and signed median, steady state and whole run, in %."""
    groups = [("all runs", "all", None)]
    groups += [(f"size {k}", "by_size_class", k) for k in post["by_size_class"]]
    groups += [(k, "by_stack_class", k) for k in post["by_stack_class"]]
    rows = []
    for label, key, name in groups:
        a, b = (pre[key], post[key]) if name is None else (pre[key][name], post[key][name])
        rows.append(
            {
                "group": label,
                "runs": b["rows"],
                "steady state median %": 100 * a["median_abs_error"],
                "steady state signed %": 100 * a["signed_median"],
                "whole run median %": 100 * b["median_abs_error"],
                "whole run signed %": 100 * b["signed_median"],
            }
        )
    return pd.DataFrame(rows)


def added_table(d: dict) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "run": r["id"],
            "GPUs": r["gpus"],
            "active params (B)": r["params_active"] / 1e9,
            "factor": r["factor"],
            "steady state error %": 100 * r["steady_error"],
            "whole run error %": 100 * e,
        }
        for r, e in zip(d["rows"], d["whole_run"]["errors"], strict=True)
    )


_NUMBERS = {
    c: st.column_config.NumberColumn(format="%+.1f")
    for c in (
        "steady state median %",
        "steady state signed %",
        "whole run median %",
        "whole run signed %",
        "steady state error %",
        "whole run error %",
    )
}


def render_whole_run() -> None:
    """The whole-run expectation's fit, scores and band, and the runs added after the fit."""
    w = whole_run_scores()
    rt = w["rule_of_thumb"]
    st.subheader("Whole-run expectation: what plans and costs use")
    bands = "; ".join(
        f"{k} {lo:+.0%} to {hi:+.0%}" for k, (lo, hi) in WHOLE_RUN_BAND_BY_SIZE.items()
    )
    st.caption(
        "A plan shows two estimates: the steady state (the step-time physics at the chosen layout, "
        "with the modelled failures) and the whole run a buyer pays for, the steady state × F with "
        f"F = {formula_text(digits=3, times='·')}, its form chosen among five written down before "
        "any was fitted (docs/reference/whole-run-model.md, amendment 5) and fitted by least "
        f"absolute deviations on the {len(w['rows'])} seen whole runs, each source weighted "
        "equally. Each run is scored with the fit on the other sources (leave one source out); the rule of thumb's median (on the 38 first runs) is "
        f"{100 * rt['median_abs_error']:.1f} %. Band on planned days, from those errors by ACTIVE "
        f"parameters: {bands}; it holds {w['leave_one_out']['band_coverage']:.0%} of the runs."
    )
    pinned_table(
        scores_table(w["pre_fit"], w["leave_one_out"]), hide_index=True, column_config=_NUMBERS
    )
    for key, title, path in ADDED_BATCHES:
        render_added(title, path.name, added_scores(path), key in FITTED_BATCHES)


def render_added(title: str, file_name: str, d: dict, fitted: bool) -> None:
    """One batch of runs added after the fit: its summary against issue 31's targets (or, for a
    batch the committed form is fitted on, in sample and without them), per size and stack class
    beside the steady state, and each run's errors."""
    add = d["whole_run"]
    t = (
        ["", "", ""]
        if fitted
        else [
            f" (target {ADDED_TARGETS[0]:.0%})",
            f" (target ±{ADDED_TARGETS[1]:.0%})",
            f" (target {ADDED_TARGETS[2]:.0%})",
        ]
    )
    how = "in sample (the form is fitted on them)" if fitted else "with the committed fit and band"
    st.caption(
        f"Runs added after the first fit, {title}: {add['all']['rows']} runs "
        f"(models/data/validation/{file_name}), scored {how}: median "
        f"{100 * add['all']['median_abs_error']:.1f} %{t[0]}, signed "
        f"{100 * add['all']['signed_median']:+.1f} %{t[1]}, band holding "
        f"{add['band_coverage']:.0%}{t[2]}; steady state median "
        f"{100 * d['pre_fit']['all']['median_abs_error']:.1f} %, signed "
        f"{100 * d['pre_fit']['all']['signed_median']:+.1f} %."
    )
    pinned_table(added_table(d), hide_index=True, column_config=_NUMBERS)
    groups = scores_table(d["pre_fit"], d["whole_run"])
    pinned_table(
        groups.rename(columns={"group": "added-run group"}), hide_index=True, column_config=_NUMBERS
    )

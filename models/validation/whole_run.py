"""The whole-run expectation scored on published whole runs (docs/reference/whole-run-model.md).

- `fitted_rows`: the 38 runs of whole_runs_heldout.csv with their steady-state GPU-hours as the
  planner plans them (validate_heldout, the steady state: no whole-run factor);
- `added_scores`: a batch of runs added after the first fit (ADDED_BATCHES: whole_runs_added.csv
  to whole_runs_added4.csv), planned the same way and scored with the committed parameters and
  band (constants.WHOLE_RUN_FIT, WHOLE_RUN_BAND_BY_SIZE): since amendment 5 the first four batches
  are in the fit (in-sample scores, kept per batch); a later batch never is;
- `seen_rows`: the 61 runs the committed form is fitted on (the 38, then four batches);
- `whole_run_scores`: the fit on the 61, the leave-one-source-out errors (each run predicted by the
  parameters fitted on the other source groups' runs, amendment 5), the pre-fit (steady-state) errors and the rule of thumb beside
  them, per size class (ACTIVE parameters), stack class and batch of origin, and the band from the
  leave-one-source-out errors.
The scores are computed from the files and the planner as they are, so they move with the steady
state.
"""

from __future__ import annotations

import csv
import functools
import math
import pathlib
import statistics

from models.constants import (
    BAND_SIZE_CLASSES,
    WHOLE_RUN_BAND_BY_SIZE,
    WHOLE_RUN_FIT,
    WHOLE_RUN_FORM,
    WHOLE_RUN_RANGE,
)
from models.training.whole_run import (
    WEIGHTED,
    RunFeatures,
    fit_whole_run,
    size_class,
    whole_run_factor,
)
from models.validation.training import row_stack, validate_heldout
from models.validation.training_predict import plan_heldout_run
from models.validation.training_rows import ROOT, shape_of
from models.validation.training_scores import band_coverage, band_from_errors

#: runs added after the fit, entered before their errors were computed
ADDED_RUNS = ROOT / "whole_runs_added.csv"
#: the second batch, entered 2026-12-02 once the first was seen (whole-run-model.md, 'Second batch')
ADDED2_RUNS = ROOT / "whole_runs_added2.csv"
#: the third, entered 2026-12-02 before any was scored, once the form was refitted on the 53 seen
#: runs (whole-run-model.md, 'Third batch'): the evidence for issue 31's targets
ADDED3_RUNS = ROOT / "whole_runs_added3.csv"
#: the fourth, entered sealed 2026-12-02 and scored once the lead had kept form C3 (amendment 4 not
#: adopted: whole-run-model.md, 'Fourth batch' and 'Amendment 4')
ADDED4_RUNS = ROOT / "whole_runs_added4.csv"
#: the fifth, entered sealed 2026-12-02 while amendment 5 was fitted, scored once under form C9
#: (whole-run-model.md, 'Fifth batch'); never fitted
ADDED5_RUNS = ROOT / "whole_runs_added5.csv"
#: the sixth, entered sealed 2026-12-02 (one run), scored once under C9 (whole-run-model.md, 'Sixth
#: batch'); never fitted
ADDED6_RUNS = ROOT / "whole_runs_added6.csv"
#: the seventh, entered sealed 2026-12-03 (one run), scored once under C9 (whole-run-model.md,
#: 'Seventh batch'); never fitted
ADDED7_RUNS = ROOT / "whole_runs_added7.csv"
#: the eighth and ninth, entered sealed 2026-12-03 (one run each, by two engineers in parallel),
#: scored once under C9 (whole-run-model.md, 'Eighth batch', 'Ninth batch'); never fitted
ADDED8_RUNS = ROOT / "whole_runs_added8.csv"
ADDED9_RUNS = ROOT / "whole_runs_added9.csv"
#: the tenth, entered sealed 2026-12-03 (one run; it shares a source group with the fitted
#: a3-lucie-7b, said in whole-run-model.md 'Tenth batch'), scored once under C9; never fitted
ADDED10_RUNS = ROOT / "whole_runs_added10.csv"
#: the batches of runs added after the fit, in the order entered: (key, title, file)
ADDED_BATCHES = (
    ("added", "first batch (seen; in the fit since amendment 3)", ADDED_RUNS),
    (
        "added2",
        "second batch (entered 2026-12-02 before any was scored; in the fit since amendment 3)",
        ADDED2_RUNS,
    ),
    (
        "added3",
        "third batch (entered 2026-12-02, scored once under form C3; in the fit since amendment 5)",
        ADDED3_RUNS,
    ),
    (
        "added4",
        "fourth batch (entered sealed 2026-12-02, scored once under C3; in the fit since amendment 5)",
        ADDED4_RUNS,
    ),
    (
        "added5",
        "fifth batch (entered sealed 2026-12-02, scored once under C9; never fitted)",
        ADDED5_RUNS,
    ),
    (
        "added6",
        "sixth batch (entered sealed 2026-12-02, scored once under C9; never fitted)",
        ADDED6_RUNS,
    ),
    (
        "added7",
        "seventh batch (entered sealed 2026-12-03, scored once under C9; never fitted)",
        ADDED7_RUNS,
    ),
    (
        "added8",
        "eighth batch (entered sealed 2026-12-03, scored once under C9; never fitted)",
        ADDED8_RUNS,
    ),
    (
        "added9",
        "ninth batch (entered sealed 2026-12-03, scored once under C9; never fitted)",
        ADDED9_RUNS,
    ),
    (
        "added10",
        "tenth batch (entered sealed 2026-12-03, scored once under C9; never fitted)",
        ADDED10_RUNS,
    ),
)
#: the batch of origin of the 38 runs of whole_runs_heldout.csv in seen_rows
FIRST_FIT = "fitted 38"
#: the added batches the committed form is fitted on (amendment 5: all four; amendment 3: the first
#: two); a batch entered later (the fifth) joins ADDED_BATCHES only, and is scored with the committed
#: constants, never fitted on
FITTED_BATCHES = ("added", "added2", "added3", "added4")
#: issue 31's targets on the runs added after the fit: median |error|, |signed median|, band coverage
ADDED_TARGETS = (0.25, 0.10, 0.80)


def signed_summary(errors: list[float]) -> dict[str, float]:
    """Median |error|, signed median, worst |error| and the signed range of a set of errors."""
    return {
        "rows": len(errors),
        "median_abs_error": statistics.median(abs(e) for e in errors),
        "signed_median": statistics.median(errors),
        "worst_abs_error": max(abs(e) for e in errors),
        "min_error": min(errors),
        "max_error": max(errors),
    }


def _row(r: dict, params_active: float) -> dict:
    """A scored run: its ids and classes, published and steady-state GPU-hours, and what the plan
    knows at its GPU count (RunFeatures: the steady state's MFU, days and software stack)."""
    return {
        "features": RunFeatures(
            params_active, r["gpus"], r["mfu"], r["train_days"], row_stack(r), r["gpu"]
        ),
        "id": r["id"],
        "stack_class": r["stack_class"],
        "gpus": r["gpus"],
        "params_active": params_active,
        "size_class": size_class(params_active),
        "published": r["published"],
        "steady": r["predicted"],
        "steady_error": r["error"],
        "rule_error": r.get("rule_error"),
    }


@functools.cache
def fitted_rows() -> tuple[dict, ...]:
    """The fitted runs with their steady-state GPU-hours (the planner's plan, no whole-run factor)."""
    return tuple(_row(r, shape_of(r["model"]).params_active) for r in validate_heldout()["rows"])


def fit_rows(rows, form: str = WHOLE_RUN_FORM, weights=None) -> tuple[float, ...]:
    """The form's parameters fitted on these runs (fit_whole_run on ln(published / steady)), each
    run weighted as given (None: one each)."""
    return fit_whole_run(
        [r["features"] for r in rows],
        [math.log(r["published"] / r["steady"]) for r in rows],
        form,
        weights,
    )


def run_error(r: dict, fit, form: str = WHOLE_RUN_FORM, ranges=WHOLE_RUN_RANGE) -> float:
    """steady GPU-hours x F / published - 1."""
    return r["steady"] * whole_run_factor(r["features"], fit, form, ranges) / r["published"] - 1


def leave_one_out_errors(rows, form: str = WHOLE_RUN_FORM, ranges=WHOLE_RUN_RANGE) -> list[float]:
    """Each run's error predicted by the parameters fitted on the other runs only."""
    return [
        run_error(r, fit_rows([o for j, o in enumerate(rows) if j != i], form), form, ranges)
        for i, r in enumerate(rows)
    ]


#: each seen run's source group (one paper, card or model family of one team; amendment 5)
SOURCES = ROOT / "whole_run_sources.csv"


@functools.cache
def source_groups() -> dict[str, str]:
    """{run id: source group} from whole_run_sources.csv."""
    with SOURCES.open(newline="") as f:
        return {r["id"]: r["source_group"] for r in csv.DictReader(f)}


def source_weights(rows, form: str = WHOLE_RUN_FORM) -> list[float] | None:
    """1 / (runs of the run's source group among these rows) for the WEIGHTED forms, else None
    (one weight per run)."""
    if form not in WEIGHTED:
        return None
    groups = [source_groups()[r["id"]] for r in rows]
    return [1.0 / groups.count(g) for g in groups]


def fit_weighted(rows, form: str = WHOLE_RUN_FORM) -> tuple[float, ...]:
    """The form fitted on these runs with its weights (source_weights)."""
    return fit_rows(rows, form, source_weights(rows, form))


def leave_one_source_out_errors(
    rows, form: str = WHOLE_RUN_FORM, ranges=WHOLE_RUN_RANGE
) -> list[float]:
    """Each run's error predicted by the form fitted (with its weights) on the runs of the OTHER
    source groups only (amendment 5's score)."""
    groups = [source_groups()[r["id"]] for r in rows]
    fits = {
        g: fit_weighted([r for r, h in zip(rows, groups, strict=True) if h != g], form)
        for g in set(groups)
    }
    return [run_error(r, fits[g], form, ranges) for r, g in zip(rows, groups, strict=True)]


def group_summaries(rows, errors: list[float], key: str) -> dict[str, dict]:
    names = sorted({r[key] for r in rows})
    return {
        n: signed_summary([e for r, e in zip(rows, errors, strict=True) if r[key] == n])
        for n in names
    }


def band_by_size(rows, errors: list[float]) -> dict[str, tuple[float, float]]:
    """The split-conformal band (band_from_errors) of the errors per active-size class."""
    return {
        c: band_from_errors([e for r, e in zip(rows, errors, strict=True) if r["size_class"] == c])
        for c, _ in BAND_SIZE_CLASSES
        if any(r["size_class"] == c for r in rows)
    }


def band_hits(rows, errors, bands) -> float:
    return sum(
        bands[r["size_class"]][0] <= e <= bands[r["size_class"]][1]
        for r, e in zip(rows, errors, strict=True)
    ) / len(rows)


def score_summary(rows, errors: list[float], bands) -> dict:
    return {
        "errors": errors,
        "all": signed_summary(errors),
        "by_size_class": group_summaries(rows, errors, "size_class"),
        "by_stack_class": group_summaries(rows, errors, "stack_class"),
        "band_coverage": band_hits(rows, errors, bands),
    }


@functools.cache
def seen_rows() -> tuple[dict, ...]:
    """The 61 runs the committed form is fitted on (amendment 5): the 38 of whole_runs_heldout.csv
    (batch FIRST_FIT), then each batch of FITTED_BATCHES (batch: its key), each planned as before."""
    rows = [dict(r, batch=FIRST_FIT) for r in fitted_rows()]
    for key, _, path in ADDED_BATCHES:
        if key in FITTED_BATCHES:
            rows += [dict(r, batch=key) for r in added_scores(path)["rows"]]
    return tuple(rows)


@functools.cache
def whole_run_scores() -> dict:
    """The committed form fitted on the seen runs (seen_rows, with its weights), its leave-one-
    SOURCE-out scores (amendment 5; under the key "leave_one_out") beside the steady state's
    (pre-fit), per batch of origin too, the rule of thumb's on the 38 (its MFU was picked on them),
    and the band from the leave-one-source-out errors."""
    rows = seen_rows()
    loo = leave_one_source_out_errors(rows)
    bands = band_by_size(rows, loo)
    fit = fit_weighted(rows)
    scores = score_summary(rows, loo, bands)
    scores["by_batch"] = group_summaries(rows, loo, "batch")
    pre = score_summary(rows, [r["steady_error"] for r in rows], bands)
    pre["by_batch"] = group_summaries(rows, pre["errors"], "batch")
    return {
        "rows": rows,
        "fit": fit,
        "in_sample": [run_error(r, fit) for r in rows],
        "leave_one_out": scores,
        "pre_fit": pre,
        "rule_of_thumb": signed_summary([r["rule_error"] for r in rows if r["batch"] == FIRST_FIT]),
        "band": bands,
        "band_in_sample_coverage": {
            c: band_coverage(
                [e for r, e in zip(rows, loo, strict=True) if r["size_class"] == c], *b
            )
            for c, b in bands.items()
        },
    }


def load_added_runs(path: pathlib.Path = ADDED_RUNS) -> list[dict]:
    """A file of published whole runs entered after the fit, before their scoring (ADDED_BATCHES)."""
    with path.open(newline="") as f:
        return list(csv.DictReader(f))


@functools.cache
def added_scores(path: pathlib.Path = ADDED_RUNS) -> dict:
    """One batch of runs added after the fit, each planned as the fitted runs were (steady state:
    plan_heldout_run at the published count with the source's stack class) and scored with the
    committed fit and band: error = steady GPU-hours x F(N_active, G) / published - 1."""
    rows, errors, pre = [], [], []
    for raw in load_added_runs(path):
        plan = plan_heldout_run(raw, {"software_stack": row_stack(raw)})
        active = shape_of(raw["model"]).params_active
        published = float(raw["published_gpu_hours"])
        r = _row(
            {
                "id": raw["id"],
                "stack_class": raw["stack_class"],
                "gpu": raw["gpu"],
                "gpus": plan["gpus"],
                "published": published,
                "predicted": plan["predicted"],
                "error": plan["predicted"] / published - 1,
                "mfu": plan["mfu"],
                "train_days": plan["train_days"],
            },
            active,
        )
        r["gpus_chosen"] = plan["gpus_chosen"]
        r["factor"] = whole_run_factor(r["features"])
        rows.append(r)
        errors.append(run_error(r, WHOLE_RUN_FIT))
        pre.append(r["steady_error"])
    return {
        "rows": rows,
        "whole_run": score_summary(rows, errors, WHOLE_RUN_BAND_BY_SIZE),
        "pre_fit": score_summary(rows, pre, WHOLE_RUN_BAND_BY_SIZE),
    }


def never_fitted_scores() -> dict:
    """The batches the committed form was never fitted on (ADDED_BATCHES less FITTED_BATCHES: the
    fifth and sixth, each scored once under C9), pooled: every run with its whole-run error and the
    committed band, the figures issue 31's targets are read against."""
    rows, errors, keys = [], [], []
    for key, _, path in ADDED_BATCHES:
        if key in FITTED_BATCHES:
            continue
        d = added_scores(path)
        rows += d["rows"]
        errors += d["whole_run"]["errors"]
        keys.append(key)
    return {"batches": keys, **score_summary(rows, errors, WHOLE_RUN_BAND_BY_SIZE)}

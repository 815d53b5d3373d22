"""The whole-run expectation (models/training/whole_run.py, models/validation/whole_run.py): the fit is
reproducible, the form was written before the fit (git order), leave-one-source-out leaves the
scored run's source out, whole-run days do not rise with the GPU count, the band goes by active
parameters, and plans and costs use the whole-run expectation."""

from __future__ import annotations

import math
import pathlib

import pytest

from models.constants import (
    WHOLE_RUN_BAND_BY_SIZE,
    WHOLE_RUN_FIT,
    WHOLE_RUN_FORM,
    WHOLE_RUN_RANGE,
)
from models.scenario import Scenario
from models.training.plan import plan_training
from models.training.whole_run import RunFeatures, fit_whole_run, size_class, whole_run_factor
from models.validation import whole_run as W
from tests.builders import first_commit, is_ancestor

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_the_committed_fit_and_band_are_what_the_fit_gives():
    """bench/whole_run_fit.py's numbers: refitting the committed form (with its source weights) on
    the 61 seen runs gives the committed parameters, and the leave-one-source-out errors give the
    committed band (amendment 5)."""
    s = W.whole_run_scores()
    assert len(s["rows"]) == 61
    batches = (W.FIRST_FIT, "added", "added2", "added3", "added4")
    assert [sum(r["batch"] == b for r in s["rows"]) for b in batches] == [38, 5, 10, 5, 3]
    assert s["fit"] == pytest.approx(WHOLE_RUN_FIT, abs=5e-5)
    assert s["band"] == WHOLE_RUN_BAND_BY_SIZE


def test_the_source_weights_are_part_of_the_committed_fit():
    """Form C9 weighs each source group equally: the same regressors fitted one weight per run (C3
    refitted) give other constants, so dropping the weights breaks the refit test above."""
    from models.training.whole_run import WEIGHTED

    rows = W.seen_rows()
    assert WHOLE_RUN_FORM == "C9" in WEIGHTED
    weights = W.source_weights(rows)
    groups = W.source_groups()
    assert len(set(groups.values())) == 24 and sum(weights) == pytest.approx(24)
    unweighted = W.fit_rows(rows, WHOLE_RUN_FORM)
    assert max(abs(a - b) for a, b in zip(unweighted, WHOLE_RUN_FIT, strict=True)) > 0.1


def test_the_form_was_committed_before_the_fit_and_the_added_runs_after_it():
    form = first_commit("--", "docs/reference/whole-run-model.md")
    fit = first_commit("-S", "WHOLE_RUN_FIT = (-", "--", "models/constants.py")
    added = first_commit("--", "models/data/validation/whole_runs_added.csv")
    assert form != fit and is_ancestor(form, fit)
    assert added != fit and is_ancestor(fit, added)


def test_leave_one_source_out_leaves_the_scored_runs_source_out():
    """Each run's error comes from the fit (source-weighted) on the other source groups' runs only.
    A run the fit passes through (its in-sample error about 0) is where leaving its source out
    shows: the fit without that source misses it, the fit with it does not."""
    s = W.whole_run_scores()
    rows, loo, ins = s["rows"], s["leave_one_out"]["errors"], s["in_sample"]
    groups = W.source_groups()
    through = [j for j in range(len(rows)) if abs(ins[j]) < 1e-3]
    i = max(through, key=lambda j: abs(loo[j] - ins[j]))
    others = [r for r in rows if groups[r["id"]] != groups[rows[i]["id"]]]
    assert len(others) < len(rows)
    fit = fit_whole_run(
        [r["features"] for r in others],
        [math.log(r["published"] / r["steady"]) for r in others],
        WHOLE_RUN_FORM,
        W.source_weights(others),
    )
    r = rows[i]
    alone = r["steady"] * whole_run_factor(r["features"], fit) / r["published"] - 1
    assert loo[i] == pytest.approx(alone)
    assert abs(ins[i]) < 1e-3 < abs(loo[i] - ins[i])


def test_the_lad_fit_recovers_a_law_and_ignores_one_outlier():
    x = [10 ** (i / 4) * 1e9 for i in range(12)]
    g = [2 ** (3 + (5 * i) % 11) for i in range(12)]
    y = [0.3 - 0.2 * math.log10(p / 1e9) + 0.1 * math.log10(n) for p, n in zip(x, g, strict=True)]
    y[5] += 2.0
    runs = [RunFeatures(p, n) for p, n in zip(x, g, strict=True)]
    assert fit_whole_run(runs, y, "C0") == pytest.approx((0.3, -0.2, 0.1), abs=1e-3)


def test_the_factor_is_not_extrapolated_past_the_fitted_runs():
    """Amendment 1: N_active and G held inside the fitted runs' range, which the constant records."""
    rows = W.whole_run_scores()["rows"]
    active, gpus = [r["params_active"] for r in rows], [r["gpus"] for r in rows]
    assert {"params": (min(active), max(active)), "gpus": (min(gpus), max(gpus))} == WHOLE_RUN_RANGE

    def f(n, g):
        return whole_run_factor(RunFeatures(n, g))

    assert f(405e9, 16384) == f(max(active), max(gpus))
    assert f(70e9, 16384) == f(70e9, 4096)
    assert f(70e9, 2048) < f(70e9, 4096)


def test_amendment_3_was_committed_before_its_form_and_constants():
    """The candidates and the rule (docs, 'Amendment 3') come before the chosen form's constants."""
    form = first_commit("-S", "## Amendment 3", "--", "docs/reference/whole-run-model.md")
    chosen = first_commit("-S", 'WHOLE_RUN_FORM = "C3"', "--", "models/constants.py")
    assert form != chosen and is_ancestor(form, chosen)


def test_amendment_5_was_committed_before_its_form_and_constants():
    """The candidates, the rule and the grid (docs, 'Amendment 5') come before the chosen form."""
    form = first_commit("-S", "## Amendment 5", "--", "docs/reference/whole-run-model.md")
    chosen = first_commit("-S", 'WHOLE_RUN_FORM = "C9"', "--", "models/constants.py")
    assert form != chosen and is_ancestor(form, chosen)


def test_the_selection_rule_picks_the_committed_form():
    """Amendment 5's rule applied to the five candidates' leave-one-source-out scores on the 61
    gives the committed form, and that candidate's fit and band are the committed ones."""
    from models.validation.whole_run_forms import AMENDMENT5_FORMS, candidate5_scores, select5

    scores = {f: candidate5_scores(f) for f in AMENDMENT5_FORMS}
    assert select5(scores)[0] == WHOLE_RUN_FORM == "C9"
    assert scores["C9"]["fit"] == pytest.approx(WHOLE_RUN_FIT, abs=5e-5)
    assert scores["C9"]["band"] == WHOLE_RUN_BAND_BY_SIZE


def test_whole_run_days_do_not_rise_with_the_gpu_count_on_the_grid():
    """Amendment 5's check (c): with the committed F, the whole-run days of each plan of the fixed
    grid do not rise as its GPU count doubles (the planner's searched layouts); a form whose F
    grows faster than the steady state's speed-up (c = +3 per decade of G) fails it."""
    from models.validation.whole_run_forms import monotonicity

    checks = monotonicity(WHOLE_RUN_FORM, WHOLE_RUN_FIT, WHOLE_RUN_RANGE)
    assert [c["model"] for c in checks] == ["llama3-8b", "llama3-70b", "llama3-405b", "llama3.2-1b"]
    for c in checks:
        assert c["passes"]
        assert all(b <= a * (1 + 1e-9) for a, b in zip(c["days"], c["days"][1:], strict=False))
    steep = (WHOLE_RUN_FIT[0] - 6, WHOLE_RUN_FIT[1], 3.0, WHOLE_RUN_FIT[3])
    assert not all(c["passes"] for c in monotonicity(WHOLE_RUN_FORM, steep, WHOLE_RUN_RANGE))


def _cand5(form: str, median: float, signed: float = 0.0, monotone: bool = True) -> dict:
    from models.training.whole_run import FORMS

    loso = {"all": {"median_abs_error": median, "signed_median": signed}}
    return {
        "form": form,
        "parameters": len(FORMS[form]) + 1,
        "leave_one_source_out": loso,
        "monotone": monotone,
    }


def test_amendment_5_rule_needs_two_points_on_both_baselines_a_small_signed_median_and_monotony():
    from models.validation.whole_run_forms import select5

    base = {"C0": _cand5("C0", 0.30), "C3": _cand5("C3", 0.32)}
    assert select5({**base, "C9": _cand5("C9", 0.285)})[0] == "C3"  # 1.5 points: not enough
    assert select5({**base, "C9": _cand5("C9", 0.279)})[0] == "C9"
    assert select5({**base, "C9": _cand5("C9", 0.20, signed=0.06)})[0] == "C3"
    assert select5({**base, "C9": _cand5("C9", 0.20, monotone=False)})[0] == "C3"
    # C8 (3 parameters) within 1 point of C9 (4): the fewer parameters win
    assert select5({**base, "C8": _cand5("C8", 0.208), "C9": _cand5("C9", 0.20)})[0] == "C8"
    # no candidate passes and C3 refitted fails (b): C3 keeps its committed constants
    bad = {"C0": _cand5("C0", 0.30), "C3": _cand5("C3", 0.32, signed=0.08)}
    assert select5({**bad, "C9": _cand5("C9", 0.29)})[0] == "C3 committed"


def _cand(form: str, median: float, signed: float = 0.0, classes: float = 0.2) -> dict:
    from models.training.whole_run import FORMS

    loo = {
        "all": {"median_abs_error": median, "signed_median": signed},
        "by_size_class": {"under 20B": {"median_abs_error": classes}},
    }
    return {
        "form": form,
        "parameters": len(FORMS[form]) + 1,
        "fit": (0, 0, 0, 0),
        "leave_one_out": loo,
    }


def test_the_selection_rule_needs_two_points_a_small_signed_median_and_prefers_fewer_parameters():
    from models.validation.whole_run_forms import select

    base = _cand("C0", 0.30)
    assert select({"C0": base, "C3": _cand("C3", 0.285)})[0] == "C0"  # 1.5 points: not enough
    assert select({"C0": base, "C3": _cand("C3", 0.27)})[0] == "C3"
    assert select({"C0": base, "C3": _cand("C3", 0.20, signed=0.06)})[0] == "C0"
    assert select({"C0": base, "C3": _cand("C3", 0.20, classes=0.26)})[0] == "C0"
    # C1 (3 parameters) within 1 point of C3 (4): the fewer parameters win
    got = select({"C0": base, "C1": _cand("C1", 0.208), "C3": _cand("C3", 0.20)})
    assert got[0] == "C1"


def test_the_generic_stack_term_scales_the_factor_by_exp_s():
    """Forms C3 and C9: a plan on FSDP / ZeRO gets exp(s) times the factor of the same plan on
    another stack (inside the range, above the clip at 1); since amendment 5 (C9) s > 0, FSDP runs
    take longer beyond their steady state."""
    s = WHOLE_RUN_FIT[3]
    tuned = whole_run_factor(RunFeatures(7e9, 1024, stack="megatron-core-tuned"))
    fsdp = whole_run_factor(RunFeatures(7e9, 1024, stack="fsdp-zero"))
    assert tuned > 1 and fsdp > 1 and s > 0
    assert fsdp / tuned == pytest.approx(math.exp(s))


def test_the_planner_moves_whole_run_days_by_the_stack_term():
    """The planner passes its software stack to F: on FSDP the whole-run days are the steady-state
    days x F(N_active, G, fsdp-zero), exp(s) of the factor on the tuned stack."""
    base = {
        "workload": {"model": "llama3-8b", "tokens": 1e12, "seq_len": 4096},
        "cluster": {"gpu": "H100-SXM", "gpus": 256},
    }
    plans = {
        st: plan_training(Scenario.model_validate({**base, "execution": {"software_stack": st}}))
        for st in ("megatron-core-tuned", "fsdp-zero")
    }
    for st, p in plans.items():
        f = whole_run_factor(RunFeatures(p.model.active_params, p.gpus, stack=st))
        assert f > 1 and p.whole_run_factor == pytest.approx(f)
        assert p.train_days == pytest.approx(p.steady_days * f)
    ratio = plans["fsdp-zero"].whole_run_factor / plans["megatron-core-tuned"].whole_run_factor
    assert ratio == pytest.approx(math.exp(WHOLE_RUN_FIT[3]))


def test_the_factor_never_shortens_a_run():
    run = RunFeatures(1e9, 8)
    assert whole_run_factor(run, (-5.0, 0.0, 0.0), "C0") == 1.0
    assert whole_run_factor(run, (0.5, 0.0, 0.0), "C0") == pytest.approx(math.exp(0.5))


def test_size_classes_and_bands_go_by_active_parameters():
    """A 17B-active MoE of 109B total (Llama 4 Scout) gets the under-20B band, not 20B and over's."""
    assert size_class(17e9) == "under 20B" and size_class(21e9) == "20B and over"
    plan = plan_training(
        Scenario.model_validate(
            {
                "workload": {"model": "llama4-scout", "tokens": 1e11, "seq_len": 4096},
                "cluster": {"gpu": "H100-SXM", "gpus": 256},
            }
        )
    )
    assert plan.model.params > 100e9 and plan.size_class == "under 20B"
    lo, hi = WHOLE_RUN_BAND_BY_SIZE["under 20B"]
    assert (plan.train_days_low, plan.train_days_high) == pytest.approx(
        (plan.train_days / (1 + hi), plan.train_days / (1 + lo))
    )


def test_plans_carry_both_estimates_and_cost_the_whole_run():
    from app.scenario_files import EXAMPLE
    from pricing.engine import compare

    sc = Scenario.model_validate(EXAMPLE)
    plan = plan_training(sc)
    assert plan.whole_run_factor > 1
    assert plan.train_days == pytest.approx(plan.steady_days * plan.whole_run_factor)
    assert plan.gpu_hours == pytest.approx(plan.train_days * 24 * plan.gpus)
    assert plan.steady_gpu_hours == pytest.approx(plan.steady_days * 24 * plan.gpus)
    t = compare(sc).training
    assert t.train_days == pytest.approx(plan.train_days)
    assert t.gpu_hours_per_run == pytest.approx(plan.gpu_hours)
    assert t.steady_days == pytest.approx(plan.steady_days) and t.steady_days < t.train_days


def test_the_validation_planner_scores_the_steady_state():
    """The fit's base is the steady state: the held-out runs are planned without the factor."""
    row = next(r for r in W.fitted_rows() if r["id"] == "ho-pythia-1b")
    assert row["steady"] / row["published"] - 1 == pytest.approx(row["steady_error"])
    from models.validation.training_predict import plan_heldout_run
    from models.validation.training_rows import load_heldout_runs

    raw = next(r for r in load_heldout_runs() if r["id"] == "ho-pythia-1b")
    assert plan_heldout_run(raw, {"software_stack": "megatron-3d-classic"})[
        "predicted"
    ] == pytest.approx(row["steady"])


HARNESS = str(ROOT / "tests" / "portal_harness.py")


def test_the_validation_page_shows_both_estimates_and_each_batch_of_added_runs():
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(HARNESS, default_timeout=90)
    at.session_state["_page"] = "validation"
    at.run()
    assert not at.exception, at.exception
    assert "Whole-run expectation: what plans and costs use" in [h.value for h in at.subheader]
    tables = [df.value for df in at.dataframe]
    scores = next(t for t in tables if "whole run signed %" in t.columns)
    loo = W.whole_run_scores()["leave_one_out"]["all"]
    first = scores.iloc[0]
    assert first["group"] == "all runs" and first["runs"] == 61
    assert first["whole run median %"] == pytest.approx(100 * loo["median_abs_error"])
    added = [t for t in tables if "whole run error %" in t.columns]
    batches = [W.added_scores(path)["rows"] for _, _, path in W.ADDED_BATCHES]
    assert [list(t["run"]) for t in added] == [[r["id"] for r in b] for b in batches]
    # the first batch (seen), the second, third, fourth, fifth and sixth (2026-12-02), the
    # seventh, eighth, ninth and tenth (2026-12-03)
    assert [len(t) for t in added] == [5, 10, 5, 3, 2, 1, 1, 1, 1, 1]
    groups = [t for t in tables if "added-run group" in t.columns]
    assert [int(t.iloc[0]["runs"]) for t in groups] == [5, 10, 5, 3, 2, 1, 1, 1, 1, 1]


def test_the_workload_page_shows_the_whole_run_and_the_steady_state():
    from streamlit.testing.v1 import AppTest

    from app.formatting import days
    from app.scenario_files import EXAMPLE

    at = AppTest.from_file(HARNESS, default_timeout=90)
    at.session_state["_page"] = "workload"
    at.run()
    assert not at.exception, at.exception
    p = plan_training(Scenario.model_validate(EXAMPLE))
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Whole-run days"] == days(p.train_days)
    assert metrics["Steady-state days"] == days(p.steady_days)


def test_a_batch_entered_later_is_scored_but_never_fitted(monkeypatch):
    """A fifth batch joins ADDED_BATCHES; the fit stays on the 61 (FITTED_BATCHES), and validate
    sets that batch, not the fitted ones, against issue 31's targets."""
    from models.validation.whole_run_report import whole_run_report

    later = (*W.ADDED_BATCHES[:4], ("added5", "fifth batch (test)", W.ADDED2_RUNS))
    monkeypatch.setattr(W, "ADDED_BATCHES", later)
    rows = W.seen_rows.__wrapped__()
    assert len(rows) == 61 and {r["batch"] for r in rows} == {W.FIRST_FIT, *W.FITTED_BATCHES}
    assert "added5" not in W.FITTED_BATCHES
    monkeypatch.setattr("models.validation.whole_run_report.ADDED_BATCHES", later)
    blocks = whole_run_report().split("Runs added after the first fit, ")[1:]
    assert [("in-sample, not evidence" in b, "targets 25% median" in b) for b in blocks] == [
        *[(True, False)] * 4,
        (False, True),
    ]

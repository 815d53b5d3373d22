"""The model against published runs (models/data/validation/runs.csv): data integrity, the error levels it must
hold, the rule of thumb beside it, `clusterplan validate --json`, the band and the Validation page.

The issue's targets (models/validation/training.py TARGETS): step time and throughput within 8 % median / 15 %
worst, whole-run GPU-hours within 10 % / 30 %. All hold on the scored rows and on the held-out rows
(those that set no constant) except the throughput worst case: two of 68 llm-foundry A100 rows are
beyond 15 %, and the test names them, so a third fails it. models/data/validation/runs.csv says why the
llm-foundry H100 rows are not scored. `TODAY` holds today's level so no change can quietly make
the model worse.
"""

import contextlib
import csv
import io
import json
import math
import pathlib

import pytest
from streamlit.testing.v1 import AppTest

from app.cli import main
from app.formatting import band, md_plain
from models.constants import MEMORY_HEADROOM as C_HEADROOM
from models.constants import WHOLE_RUN_BAND_BY_SIZE
from models.hardware import get_gpu, load_gpus
from models.scenario import Scenario
from models.shapes import load_presets
from models.training.job import AttentionKernel, Job
from models.training.layouts import Layouts
from models.training.plan import plan_training
from models.training.step_time import step_breakdown
from models.validation import training as V
from models.validation import training_report as VT
from models.validation import training_rows as VR
from models.validation import training_scores as VS

TARGETS = V.TARGETS
#: the scored throughput rows beyond the 15 % worst-case target today (see docs/limits.md)
#: nemo-llama3-8b-8 joined when its published CP2 was entered (it was -3.7 % with CP2 folded into DP8,
#: which forced full recompute; +20 % as published: validation/misses.csv)
#: the two Trainy H200 torchtitan rows joined when they were entered (+23 % / +25 %) and left with the
#: measured Hopper attention rate (step 12: +4.6 % / +6.3 %)
#: llama3-t4-131072 joined when attention got its measured rate per GPU generation (step 12: Meta's
#: kernel is not published, so the row is coded FlashAttention-2, 0.40 of the GEMM rate on Hopper)
#: mlperf-v4.1-h100-gpt3-256 joined when the MLPerf Training rows were entered (step 14: -15.4 %; every
#: MLPerf H100 row is 12-15 % slow in the model, validation/misses.csv); step 16 (FP8 parameters): -15.2 %;
#: it left at step 24 (FP8 tensor-parallel all-gathers: -13.3 %)
THROUGHPUT_BEYOND = {
    "lf-a100-80-30b-8g-s8192",
    "lf-a100-40-70b-64g-s2048",
    "nemo-llama3-8b-8",
    "llama3-t4-131072",
}
#: the scored step-time rows beyond the 15 % worst-case target: none. History: when the 50 held-out DGX
#: Cloud benchmarking rows joined (step 22) and the 20 Nemotron-4 340B rows after them, 17 rows were
#: beyond: seven BF16 rows the memory model refused without recompute (full recompute, +29 to +35 %), the
#: H100 405B FP8 rows at 1,024 / 2,048 GPUs (+18 / +19 %) and eight GB200 BF16 rows (-16 to -18 %). The
#: seven left at step 23 (the recipes' BF16 gradient reduction; the GB200 405B BF16 128-GPU row, within
#: target until then only through full recompute, joined at -16.8 %), the two 405B FP8 rows at step 24
#: (FP8 tensor-parallel all-gathers: +14.9 / +13.8 %), the nine GB200 BF16 rows at step 25 (GB200's
#: measured MAMF, 72.9 % of peak instead of B200's 77.6 %: -12.2 to -14.9 %).
STEP_TIME_BEYOND: set[str] = set()
#: every scored row beyond its kind's worst-case target, each explained in validation/misses.csv
BEYOND = THROUGHPUT_BEYOND | STEP_TIME_BEYOND
#: today's (median, worst) absolute error per kind, with a little slack; not the targets.
#: step_time moved from (0.04, 0.08) when the six held-out Nemotron-4 rows joined (issue 16: 3.8 % / 7.7 %
#: over the 8 Korthikanti rows became 4.5 % / 9.6 % over 14; nemotron4-15b-768 +9.6 % the worst), and
#: to (0.04, 0.54) when the 50 held-out DGX Cloud benchmarking rows joined (step 22: 3.4 % / 53.6 % over
#: 64), then (0.04, 0.36) once the FP8 rows carried their scripts' BF16 gradient reduction (3.7 % /
#: 35.2 %; dgxc-25.05.01-h100-llama31-405b-bf16-512 +35.2 % the worst), then (0.075, 0.36) when the 20
#: Nemotron-4 340B DGX Cloud rows joined (7.0 % / 35.2 % over 84: their errors, +7 to +14 % on H100 and
#: -7 to -18 % on GB200, lift the median), then (0.055, 0.20) once the DGX Cloud BF16 rows carried their
#: recipes' BF16 gradient reduction and the Nemotron-4 15B rows their TP overlap (step 23: 4.9 % / 19.0 %;
#: step 24's FP8 all-gathers: 4.8 % / 18.7 %), then (0.055, 0.16) with GB200's measured MAMF (step 25:
#: 4.7 % / 14.9 %)
TODAY = {"step_time": (0.055, 0.16), "throughput": (0.06, 0.33), "gpu_hours": (0.09, 0.15)}
#: the same over every row, the not-scored ones included; throughput since the 30 not-scored torchtitan
#: rows on the 500 W H100 96GB (no sourced peak; the model runs them on the faster H100-SXM) joined
TODAY_ALL_ROWS = {
    "step_time": (0.055, 0.16),
    "throughput": (0.095, 1.85),
    "gpu_hours": (0.09, 0.15),
}
HARNESS = str(pathlib.Path(__file__).with_name("portal_harness.py"))


@pytest.fixture(scope="module")
def result():
    return V.validate()


def cli_text(*args: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(list(args)) == 0
    return out.getvalue()


@pytest.fixture(scope="module")
def table() -> str:
    """`clusterplan validate`'s table, printed once for the tests that read it."""
    return cli_text("validate")


def test_every_row_has_a_source_and_known_inputs():
    with VR.RUNS.open(newline="") as f:
        rows = list(csv.DictReader(f))
    assert len({r["id"] for r in rows}) == len(rows)
    models = set(load_presets()) | set(VR.custom_shapes())
    for r in VR.load_runs():
        assert r["source"].strip(), r["id"]
        assert r["kind"] in V.KINDS and r["unit"] in V.UNITS, r["id"]
        assert r["model"] in models and r["gpu"] in load_gpus(), r["id"]
        assert float(r["published"]) > 0 and int(r["gpus"]) > 0
        if r["kind"] == "gpu_hours":
            assert float(r["tokens"]) > 0
    for s in VR.custom_shapes().values():
        assert s.source and abs(s.params_total / 1e9 / s.published_params_b - 1) < 0.08, s.model_id
    for s in VR.load_skipped():
        assert s["reason"].strip() and s["source"].strip()


def test_published_layouts_use_the_row_gpus_and_split_its_batch():
    """A row that publishes its layout (tp, pp and dp) spans exactly its GPU count (tp·cp·pp·dp), and a
    published micro-batch divides the global batch into whole micro-batches per data-parallel rank:
    the published plan is scored as given (Layouts.single does not check either), so a mistyped
    degree would be scored silently."""
    for r in VR.load_runs():
        tp, pp, dp, mb = (VR.int_cell(r, k) for k in ("tp", "pp", "dp", "micro_batch"))
        if None in (tp, pp, dp):
            continue  # the search fills what the source does not publish
        assert tp * (VR.int_cell(r, "cp") or 1) * pp * dp == int(r["gpus"]), r["id"]
        if mb:
            assert int(r["global_batch_seqs"]) % (dp * mb) == 0, r["id"]


def test_kinds_are_all_present(result):
    counts = {k: v["model"]["rows"] for k, v in result["by_kind"].items()}
    assert counts["step_time"] >= 8 and counts["throughput"] >= 20 and counts["gpu_hours"] >= 6


@pytest.mark.parametrize("kind", V.KINDS)
def test_model_holds_todays_level(result, kind):
    m = result["by_kind"][kind]["model"]
    median, worst = TODAY[kind]
    assert m["median_abs_error"] <= median and m["worst_abs_error"] <= worst, m


@pytest.mark.parametrize("kind", V.KINDS)
def test_all_rows_hold_todays_level(result, kind):
    m = result["by_kind_all_rows"][kind]["model"]
    median, worst = TODAY_ALL_ROWS[kind]
    assert m["median_abs_error"] <= median and m["worst_abs_error"] <= worst, m


@pytest.mark.parametrize("scope", ["by_kind", "by_kind_held_out"])
def test_medians_meet_the_target(result, scope):
    for kind, s in result[scope].items():
        assert s["model"]["median_abs_error"] <= TARGETS[kind][0], (kind, s["model"])


@pytest.mark.parametrize("scope", ["by_kind", "by_kind_held_out"])
def test_worst_cases_meet_the_target_but_four_named_throughput_rows(result, scope):
    """Beyond the worst-case target are exactly the named rows per kind (all of them held out): the
    throughput rows of THROUGHPUT_BEYOND, no step-time row (STEP_TIME_BEYOND is empty), no GPU-hours
    row; a new outlier, or a named row the model now predicts, fails here."""
    held = result[scope]
    if "gpu_hours" in held:
        assert held["gpu_hours"]["model"]["worst_abs_error"] <= TARGETS["gpu_hours"][1], held[
            "gpu_hours"
        ]["model"]
        assert held["gpu_hours"]["model"]["beyond_worst_target"] == []
    assert set(held["step_time"]["model"]["beyond_worst_target"]) == STEP_TIME_BEYOND
    assert set(held["throughput"]["model"]["beyond_worst_target"]) == THROUGHPUT_BEYOND
    assert held["throughput"]["model"]["rows"] >= 50


def test_every_miss_is_explained_and_read_against_rows_that_match(result):
    """models/data/validation/misses.csv explains exactly the scored rows beyond their worst-case target: a new
    outlier, or an old one the model now predicts, fails here until the file says so; and the rows
    each miss is read against are themselves within the target (the evidence it points to holds)."""
    m = result["misses"]
    assert m["unexplained"] == [] and m["stale"] == [], m
    assert {e["id"] for e in m["explained"]} == BEYOND
    rows = {r["id"]: r for r in result["rows"]}
    for e in m["explained"]:
        assert e["what_differs"].strip() and len(e["likely_cause"]) > 80, e["id"]
        assert e["compare_with"], e["id"]
        for other in e["compare_with"]:
            r = rows[other["id"]]
            assert r["scored"] and r["kind"] == rows[e["id"]]["kind"], other["id"]
            assert abs(other["error"]) <= TARGETS[r["kind"]][1], other
    # the memory-pressure explanation rests on the model's own memory figure
    assert rows["lf-a100-80-30b-8g-s8192"]["memory_share"] > C_HEADROOM


def test_the_dgx_cloud_recipes_layouts_fit_without_recompute(result):
    """The DGX Cloud recipes ran without recompute (NeMo's recommended configs: recompute_layers 0)
    and reduced gradients in BF16 (pretrain_recipe(performance_mode=True) sets
    grad_reduce_in_fp32 = False): the memory model fits every H100 and GB200 layout they published
    without recompute. The fullest are the 64-GPU Llama 3.1 70B FP8 row (92 % of HBM, 2.4 GiB under
    the fit limit) and the 512-GPU 405B BF16 row (89 %): a memory model that counts a few GiB more
    there, or rows back on FP32 gradients (the seven BF16 rows that then ran full recompute, +29 to
    +35 %, heldout-scores.md step 23), picks full recompute and fails here."""
    dgxc = [r for r in result["rows"] if r["id"].startswith("dgxc-")]
    assert len(dgxc) == 70
    assert all(r["layout"].endswith(" none") for r in dgxc), [
        (r["id"], r["layout"]) for r in dgxc if not r["layout"].endswith(" none")
    ]
    share = {r["id"]: r["memory_share"] for r in dgxc}
    assert 0.90 < share["dgxc-25.04-h100-llama31-70b-fp8-64"] <= C_HEADROOM
    assert 0.85 < share["dgxc-25.05.01-h100-llama31-405b-bf16-512"] <= C_HEADROOM


def test_misses_bench_reproduces_the_validation_errors(result):
    """bench/misses.py reads the misses against the model: each miss with its error as validate()
    gives it, and its link-rate sweep at 200 Gb/s (the catalogue's A100 link) is the model itself."""
    script = pathlib.Path(__file__).parents[1] / "bench" / "misses.py"
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(script.read_text(), str(script), "exec"), {"__name__": "__main__"})
    lines = out.getvalue().splitlines()
    error = {r["id"]: r["error"] for r in result["rows"]}
    for e in result["misses"]["explained"]:
        assert any(x.split()[:3] == [e["id"], "error", f"{error[e['id']]:+.1%}"] for x in lines)
    columns = next(x for x in lines if x.split()[:1] == ["Gb/s"]).split()[1:]
    at_200 = next(x for x in lines if x.split()[:1] == ["200"]).split()[1:]
    assert len(columns) == len(at_200) >= 8
    for short, printed in zip(columns, at_200, strict=True):
        assert printed == f"{error[f'lf-a100-40-{short}-s2048']:+.1%}", short


def test_errors_by_source_cover_every_row(result):
    groups = result["by_source"]
    labels = [label for _, label in V.SOURCE_GROUPS]
    assert all(g["source"] in labels for g in groups)  # no row falls outside the named sources
    assert sum(g["rows"] for g in groups) == len(result["rows"])
    assert sum(g["scored_rows"] for g in groups) == sum(r["scored"] for r in result["rows"])
    foundry_h100 = next(g for g in groups if g["source"].startswith("llm-foundry H100"))
    assert (
        foundry_h100["scored_rows"] == 0 and foundry_h100["bias"] > 0
    )  # the not-scored rows, model fast
    for g in groups:
        # a time error e >= -worst is a speed error up to worst / (1 - worst); none bounds it from worst >= 1
        worst = g["worst_abs_error"]
        assert -worst <= g["bias"] <= (worst / (1 - worst) if worst < 1 else math.inf)
        assert g["median_abs_error"] <= g["worst_abs_error"]


def test_held_out_rows_are_most_of_the_evidence(result):
    held = result["by_kind_held_out"]
    # the step-time rows that set no constant are the six Nemotron-4 batch-ramp stages and the 70 DGX
    # Cloud benchmarking rows (issue 16); every other step-time row (Korthikanti Table 5) calibrates
    held_steps = [r for r in result["rows"] if r["kind"] == "step_time" and not r["calibration"]]
    assert held["step_time"]["model"]["rows"] == len(held_steps) == 76
    assert all(r["id"].startswith(("nemotron4-", "dgxc-")) for r in held_steps)
    # the row FP8_GEMM_RELATIVE_EFFICIENCY was read from sets a constant, so it is not held out
    fp8_source = next(r for r in result["rows"] if r["id"] == "nemo-llama3-70b-64")
    assert fp8_source["calibration"] and fp8_source["precision"] == "fp8"
    assert held["throughput"]["model"]["rows"] >= 50 and held["gpu_hours"]["model"]["rows"] >= 7


def test_unscored_rows_are_shown_and_say_why(result):
    unscored = [r for r in result["rows"] if not r["scored"]]
    assert unscored, "the llm-foundry H100 rows are listed"
    assert all(r["notes"].startswith("NOT SCORED:") for r in unscored)
    assert all(r["notes"].startswith("NOT SCORED:") == (not r["scored"]) for r in result["rows"])
    scored_rows = sum(v["model"]["rows"] for v in result["by_kind"].values())
    assert scored_rows + len(unscored) == len(result["rows"])


def test_rule_of_thumb_is_computed_with_one_mfu(result):
    mfu = result["rule_of_thumb_mfu"]
    assert 0.2 <= mfu <= 0.7
    assert all(r["rule_of_thumb"] > 0 for r in result["rows"])
    # the model beats it where the layout is fully published (step time)
    s = result["by_kind"]["step_time"]
    assert s["model"]["median_abs_error"] < s["rule_of_thumb"]["median_abs_error"]
    assert s["model"]["worst_abs_error"] < s["rule_of_thumb"]["worst_abs_error"]


def test_band_is_derived_from_held_out_errors_and_contains_80_pct():
    rows = V.validate_heldout()["rows"]
    errors = [r["error"] for r in rows]
    # the bands plans use are the ones today's held-out errors give (not set by hand): overall ...
    assert VS.band_from_errors(errors) == (V.GPU_HOURS_ERROR_LOW, V.GPU_HOURS_ERROR_HIGH)
    # ... the size classes are the base classes merged by the rule on these runs ...
    assert VS.size_classes([r["params_total"] for r in rows]) == V.BAND_SIZE_CLASSES
    # ... and per size class, each from its own class's runs only
    for name, _ in V.BAND_SIZE_CLASSES:
        sel = [r["error"] for r in rows if r["size_class"] == name]
        assert len(sel) >= V.BAND_MIN_RUNS, name  # a smaller class is merged (constants.py)
        assert VS.band_from_errors(sel) == V.GPU_HOURS_ERROR_BY_SIZE[name], name
        assert VS.band_coverage(sel, *V.GPU_HOURS_ERROR_BY_SIZE[name]) >= V.BAND_COVERAGE
    # the share of held-out runs inside their own class's band is computed, not asserted by hand
    b = V.band_summary()
    inside = sum(
        V.GPU_HOURS_ERROR_BY_SIZE[r["size_class"]][0]
        <= r["error"]
        <= V.GPU_HOURS_ERROR_BY_SIZE[r["size_class"]][1]
        for r in rows
    )
    assert b["coverage"] == inside / len(rows) >= 0.80
    assert [c["runs"] for c in b["classes"]] == [28, 10]
    # issue 16's target, on runs the band was not derived from
    assert b["leave_one_out_coverage"] == VS.leave_one_out_coverage(rows) >= V.BAND_COVERAGE


def test_band_is_the_conformal_order_statistics():
    assert VS.band_coverage([-0.5, -0.1, 0.2, 0.4], -0.2, 0.3) == 0.5
    # n = 19: the floor(20 * 0.1) = 2nd and ceil(20 * 0.9) = 18th of the sorted errors
    nineteen = [i / 100 for i in range(-9, 10)]
    assert VS.band_from_errors(nineteen) == (-0.08, 0.08)
    # n = 9: the 1st and the 9th; n = 29: the 3rd and the 27th
    assert VS.band_from_errors([0.3, -0.2, 0.1, 0.0, 0.05, -0.05, 0.2, -0.1, 0.15]) == (-0.2, 0.3)
    assert VS.band_from_errors([i / 100 for i in range(29)]) == (0.02, 0.26)
    # n = 8: too few for either side of an 80 % band, which is then unbounded
    assert VS.band_from_errors([i / 100 for i in range(8)]) == (-math.inf, math.inf)
    # rounded outward to a whole percent; the coverage argument sets the tails (60 %: 20 % each)
    assert VS.band_from_errors([-0.123, -0.1, 0.0, 0.1, 0.123], coverage=0.6) == (-0.13, 0.13)
    assert VS.band_from_errors([i / 100 for i in range(9)], coverage=0.6) == (0.01, 0.07)


def test_size_classes_merge_a_class_with_too_few_runs_into_the_one_below():
    def runs(small, mid, big):
        return [7e9] * small + [70e9] * mid + [405e9] * big

    inf = math.inf
    assert VS.size_classes(runs(18, 6, 3)) == (("under 20B", 20e9), ("20B and over", inf))
    assert VS.size_classes(runs(10, 10, 10)) == V.BAND_BASE_CLASSES
    assert VS.size_classes(runs(18, 2, 9)) == (("under 100B", 100e9), ("100B and over", inf))
    assert VS.size_classes(runs(3, 18, 9)) == (("under 100B", 100e9), ("100B and over", inf))
    assert VS.size_classes(runs(5, 5, 5)) == (("all sizes", inf),)


def test_leave_one_out_coverage_re_derives_the_band_without_the_run():
    """Each run is checked against the band the whole rule (classes merged, order statistics)
    gives from the other runs: 16 of 20 small runs (the two at each end fall outside) and 7 of 9
    large ones (without one, the large class has 8 runs and joins the small one; the two largest
    errors are then above the 27th of the 28 others)."""
    small = [{"error": i / 100, "params_active": 7e9} for i in range(-10, 10)]
    large = [{"error": 0.5 + i / 100, "params_active": 405e9} for i in range(9)]
    assert VS.leave_one_out_coverage(small + large) == pytest.approx(23 / 29)
    assert VS.leave_one_out_coverage(small) == pytest.approx(16 / 20)


def test_size_class_follows_total_parameters():
    from models.training.plan import size_class

    assert size_class(19.9e9) == "under 20B"
    assert size_class(20e9) == "20B and over"
    assert size_class(671e9) == "20B and over"


#: Held-out whole runs (planner's layout, each row's stack class): pinned error levels. The model
#: may get better (lower them with the change that does it) but not worse. Median 0.27 -> 0.29 when the
#: four Phi-3 / Phi-3.5 / Phi-4 model-card runs were added (new evidence, no model change); 0.29 ->
#: 0.31 when seven more runs were added (GLM-130B, BioMedLM, StableLM-3B-4E1T, Granite 3.0 x 4;
#: heldout-scores.md step 17; new evidence, no model change).
HELDOUT_MEDIAN_MAX, HELDOUT_WORST_MAX = 0.31, 0.87
#: Runs beyond the 30 % worst-case target today, named: a run that joins them fails the test.
#: (Pythia 1B-6.9B left it with the classic stack's measured kernel efficiency, heldout-scores.md step 6.)
HELDOUT_OUTLIERS = {
    "ho-pythia-12b",
    "ho-bloomberggpt-50b",
    "ho-llama2-7b",
    "ho-llama2-13b",
    # at the efficient size (2,048 GPUs) rather than the smallest that fits (8): -33 % (was -22 %)
    "ho-llama2-34b",
    "ho-phi-4-mini",
    "ho-llama3-70b",
    "ho-llama3-8b",
    "ho-llama31-8b",
    "ho-llama31-70b",
    "ho-llama32-1b",
    "ho-llama32-3b",
    # ho-deepseek-v3 left it with its stack class's DualPipe overlap (heldout-scores.md step 8)
    # added with their rows (model cards: GPUs x days, scope not split), beyond the target on entry
    "ho-phi-3-medium",
    "ho-phi-3-mini",
    "ho-phi-3.5-mini",
    "ho-phi-4",
    # added with their rows (heldout-scores.md step 17), beyond the target on entry
    "ho-glm-130b",
    "ho-biomedlm-2.7b",
    "ho-granite3-2b",
    "ho-granite3-8b",
    "ho-granite3-1b-a400m",
    "ho-granite3-3b-a800m",
}


def test_heldout_whole_run_errors_are_pinned_with_named_outliers():
    res = V.validate_heldout()
    assert len(res["rows"]) == 38
    assert res["model"]["median_abs_error"] <= HELDOUT_MEDIAN_MAX
    assert res["model"]["worst_abs_error"] <= HELDOUT_WORST_MAX
    beyond = {r["id"] for r in res["rows"] if abs(r["error"]) > V.TARGETS["gpu_hours"][1]}
    assert beyond <= HELDOUT_OUTLIERS, f"new outliers: {sorted(beyond - HELDOUT_OUTLIERS)}"


def test_heldout_errors_are_reported_by_what_the_published_figure_covers():
    """validate_heldout splits the errors by each row's `scope` (pre-training only, all training, not
    split): every run in exactly one group, each group's summary from its own runs, one report line each."""
    res = V.validate_heldout()
    groups = res["by_scope"]
    assert sum(g["rows"] for g in groups.values()) == len(res["rows"])
    for scope, g in groups.items():
        errs = [r["error"] for r in res["rows"] if r["scope"] == scope]
        assert g == VS.summarise(errs), scope
    text = VT.heldout_report(res)
    for scope, g in groups.items():
        assert f"scope {scope:14} {g['rows']:>3} runs: median {g['median_abs_error']:.1%}" in text


def test_heldout_runs_use_their_sources_stack_class():
    from models.validation.training import row_stack
    from models.validation.training_rows import load_heldout_runs

    rows = {r["id"]: r for r in load_heldout_runs()}
    assert row_stack(rows["ho-pythia-1b"]) == "megatron-3d-classic"
    assert row_stack(rows["ho-phi-4-mini"]) == V.DEFAULT_SOFTWARE_STACK  # not stated
    res = {r["id"]: r for r in V.validate_heldout()["rows"]}
    assert res["ho-tinyllama-1.1b"]["layout"].startswith("TP1 PP1")  # FSDP: data parallel only


def test_classic_stack_kernel_efficiency_reproduces_gpt_neox_20b():
    """SOFTWARE_STACKS['megatron-3d-classic']['kernel_efficiency'] is GPT-NeoX-20B's measured 117
    TFLOP/s per A100-40GB (Black et al. 2022), counted as GPT-NeoX's logger then did (6P + 60shL per
    token), over the model's speed at that run's published layout (configs/20B.yml)."""
    from models.shapes import ModelShape

    p = 20.556e9
    shape = ModelShape.model_validate(
        {
            "model_id": "gpt-neox-20b",
            "name": "GPT-NeoX-20B",
            "layers": 44,
            "hidden": 6144,
            "heads": 64,
            "kv_heads": 64,
            "ffn_hidden": 24576,
            "vocab": 50432,
            "gated_mlp": False,
            "tied_embeddings": False,
            "dropout": False,
            "published_params_b": p / 1e9,
            "published_active_params_b": p / 1e9,
        }
    )
    job = Job(
        shape,
        get_gpu("A100-40GB"),
        2048,
        1536,
        "bf16",
        flash_attention=AttentionKernel.NONE,
        stack="megatron-3d-classic",
    )
    lay = Layouts.single(
        1536, tp=2, pp=4, dp=12, micro_batch=4, zero=1, recompute="full", sequence_parallel=0
    )
    tokens_per_s_per_gpu = 1536 * 2048 / float(step_breakdown(job, lay)["total"][0]) / 96
    measured = 117e12 / (6 * p + 60 * 2048 * 6144 * 44)
    assert tokens_per_s_per_gpu == pytest.approx(measured, rel=0.01)


def test_heldout_runs_at_their_sources_layout():
    """Rows whose config file gives the layout are also planned at it (a diagnostic beside the
    planner's choice): Pythia's full recompute at micro-batch 16 / 8, from EleutherAI/pythia
    models/*.yml, and StableLM-3B-4E1T's (Stability-AI/StableLM configs/stablelm-3b-4e1t.yml, added
    in heldout-scores.md step 17) land within 12 % of the published GPU-hours."""
    rows = {r["id"]: r for r in V.validate_heldout_source_layout()}
    assert set(rows) == {f"ho-pythia-{s}" for s in ("1b", "1.4b", "2.8b", "6.9b", "12b")} | {
        "ho-deepseek-v3",  # micro-batch not published (*); its no-recompute layout is rejected
        "ho-stablelm-3b-4e1t",
    }
    assert rows.pop("ho-deepseek-v3")["layout"] == "TP1 PP16 DP128 EP64 v1 mb1 Z1 none*"
    assert rows["ho-pythia-1b"]["layout"] == "TP1 PP1 DP64 v1 mb16 Z1 full"
    assert rows["ho-pythia-12b"]["layout"] == "TP4 PP1 DP64 v1 mb8 Z1 full"
    assert rows["ho-stablelm-3b-4e1t"]["layout"] == "TP1 PP1 DP256 v1 mb4 Z1 full"
    assert all(r["fits"] for r in rows.values())
    assert max(abs(r["error"]) for r in rows.values()) <= 0.12
    text = VT.source_layout_report(list(rows.values()))
    assert f"{rows['ho-pythia-6.9b']['error']:>+7.1%}" in text


def test_plans_carry_the_held_out_band():
    plan = plan_training(
        Scenario.model_validate(
            {
                "workload": {"model": "llama2-7b", "tokens": 1e11, "seq_len": 4096},
                "cluster": {"gpu": "H100-SXM", "gpus": 64},
            }
        )
    )
    low, high = V.training_days_band(plan)
    lo, hi = WHOLE_RUN_BAND_BY_SIZE["under 20B"]  # a 7B model: the under-20B class's band
    assert (low, high) == pytest.approx((plan.train_days / (1 + hi), plan.train_days / (1 + lo)))
    assert low < high
    big = plan_training(
        Scenario.model_validate(
            {
                "workload": {"model": "llama3-405b", "tokens": 1e11, "seq_len": 4096},
                "cluster": {"gpu": "H100-SXM", "gpus": 1024},
            }
        )
    )
    lo, hi = WHOLE_RUN_BAND_BY_SIZE["20B and over"]
    assert (big.train_days_low, big.train_days_high) == pytest.approx(
        (big.train_days / (1 + hi), big.train_days / (1 + lo))
    )


def test_cli_validate_json_keys():
    data = json.loads(cli_text("validate", "--json"))
    assert set(data) >= {
        "rows",
        "by_kind",
        "by_kind_all_rows",
        "by_kind_held_out",
        "rule_of_thumb_mfu",
        "rule_of_thumb_goodput",
        "skipped",
        "misses",
        "by_source",
    }
    assert set(data["by_kind"]) == set(V.KINDS)
    row = data["rows"][0]
    assert set(row) >= {
        "id",
        "kind",
        "model",
        "gpu",
        "gpus",
        "layout",
        "unit",
        "published",
        "predicted",
        "error",
        "rule_of_thumb",
        "rule_error",
        "scored",
        "calibration",
        "source",
    }
    for kind in V.KINDS:
        assert set(data["by_kind"][kind]) == {"model", "rule_of_thumb"}
        assert {"median_abs_error", "worst_abs_error"} <= set(data["by_kind"][kind]["model"])


def test_cli_validate_table_summarises_what_validate_computes(result, table):
    """The scored-rows summary: per kind, the row count, the model's median and worst error, the rows
    beyond the worst-case target and the rule of thumb's median and worst, as validate() has them."""
    lines = table.splitlines()
    start = lines.index("scored rows:") + 2  # after the column header
    printed = {x.split()[0]: x.split()[1:] for x in lines[start : start + len(V.KINDS)]}
    assert set(printed) == set(V.KINDS)
    for kind, cells in printed.items():
        m, r = result["by_kind"][kind]["model"], result["by_kind"][kind]["rule_of_thumb"]
        assert cells == [
            str(m["rows"]),
            f"{m['median_abs_error']:.1%}",
            f"{m['worst_abs_error']:.1%}",
            str(len(m["beyond_worst_target"])),
            f"{r['median_abs_error']:.1%}",
            f"{r['worst_abs_error']:.1%}",
        ], kind


def test_cli_train_prints_the_plans_band():
    text = cli_text(
        "train", "--model", "llama2-7b", "--tokens", "100B", "--gpu", "H100-SXM", "--gpus", "64"
    )
    plan = plan_training(
        Scenario.model_validate(
            {
                "workload": {"model": "llama2-7b", "tokens": 1e11},
                "cluster": {"gpu": "H100-SXM", "gpus": 64},
            }
        )
    )
    low, high = V.training_days_band(plan)
    assert low < high
    likely = band(low, high).strip().strip("()")  # 'likely 1–11 days', the shared number rule
    assert f"Uncertainty     {likely}: the whole-run expectation's error range" in text


def test_validation_page_renders():
    at = AppTest.from_file(HARNESS, default_timeout=60)
    at.run()
    at.session_state["_page"] = "validation"
    at.run()
    assert not at.exception, at.exception
    assert at.title[0].value == "Validation"
    assert (
        len(at.dataframe) >= 5
    )  # errors per kind, by source, every row, figures not used, constants
    misses = [md.value for md in at.markdown if "**Likely cause:**" in md.value]
    assert len(misses) == len(BEYOND)
    assert all(any(md_plain(i) in t for t in misses) for i in BEYOND), misses
    constants = at.dataframe[-1].value
    assert "GEMM_SHARE_OF_MAMF" in set(constants["name"])
    # the measured AMD rows (app/views/validation_amd.py), per engine, version and split
    assert any("amd_serving.csv" in c.value for c in at.caption)
    assert any("TPOT after %" in d.value.columns for d in at.dataframe)
    # older CUDA releases (app/views/validation_older_cuda.py), per release line
    assert any("older_cuda_serving.csv" in c.value for c in at.caption)
    assert any("TPOT fit median |error| %" in d.value.columns for d in at.dataframe)
    # the third-party InferenceMAX rows (app/views/validation_inferencemax.py), per class
    assert any("inferencemax.csv" in c.value for c in at.caption)
    assert any("TTFT within 40 % (share %)" in d.value.columns for d in at.dataframe)
    # the third-party DeepSeek-R1 rows (app/views/validation_thirdparty.py), per source
    assert any("thirdparty_moe.csv" in c.value for c in at.caption)
    # the third set (app/views/validation_thirdparty.py), per family and class
    assert any("thirdparty_serving3.csv" in c.value for c in at.caption)
    # the fourth set (app/views/validation_thirdparty.py), per source, engine and GPU
    assert any("thirdparty_serving4.csv" in c.value for c in at.caption)
    # the fifth set (app/views/validation_thirdparty.py), per family, source, engine and GPU
    assert any("thirdparty_serving5.csv" in c.value for c in at.caption)
    assert any("family" in d.value.columns for d in at.dataframe)
    assert any("source_id" in d.value.columns for d in at.dataframe)


def test_every_model_constant_has_a_source():
    from models import constants as C
    from models.constant_docs import model_constants

    rows = model_constants()
    names = {r["name"] for r in rows}
    assert names == {n for n in vars(C) if n.isupper()}
    assert all(len(r["source"]) > 20 for r in rows), [
        r["name"] for r in rows if len(r["source"]) <= 20
    ]


def test_assumed_gpu_counts_are_flagged(result, table):
    """Whole runs that publish GPU-hours but no GPU count say the count is assumed, in the data,
    the CLI table and the page."""
    assumed = [r for r in result["rows"] if r["gpus_assumed"]]
    assert [r["id"] for r in assumed] == ["run-llama2-70b"]
    assert "NOT published" in assumed[0]["notes"]
    line = next(x for x in table.splitlines() if x.startswith("run-llama2-70b"))
    assert "2,048*x" in line and "*: GPU count not published" in table
    assert sum("*x" in x for x in table.splitlines()) == len(assumed)  # no other row marked
    from app.views.validation import table

    assert table(result).set_index("row").loc["run-llama2-70b", "GPUs"].endswith("(count assumed)")


def test_published_layouts_the_memory_model_rejects_are_marked(result, table):
    """Meta ran Llama 3 405B without recompute in 80 GiB; the memory model disagrees, and says so."""
    row = next(r for r in result["rows"] if r["id"] == "run-llama31-405b")
    assert not row["layout_fits"] and "none" in row["layout"]
    line = next(x for x in table.splitlines() if x.startswith("run-llama31-405b"))
    assert " #" in line and "#: the source ran this layout" in table
    marked = {x.split()[0] for x in table.splitlines() if " # " in f"{x} "}
    assert marked == {r["id"] for r in result["rows"] if not r["layout_fits"]}
    from app.views.validation import table

    assert not table(result).set_index("row").loc["run-llama31-405b", "fits (memory model)"]


def test_the_rescaling_floor_is_the_best_one_factor_fitted_after_the_fact():
    """`rescaling_floor` finds the factor a one-number correction would need and what it reaches:
    rows all off by the same ratio are closed exactly; rows off by x0.5 and x2 reach at best a
    worst of 60 % (k = 0.8 balances 1 - 0.5k and 2k - 1). On the held-out whole runs it is printed
    beside the issue's targets, and it is no worse than the model as it is (k = 1 is tried)."""
    same = VS.rescaling_floor([2.0, 4.0, 6.0], [1.0, 2.0, 3.0])
    assert same["median_abs_error"] < 1e-3 and same["worst_abs_error"] < 1e-3
    assert same["median_factor"] == pytest.approx(0.5, rel=1e-3)
    one_outlier = VS.rescaling_floor([1.0, 1.0, 3.0], [1.0, 1.0, 1.0])  # the median ignores it
    assert one_outlier["median_abs_error"] < 1e-3
    assert one_outlier["median_factor"] == pytest.approx(1.0, rel=1e-3)
    spread = VS.rescaling_floor([0.5, 2.0], [1.0, 1.0])
    assert spread["worst_abs_error"] == pytest.approx(0.6, abs=1e-3)
    assert spread["worst_factor"] == pytest.approx(0.8, rel=1e-3)
    res = V.validate_heldout()
    floor, model = res["rescaling_floor"], res["model"]
    assert floor["median_abs_error"] <= model["median_abs_error"] + 1e-12
    assert floor["worst_abs_error"] <= model["worst_abs_error"] + 1e-12
    report = VT.heldout_report(res)
    assert (
        f"at best median {floor['median_abs_error']:.1%} (x{floor['median_factor']:.2f})" in report
    )
    assert "issue 16's targets: 12% / 30%" in report

"""The GPUs added on 2026-12-02 (issue 29's Blackwell Ultra, issue 31 item 5's training GPUs):
each row carries the published figures its source column names, the figures that could not be
sourced say so, and every surface that lists GPUs takes them."""

from __future__ import annotations

import pytest

from models.hardware import get_gpu, load_gpus
from models.serving.plan import ServeInputs, plan_serving
from pricing.catalogue.loader import load_catalogue

ADDED = ("H800", "MI250X", "MI325X", "B300", "GB300")


@pytest.fixture(scope="module")
def cat():
    return load_catalogue()


def test_the_h800_is_an_h100_with_nvlink_cut_to_400_gb_per_s_both_ways():
    h800, h100 = get_gpu("H800"), get_gpu("H100-SXM")
    assert h800.scaleup_bandwidth_gbyte_per_s == 200  # 400 GB/s bidirectional
    same = ("bf16_dense_tflops", "fp8_dense_tflops", "memory_gib", "hbm_bandwidth_tbyte_per_s")
    assert all(getattr(h800, f) == getattr(h100, f) for f in same)
    assert h800.architecture == "hopper"


def test_an_mi250x_gpu_is_one_of_its_two_dies_as_the_published_runs_count_them():
    gcd = get_gpu("MI250X")
    assert gcd.bf16_dense_tflops == 383 / 2 and gcd.memory_gib == 128 / 2
    assert gcd.hbm_bandwidth_tbyte_per_s == pytest.approx(3.2768 / 2)
    assert gcd.fp8_dense_tflops is None and gcd.architecture == "cdna2"
    assert gcd.gpus_per_node == 8  # 4 MI250X = 8 GCDs per Frontier or LUMI node


def test_blackwell_ultra_has_its_published_peaks_and_memory():
    b300, gb300 = get_gpu("B300"), get_gpu("GB300")
    assert (b300.bf16_dense_tflops, b300.fp8_dense_tflops, b300.fp4_dense_tflops) == (
        2250,
        4500,
        14000,
    )
    assert (gb300.bf16_dense_tflops, gb300.fp8_dense_tflops, gb300.fp4_dense_tflops) == (
        2500,
        5000,
        15000,
    )
    assert b300.memory_gib == 270 and gb300.memory_gib == 279
    assert gb300.scaleup_domain_gpus == 72 and b300.scaleup_domain_gpus == 8
    assert get_gpu("MI325X").memory_gib == 256


@pytest.mark.parametrize("gpu", ADDED)
def test_an_unmeasured_matmul_rate_names_the_gpu_it_was_taken_from(gpu):
    spec = get_gpu(gpu)
    notes = spec.notes
    assert "matmul fraction of peak" in notes
    if "MAMF:" not in notes:  # measured on this GPU: the MAMF figure; else whose and why
        assert "assumed" in notes and "no " in notes, notes
        donor = {"H800": "H100-SXM", "MI250X": "MI300X", "GB300": "GB200"}[gpu]
        assert spec.matmul_fraction_of_peak == get_gpu(donor).matmul_fraction_of_peak


def test_a_price_no_source_gives_is_a_planner_default_and_says_so(cat):
    rows = [r for r in cat.rental_rows if r.gpu_id in ADDED and r.provider == "Planner default"]
    assert {r.gpu_id for r in rows} == {"H800", "MI250X", "GB300"}
    assert all(r.source.startswith("planner default") and r.grade == "C" for r in rows)
    for gpu in ("H800", "MI250X"):
        (server,) = cat.server_prices(gpu)
        assert server.source.startswith("planner default"), server


@pytest.mark.parametrize("gpu", ADDED)
def test_each_added_gpu_is_priced_and_serves(gpu, cat):
    assert gpu in load_gpus()
    assert cat.server_price_usd_per_gpu(gpu) > 0 and cat.rental_price(gpu, "on_demand") > 0
    plan = plan_serving(
        ServeInputs(model="llama3.1-8b", gpu=gpu, input_tokens=1000, output_tokens=200, rps=2)
    )
    assert plan.gpus >= 1


def test_the_h800_row_plans_deepseeks_runs_as_their_h100_mapping_did():
    """The held-out DeepSeek runs (whole_runs_heldout.csv) were entered on H100-SXM with NVLink cut to
    200 GB/s per direction (the row's own link figure), the H800 they ran on; the catalogue's H800
    row (its compute, memory, node and failure figures) must plan them the same."""
    from models.validation.training_predict import plan_heldout_run
    from models.validation.training_rows import load_heldout_runs

    rows = [r for r in load_heldout_runs() if r["gpu_as_published"] == "H800"]
    assert {r["id"] for r in rows} >= {"ho-deepseek-v3"}
    for r in rows:
        mapped, own = plan_heldout_run(r), plan_heldout_run(dict(r, gpu="H800"))
        assert own["predicted"] == pytest.approx(mapped["predicted"], rel=1e-12), r["id"]


def test_runs_added_on_2026_12_02_are_marked_and_predicted():
    """Issue 31 item 5: a published run on each training GPU, appended and marked as added after the
    fits of that day (their errors are reported, not locked: the whole-run model is being refitted)."""
    from models.validation import finetune
    from models.validation.training_predict import predict_step
    from models.validation.training_rows import load_runs

    runs = [r for r in load_runs() if "added 2026-12-02" in r["notes"][:40]]
    tuned = [r for r in finetune.load_rows() if r["notes"].startswith("added 2026-12-02")]
    assert {r["gpu"] for r in runs} | {r["gpu"] for r in tuned} >= {"MI250X", "MI300X", "MI325X"}
    assert load_runs()[-len(runs) :] == runs  # appended, none in between
    assert finetune.load_rows()[-len(tuned) :] == tuned
    for r in runs:
        assert predict_step(r)["predicted"] > 0
    for r in tuned:
        assert finetune.predict(r)["predicted"] > 0


@pytest.mark.parametrize(
    ("page", "key"), [("workload", "w_gpu"), ("serve", "s_gpu"), ("finetune", "f_gpu")]
)
def test_every_page_that_picks_a_gpu_offers_the_added_ones(page, key):
    from tests.builders import app

    at = app(page)
    assert not at.exception
    offered = " ".join(str(o) for o in at.selectbox(key=key).options)
    assert all(g in offered for g in ADDED), (page, offered)


def test_the_precision_help_names_the_catalogues_gpus():
    """The FP4 and FP8 help texts read the catalogue: a GPU added there is named there."""
    from app.views.serve import PRECISIONS
    from app.views.workload_details import DETAILS

    assert all(g in PRECISIONS["fp4"] for g in ("B200", "GB200", "B300", "GB300"))
    text = DETAILS["precision"][1]
    assert "B300" in text and "MI250X" in text  # FP4 on Blackwell Ultra; no FP8 on MI250X

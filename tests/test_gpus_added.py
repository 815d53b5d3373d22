"""The GPUs added on 2026-12-02 (issue 29's Blackwell Ultra, issue 31 item 5's training GPUs):
each row carries the published figures its source column names, the figures that could not be
sourced say so, and every surface that lists GPUs takes them."""

from __future__ import annotations

import pytest

from models.hardware import get_gpu, load_gpus
from models.serving.plan import ServeInputs, plan_serving
from pricing.catalogue.loader import load_catalogue

ADDED = ("H800", "MI250X", "MI325X", "B300", "GB300", "GH200", "A800")


@pytest.fixture(scope="module")
def cat():
    return load_catalogue()


def test_the_h800_is_an_h100_with_nvlink_cut_to_400_gb_per_s_both_ways():
    h800, h100 = get_gpu("H800"), get_gpu("H100-SXM")
    assert h800.scaleup_bandwidth_gbyte_per_s == 200  # 400 GB/s bidirectional
    same = ("bf16_dense_tflops", "fp8_dense_tflops", "memory_gib", "hbm_bandwidth_tbyte_per_s")
    assert all(getattr(h800, f) == getattr(h100, f) for f in same)
    assert h800.architecture == "hopper"


def test_the_a800_is_an_a100_80gb_with_nvlink_cut_to_400_gb_per_s_both_ways():
    a800, a100 = get_gpu("A800"), get_gpu("A100-80GB")
    assert (
        a800.scaleup_bandwidth_gbyte_per_s == 200 < a100.scaleup_bandwidth_gbyte_per_s
    )  # 400 both ways
    same = (
        "bf16_dense_tflops",
        "memory_gib",
        "hbm_bandwidth_tbyte_per_s",
        "tdp_w",
        "gpus_per_node",
    )
    assert all(getattr(a800, f) == getattr(a100, f) for f in same)
    assert a800.fp8_dense_tflops is None and a800.architecture == "ampere"


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
        donor = {"H800": "H100-SXM", "MI250X": "MI300X", "GB300": "GB200", "A800": "A100-80GB"}[gpu]
        assert spec.matmul_fraction_of_peak == get_gpu(donor).matmul_fraction_of_peak


def test_a_price_no_source_gives_is_a_planner_default_and_says_so(cat):
    rows = [r for r in cat.rental_rows if r.gpu_id in ADDED and r.provider == "Planner default"]
    assert {r.gpu_id for r in rows} == {"H800", "MI250X", "GB300", "A800"}
    assert all(r.source.startswith("planner default") and r.grade == "C" for r in rows)
    for gpu in ("H800", "MI250X", "GH200", "A800"):
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
    gpus = {r["gpu"] for r in runs} | {r["gpu"] for r in tuned}
    assert gpus >= {"MI250X", "MI300X", "MI325X", "GH200"}
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


def test_the_gh200_is_an_h100_class_gpu_with_96_gb_in_a_four_gpu_nvlink_mesh():
    """GH200 (added 2026-12-02, issue 31 item 5): the 96 GB HBM3 variant as CSCS Alps, JSC JUPITER
    and Lambda carry it; the node as JUPITER's configuration page describes it."""
    gh, h100 = get_gpu("GH200"), get_gpu("H100-SXM")
    assert (gh.bf16_dense_tflops, gh.fp8_dense_tflops) == (h100.bf16_dense_tflops, 1979)
    assert (gh.memory_gib, gh.hbm_bandwidth_tbyte_per_s, gh.architecture) == (96, 4.0, "hopper")
    assert gh.gpus_per_node == gh.scaleup_domain_gpus == 4
    # a full mesh: 150 GB/s each way to each of the three peers, 450 GB/s in all
    assert gh.scaleup_link_gbyte_per_s == 150
    assert gh.scaleup_bandwidth_gbyte_per_s == (gh.scaleup_domain_gpus - 1) * 150
    assert gh.scaleout_bandwidth_gbit_per_s == 200  # one NDR200 / Slingshot-11 NIC per superchip
    assert gh.matmul_fraction_of_peak == pytest.approx(828.6 / 989, abs=5e-4)


def test_the_gh200_offloads_over_nvlink_c2c_not_pcie():
    """Its Grace CPU sits behind NVLink-C2C (900 GB/s both ways): an offloaded optimizer's copies
    take a seventh of the time they take over an H100's PCIe 5.0 x16."""
    from models.finetune import savings
    from models.finetune.plan import FinetuneInputs, plan_finetune

    assert savings.host_link("GH200").host_link_gbyte_per_s == 450
    step = {}
    for gpu in ("GH200", "H100-SXM"):
        kw = dict(model="llama3-8b", method="full", tokens=1e8, gpus=8, optimizer_offload=True)
        step[gpu] = plan_finetune(FinetuneInputs(gpu=gpu, **kw)).step_breakdown_s
    assert step["GH200"]["offload_transfer"] == pytest.approx(
        step["H100-SXM"]["offload_transfer"] * 63 / 450, rel=0.02
    )


def test_training_plans_on_the_gh200_inside_its_four_gpu_node():
    from models.scenario import Scenario
    from models.training.plan import Planner, plan_training
    from models.training.search import all_layouts

    data = {"workload": {"model": "llama3-405b", "tokens": 1e12}}
    tp_max = {}
    for gpu in ("GH200", "H100-SXM"):
        data["cluster"] = {"gpu": gpu, "gpus": 1024}
        tp_max[gpu] = int(
            all_layouts(Planner(Scenario.model_validate(data)).job(1024), 1024).tp.max()
        )
    assert tp_max == {"GH200": 4, "H100-SXM": 8}  # tensor parallelism stays inside the NVLink mesh
    data["cluster"] = {"gpu": "GH200", "gpus": 1024}
    gh = plan_training(Scenario.model_validate(data))
    assert gh.memory_capacity_gib == 96 and gh.fabric.gpus_per_node == 4
    assert gh.fabric.nic_gbit_per_s == 200 and gh.fabric.nodes == 256
    assert 0 < gh.mfu < 1 and gh.gpu_hours > 0


def test_the_gh200_rows_are_megatrons_tflops_in_tokens_by_its_own_formula():
    """swiss-ai's pull request #10 gives TFLOP/s per GPU by Megatron-LM's FLOPs count; the rows hold
    tokens/s/GPU, converted with that commit's formula (bench/swissai_megatron_tokens.py)."""
    from bench.swissai_megatron_tokens import megatron_flops_per_token
    from models.validation.training_rows import load_runs

    per_token = megatron_flops_per_token(28, 3072, 24, 8, 8192, 8192, 128256, gated=True)
    rows = {r["id"]: r for r in load_runs() if r["id"].startswith("swissai-gh200-")}
    published_tflops = {"swissai-gh200-llama3.2-3b-4": 505, "swissai-gh200-llama3.2-3b-32": 493}
    assert set(rows) == set(published_tflops)
    for rid, tflops in published_tflops.items():
        r = rows[rid]
        assert (r["gpu"], r["model"], r["unit"]) == ("GH200", "llama3.2-3b", "tokens_per_s_per_gpu")
        assert float(r["published"]) * per_token / 1e12 == pytest.approx(tflops, abs=0.05)


@pytest.mark.parametrize("gpu", ["GH200", "A800"])
def test_a_share_link_opens_the_workload_page_on_the_added_gpu(gpu):
    """The Workload page's GPU list is the catalogue; a link to a run on the new GPU opens there
    with it chosen and its memory in the list's label."""
    from app.share_link import decode, encode
    from tests.builders import RUNS, app, scenario

    s = scenario(RUNS, cluster={"gpu": gpu, "gpus": 64})
    token = encode(s)
    assert decode(token).cluster.gpu == gpu
    at = app("workload", token)
    (box,) = [b for b in at.selectbox if b.key == "w_gpu"]
    assert box.value == gpu
    assert any(o.startswith(f"{gpu} (") for o in box.options), box.options


def test_a_skypilot_import_files_lambdas_gh200_under_the_catalogues_gh200(tmp_path):
    """SkyPilot names Lambda's gpu_1x_gh200 accelerator "GH200"; the import prices it per GPU."""
    import datetime as dt

    from pricing.catalogue import skypilot_import as sky

    (tmp_path / "lambda").mkdir()
    (tmp_path / "lambda" / "vms.csv").write_text(
        "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,GpuInfo,SpotPrice\n"
        "test_1x_gh200,GH200,1.0,64.0,432.0,2.50,us-east-3,TEST DATA: made-up row,\n",
        encoding="utf-8",
    )
    day = dt.date(2026, 1, 2)
    rows = sky.to_rows(sky.parse(tmp_path), as_of=day, today=day)
    assert [(r["gpu_id"], r["provider"], float(r["price_usd_per_gpu_hour"])) for r in rows] == [
        ("GH200", "Lambda", 2.5)
    ]

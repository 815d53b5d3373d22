"""Each formula of the core against values computed by hand."""

import math

import numpy as np
import pytest

from models import constants as C
from models.hardware import get_gpu, load_gpus
from models.shapes import get_preset, load_presets, shape_from_params
from models.training import collectives as coll
from models.training.job import Job, stage_params
from models.training.layouts import Layouts, enumerate_layouts
from models.training.memory import GIB, activation_bytes_per_token_layer, fits, memory_breakdown
from models.training.step_time import model_flops_per_token, step_breakdown


def gpt3_job(**kw):
    return Job(
        get_preset("gpt3-175b"), get_gpu("A100-80GB"), 2048, 64, "bf16", flash_attention=0, **kw
    )


#: presets whose publisher counts the active parameters without some of the embeddings (their
#: `source` says so): the tables left out of the comparison, in embedding tables of vocab × hidden
ACTIVE_COUNTED_WITHOUT = {"gpt-oss-120b": 1, "minimax-m2.5": 2}


@pytest.mark.parametrize("model_id", list(load_presets()))
def test_preset_parameter_counts_match_published(model_id):
    s = get_preset(model_id)
    tol = 0.05 if model_id == "deepseek-v3-like" else 0.015  # MLA approximated by MHA
    assert s.params_total / 1e9 == pytest.approx(s.published_params_b, rel=tol)
    active = s.params_active - ACTIVE_COUNTED_WITHOUT.get(model_id, 0) * s.vocab * s.hidden
    assert active / 1e9 == pytest.approx(s.published_active_params_b, rel=max(tol, 0.05))


def test_gpt3_parameter_count_by_hand():
    # 96 layers × (4h² attention + 8h² MLP + 2h norms) + tied 51,200 × h embedding + final norm
    h = 12288
    want = 96 * (12 * h * h + 2 * h) + 51200 * h + h
    assert get_preset("gpt3-175b").params_total == want


@pytest.mark.parametrize(
    "total,active",
    [
        (1e9, None),
        (7e9, None),
        (70e9, None),
        (405e9, None),
        (47e9, 13e9),
        (671e9, 37e9),
        (2e12, None),
    ],
)
def test_custom_shape_is_plausible(total, active):
    s = shape_from_params(total, active)
    assert s.params_total == pytest.approx(total, rel=0.06)
    if active is not None:
        assert s.params_active == pytest.approx(active, rel=0.10)
        assert s.is_moe
    assert s.hidden % s.heads == 0 and s.heads % s.kv_heads == 0
    assert 64 <= s.hidden / s.layers <= 256  # depth-to-width in the range of published models


def test_activation_bytes_follow_korthikanti():
    job = gpt3_job()
    h, a, s, t = 12288, 96, 2048, 8
    lay = Layouts(
        tp=np.array([8, 8, 8, 8]),
        pp=np.ones(4, int),
        dp=np.ones(4, int),
        ep=np.ones(4, int),
        zero=np.zeros(4, int),
        recompute=np.array([1, 0, 2, 2]),
        micro_batch=np.ones(4, int),
        interleave=np.ones(4, int),
        sequence_parallel=np.array([1, 0, 1, 0]),
        microbatches=np.full(4, 64),
    )
    stored, _ = activation_bytes_per_token_layer(job, lay)
    assert stored[0] == pytest.approx(34 * h / t)  # SP + selective: 34·sbh/t
    assert stored[1] == pytest.approx(h * (10 + 24 / t) + 5 * a * s / t)  # TP only, no recompute
    assert stored[2] == pytest.approx(2 * h / t)  # full recompute with SP: the layer input, sharded
    assert stored[3] == pytest.approx(2 * h)  # full recompute without SP


def test_model_state_bytes_per_parameter_and_zero_sharding():
    job = Job(get_preset("llama2-7b"), get_gpu("H100-SXM"), 4096, 64, "bf16")
    lay = Layouts.single(64, tp=1, pp=1, dp=4, micro_batch=1)
    params = sum(stage_params(job, lay))
    assert params == pytest.approx(get_preset("llama2-7b").params_total, rel=1e-3)
    by_stage = {}
    for z in range(4):
        m = memory_breakdown(job, Layouts.single(64, tp=1, pp=1, dp=4, micro_batch=1, zero=z))
        by_stage[z] = {k: float(v[0]) for k, v in m.items()}
    assert by_stage[0]["weights"] + by_stage[0]["gradients"] + by_stage[0][
        "optimizer"
    ] == pytest.approx(18 * params)
    assert by_stage[1]["optimizer"] == pytest.approx(12 * params / 4)
    assert by_stage[2]["gradients"] == pytest.approx(4 * params / 4)
    assert by_stage[3]["weights"] == pytest.approx(2 * params / 4)
    assert by_stage[3]["zero3_gather"] > 0 and by_stage[2]["zero3_gather"] == 0
    assert by_stage[0]["overhead"] == pytest.approx(C.FRAMEWORK_OVERHEAD_GIB * GIB)


def test_ring_and_tree_collective_formulas():
    assert float(coll.all_reduce_s(1e9, 8, 1e11, 0.0)) == pytest.approx(2 * 7 / 8 * 1e-2)
    assert float(coll.reduce_scatter_s(1e9, 8, 1e11, 1e-5)) == pytest.approx(
        7 / 8 * 1e-2 + 1e-5 * 2 * 3
    )
    assert float(coll.all_gather_s(1e9, 1, 1e11, 1e-5)) == 0.0
    assert float(coll.all_to_all_s(1e9, 4, 1e11, 1e-5)) == pytest.approx(3 / 4 * 1e-2 + 3e-5)
    assert float(coll.p2p_s(1e6, 1e9, 2e-6)) == pytest.approx(1e-3 + 2e-6)


def test_model_flops_per_token_matches_narayanan():
    # Narayanan 2021 without recompute: 72·l·h²·(1 + s/6h) per token for the layers, 6·V·h for logits
    job = gpt3_job()
    layers, h, s, v = 96, 12288, 2048, 51200
    want = 72 * layers * h * h * (1 + s / (6 * h)) + 6 * v * h
    assert model_flops_per_token(job) == pytest.approx(want, rel=1e-3)


@pytest.mark.parametrize("v", [1, 3])
def test_pipeline_bubble_is_p_minus_1_over_v_m(v):
    job = gpt3_job()
    lay = Layouts.single(64, tp=8, pp=8, dp=1, micro_batch=1, interleave=v, recompute="selective")
    b = step_breakdown(job, lay)
    assert float(b["pipeline_bubble"][0] / b["compute"][0]) == pytest.approx(7 / (v * 64))


def test_step_time_parts_add_up_and_tp_costs_more_without_sequence_parallel_memory():
    job = gpt3_job()
    lay = Layouts.single(64, tp=8, pp=8, dp=1, micro_batch=1, interleave=3, recompute="selective")
    b = {k: float(v[0]) for k, v in step_breakdown(job, lay).items()}
    parts = ("compute", "pipeline_bubble", "pipeline_p2p", "data_parallel", "optimizer")
    assert b["total"] == pytest.approx(sum(b[k] for k in parts))
    assert b["data_parallel"] == 0.0  # dp = 1


def test_small_gemms_are_less_efficient():
    # the same tokens per step in micro-batches of 1 vs 8 sequences: more, smaller GEMMs are slower
    job = Job(get_preset("llama3-8b"), get_gpu("H100-SXM"), 1024, 64, "bf16")
    small = step_breakdown(job, Layouts.single(64, tp=8, pp=1, dp=1, micro_batch=1))["total"][0]
    big = step_breakdown(job, Layouts.single(64, tp=8, pp=1, dp=1, micro_batch=8))["total"][0]
    assert small > big


def test_fp8_is_faster_but_not_twice_as_fast():
    base = dict(
        shape=get_preset("llama3-70b"), gpu=get_gpu("H100-SXM"), seq_len=8192, global_batch_seqs=128
    )
    lay = Layouts.single(128, tp=8, pp=4, dp=2, micro_batch=1, interleave=5)
    t16 = float(step_breakdown(Job(**base, precision="bf16"), lay)["total"][0])
    t8 = float(step_breakdown(Job(**base, precision="fp8"), lay)["total"][0])
    assert 1.0 < t16 / t8 < 2.0


def test_fp8_tensor_parallel_all_gathers_move_one_byte_a_value():
    """With FP8 and sequence parallelism each TP all-reduce-equivalent is a BF16 reduce-scatter plus an
    FP8 all-gather (Transformer Engine's quantized gathers): 2 + 1 bytes a value against BF16's 2 + 2,
    latencies unchanged. Without sequence parallelism, or under LoRA (BF16 gathers for the
    adapters), the traffic is BF16's."""
    base = dict(shape=get_preset("llama3-70b"), gpu=get_gpu("H100-SXM"), seq_len=8192)

    def tp_comm(precision, sp, **kw):
        job = Job(**base, global_batch_seqs=16, precision=precision, **kw)
        lay = Layouts.single(16, tp=8, pp=1, dp=1, micro_batch=1, sequence_parallel=sp)
        return float(step_breakdown(job, lay)["tp_comm"][0])

    g = get_gpu("H100-SXM")
    bw = g.scaleup_bandwidth_gbyte_per_s * 1e9 * C.SCALEUP_EFFICIENCY
    values = 8192 * get_preset("llama3-70b").hidden
    bf16_coll = 2 * coll.reduce_scatter_s(values * 2.0, 8, bw, C.SCALEUP_LATENCY_S)
    fp8_coll = bf16_coll - (values * 1.0 * 7 / 8) / bw
    assert C.FP8_TP_ALL_GATHER_BYTES == 1
    ratio = tp_comm("fp8", 1) / tp_comm("bf16", 1)
    assert ratio == pytest.approx(fp8_coll / bf16_coll, rel=1e-9)
    assert tp_comm("fp8", 0) == pytest.approx(tp_comm("bf16", 0), rel=1e-12)
    assert tp_comm("fp8", 1, weight_gradients=False) == pytest.approx(
        tp_comm("bf16", 1, weight_gradients=False), rel=1e-12
    )


def test_layout_enumeration_obeys_its_rules():
    s = get_preset("mixtral-8x7b")
    lay = enumerate_layouts(
        gpus=256,
        global_batch_seqs=512,
        layers=s.layers,
        heads=s.heads,
        experts=s.experts,
        scaleup_domain_gpus=8,
    )
    assert len(lay) > 100
    assert np.all(lay.tp * lay.pp * lay.dp == 256)
    assert np.all((s.heads % lay.tp == 0) & (lay.tp <= 8))
    assert np.all((lay.dp % lay.ep == 0) & (s.experts % lay.ep == 0))
    assert np.all((lay.pp == 1) | (lay.zero <= 1))
    assert np.all(np.abs(lay.batch_seqs - 512) <= 0.125 * 512)
    il = lay.interleave > 1
    assert np.all(lay.microbatches[il] % lay.pp[il] == 0)
    assert set(np.unique(lay.ep)) >= {1, 2, 4, 8}


def test_fit_uses_the_headroom():
    job = Job(get_preset("llama2-7b"), get_gpu("H100-SXM"), 4096, 64, "bf16")
    cap = C.MEMORY_HEADROOM * 80 * GIB
    assert fits(job, np.array([cap * 0.999, cap * 1.001])).tolist() == [True, False]


def test_catalogue_has_the_required_gpus_with_sources():
    required = {"A100-40GB", "A100-80GB", "H100-SXM", "H200", "B200", "GB200", "MI300X", "L40S"}
    gpus = load_gpus()
    assert required <= set(gpus)
    for g in gpus.values():
        assert g.source and g.as_of and g.failures_per_gpu_day > 0
        assert math.isfinite(g.bf16_dense_tflops)
    assert gpus["GB200"].scaleup_domain_gpus == 72
    assert gpus["A100-80GB"].fp8_dense_tflops is None

"""MoE terms from the DeepSeek reports: node/device-limited routing, the all-to-all overlap of the
DeepSeek stack classes, and DualPipe's bubble and memory (DeepSeek-V2 arXiv 2405.04434, DeepSeek-V3
arXiv 2412.19437 Table 2; constants.SOFTWARE_STACKS)."""

from dataclasses import replace

import numpy as np
import pytest

from models import constants as C
from models.training import collectives as coll
from models.training.job import layers_per_stage
from models.training.layouts import Layouts
from models.training.memory import in_flight_layers, memory_breakdown
from models.training.plan import Planner
from models.training.search import stack_allows
from models.training.step_time import step_breakdown
from models.validation.training_predict import gpu_of, heldout_scenario
from models.validation.training_rows import load_heldout_runs


def job_of(row_id, stack, gpus):
    row = {r["id"]: r for r in load_heldout_runs()}[row_id]
    p = Planner(heldout_scenario(row, {"software_stack": stack}))
    p.gpu = gpu_of(row)
    return p.job(gpus)


def _v3_layout(job, **kw):
    values = dict(tp=1, pp=16, dp=128, ep=64, micro_batch=1, zero=1, recompute="none")
    values.update(kw)
    return Layouts.single(job.global_batch_seqs, sequence_parallel=0, **values)


@pytest.fixture(scope="module")
def v3():
    # balanced routing: these tests pin the routing limit and the overlaps; load imbalance has its
    # own (test_moe_imbalance.py)
    return replace(job_of("ho-deepseek-v3", "in-house", 2048), moe_balance="forced")


def test_node_limited_routing_sends_a_token_to_at_most_four_nodes(v3):
    """V3: k = 8 experts, at most 4 nodes: 4 copies over the 8 nodes of EP64, not 8 over 64 ranks."""
    assert (v3.shape.routing_limit, v3.shape.routing_limit_unit) == (4, "node")
    lay = _v3_layout(v3)
    free = replace(v3, shape=v3.shape.model_copy(update={"routing_limit": 0}))
    g, s = v3.gpu, v3.shape
    bw = g.scaleout_bandwidth_gbit_per_s / 8 * 1e9 * C.SCALEOUT_EFFICIENCY
    T, h = v3.seq_len, s.hidden
    one = coll.all_to_all_s(T * 4 * h * 2.0, 8, bw, C.SCALEOUT_LATENCY_S)
    # unlimited: 8 copies among the 64 ranks, 7/64 of them over NVLink and 56/64 over the network
    # at once (models/training/moe_cost.py; docs/reference/training.md section 6)
    up = g.scaleup_bandwidth_gbyte_per_s * 1e9 * C.SCALEUP_EFFICIENCY
    sent = T * 8 * h * 2.0
    unlimited = max(7 / 64 * sent / up, 56 / 64 * sent / bw) + 63 * C.SCALEOUT_LATENCY_S
    per_step = (
        int(lay.microbatches[0]) * int(layers_per_stage(v3, lay)[0]) * s.moe_layers / s.layers
    )
    saved = float(step_breakdown(free, lay)["compute"][0] - step_breakdown(v3, lay)["compute"][0])
    assert saved == pytest.approx(4 * per_step * float(unlimited - one), rel=1e-6)


def test_dualpipe_hides_the_all_to_all_behind_the_paired_chunk(v3):
    """Hidden, the all-to-all costs only its interference (OVERLAP_INTERFERENCE) with the compute
    (on a 1,600 Gb/s fabric, where it is shorter than either chunk; at H800's 400 it is not quite)."""
    v3 = replace(v3, gpu=v3.gpu.model_copy(update={"scaleout_bandwidth_gbit_per_s": 1600}))
    dual = replace(v3, stack="moe-dualpipe")
    lay = _v3_layout(v3)
    s, g = v3.shape, v3.gpu
    bw = g.scaleout_bandwidth_gbit_per_s / 8 * 1e9 * C.SCALEOUT_EFFICIENCY
    a2a = float(coll.all_to_all_s(v3.seq_len * 4 * s.hidden * 2.0, 8, bw, C.SCALEOUT_LATENCY_S))
    per_step = (
        int(lay.microbatches[0]) * int(layers_per_stage(v3, lay)[0]) * s.moe_layers / s.layers
    )
    saved = float(step_breakdown(v3, lay)["compute"][0] - step_breakdown(dual, lay)["compute"][0])
    assert saved == pytest.approx(4 * a2a * per_step * (1 - C.OVERLAP_INTERFERENCE), rel=1e-6)


def test_zero_bubble_and_dualpipe_bubbles_follow_table_2(v3, monkeypatch):
    """The same stack but for its schedule: ZB1P (pp-1)(F+B-2W) and DualPipe (pp/2-1)(F&B+B-3W)
    against 1F1B's (pp-1)(F+B)."""
    lay = _v3_layout(v3)
    bubble = {}
    for schedule in ("1f1b", "zb1p", "dualpipe"):
        spec = dict(C.SOFTWARE_STACKS["in-house"], pipeline_schedule=schedule)
        monkeypatch.setitem(C.SOFTWARE_STACKS, "test-stack", spec)
        job = replace(v3, stack="test-stack")
        bubble[schedule] = float(step_breakdown(job, lay)["pipeline_bubble"][0])
    # here the stage also holds the exposed all-to-all and element-wise work, so W is a smaller share
    assert 0.55 < bubble["zb1p"] / bubble["1f1b"] < 0.8
    assert bubble["dualpipe"] < bubble["zb1p"]


def test_dualpipe_keeps_two_copies_of_the_parameters_and_pp_plus_one_microbatches(v3):
    dual = replace(v3, stack="moe-dualpipe")
    lay = _v3_layout(v3)
    one_f_one_b = replace(v3, pp_ends_trimmed=False)  # DualPipe never trims the ends (memory.py)
    assert memory_breakdown(dual, lay)["weights"][0] == pytest.approx(
        2 * memory_breakdown(one_f_one_b, lay)["weights"][0]
    )
    lps = int(layers_per_stage(v3, lay)[0])
    assert in_flight_layers(v3, lay)[0] == 16 * lps
    assert in_flight_layers(dual, lay)[0] == 17 * lps


def test_zero_bubble_and_dualpipe_stacks_run_no_interleaving(v3):
    lay = Layouts.single(v3.global_batch_seqs, tp=1, pp=16, dp=128, ep=64, interleave=2)
    for stack, allowed in (("in-house", True), ("moe-zero-bubble", False), ("moe-dualpipe", False)):
        job = replace(v3, stack=stack)
        assert bool(stack_allows(job, lay)[0]) is allowed, stack


def test_v2_overlaps_the_all_to_all_with_the_shared_experts_only():
    """V2 (EP8 in one node, at most 3 devices): the exposed part is what the shared experts' GEMMs
    cannot cover, so it lies between nothing hidden (in-house) and DualPipe's full overlap."""
    base = job_of("ho-deepseek-v2", "in-house", 1024)
    lay = Layouts.single(
        base.global_batch_seqs, tp=1, pp=16, dp=64, ep=8, micro_batch=1, zero=1, sequence_parallel=0
    )
    comp = {
        st: float(step_breakdown(replace(base, stack=st), lay)["compute"][0])
        for st in ("in-house", "moe-zero-bubble")
    }
    assert comp["moe-zero-bubble"] < comp["in-house"]
    assert np.isfinite(comp["moe-zero-bubble"])

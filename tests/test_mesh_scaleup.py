"""Training collectives on a mesh scale-up domain (docs/reference/training.md 9): a group of k GPUs
on a full mesh of point-to-point links (MI300X, MI325X, GH200) moves min(aggregate, (k − 1) × link)
per GPU; a switched NVLink domain keeps its whole rate for any group."""

from __future__ import annotations

import numpy as np
import pytest

from models import constants as C
from models.hardware import get_gpu
from models.serving import roofline
from models.shapes import get_preset
from models.training import moe_cost
from models.training.job import Job
from models.training.layouts import Layouts
from models.training.step_time import _context, _link, step_breakdown
from models.units import BYTES_PER_GB


def _rate(gbyte_per_s: float) -> float:
    return gbyte_per_s * BYTES_PER_GB * C.SCALEUP_EFFICIENCY


def _tp_link(gpu_id: str, tp: int, gpu=None) -> float:
    job = Job(get_preset("llama3-70b"), gpu or get_gpu(gpu_id), 8192, 64)
    lay = Layouts.single(64, tp=tp, pp=1, dp=1, micro_batch=1, sequence_parallel=True)
    bw, _ = _link(job, _context(job, lay), lay.tp.astype(float))
    return float(bw[0])


@pytest.mark.parametrize(
    ("gpu", "k", "gbyte_per_s"),
    [("MI300X", 2, 64), ("MI300X", 4, 192), ("MI300X", 8, 448), ("MI325X", 2, 64)]
    + [("GH200", 2, 150), ("GH200", 4, 450), ("H100-SXM", 2, 450), ("MI250X", 2, 50)],
)
def test_the_registry_gives_a_group_its_own_links_on_a_mesh_and_the_whole_rate_on_a_switch(
    gpu, k, gbyte_per_s
):
    assert float(get_gpu(gpu).scaleup_group_gbyte_per_s(k)) == gbyte_per_s


def test_a_tp2_group_on_mi300x_is_credited_one_link_and_tp8_seven():
    assert _tp_link("MI300X", 2) == pytest.approx(_rate(64))
    assert _tp_link("MI300X", 4) == pytest.approx(_rate(3 * 64))
    assert _tp_link("MI300X", 8) == pytest.approx(_rate(7 * 64))


def test_an_h100_tp2_group_gets_its_nvswitch_rate():
    assert _tp_link("H100-SXM", 2) == pytest.approx(_rate(450))
    assert _tp_link("H100-SXM", 8) == pytest.approx(_rate(450))


def test_serving_and_training_read_one_rate():
    for gpu_id in ("MI300X", "GH200", "H100-SXM"):
        gpu = get_gpu(gpu_id)
        for tp in (2, 4, 8)[: 2 if gpu.scaleup_domain_gpus == 4 else 3]:  # inside the domain
            assert float(roofline.group_scaleup_rate(gpu, tp)) == _tp_link(gpu_id, tp)


def test_the_tp_traffic_of_a_tp2_step_on_mi300x_takes_the_time_of_one_link():
    """The same step on a switched copy of the MI300X (no per-pair link) moves the TP bytes at the
    448 GB/s aggregate: the bandwidth part of the mesh's TP time is 7 times the switch's."""
    mi = get_gpu("MI300X")
    switched = mi.model_copy(update={"scaleup_link_gbyte_per_s": None})
    lay = Layouts.single(64, tp=2, pp=1, dp=1, micro_batch=1, sequence_parallel=True)
    steps = [
        step_breakdown(Job(get_preset("llama3-70b"), g, 8192, 64), lay)["tp_comm"][0]
        for g in (mi, switched, switched.model_copy(update={"scaleup_bandwidth_gbyte_per_s": 64}))
    ]
    mesh, switch, one_link = steps
    assert mesh > switch
    assert mesh == pytest.approx(one_link)  # what a 64 GB/s switch would give: one link's time


def test_the_expert_all_to_all_inside_one_mi300x_node_runs_over_the_groups_links():
    job = Job(get_preset("mixtral-8x7b"), get_gpu("MI300X"), 4096, 64)
    lay = Layouts.single(64, tp=1, pp=1, dp=2, ep=2, micro_batch=1)
    links = (_rate(448), 50e9, C.SCALEUP_LATENCY_S, C.SCALEOUT_LATENCY_S)
    mesh = moe_cost.all_to_all_s(job, lay, 1e9, np.array([1.0]), links)
    switched = job.gpu.model_copy(update={"scaleup_link_gbyte_per_s": None})
    job_s = Job(get_preset("mixtral-8x7b"), switched, 4096, 64)
    flat = moe_cost.all_to_all_s(job_s, lay, 1e9, np.array([1.0]), links)
    lat = C.SCALEUP_LATENCY_S
    assert (mesh[0] - lat) == pytest.approx((flat[0] - lat) * 448 / 64)


def test_a_pipeline_send_and_a_dp2_group_inside_the_node_use_one_link():
    """TP 2 x DP 2 x PP 2 on one MI300X node: a p2p send crosses one link of the mesh, the DP group
    of two has one link between them (as has the TP pair), so the step equals that of a switch
    at 64 GB/s, part by part, and its sends are slower than at the 448 GB/s aggregate."""
    mi = get_gpu("MI300X")
    switched = mi.model_copy(update={"scaleup_link_gbyte_per_s": None})
    one_link = switched.model_copy(update={"scaleup_bandwidth_gbyte_per_s": 64})
    lay = Layouts.single(64, tp=2, pp=2, dp=2, micro_batch=1, zero=0)
    mesh, flat, single = (
        step_breakdown(Job(get_preset("llama3-8b"), g, 8192, 64), lay)
        for g in (mi, switched, one_link)
    )
    for part in ("pipeline_p2p", "data_parallel", "total"):
        assert mesh[part][0] == pytest.approx(single[part][0])
    assert mesh["pipeline_p2p"][0] > flat["pipeline_p2p"][0]

"""Attention data parallelism in the serving model (docs/reference/serving-evidence.md, eighth
amendment): a replica of DP groups of TP GPUs, the routed experts over all of them. With DP = 1
every figure is the model's as before; a MoE model too large for one tensor-parallel replica of 8
GPUs is planned over 16 to 64 GPUs instead of refused."""

import numpy as np
import pytest

from models.hardware import get_gpu
from models.serving import roofline
from models.serving.plan import ServeInputs, evaluate, plan_serving
from models.shapes import get_preset
from models.units import BYTES_PER_PARAM

DEEPSEEK_H100 = {"model": "deepseek-v3-like", "gpu": "H100-SXM", "precision": "fp8",
                 "input_tokens": 1024, "output_tokens": 1024}  # fmt: skip


def test_one_group_is_the_model_as_before():
    inp = ServeInputs(**DEEPSEEK_H100 | {"gpu": "H200"})
    tp, b = [4, 8, 8], [1, 64, 512]
    before, one = evaluate(inp, tp, tp, b), evaluate(inp, tp, tp, b, dp=[1, 1, 1])
    for key, value in before.items():
        assert np.array_equal(np.asarray(value), np.asarray(one[key])), key


def test_weights_per_gpu_by_hand():
    """Non-expert weights over the group's TP GPUs, the routed experts over all TP · DP."""
    s = get_preset("deepseek-v3-like")
    routed = s.moe_layers * s.experts * s.expert_params
    r = evaluate(ServeInputs(**DEEPSEEK_H100), [2], [16], [8], dp=[8])
    want = ((s.params_total - routed) / 2 + routed / 16) * BYTES_PER_PARAM["fp8"]
    assert r["weights_gpu"][0] == pytest.approx(want)
    assert r["gpus_replica"][0] == 16


def test_groups_share_the_experts_they_touch():
    """DP groups of B sequences read the experts B · DP tokens touch, spread over TP · DP GPUs:
    more groups, fewer expert bytes per GPU, a shorter memory-bound step than one group of TP."""
    inp = ServeInputs(**DEEPSEEK_H100)
    one = evaluate(inp, [8], [8], [4], dp=[1])  # weights alone do not leave room here
    many = evaluate(inp, [1], [16], [4], dp=[16])
    assert many["weights_gpu"][0] < one["weights_gpu"][0]
    assert many["max_seqs"][0] >= 1 > one["max_seqs"][0]


def test_the_dispatch_crosses_the_scale_out_network_past_the_domain():
    """The same 16-GPU layout: within one NVLink domain the all-to-alls take the scale-up link,
    across two 8-GPU nodes the scale-out network (slower, and a longer latency step)."""
    shape, h100 = get_preset("deepseek-v3-like"), get_gpu("H100-SXM")
    wide = h100.model_copy(update={"scaleup_domain_gpus": 16})

    def step(gpu):
        su = roofline.setup(shape, gpu, "fp8", "fp8", np.array([1.0]), np.array([64.0]),
                            1024, 1024, dp=np.array([16.0]))  # fmt: skip
        return roofline.decode_step(su, roofline.memory(su), True)[0][0]

    assert step(h100) > step(wide)


def test_a_671b_moe_on_h100_is_planned_over_several_nodes():
    """The issue's case: DeepSeek-V3 at FP8 (671 GB) does not fit 8 H100s; the search offers
    attention data-parallel replicas of 16 to 64 GPUs and the plan fits its memory."""
    p = plan_serving(ServeInputs(**DEEPSEEK_H100 | {"rps": 2.0, "tpot_ms": 50.0}))
    assert p.attention_dp > 1 and p.gpus_per_replica == p.tp * p.attention_dp
    assert p.gpus_per_replica in (16, 32, 64) and p.gpus % p.gpus_per_replica == 0
    assert p.ep == p.gpus_per_replica
    assert p.weights_gib_per_gpu + p.kv_cache_gib_per_gpu < get_gpu("H100-SXM").memory_gib
    assert p.tpot_ms <= 50.0


def test_a_model_that_fits_one_node_keeps_tensor_parallel_replicas():
    p = plan_serving(ServeInputs(**DEEPSEEK_H100 | {"gpu": "H200", "rps": 2.0}))
    assert p.attention_dp == 1 and p.gpus_per_replica == p.tp <= 8


def test_the_command_line_prints_the_groups():
    import contextlib
    import io

    from app.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        main(["serve", "--model", "deepseek-v3-like", "--gpu", "H100-SXM", "--input-tokens",
              "1024", "--output-tokens", "1024", "--rps", "2", "--tpot-ms", "50"])  # fmt: skip
    p = plan_serving(ServeInputs(**DEEPSEEK_H100 | {"rps": 2.0, "tpot_ms": 50.0}))
    line = next(x for x in out.getvalue().split("\n") if x.startswith("Layout"))
    # a replica of 16 H100 spans two nodes, and says so (twenty-fourth amendment)
    assert f"DP{p.attention_dp} ({p.gpus_per_replica} GPUs per replica over 2 nodes)" in line
    assert f"{p.batch * p.attention_dp:,} per replica" in line

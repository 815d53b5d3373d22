"""Properties of the core that must hold for any valid input (hypothesis)."""

import math

import numpy as np
import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from models.errors import InputError
from models.hardware import get_gpu, gpu_ids
from models.scenario import Scenario
from models.shapes import load_presets
from models.training.job import Job
from models.training.memory import fits, memory_breakdown
from models.training.plan import plan_training
from models.training.search import NoFittingLayout, all_layouts, best_layout, stack_allows
from models.training.sizing import gpu_ladder
from models.training.step_time import step_breakdown
from models.training.whole_run import RunFeatures, whole_run_factor

SETTINGS = settings(max_examples=25)
PRESETS = [m for m in load_presets() if m not in ("megatron-1t", "mt-nlg-530b")]

workloads = st.fixed_dictionaries(
    {
        "model": st.sampled_from(PRESETS),
        "tokens": st.floats(1e9, 2e13),
        "seq_len": st.sampled_from([1024, 2048, 4096, 8192, 16384]),
        "precision": st.sampled_from(["bf16", "fp8"]),
    }
)
custom_workloads = st.builds(
    lambda total, share, tokens: {
        "params": total,
        "active_params": total * share if share < 1 else None,
        "tokens": tokens,
        "seq_len": 4096,
    },
    st.floats(3e8, 1e12),
    st.sampled_from([1.0, 0.5, 0.2, 0.06]),
    st.floats(1e9, 1e13),
)


def _walk_numbers(obj, path=""):
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _walk_numbers(v, f"{path}.{k}")
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _walk_numbers(v, f"{path}[{i}]")
    elif isinstance(obj, (int, float)) and not isinstance(obj, bool):
        yield path, obj


def _plan(workload, gpu, gpus, curve=False):
    if workload.get("precision") == "fp8" and get_gpu(gpu).fp8_dense_tflops is None:
        workload = {**workload, "precision": "bf16"}
    scenario = Scenario.model_validate(
        {"workload": workload, "cluster": {"gpu": gpu, "gpus": gpus}}
    )
    try:
        return plan_training(scenario, curve=curve)
    except InputError:
        assume(False)


@SETTINGS
@given(
    st.one_of(workloads, custom_workloads),
    st.sampled_from(gpu_ids()),
    st.sampled_from([8, 16, 64, 256, 1024, 4096]),
)
def test_every_output_is_finite_and_positive(workload, gpu, gpus):
    plan = _plan(workload, gpu, gpus)
    for path, value in _walk_numbers(plan.model_dump(mode="json")):
        assert math.isfinite(value), path
        if path == ".scaling.gain":  # signed: the larger count can be slower (a ScalingNote)
            assert value > -1 and plan.scaling.warns == (value < plan.scaling.warn_below), path
            continue
        assert value >= 0, path
    for key in (
        "step_time_s",
        "mfu",
        "tokens_per_s",
        "ideal_days",
        "goodput",
        "train_days",
        "gpu_hours",
    ):
        assert getattr(plan, key) > 0, key
    assert plan.mfu < 1 and plan.goodput <= 1 and plan.train_days >= plan.ideal_days
    assert plan.memory_gib_per_gpu["total"] <= plan.memory_capacity_gib
    lay = plan.layout
    assert lay.tp * lay.cp * lay.pp * lay.dp == plan.gpus


@SETTINGS
@given(
    st.sampled_from(PRESETS),
    st.sampled_from(gpu_ids()),
    st.sampled_from([8, 64, 512]),
    st.floats(1.05, 4.0),
)
# two layouts fit on 64 MI300X that the default stack does not run (found by hypothesis)
@example("deepseek-v3-like", "MI300X", 64, 2.0)
def test_more_gpu_memory_never_removes_a_fitting_layout(model, gpu_id, gpus, factor):
    gpu = get_gpu(gpu_id)
    bigger = gpu.model_copy(update={"memory_gib": gpu.memory_gib * factor})
    shape = load_presets()[model]
    job_small = Job(shape, gpu, 4096, 512)
    job_big = Job(shape, bigger, 4096, 512)
    lay = all_layouts(job_small, gpus)
    assume(len(lay) > 0)
    total = memory_breakdown(job_small, lay)["total"]
    small_fit, big_fit = (
        fits(job_small, total),
        fits(job_big, memory_breakdown(job_big, lay)["total"]),
    )
    assert np.all(big_fit[small_fit])
    # the search takes only the layouts the software stack runs (search.stack_allows)
    if (small_fit & stack_allows(job_small, lay)).any():
        small_best = best_layout(job_small, gpus)
        big_best = best_layout(job_big, gpus)
        assert big_best.tokens_per_s >= small_best.tokens_per_s * (1 - 1e-9)


@settings(max_examples=12)
@given(
    st.sampled_from(["llama3-8b", "llama2-70b", "mixtral-8x7b", "gpt3-175b"]),
    st.sampled_from(["H100-SXM", "A100-80GB", "B200", "MI300X"]),
    st.sampled_from([64, 384, 512, 1536, 2048]),  # 384 and 1,536: not a power-of-two node count
)
def test_the_scaling_curve_passes_through_the_plan_and_spans_its_range(model, gpu, gpus):
    plan = _plan({"model": model, "tokens": 1e12}, gpu, gpus, curve=True)
    curve = plan.curve
    counts = [p.gpus for p in curve]
    assert counts == sorted(set(counts))
    # from 1/16 of the chosen count (or the smallest that fits) to 8x it
    assert plan.gpus // 16 <= counts[0] and counts[-1] <= 8 * plan.gpus
    chosen = next(p for p in curve if p.gpus == plan.gpus)
    assert (chosen.train_days, chosen.step_time_s, chosen.mfu) == (
        plan.train_days,
        plan.step_time_s,
        plan.mfu,
    )
    # the steady state's efficiency (Planner.curve): whole-run GPU-hours over the factor
    active, stack = plan.model.active_params, plan.execution["software_stack"]
    steady = {
        p.gpus: p.gpu_hours / whole_run_factor(RunFeatures(active, p.gpus, stack=stack))
        for p in curve
    }
    cheapest = min(steady.values())
    for p in curve:
        assert p.gpu_hours == pytest.approx(p.train_days * 24 * p.gpus)
        # against the curve's cheapest point, so never above 100 % (issue 17)
        assert p.scaling_efficiency == pytest.approx(cheapest / steady[p.gpus])
        assert p.scaling_efficiency <= 1.0


@settings(max_examples=20)
@given(st.sampled_from(PRESETS), st.sampled_from(gpu_ids()))
def test_step_parts_are_non_negative_and_sum_to_the_total(model, gpu_id):
    job = Job(load_presets()[model], get_gpu(gpu_id), 4096, 1024)
    lay = all_layouts(job, 256)
    assume(len(lay) > 0)
    b = step_breakdown(job, lay)
    parts = (
        b["compute"]
        + b["pipeline_bubble"]
        + b["pipeline_p2p"]
        + b["data_parallel"]
        + b["optimizer"]
        + b["fixed_per_step"]
    )
    assert np.allclose(parts, b["total"])
    for v in b.values():
        assert np.all(np.isfinite(v)) and np.all(v >= 0)


def test_ladder_is_node_multiples_and_increasing():
    ladder = gpu_ladder(8, 65536)
    assert ladder[:3] == [1, 2, 4] and ladder == sorted(set(ladder))
    assert all(n % 8 == 0 for n in ladder[3:]) and ladder[-1] == 65536


def test_smallest_that_fits_and_needs_at_least():
    plan = plan_training(
        Scenario.model_validate(
            {"workload": {"model": "llama3-405b", "tokens": 1e12}, "cluster": {"gpu": "H100-SXM"}}
        ),
        unsized="smallest",
    )
    assert plan.sizing == "smallest that fits" and plan.gpus >= 48
    below = max(n for n in gpu_ladder(8, 65536) if n < plan.gpus)
    with pytest.raises(InputError, match=f"needs at least {plan.gpus} H100-SXM"):
        plan_training(
            Scenario.model_validate(
                {
                    "workload": {"model": "llama3-405b", "tokens": 1e12},
                    "cluster": {"gpu": "H100-SXM", "gpus": below},
                }
            )
        )
    with pytest.raises(NoFittingLayout):
        best_layout(Job(load_presets()["llama3-405b"], get_gpu("H100-SXM"), 8192, 2048), 8)


def test_deadline_sizing_meets_the_deadline_with_fewer_gpus_for_looser_deadlines():
    def gpus_for(days):
        plan = plan_training(
            Scenario.model_validate(
                {
                    "workload": {"model": "llama3-70b", "tokens": 15e12},
                    "cluster": {"gpu": "H100-SXM", "deadline_days": days},
                }
            )
        )
        assert plan.train_days <= days and plan.sizing == "deadline"
        return plan.gpus

    assert gpus_for(30) >= gpus_for(90) >= gpus_for(365)


@SETTINGS
@given(
    st.sampled_from(PRESETS),
    st.sampled_from(gpu_ids()),
    st.sampled_from([8, 64, 512, 4096]),
    st.sampled_from([2048, 8192]),
    st.floats(1.1, 8.0),
)
def test_execution_plan_and_fabric_knobs_move_every_layout_the_right_way(
    model, gpu_id, gpus, seq, factor
):
    """Per layout: TP overlap, BF16 gradients and a faster inter-node fabric never slow a step;
    FlashAttention-1-class kernels never speed one up; BF16 gradients never need more memory."""
    gpu = get_gpu(gpu_id)
    shape = load_presets()[model]
    base = Job(shape, gpu, seq, 512)
    lay = all_layouts(base, gpus)
    assume(len(lay) > 0)
    t0 = step_breakdown(base, lay)["total"]
    variants = {
        "overlap": Job(shape, gpu, seq, 512, tp_comm_overlap=True),
        "bf16 grads": Job(shape, gpu, seq, 512, grad_bytes=2),
        "faster fabric": Job(
            shape,
            gpu.model_copy(
                update={"scaleout_bandwidth_gbit_per_s": gpu.scaleout_bandwidth_gbit_per_s * factor}
            ),
            seq,
            512,
        ),
    }
    for name, job in variants.items():
        assert np.all(step_breakdown(job, lay)["total"] <= t0 * (1 + 1e-12)), name
    older = step_breakdown(Job(shape, gpu, seq, 512, flash_attention=1), lay)["total"]
    assert np.all(older >= t0 * (1 - 1e-12))
    mem4 = memory_breakdown(base, lay)["total"]
    mem2 = memory_breakdown(variants["bf16 grads"], lay)["total"]
    assert np.all(mem2 <= mem4)

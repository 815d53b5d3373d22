"""The execution plan (Scenario.execution): how the training software runs the job, apart from the
workload and the hardware. Each knob moves the plan the way its physics says, old links without the
section still load, bad values name the field, and the CLI, the portal and the PDF carry it."""

import contextlib
import io
import json

import pytest
from pydantic import ValidationError

from app.cli import main
from models.scenario import Execution, Scenario, explain_validation_error
from models.training.plan import plan_training

BASE = {
    "workload": {"model": "llama3-70b", "tokens": 15e12},
    "cluster": {"gpu": "H100-SXM", "gpus": 1024},
}


def plan(**execution):
    return plan_training(Scenario.model_validate({**BASE, "execution": execution}))


def test_defaults_are_megatron_defaults_and_old_scenarios_still_load():
    assert Execution().model_dump() == {
        "software_stack": "megatron-core-tuned",
        "attention": "cudnn",  # Transformer Engine's kernel (constants.SOFTWARE_STACKS, step 12)
        "tp_comm_overlap": False,
        "gradient_precision": "fp32",
        "fp8_params": False,
    }
    old = Scenario.model_validate(BASE)  # a link or file made before the section existed
    assert old.execution == Execution()
    assert Execution().job_options() == {
        "stack": "megatron-core-tuned",
        "flash_attention": 4,
        "tp_comm_overlap": False,
        "grad_bytes": 4,
        "fp8_params": False,
    }


def test_tp_overlap_and_bf16_gradients_speed_up_a_tensor_parallel_plan():
    base, faster = plan(), plan(tp_comm_overlap=True, gradient_precision="bf16")
    assert base.layout.tp > 1  # the overlap has something to hide
    assert faster.step_time_s < base.step_time_s
    assert faster.train_days < base.train_days
    assert faster.execution == {
        "software_stack": "megatron-core-tuned",
        "attention": "cudnn",
        "tp_comm_overlap": True,
        "gradient_precision": "bf16",
        "fp8_params": False,
    }


def test_bf16_gradients_halve_gradient_memory_for_the_same_layout():
    from models.hardware import get_gpu
    from models.shapes import get_preset
    from models.training.job import Job
    from models.training.layouts import Layouts
    from models.training.memory import memory_breakdown

    lay = Layouts.single(64, tp=8, pp=1, dp=8, micro_batch=1)
    mem = {
        b: memory_breakdown(
            Job(get_preset("llama3-8b"), get_gpu("H100-SXM"), 8192, 64, grad_bytes=b), lay
        )
        for b in (4, 2)
    }
    assert float(mem[2]["gradients"][0]) == pytest.approx(float(mem[4]["gradients"][0]) / 2)


def test_older_attention_kernels_are_slower_at_long_sequences():
    times = {k: plan(attention=k).step_time_s for k in ("flash2", "flash1")}
    assert times["flash1"] > times["flash2"]


@pytest.mark.parametrize(
    "bad, field",
    [
        ({"attention": "flash9"}, "execution.attention"),
        ({"gradient_precision": "fp64"}, "execution.gradient_precision"),
        ({"tp_comm_overlap": "sometimes"}, "execution.tp_comm_overlap"),
        ({"pipeline": 3}, "execution.pipeline"),
    ],
)
def test_bad_values_name_the_field(bad, field):
    with pytest.raises(ValidationError) as exc:
        Scenario.model_validate({**BASE, "execution": bad})
    assert explain_validation_error(exc.value)[0][0] == field


def test_cli_flags_reach_the_plan():
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert (
            main(
                [
                    "train",
                    "--model",
                    "llama3-70b",
                    "--tokens",
                    "15T",
                    "--gpu",
                    "H100-SXM",
                    "--gpus",
                    "1024",
                    "--tp-comm-overlap",
                    "--grad-precision",
                    "bf16",
                    "--attention",
                    "flash1",
                    "--json",
                ]
            )
            == 0
        )
    data = json.loads(out.getvalue())
    assert data["execution"] == {
        "software_stack": "megatron-core-tuned",
        "attention": "flash1",
        "tp_comm_overlap": True,
        "gradient_precision": "bf16",
        "fp8_params": False,
    }
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert (
            main(
                [
                    "train",
                    "--model",
                    "llama3-70b",
                    "--tokens",
                    "15T",
                    "--gpu",
                    "H100-SXM",
                    "--gpus",
                    "1024",
                ]
            )
            == 0
        )
    assert (
        "tuned Megatron-Core / NeMo | attention cudnn | TP comm overlap off | gradients fp32"
        in out.getvalue()
    )


def test_the_fused_attention_kernel_is_named_as_the_gpu_runs_it():
    """Transformer Engine's fused attention ('cudnn') is cuDNN on NVIDIA and Composable Kernel on
    AMD: the text names CK on an AMD GPU, never cuDNN, and the kernel's rates are the same."""
    from app.report_text import attention_text, execution_text
    from models.hardware import get_gpu
    from models.training.job import AttentionKernel
    from models.training.step_time import attention_efficiency

    ex = Execution()
    assert ex.attention == "cudnn"
    assert "attention TE fused (CK)" in execution_text(ex, "MI300X")
    assert "cudnn" not in execution_text(ex, "MI300X")
    assert "attention cudnn" in execution_text(ex, "H100-SXM")
    assert attention_text("flash2", "MI300X") == "flash2"
    cdna = get_gpu("MI300X")
    assert attention_efficiency(cdna, AttentionKernel.CUDNN) == attention_efficiency(
        cdna, AttentionKernel.FLASH2
    )


def test_the_classic_stack_runs_tensor_parallelism_without_sequence_parallelism():
    """The 2021-22 Megatron forks ran TP (and PP) without sequence parallelism: the search offers the
    classic stack TP layouts, all with sequence parallelism off, and for GLM-130B on its 768
    A100-40GB it takes one (its source ran TP4 PP8). Until this was mended every TP layout came with
    sequence parallelism, the stack refused it, and the planner ran GLM-130B at TP1 PP48 with full
    recompute (19 % MFU)."""
    from models.hardware import get_gpu
    from models.shapes import get_preset
    from models.training.job import Job
    from models.training.search import all_layouts, best_layout, stack_allows

    job = Job(
        get_preset("glm-130b"),
        get_gpu("A100-40GB"),
        2048,
        4224,
        "bf16",
        stack="megatron-3d-classic",
    )
    lay = all_layouts(job, 768)
    allowed = stack_allows(job, lay)
    assert (lay.sequence_parallel == 0).all()
    assert (allowed & (lay.tp > 1)).any()
    assert best_layout(job, 768).layout["tp"] > 1
    tuned = Job(get_preset("glm-130b"), get_gpu("A100-40GB"), 2048, 4224, "bf16")
    tuned_lay = all_layouts(tuned, 768)
    assert (tuned_lay.sequence_parallel == (tuned_lay.tp > 1)).all()


def test_a_share_link_carries_the_execution_plan():
    from app import share_link

    scenario = Scenario.model_validate(
        {**BASE, "execution": {"attention": "flash1", "tp_comm_overlap": True}}
    )
    back = share_link.decode(share_link.encode(scenario))
    assert back.execution == scenario.execution
    assert back.execution.gradient_precision == "fp32"  # the default survives unchanged


def test_software_stack_changes_step_time_in_the_documented_direction():
    """For the same job and layout, the classic stack (no data-parallel overlap, FlashAttention-1)
    is slower than tuned Megatron-Core, by the data-parallel and attention time it no longer hides;
    the planner's layouts keep to what each stack runs (FSDP: data parallel only)."""
    from models.hardware import get_gpu
    from models.shapes import get_preset
    from models.training.job import AttentionKernel, Job
    from models.training.layouts import Layouts
    from models.training.search import best_layout
    from models.training.step_time import step_breakdown

    lay = Layouts.single(256, tp=1, pp=1, dp=64, micro_batch=1, zero=1)
    args = (get_preset("llama2-7b"), get_gpu("H100-SXM"), 4096, 256)
    tuned = step_breakdown(Job(*args, stack="megatron-core-tuned"), lay)
    classic = step_breakdown(Job(*args, stack="megatron-3d-classic"), lay)
    assert classic["data_parallel"][0] > tuned["data_parallel"][0]
    assert classic["total"][0] > tuned["total"][0]
    big = (get_preset("llama3-70b"), get_gpu("H100-SXM"), 8192, 512)
    assert best_layout(Job(*big, stack="megatron-core-tuned"), 64).layout["tp"] > 1
    fsdp = best_layout(Job(*big, stack="fsdp-zero"), 64).layout
    assert (fsdp["tp"], fsdp["pp"], fsdp["zero"]) == (1, 1, 3)
    assert Execution(software_stack="megatron-3d-classic").attention == "flash1"
    assert Execution(software_stack="megatron-3d-classic").job_options()["flash_attention"] == (
        AttentionKernel.FLASH1
    )
    # an explicit kernel wins over the stack's
    assert Execution(software_stack="megatron-3d-classic", attention="flash2").attention == "flash2"

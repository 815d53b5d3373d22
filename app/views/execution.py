"""The execution plan inputs (Scenario.execution: how the training software runs the job), shared by
the one-run Workload page and the portfolio, where they apply to every pre-training run."""

from __future__ import annotations

import streamlit as st
from pydantic import ValidationError

from app import schema_widgets as sw
from app import state
from models.scenario import Execution
from models.validation.stacks import load_stacks

ATTENTION_LABELS = {
    "cudnn": "Transformer Engine fused (cuDNN on NVIDIA, Composable Kernel on AMD)",
    "flash3": "FlashAttention-3 (Hopper only)",
    "flash2": "FlashAttention-2",
    "flash1": "FlashAttention-1 / xformers / Triton",
    "none": "none (scores stored)",
}


def effective() -> Execution:
    """The execution plan in force: the scenario's fields over the schema's defaults, the stack's
    attention kernel where none is given (Execution._stack_kernel); the defaults while a field
    holds a value the schema refuses (Sizing names it)."""
    try:
        return Execution.model_validate(state.get("execution") or {})
    except ValidationError:
        return Execution()


def _stack_changed() -> None:
    """A new stack brings its own attention kernel: an attention chosen before is dropped."""
    state.put("execution.software_stack", st.session_state["w_stack"])
    state.put("execution.attention", None)
    st.session_state.pop("w_attention", None)  # the kernel box starts again from the stack's


def execution_inputs(*, fp8_ok: bool, fp8_needs: str) -> None:
    """The stack, attention kernel, TP overlap, gradient precision and FP8 weights. `fp8_ok`: the
    workload trains in FP8 (Scenario's rule for `execution.fp8_params`); `fp8_needs` says what it
    needs when not."""
    stacks = load_stacks()
    plan = effective()
    with st.expander(f"Execution plan (training software): {stacks[plan.software_stack].name}"):
        st.selectbox(
            "Software stack",
            list(stacks),
            index=list(stacks).index(plan.software_stack),
            format_func=lambda s: stacks[s].name + (" (default)" if stacks[s].default else ""),
            key="w_stack",
            on_change=_stack_changed,
            help="What the training software does differently: kernels, overlap of communication "
            "with computation, memory behaviour, the parallel layouts it offers "
            "(docs/reference/software-stacks.md). The default is tuned Megatron-Core / NeMo run "
            "from NVIDIA's published recipes: what a competent team gets today, not a record run. "
            + " ".join(f"{v.name}: {v.what_it_covers}." for v in stacks.values())
            + " A new stack brings its own attention kernel.",
        )
        # the attention kernel's labels are the longest: a row of their own, so none is cut off
        c1, c2, c3 = st.container(), *st.columns(2)
        c1.selectbox(
            "Attention kernel",
            list(ATTENTION_LABELS),
            index=list(ATTENTION_LABELS).index(plan.attention),
            format_func=ATTENTION_LABELS.get,
            key="w_attention",
            on_change=state.bind("execution.attention", "w_attention"),
            help="FlashAttention-1-class kernels (2022–23) run attention at about half the speed of "
            "FlashAttention-2 (Dao 2023); without a fused kernel the s×s scores are stored. On "
            "Hopper FlashAttention-2 reaches about 35 % of peak, cuDNN and FlashAttention-3 "
            "1.6–1.8× more (Shah et al. 2024); Transformer Engine runs cuDNN on Hopper and later, "
            "FlashAttention-2 on Ampere. Until one is chosen, the stack's own kernel.",
        )
        c2.toggle(
            "Overlap TP communication",
            value=plan.tp_comm_overlap,
            key="w_tp_overlap",
            on_change=state.bind("execution.tp_comm_overlap", "w_tp_overlap"),
            help="Tensor-parallel collectives pipelined with their GEMMs (Transformer Engine "
            "userbuffers, NeMo ub_tp_comm_overlap). Off by default in Megatron-LM.",
        )
        c3.selectbox(
            "Gradients",
            ["fp32", "bf16"],
            index=["fp32", "bf16"].index(plan.gradient_precision),
            key="w_grads",
            format_func=str.upper,
            on_change=state.bind("execution.gradient_precision", "w_grads"),
            help="Gradients kept and reduced in FP32 (Megatron's default for BF16 training: 4 bytes "
            "per parameter) or BF16 (2 bytes, half the data-parallel traffic).",
        )
        # FP8 weights need FP8 training (Scenario's rule): off and out of reach without it; once
        # on, it stays on and can be turned off, and Sizing names the conflict until one changes
        on = bool(sw.current("execution.fp8_params"))
        st.toggle(
            "Hold weights in FP8",
            value=on,
            key="w_fp8_params",
            disabled=not fp8_ok and not on,
            on_change=state.bind("execution.fp8_params", "w_fp8_params"),
            help="Weights held and all-gathered in FP8 (1 byte) instead of BF16 plus an FP8 copy "
            "(3 bytes); the FP32 master weights stay in the optimizer and the embedding stays "
            "BF16. Transformer Engine quantized_model_init (fp8_model_init), Megatron-Core "
            "fp8_param_gather; NVIDIA's MLPerf configs set FP8_PARAMS=True."
            + ("" if fp8_ok else f" Needs {fp8_needs}."),
        )

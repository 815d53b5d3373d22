"""Fine-tune: size a full, LoRA or QLoRA fine-tune (models/finetune/plan.py): the method, the dataset and
the GPU in; trainable parameters, memory per GPU by part, step time, throughput, wall-clock,
GPU-hours and the fewest GPUs that fit out.

The inputs are a FinetuneInputs kept as a dict in st.session_state["finetune_inputs"]
(app/record_widgets.py), apart from the training scenario; the share link carries them as its
`finetune` section (app/state.py register_section), so a link made here opens this page with the
same inputs.

The page's layout, its model and GPU pickers and its error display are app/views/forms.py's,
shared with Serve."""

from __future__ import annotations

import streamlit as st

from app import serving_cost, state
from app.charts.memory import finetune_memory
from app.formatting import finetune_assumptions_text, finetune_rule_text, gib, md_plain, si
from app.record_widgets import Form
from app.views import forms
from models.errors import InputError
from models.finetune import savings
from models.finetune.plan import FinetuneInputs, FinetunePlan, plan_finetune
from models.portfolio.workloads import Finetune
from models.scenario import field_bounds
from pricing.finetune_economics import DEFAULT_JOBS_PER_MONTH, FinetuneEconomics, economics

KEY = "finetune_inputs"
#: a new session's inputs where FinetuneInputs has no default: LoRA of an 8B model on 100 M tokens
STARTING = {"model": "llama3-8b", "method": "lora", "gpu": "H100-SXM", "tokens": 1e8}
FORM = Form(FinetuneInputs, KEY, STARTING)
#: the jobs a month the cost per job may be priced at (a portfolio fine-tune's bounds)
JOBS_PER_MONTH = (
    float(field_bounds(Finetune, "jobs_per_month")["ge"]),
    float(field_bounds(Finetune, "jobs_per_month")["le"]),
)
METHODS = {
    "full": "full (all parameters)",
    "lora": "LoRA (adapters, BF16 base)",
    "qlora": "QLoRA (adapters, 4-bit base)",
}


@st.cache_data(max_entries=256, show_spinner=False)
def _plan(inputs_json: str) -> tuple[dict | None, tuple[str, str] | None]:
    try:
        plan = plan_finetune(FinetuneInputs.model_validate_json(inputs_json))
    except InputError as exc:
        return None, (exc.field, str(exc))
    return plan.model_dump(mode="json"), None


@st.cache_data(max_entries=64, show_spinner=False)
def _economics(inputs_json: str, plan_json: str, term: int, jobs: float) -> tuple[dict | None, str]:
    """(the job's cost on every option, "") or (None, why not): two portfolio comparisons,
    cached by the inputs, the plan, the term and the jobs a month."""
    inp = FinetuneInputs.model_validate_json(inputs_json)
    plan = FinetunePlan.model_validate_json(plan_json)
    try:
        e = economics(inp, plan, term_months=term, jobs_per_month=jobs)
    except InputError as exc:
        return None, str(exc)
    return e.model_dump(mode="json"), ""


def plan_for(inp: FinetuneInputs) -> tuple[FinetunePlan | None, tuple[str, str] | None]:
    plan, err = _plan(forms.cache_key(inp))
    return (FinetunePlan.model_validate(plan) if plan else None), err


def link_section() -> FinetuneInputs | None:
    """The inputs as the share link carries them: None if this session never opened the page or
    they are invalid now."""
    return forms.link_record(FORM)


def open_link_section(fields: dict) -> None:
    """A link's finetune section as this page's inputs; the record's defaults for what it leaves out."""
    st.session_state[KEY] = dict(fields)


state.register_section("finetune", link_section, open_link_section)


def inputs() -> None:
    _model_and_method()
    _data_inputs()
    _hardware_inputs()
    _saving_inputs()


def _model_and_method() -> None:
    """The model, the method (full, LoRA, QLoRA) and the adapters' rank."""
    st.subheader("Model and method")
    c1, c2, c3 = st.columns(3)
    forms.model_choice(
        FORM,
        c1,
        "f_model",
        help="Published shapes (model_presets.csv, each with its paper or model card).",
    )
    FORM.choice(
        c2,
        "Method",
        "method",
        "f_method",
        format_func=lambda m: METHODS.get(m, m),
        help="Full: every weight trained (Adam states for all). LoRA: small adapters beside a "
        "frozen base (Hu et al. 2021). QLoRA: the same over a 4-bit NF4 base (Dettmers et al. 2023).",
    )
    if FORM.current("method") == "full":
        c3.caption("Full fine-tuning trains every weight: no adapter rank.")
    else:
        FORM.number(
            c3,
            "LoRA rank",
            "lora_rank",
            "f_rank",
            step=8,
            help="Width r of each adapter (it adds r × (inputs + outputs) parameters per matrix); "
            "8 to 64 is usual.",
        )
    forms.own_model(FORM, "f", "f_model")


def _data_inputs() -> None:
    """The dataset's tokens, the epochs and the sequence length."""
    st.subheader("Data")
    c1, c2, c3 = st.columns(3)
    FORM.number(
        c1,
        "Dataset tokens (millions)",
        "tokens",
        "f_tokens",
        step=10.0,
        scale=1e6,
        unit="million",
        help="Tokens in one pass over the dataset: examples × tokens per example.",
    )
    FORM.number(c2, "Epochs", "epochs", "f_epochs", step=1.0, help="Passes over the dataset.")
    FORM.number(
        c3,
        "Sequence length",
        "seq_len",
        "f_seq",
        step=1024,
        help="Tokens per training sequence (examples packed to it).",
    )


def _hardware_inputs() -> None:
    """The GPU, the precision, the batch and a fixed GPU count."""
    st.subheader("Hardware")
    c1, c2 = st.columns(2)
    forms.gpu_choice(FORM, c1, "f_gpu")
    FORM.choice(
        c2,
        "Precision",
        "precision",
        "f_precision",
        format_func=str.upper,
        help="Matrix multiplies (and a LoRA base held in FP8); FP8 needs H100 or newer, "
        "QLoRA computes in BF16.",
    )
    c3, c4 = st.columns(2)
    FORM.number(
        c3,
        "Batch (sequences)",
        "global_batch_seqs",
        "f_batch",
        step=8,
        help="Sequences per optimizer step.",
    )
    FORM.optional(
        c4,
        "GPUs",
        "gpus",
        "f_gpus",
        placeholder="the fewest that fit",
        help="Fix the GPU count.",
    )


FRAMEWORKS = {
    "fsdp": "FSDP / DeepSpeed (Hugging Face, TRL, Axolotl, torchtune)",
    "megatron": "NeMo / Megatron-Core",
}
SAVING_STATES = {None: "planner decides", True: "on", False: "off"}


def _saving_inputs() -> None:
    """The framework and the memory savings (each: the planner decides, on or off)."""
    st.subheader("Framework and memory savings")
    c1, c2 = st.columns(2)
    FORM.choice(
        c1,
        "Framework",
        "framework",
        "f_framework",
        format_func=lambda f: FRAMEWORKS.get(f, f),
        help="FSDP / DeepSpeed: data parallelism with sharded weights and eager (unfused) LoRA "
        "layers; tensor parallelism within a node (FSDP2 + TP) only where data parallelism alone "
        "does not fit. NeMo / Megatron-Core: tensor, pipeline and context parallelism with fused "
        "kernels.",
    )
    cols = st.columns(3)
    for n, name in enumerate(savings.SAVINGS):
        FORM.choice(
            cols[n % 3],
            savings.LABELS[name].capitalize(),
            name,
            f"f_{name}",
            choices=list(SAVING_STATES),
            format_func=lambda v: SAVING_STATES.get(v, str(v)),
            help=SAVING_HELP[name],
        )
    FORM.choice(
        cols[len(savings.SAVINGS) % 3],
        "FP8-only weights",
        "fp8_params",
        "f_fp8_params",
        choices=[False, True],
        format_func=lambda v: "on" if v else "off",
        help="Weights held in FP8 only, no BF16 copy (NeMo fp8_params, Transformer Engine "
        "fp8_model_init): 1 instead of 3 bytes per weight in FP8 training; with pure BF16 NeMo "
        "keeps a BF16 copy in the optimizer (2 bytes). NeMo / Megatron-Core with FP8 only.",
    )
    FORM.choice(
        cols[(len(savings.SAVINGS) + 1) % 3],
        "BF16 gradient buffers",
        "bf16_grads",
        "f_bf16_grads",
        choices=[False, True],
        format_func=lambda v: "on" if v else "off",
        help="Gradients accumulated and reduced in BF16, 2 instead of 4 bytes per trained "
        "parameter held and synced, the FP32 master weights and Adam states kept (Megatron-Core "
        "grad_reduce_in_fp32 False). NeMo / Megatron-Core only; your choice, never the planner's: "
        "small gradient contributions can round away.",
    )


SAVING_HELP = {
    "optimizer_offload": "Optimizer states and the optimizer step on the CPU (DeepSpeed "
    "ZeRO-Offload, FSDP CPU offload): costs the gradient and weight copies over the host link and "
    "the CPU's step every optimizer step.",
    "param_offload": "Weights on the CPU too, copied up for every forward and backward (ZeRO-3 "
    "offload, FSDP CPU offload); needs optimizer offload and a fully sharded layout.",
    "optimizer_8bit": "Adam's two states in 8 bits (bitsandbytes): 6 instead of 12 bytes per "
    "trained parameter, a slightly faster step.",
    "paged_optimizer": "Optimizer states the GPU cannot hold paged to the CPU and back each step "
    "(bitsandbytes paged optimizers).",
    "activation_offload": "Activations kept on the CPU between forward and backward; costs the "
    "copies compute does not hide.",
    "pure_bf16": "Weights, gradients and Adam's states in BF16 with no FP32 master copy (torchtune's "
    "dtype bf16; NeMo's distributed Adam with dtype bf16): 8 instead of 18 bytes per trained "
    "parameter and a faster step. Small updates can be lost without Kahan summation or "
    "stochastic rounding.",
}


def _savings_caption(p: FinetunePlan) -> str:
    """Which savings the plan uses, who chose them and what each costs per step."""
    on = [k for k, v in p.savings.items() if v]
    grads = f" Note: {savings.BF16_GRADS_CAVEAT}." if p.bf16_grads else ""
    if not on:
        return (
            f"**Memory savings:** none needed on {p.gpus:,} GPUs (with savings, as few as "
            f"{p.min_gpus_with_savings:,} fit).{grads}"
        )
    costs = ", ".join(
        f"{savings.LABELS[k]} ({p.savings_step_s.get(k, 0.0):+,.2f} s per step)" for k in on
    )
    who = "chosen by the planner to fit" if p.savings_chosen_by == "planner" else "as you set"
    caveat = f" Note: {savings.PURE_BF16_CAVEAT}." if p.savings.get("pure_bf16") else ""
    if p.bf16_grads:
        caveat += f" Note: {savings.BF16_GRADS_CAVEAT}."
    return (
        f"**Memory savings:** {costs}; {who}. {gib(p.host_memory_gib_per_gpu)} of CPU memory per "
        f"GPU; without savings the fewest GPUs that fit is {p.min_gpus:,}.{caveat}"
    )


def results(p: FinetunePlan, inp: FinetuneInputs) -> None:
    lay = p.layout
    forms.own_model_caption(inp.model)
    c1, c2 = st.columns(2)
    c1.metric(
        "Trainable params",
        si(p.trainable_params),
        help=f"Weights the fine-tune changes, of {si(p.params_total)} in the model; only these "
        "carry gradients and optimizer states.",
    )
    c2.metric(
        "Fewest GPUs that fit",
        f"{p.min_gpus:,}",
        help="The smallest count (1, 2, 4, then whole nodes) with a layout whose memory fits.",
    )
    c1.metric(
        "GPUs",
        f"{p.gpus:,}",
        help=f"GPUs this plan uses ({p.sizing}), on {p.nodes:,} node(s).",
    )
    c2.metric(
        "Memory per GPU",
        gib(p.memory_gib_per_gpu["total"]),
        help=f"Everything one GPU holds, of its {gib(p.memory_capacity_gib)}; parts in the chart.",
    )
    c1.metric(
        "Step time",
        f"{p.step_time_s:,.2f} s",
        help=f"One optimizer step over {lay.global_batch_seqs:,} sequences.",
    )
    c2.metric(
        "Tokens/s",
        f"{p.tokens_per_s:,.0f}",
        help=f"Training tokens processed per second by all GPUs ({p.tokens_per_s_per_gpu:,.0f} "
        "per GPU).",
    )
    c1.metric(
        "Wall-clock",
        f"{p.train_hours:,.2f} h",
        help=f"Hours from start to end for {si(p.dataset_tokens * p.epochs)} tokens in "
        f"{p.steps:,} steps, without failures or restarts.",
    )
    c2.metric(
        "GPU-hours",
        f"{p.gpu_hours:,.1f}",
        help="Wall-clock hours × GPUs: what a cloud bills.",
    )
    st.markdown(
        f"**Layout:** {FRAMEWORKS.get(p.framework, p.framework)} · TP {lay.tp} · PP {lay.pp} · "
        f"DP {lay.dp} · ZeRO-{lay.zero} · recompute {lay.recompute} · micro-batch "
        f"{lay.micro_batch} × {lay.microbatches} · {finetune_assumptions_text(p)}"
    )
    st.markdown(_savings_caption(p))
    st.caption(
        f"Rule of thumb: {md_plain(finetune_rule_text(p))}. "
        f"Activations {p.activations_gib_no_recompute:,.1f} GiB without recompute, "
        f"{p.activations_gib_full_recompute:,.1f} GiB with full; {p.layouts_evaluated:,} layouts "
        "searched."
    )


def _cost_per_job(plan: FinetunePlan, inp: FinetuneInputs) -> None:
    """Each option's cost per job at a number of jobs a month over a term the user picks."""
    st.subheader("Cost per job")
    c1, c2 = st.columns(2)
    jobs = c1.number_input(
        "Jobs per month",
        min_value=JOBS_PER_MONTH[0],
        max_value=JOBS_PER_MONTH[1],
        value=DEFAULT_JOBS_PER_MONTH,
        key="f_jobs_per_month",
        help="how often the job runs: an owned or rented cluster is paid for between jobs",
    )
    term = forms.term_input("f_term_months", c2)
    with st.spinner("Pricing every option for this job..."):
        data, why = _economics(forms.cache_key(inp), plan.model_dump_json(), term, float(jobs))
    e = FinetuneEconomics.model_validate(data) if data else None
    forms.priced_table(
        data,
        why,
        serving_cost.job_rows(e) if e else None,
        [serving_cost.job_caption(e), *serving_cost.notes(e)] if e else [],
    )


def render() -> None:
    forms.sizing_page(
        "Fine-tune",
        "Size a fine-tune (full, LoRA or QLoRA): the memory it needs, how long it takes and the "
        "fewest GPUs that hold it. These inputs are kept separately from the training scenario.",
        inputs=inputs,
        record=FORM.record,
        heading="Sizing",
        spinner="Sizing the fine-tune...",
        size=plan_for,
        results=results,
        chart=_chart,
        chart_key="chart_finetune_memory",
        below=_cost_per_job,
    )


def _chart(plan: FinetunePlan, _inp: FinetuneInputs, dark: bool):
    """Memory per GPU by part."""
    return finetune_memory(plan.model_dump(mode="json"), dark)

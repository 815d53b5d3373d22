"""The inputs of the selected portfolio workload that its table has no column for: sequence length
and precision of a training run, epochs, batch and adapter rank of a fine-tune, prompt and output
lengths, latency objectives and the prefill/decode choice of a service.

Each box edits the workload's dict in the scenario (app/state.py) through app/record_widgets.py
`Form`, so bounds, choices, defaults and the "Allowed: ..." help come from the workload's record
(models/portfolio/workloads.py WORKLOAD_KINDS) and what the user typed stays in the scenario, valid or not:
the page names `workloads[i].field` and its range, as it does for a cell of the table.
"""

from __future__ import annotations

import streamlit as st

from app import state
from app.record_widgets import Form
from app.views.serve import PRECISIONS, PREFILL_DECODE
from models.finetune import savings
from models.hardware import gpus_with
from models.portfolio.workloads import WORKLOAD_KINDS
from models.serving.engines import ENGINES
from models.serving.precision import DEFAULT_PRECISION_TEXT

#: the inputs shown here: field -> (label, help, step of its number box)
DETAILS: dict[str, tuple[str, str, float]] = {
    "precision": (
        "Precision",
        "Number format of the weights and matrix multiplies. FP8 needs a GPU that has it "
        f"(not {', '.join(gpus_with('fp8', has=False))}); FP4 serving runs on the FP4 tensor "
        f"cores of {', '.join(gpus_with('fp4'))}, elsewhere as FP4 weights with BF16 arithmetic "
        "(weight-only) where the engine serves it (Hopper; vLLM also A100 and MI300X/MI325X); "
        "INT4 serving is weight-only (AWQ, GPTQ) on NVIDIA Ampere and later (every engine) and "
        "on MI300X/MI325X with SGLang. "
        "A service left at its default is sized "
        f"at {DEFAULT_PRECISION_TEXT} (the cluster's GPU), as the Serve page and `clusterplan "
        "serve` size it.",
        0,
    ),
    "seq_len": ("Sequence length (tokens)", "Tokens in each training sequence.", 1024),
    "epochs": ("Epochs", "Passes over the dataset in each job.", 1),
    "global_batch_seqs": (
        "Global batch (sequences)",
        "Sequences in one optimizer step, over all the job's GPUs.",
        8,
    ),
    "lora_rank": ("LoRA rank", "Rank of the adapter matrices.", 8),
    "input_tokens": ("Prompt tokens per request", "Mean prompt length.", 256),
    "output_tokens": ("Output tokens per request", "Mean answer length.", 64),
    "ttft_ms": (
        "Time to first token (ms)",
        "Longest acceptable wait before the answer starts, at the percentile below.",
        0,
    ),
    "slo_percentile": (
        "TTFT percentile",
        "The share of requests the time-to-first-token objective holds for; above p50 the wait "
        "for a free batch slot counts, so a tighter percentile can need more GPUs.",
        0,
    ),
    "tpot_ms": (
        "Time per output token (ms)",
        "Longest acceptable gap between streamed tokens (50 ms is 20 tokens/s).",
        0,
    ),
    "engine": (
        "Serving engine",
        "The software that serves the model: TensorRT-LLM (the model's calibration), vLLM or "
        "SGLang, whose decode steps take a measured factor longer (models/serving/engines.py). On "
        "an AMD cluster a service left at the default runs vLLM's ROCm build; TensorRT-LLM chosen "
        "there is refused (it does not run on AMD GPUs).",
        0,
    ),
    "engine_version": (
        "Engine version",
        "The engine's release, e.g. 0.7.3: a release that was not measured uses the nearest "
        "measured release's costs (models/serving/builds.py), and the report says so.",
        0,
    ),
    "framework": (
        "Fine-tuning framework",
        "FSDP / DeepSpeed (Hugging Face, TRL, Axolotl, torchtune): data parallelism with sharded "
        "weights and eager LoRA layers; NeMo / Megatron-Core: tensor, pipeline and context "
        "parallelism with fused kernels (docs/sizing.md).",
        0,
    ),
    **{
        name: (
            savings.LABELS[name].capitalize(),
            "A memory saving of each job: the planner turns it on only when the job does not fit "
            "its GPUs without it, or set it on or off; the Fine-tune page shows what it costs in "
            "time.",
            0,
        )
        for name in savings.SAVINGS
    },
    "fp8_params": (
        "FP8-only weights",
        "Each job holds its weights in FP8 only, with no BF16 copy (NeMo fp8_params): NeMo / "
        "Megatron-Core with FP8 precision only.",
        0,
    ),
    "bf16_grads": (
        "BF16 gradient buffers",
        "Each job accumulates and reduces its gradients in BF16, 2 instead of 4 bytes each, with "
        "the FP32 optimizer kept (Megatron-Core grad_reduce_in_fp32 False): NeMo / Megatron-Core "
        "only; never chosen by the planner.",
        0,
    ),
    "prefill_decode": (
        "Prefill and decode",
        "Colocated: every replica reads prompts and generates. Split: one pool reads prompts and "
        "hands each prompt's K/V cache to a pool that only generates. Automatic splits only where "
        "that needs fewer GPUs. The Serve page explains the model.",
        0,
    ),
}
#: how a choice reads, by field
CHOICE_LABELS = {
    "precision": PRECISIONS,
    "slo_percentile": {p: f"p{p}" for p in (50, 90, 99)},
    "prefill_decode": PREFILL_DECODE,
    "engine": {e.id: e.label for e in ENGINES.values()},
    "framework": {"fsdp": "FSDP / DeepSpeed", "megatron": "NeMo / Megatron-Core"},
    **{name: {None: "planner decides", True: "on", False: "off"} for name in savings.SAVINGS},
    "fp8_params": {False: "off", True: "on"},
    "bf16_grads": {False: "off", True: "on"},
}
#: choices of a field that is not a Literal (the savings: None, True, False)
CHOICES = {name: [None, True, False] for name in savings.SAVINGS} | {
    "fp8_params": [False, True],
    "bf16_grads": [False, True],
}
#: inputs that apply only to some rows of their kind: field -> does it apply to this row
APPLIES = {
    "lora_rank": lambda row: row.get("method", "lora") != "full",
}
#: what an empty optional box means, by field
EMPTY = {"ttft_ms": "no objective", "tpot_ms": "no objective"}
COLUMNS_PER_ROW = 2
#: text inputs, and what an empty box means
TEXT = {"engine_version": "the newest measured"}


def _text_box(form: Form, where, label: str, name: str, key: str, help_: str) -> None:
    """A free-text field (the engine's version): empty leaves it out; the record checks it."""

    def store():
        form.put(name, st.session_state[key].strip() or None)

    where.text_input(
        label,
        value=form.get(name) or "",
        placeholder=TEXT[name],
        key=key,
        on_change=store,
        help=f"{help_} Empty: {TEXT[name]}.",
    )


class WorkloadForm(Form):
    """Form over workload i of the scenario's portfolio: reads and writes its dict in place."""

    def __init__(self, i: int, kind: str):
        super().__init__(WORKLOAD_KINDS[kind], key="", starting={})
        self.i = i

    def data(self) -> dict:
        return state.get("workloads")[self.i]

    def put(self, name: str, value) -> None:
        super().put(name, value)
        # the list put back as it is: state.put forgets a share link that no longer matches
        state.put("workloads", state.get("workloads"))


def detail_fields(row: dict) -> list[str]:
    """The fields of the row's kind that this panel shows for it, in DETAILS order."""
    model = WORKLOAD_KINDS.get(row.get("kind"))
    if model is None:
        return []
    return [f for f in DETAILS if f in model.model_fields and APPLIES.get(f, lambda _: True)(row)]


def render(i: int, generation: int) -> None:
    """The boxes of workload i; their keys carry the table's generation, so a new scenario or a
    table edit draws them afresh from the scenario."""
    row = state.get("workloads")[i]
    fields = detail_fields(row)
    if not fields:
        return
    form = WorkloadForm(i, row["kind"])
    with st.expander(f"More inputs of {row.get('name', 'this workload')}", expanded=True):
        cols = st.columns(COLUMNS_PER_ROW)
        for n, name in enumerate(fields):
            where = cols[n % COLUMNS_PER_ROW]
            label, help_, step = DETAILS[name]
            key = f"p_detail_{generation}_{i}_{name}"
            if name in CHOICE_LABELS:
                labels = CHOICE_LABELS[name]
                form.choice(
                    where,
                    label,
                    name,
                    key,
                    help=help_,
                    choices=CHOICES.get(name),
                    format_func=lambda v, m=labels: m.get(v, v),
                )
            elif name in TEXT:
                _text_box(form, where, label, name, key, help_)
            elif name in EMPTY:
                form.optional(where, label, name, key, help=help_, placeholder=EMPTY[name])
            else:
                form.number(where, label, name, key, step=step, help=help_)

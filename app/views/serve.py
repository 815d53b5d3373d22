"""Serve: size an inference deployment (models/serving/plan.py): the traffic, the request sizes and the
latency objectives in; the layout, memory, latency, throughput and GPUs out, with a chart of
throughput and latency against concurrency.

The inputs are a ServeInputs kept as a dict in st.session_state["serve_inputs"] (app/record_widgets.py),
apart from the training scenario; the share link carries them as its `serve` section (app/state.py
register_section), so a link made here opens this page with the same inputs.

The page's layout, its model and GPU pickers and its error display are app/views/forms.py's,
shared with Fine-tune."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from app import serving_cost, state
from app.charts.serve import serve_curve
from app.formatting import (
    deployment_text,
    groups_of,
    layout_text,
    md_plain,
    prefill_decode_text,
    rule_of_thumb_text,
    sentence,
    waiting_text,
)
from app.record_widgets import Form
from app.views import forms
from models.errors import InputError
from models.hardware import gpus_with, load_gpus
from models.serving import builds
from models.serving.engines import ENGINES
from models.serving.plan import ServeInputs, ServePlan, plan_serving, sweep
from models.serving.precision import DEFAULT_PRECISION_TEXT, default_precision
from models.shapes import get_preset
from pricing.serving_economics import (
    GpuChoice,
    ServingEconomics,
    compare_gpus,
    economics,
)

KEY = "serve_inputs"
#: which traffic field the page uses (the other is kept, for switching back, but left out); kept
#: apart from the radio's own key, which Streamlit drops while another page is shown
TRAFFIC_KEY = "serve_traffic"
TRAFFIC = {
    "rps": "requests per second",
    "users": "concurrent users",
    "tokens_per_day": "tokens per day",
}
#: a new session's inputs where ServeInputs has no default: a 70B chat service on H100s (the
#: precision is the record's default, the GPU's: models/serving/precision.py, as the command line)
STARTING = {
    "model": "llama3-70b",
    "gpu": "H100-SXM",
    "input_tokens": 2048,
    "output_tokens": 256,
    "rps": 10.0,
    "users": 64,
    "tokens_per_day": 2e9,
    "ttft_ms": 2000,
    "tpot_ms": 50,
}
FORM = Form(ServeInputs, KEY, STARTING)
#: how the weights' precisions read; None is the record's default, the GPU's (precision_label)
PRECISIONS = {
    None: "Default: FP8 where the GPU has it, else BF16",
    "bf16": "BF16",
    "fp8": "FP8",
    "fp4": f"FP4 ({', '.join(gpus_with('fp4'))}; weight-only elsewhere)",
    "int4": "INT4 (weight-only: AWQ, GPTQ)",
}
PREFILL_DECODE = {
    "auto": "automatic (split if it saves GPUs)",
    "colocated": "colocated",
    "split": "split into two pools",
}


@st.cache_data(max_entries=256, show_spinner=False)
def _plan(inputs_json: str) -> tuple[dict | None, dict | None, tuple[str, str] | None]:
    """(plan, throughput and latency against batch for its layout, None) or (None, None, (field,
    message)); cached by the inputs' JSON."""
    inp = ServeInputs.model_validate_json(inputs_json)
    try:
        plan = plan_serving(inp)
    except InputError as exc:
        return None, None, (exc.field, str(exc))
    return (
        plan.model_dump(mode="json"),
        sweep(inp, plan.tp, plan.ep, plan.prefill_decode, plan.attention_dp, plan.pp or 1),
        None,
    )


@st.cache_data(max_entries=64, show_spinner=False)
def _economics(inputs_json: str, plan_json: str, term_months: int) -> tuple[dict | None, str]:
    """(the service's cost per million tokens on every option, "") or (None, why not): two
    portfolio comparisons, cached by the inputs, the plan and the term."""
    inp = ServeInputs.model_validate_json(inputs_json)
    try:
        e = economics(inp, ServePlan.model_validate_json(plan_json), term_months=term_months)
    except InputError as exc:
        return None, str(exc)
    if e is None:
        return None, "give a traffic (requests per second, users or tokens per day) to price it"
    return e.model_dump(mode="json"), ""


@st.cache_data(max_entries=32, show_spinner=False)
def _gpu_choices(inputs_json: str, term_months: int) -> list[dict]:
    """The service on every GPU of the catalogue (serving_economics.compare_gpus), cached."""
    inp = ServeInputs.model_validate_json(inputs_json)
    choices = compare_gpus(inp, list(load_gpus()), term_months=term_months)
    return [c.model_dump(mode="json") for c in choices]


def plan_for(inp: ServeInputs) -> tuple[ServePlan | None, dict | None, tuple[str, str] | None]:
    plan, curve, err = _plan(forms.cache_key(inp))
    return (ServePlan.model_validate(plan) if plan else None), curve, err


def traffic() -> str:
    """'rps', 'users' or 'tokens_per_day': the traffic field the page uses."""
    return st.session_state.get(TRAFFIC_KEY, "rps")


def _store_traffic() -> None:
    st.session_state[TRAFFIC_KEY] = st.session_state["s_traffic"]


def link_section() -> ServeInputs | None:
    """The inputs as the share link carries them: None if this session never opened the page or
    they are invalid now."""
    return forms.link_record(FORM, leave_out=[t for t in TRAFFIC if t != traffic()])


def open_link_section(fields: dict) -> None:
    """A link's serve section as this page's inputs: its traffic field chosen (the page's starting
    values of the other two kept for switching), the record's defaults for what it leaves out."""
    given = [t for t in TRAFFIC if t in fields]
    others = {t: STARTING[t] for t in TRAFFIC if t not in fields} if given else {}
    st.session_state[KEY] = others | fields
    st.session_state[TRAFFIC_KEY] = given[0] if given else "rps"


state.register_section("serve", link_section, open_link_section)


def inputs() -> None:
    _model_and_gpu()
    _traffic_inputs()
    _objectives()


def _model_and_gpu() -> None:
    """The model, the GPU, the serving engine, the precision of the weights and of the KV cache."""
    st.subheader("Model and GPU")
    c1, c2, c3 = st.columns(3)
    forms.model_choice(
        FORM,
        c1,
        "s_model",
        help="Published shapes (model_presets.csv, each with its paper or model card); "
        "mixture-of-experts models read only the experts a batch touches.",
    )
    forms.gpu_choice(FORM, c2, "s_gpu")
    gpu = FORM.current("gpu")
    FORM.choice(
        c3,
        "Precision",
        "precision",
        "s_precision",
        choices=list(PRECISIONS),
        format_func=lambda p: precision_label(p, gpu),
        help=f"Weights and matrix multiplies. Default: {DEFAULT_PRECISION_TEXT}, as the "
        "command line's `clusterplan serve`. FP8 needs FP8 tensor cores (not A100). FP4 runs "
        "on Blackwell's FP4 tensor cores; elsewhere as FP4 weights with BF16 arithmetic "
        "(weight-only) where the engine serves it: vLLM on Hopper, A100 and MI300X/MI325X, "
        "SGLang and TensorRT-LLM on Hopper. INT4 is weight-only on every GPU (AWQ, GPTQ, "
        "Kimi's native INT4; 4.5 bits per weight): every engine on A100, L40S, Hopper and "
        "Blackwell, SGLang on MI300X/MI325X. The KV cache's precision is chosen below.",
    )

    c1, c2, c3 = st.columns(3)  # under the model, the GPU and the precision of the weights
    _engine_inputs(c1, c2, gpu)
    FORM.choice(
        c3,
        "KV cache",
        "kv_precision",
        "s_kv",
        choices=[None, "bf16", "fp8"],
        format_func=lambda p: "as the weights" if p is None else p.upper(),
        help="Precision of the attention keys and values kept for every request in flight; "
        "'as the weights' is FP8 with FP8 or FP4 weights (BF16 with weight-only FP4 or INT4), else "
        "BF16. FP8 halves the memory.",
    )
    forms.own_model(FORM, "s", "s_model")


def engine_label(e: str | None, gpu: str) -> str:
    """How an engine reads in the picker: its build on the GPU (ROCm on AMD); None, the default."""
    if e is None:
        return f"Default: {engine_label(builds.default_engine(gpu), gpu)}"
    rocm = gpu in load_gpus() and builds.is_amd(gpu)
    return ENGINES[e].label + (" (ROCm)" if rocm else "")


def _engine_inputs(c1, c2, gpu: str) -> None:
    """The serving engine (the builds that run on the GPU) and its release. A choice the GPU
    cannot run (TensorRT-LLM kept from an NVIDIA GPU) stays shown, and the record names it."""
    allowed = builds.AMD_ENGINES if gpu in load_gpus() and builds.is_amd(gpu) else tuple(ENGINES)
    choices = [None, *allowed]
    value = FORM.get("engine")
    if value not in choices:
        choices.append(value)
    c1.selectbox(
        "Serving engine",
        choices,
        index=choices.index(value),
        format_func=lambda e: engine_label(e, gpu),
        key="s_engine",
        on_change=FORM.bind("engine", "s_engine"),
        help="The software that serves the model: TensorRT-LLM (the default on NVIDIA), vLLM or "
        "SGLang; on AMD GPUs their ROCm builds (vLLM the default; TensorRT-LLM does not run "
        "there). Each engine's step costs are measured (models/serving/engines.py, "
        "models/serving/builds.py; docs/reference/serving-evidence.md).",
    )

    def store_version():
        text = st.session_state["s_engine_version"].strip()
        FORM.put("engine_version", text or None)

    version = FORM.get("engine_version")
    c2.text_input(
        "Engine version",
        value=version or "",
        placeholder="the measured default",
        key="s_engine_version",
        on_change=store_version,
        help="The engine's release, e.g. 0.7.3. A release that was not measured uses the "
        "nearest measured release's costs, and the plan says so. Empty: the newest measured.",
    )


def precision_label(p: str | None, gpu: str) -> str:
    """How a weights' precision reads in the picker; the default (None) as what it is on `gpu`."""
    if p is None and gpu in load_gpus():
        return f"Default: {default_precision(gpu).upper()} on {gpu}"
    return PRECISIONS.get(p, str(p))


def _traffic_inputs() -> None:
    """How the traffic is given (rps, concurrent users or tokens per day) and the request sizes."""
    st.subheader("Traffic")
    mode = st.radio(
        "Traffic given as",
        list(TRAFFIC),
        index=list(TRAFFIC).index(traffic()),
        format_func=TRAFFIC.get,
        key="s_traffic",
        on_change=_store_traffic,
        horizontal=True,
        help="Requests arriving per second, the number of requests in flight at once "
        "(users waiting on an answer), or the input + output tokens served in a day (averaged "
        "over 24 hours).",
    )
    c1, c2, c3 = st.columns(3)
    if mode == "rps":
        FORM.number(
            c1,
            "Requests per second",
            "rps",
            "s_rps",
            step=1.0,
            unit="requests/s",
            help="Mean arrivals the deployment carries, at peak.",
        )
    elif mode == "tokens_per_day":
        FORM.number(
            c1,
            "Tokens per day (millions)",
            "tokens_per_day",
            "s_tokens_day",
            step=100.0,
            scale=1e6,
            unit="million",
            help="Input + output tokens served in a day, averaged over 24 hours: carried as "
            "tokens per day ÷ 86,400 s ÷ tokens per request requests/s. A daily mean: traffic "
            "peaks above it, so give requests per second at peak where you know it.",
        )
    else:
        FORM.number(
            c1,
            "Concurrent users",
            "users",
            "s_users",
            step=8,
            help="Requests in flight at once; with a fixed GPU count, the batch of that one replica.",
        )
    FORM.number(
        c2,
        "Input tokens per request",
        "input_tokens",
        "s_input",
        step=256,
        help="Mean prompt length: system prompt, context and question (RAG adds the retrieved text).",
    )
    FORM.number(
        c3,
        "Output tokens per request",
        "output_tokens",
        "s_output",
        step=64,
        help="Mean answer length.",
    )


def _objectives() -> None:
    """The latency objectives, a fixed replica and how prefill and decode are laid out."""
    st.subheader("Service-level objectives")
    c1, c2, c3 = st.columns(3)
    FORM.optional(
        c1,
        "Time to first token (ms)",
        "ttft_ms",
        "s_ttft",
        unit="ms",
        placeholder="no objective",
        help="Longest acceptable wait before the answer starts, at the percentile below.",
    )
    FORM.optional(
        c2,
        "Time per output token (ms)",
        "tpot_ms",
        "s_tpot",
        unit="ms",
        placeholder="no objective",
        help="Longest acceptable gap between streamed tokens (50 ms is 20 tokens/s, faster "
        "than people read).",
    )
    FORM.choice(
        c1,
        "TTFT percentile",
        "slo_percentile",
        "s_percentile",
        format_func=lambda p: f"p{p}",
        help="The share of requests the TTFT objective holds for. Above p50 the wait for a free "
        "batch slot counts (an M/M/c queue at the replica's load: Sakasegawa 1977, Kleinrock "
        "1975), so a tighter percentile can need more GPUs. TPOT is taken with the batch full, the "
        "slowest it runs. With concurrent users the wait is for the others' prefills at the rate "
        "they arrive in steady traffic (an M/M/1 prefill queue), at this percentile.",
    )
    FORM.optional(
        c3,
        "GPUs (one replica)",
        "gpus",
        "s_gpus",
        placeholder="sized for the traffic",
        help="Fix one replica of this many GPUs, as a published benchmark runs, and see its "
        "throughput and latency: within one node (1 to 8 on 8-GPU nodes), or 16, 32 or 64 over "
        "2, 4 or 8 nodes (tensor parallel over them with SGLang or TensorRT-LLM, one pipeline "
        "stage per node with vLLM; not on AMD GPUs).",
    )
    FORM.choice(
        c2,
        "Prefill and decode",
        "prefill_decode",
        "s_prefill_decode",
        format_func=PREFILL_DECODE.get,
        help="Colocated: every replica reads prompts and generates, so long prompts stall the "
        "tokens streaming to others. Split (disaggregated, as DistServe and NVIDIA Dynamo run "
        "it): a pool of replicas only reads prompts and hands each prompt's K/V cache over the "
        "network to a pool that only generates; it needs an arrival rate (requests per second "
        "or tokens per day). Automatic splits only where that needs fewer GPUs.",
    )


def results(plan: ServePlan, curve: dict, inp: ServeInputs) -> None:
    p = plan
    forms.own_model_caption(p.model)
    c1, c2 = st.columns(2)
    _size_and_memory(c1, c2, p, inp)
    _throughput_and_latency(c1, c2, p)
    st.caption(
        sentence(md_plain(deployment_text(p))) + "; " + md_plain(prefill_decode_text(p)) + "."
    )
    if p.users_waiting:
        st.warning(sentence(md_plain(waiting_text(p))) + ".", icon=":material/hourglass_top:")
    if warning := serving_cost.accuracy_warning(
        get_preset(p.model).is_moe, p.engine, p.gpu, p.attention_dp > 1, p.pp
    ):
        st.warning(md_plain(warning) + ".", icon=":material/warning:")
    st.caption(
        f"Rule of thumb: {md_plain(rule_of_thumb_text(p))}. Weights "
        f"{p.precision.upper()}, KV cache {p.kv_precision.upper()}, "
        f"{p.kv_bytes_per_token / 1024:,.0f} KiB per token; "
        f"{p.layouts_evaluated:,} layouts searched. Software assumed: {p.software_generation}."
    )


def _cost_per_token(plan: ServePlan, inp: ServeInputs) -> None:
    """Each option's cost per million tokens for this service over a term the user picks."""
    st.subheader("Cost per million tokens")
    term = forms.term_input("s_term_months")
    with st.spinner("Pricing every option for this service..."):
        data, why = _economics(forms.cache_key(inp), plan.model_dump_json(), int(term))
    e = ServingEconomics.model_validate(data) if data else None
    forms.priced_table(
        data,
        why,
        serving_cost.rows(e) if e else None,
        [serving_cost.caption(e), *serving_cost.notes(e)] if e else [],
    )
    _gpus_side_by_side(inp, int(term))


def _gpus_side_by_side(inp: ServeInputs, term: int) -> None:
    """The same service on every GPU, on request (each GPU is two portfolio comparisons)."""
    st.subheader("The same service on every GPU")
    if not st.toggle(
        "Compare GPUs",
        key="s_compare_gpus",
        help="plan and price this service on each GPU of the catalogue, at each GPU's default "
        "weight precision unless you chose one (a few seconds)",
    ):
        return
    with st.spinner("Planning and pricing the service on every GPU..."):
        choices = [GpuChoice.model_validate(c) for c in _gpu_choices(forms.cache_key(inp), term)]
    table = serving_cost.gpu_rows(choices)
    st.dataframe(pd.DataFrame(table[1:], columns=table[0]), hide_index=True, width="stretch")
    st.caption(
        md_plain(
            f"Each GPU: the engine it runs (the GPU's own default, vLLM's ROCm build on AMD, "
            f"unless you chose another), the GPUs the service needs within its objectives, TTFT "
            f"and TPOT there, and its cheapest option's cost per million tokens over {term} "
            f"months (as above)."
        )
    )


def _size_and_memory(c1, c2, p: ServePlan, inp: ServeInputs) -> None:
    """The GPUs, replicas, layout and batch, and the memory: KV cache and sequences that fit."""
    layout = layout_text(p)
    c1.metric(
        "GPUs",
        f"{p.gpus:,}",
        help=f"Replicas × GPUs per replica. Sized to run at {inp.target_utilisation:.0%} of capacity, "
        "the rest is headroom for bursts."
        if not inp.gpus
        else "The replica you fixed.",
    )
    split = p.prefill_decode == "split"
    c2.metric(
        "Replicas",
        f"{p.prefill_replicas:,} + {p.replicas - p.prefill_replicas:,}"
        if split
        else f"{p.replicas:,}",
        help=(
            f"Prefill + decode replicas, {p.gpus_per_replica} GPUs each: the first pool reads "
            "prompts, the second generates."
            if split
            else f"Independent copies of the model, {p.gpus_per_replica} GPUs each; traffic is "
            "spread over them."
        ),
    )
    c1.metric(
        "Layout per replica",
        layout,
        help="Tensor parallelism (TP): every layer split over this many GPUs joined by the scale-up "
        "link (NVLink); EP: experts spread over that many GPUs; DP: attention data-parallel groups "
        "of TP GPUs, each with its own sequences, the experts over all of them (a model too large "
        "for one node); PP: pipeline stages, one per node, each of its concurrent batches passing "
        "every stage in turn (vLLM over nodes).",
    )
    # a replica of attention groups or pipeline stages runs several batches at once
    each, all_of, n = groups_of(p)
    busy = p.groups_in_use  # fewer users than groups: one sequence on each of `busy`
    if busy:
        shown, how = f"{busy:,}", f", one on each of {busy} of its {n} {all_of}."
    elif n > 1:
        shown, how = f"{p.batch:,} × {n}", f", per {each} × the {all_of}."
    else:
        shown, how = f"{p.batch:,}", "."
    c2.metric(
        "Batch (sequences)",
        shown,
        help="Requests a replica decodes together at this load (continuous batching)" + how,
    )
    c1.metric(
        "KV cache per GPU",
        f"{p.kv_cache_gib_per_gpu:,.1f} GiB",
        help=f"Memory holding the attention keys and values of the requests in flight; "
        f"weights take {p.weights_gib_per_gpu:,.1f} GiB per GPU.",
    )
    c2.metric(
        "Sequences that fit",
        f"{p.max_sequences_per_replica * n:,}",
        help=f"Per replica: requests of {inp.input_tokens + inp.output_tokens:,} tokens whose KV cache fits in the "
        "memory the weights leave: the most a replica can hold in flight"
        + (f" ({p.max_sequences_per_replica:,} per {each} × {n})." if n > 1 else "."),
    )


def _throughput_and_latency(c1, c2, p: ServePlan) -> None:
    """Tokens per second per GPU, TTFT and TPOT, tokens per GPU-hour and a replica's capacity."""
    split = p.prefill_decode == "split"
    c1.metric(
        "Prefill (tok/s/GPU)",
        f"{p.prefill_tokens_per_s_per_gpu:,.0f}",
        help="Prompt tokens a GPU reads per second while processing a prompt (compute-bound).",
    )
    c2.metric(
        "Output (tok/s/GPU)",
        f"{p.output_tokens_per_s_per_gpu:,.0f}",
        help=f"Generated tokens per second per GPU at this batch, prompts included; decoding is "
        f"{p.decode_bound}-bound here.",
    )
    c1.metric(
        "TTFT",
        f"{p.ttft_ms:,.0f} ms",
        help=f"Time to first token at p{p.slo_percentile}: how long a user waits before the "
        f"answer starts, at this load ({p.ttft_queue_ms:,.0f} ms of it waiting for a free slot).",
    )
    c2.metric(
        "TPOT",
        f"{p.tpot_ms:,.1f} ms",
        help=f"Time per output token: the gap between streamed tokens, at this load: {1e3 / p.tpot_ms:,.0f} tokens/s per user.",
    )
    c1.metric(
        "Tokens/GPU-hour",
        f"{p.output_tokens_per_gpu_hour / 1e6:,.2f} M",
        help="Millions of tokens one GPU generates in an hour at this load; a GPU-hour price divided by "
        "it is the cost per million tokens.",
    )
    c2.metric(
        "Capacity (req/s)",
        f"{p.requests_per_s_per_replica:,.2f}",
        help="Per decode replica: requests it completes per second at this batch (its capacity)."
        if split
        else "Per replica: requests a replica completes per second at this batch (its capacity).",
    )


def render() -> None:
    forms.sizing_page(
        "Serve",
        "Size an inference deployment: describe the traffic and the latency users accept, see the "
        "layout, memory, latency, throughput and GPUs, and what the service costs per million "
        "tokens on every option. These inputs are kept separately from the training scenario.",
        inputs=inputs,
        record=lambda: FORM.record(leave_out=[t for t in TRAFFIC if t != traffic()]),
        heading="Deployment",
        spinner="Sizing the deployment...",
        size=plan_for,
        results=results,
        chart=_chart,
        chart_key="chart_serve",
        below=lambda plan, _curve, inp: _cost_per_token(plan, inp),
    )


def _chart(plan: ServePlan, curve: dict, inp: ServeInputs, dark: bool):
    """Throughput and latency against concurrency, with the objectives and the plan's point."""
    return serve_curve(curve, plan.model_dump(mode="json"), inp.ttft_ms, inp.tpot_ms, dark)

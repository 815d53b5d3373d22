"""Workload: what to train, on which GPUs, how the cluster is used and for how long; with a live
sizing summary from the core. A switch at the top puts a portfolio of workloads in force instead
(app/views/portfolio.py); the single training run stays the first, one-click mode."""

import streamlit as st

from app import glossary, own_models, state
from app import schema_widgets as sw
from app.formatting import (
    band,
    days,
    deadline_sizing,
    efficient_size_advice,
    gib,
    md_plain,
    pct,
    scaling_note,
    si,
)
from app.report_text import execution_text, moe_step_text, small_model_step_text
from app.views import portfolio as portfolio_view
from app.views import site_inputs
from app.views.chart_cache import plan_chart
from app.views.execution import execution_inputs
from app.views.forms import own_model_caption
from app.views.own_model import own_model_input
from models.hardware import gpus_with, load_gpus
from models.scenario import Options, Term
from models.shapes import ModelShape, get_preset, load_presets
from models.training.plan import TrainingPlan
from pricing.catalogue.loader import load_catalogue
from pricing.inputs import CLOUD_KINDS

#: provider kinds that price Rent (pricing/inputs.py prices a dedicated rental from them)
RENT_KINDS = ("neocloud", "marketplace")

CUSTOM = "custom"


#: the layout's terms in plain words (app/glossary.py), the help of the Layout line
LAYOUT_HELP = "  \n".join((glossary.TP, glossary.PP, glossary.DP, glossary.ZERO))


def next_step() -> None:
    """The step after this page: Compare, as a link to its page (app/main.py registers the pages
    in state.PAGES_KEY; the test harness, which has no navigation, shows the step as text)."""
    page = st.session_state.get(state.PAGES_KEY, {}).get("compare")
    with st.container(border=True, key="next_step"):
        if page is not None:
            st.page_link(
                page,
                label="Next: Compare the options (cost, time and risk)",
                icon=":material/arrow_forward:",
            )
        else:
            st.markdown("Next: Compare the options (cost, time and risk)")


def provider_inputs() -> None:
    """Which provider prices Rent and the cloud options (Options.rent_provider, cloud_provider):
    the catalogue's median, or one provider listing an on-demand price for the GPU."""
    gpu = sw.current("cluster.gpu")
    rentals = load_catalogue().rentals(gpu, "on_demand")
    c1, c2 = st.columns(2)
    for where, field, key, title, kinds in (
        (c1, "rent_provider", "w_rent_provider", "Rent priced by", RENT_KINDS),
        (c2, "cloud_provider", "w_cloud_provider", "Cloud priced by", CLOUD_KINDS),
    ):
        names = sorted({r.provider for r in rentals if r.provider_kind in kinds})
        held = state.get(f"options.{field}")
        choices = [None, *names, *([held] if held and held not in names else [])]
        where.selectbox(
            title,
            choices,
            index=choices.index(held),
            format_func=lambda p: "catalogue median of providers" if p is None else p,
            key=key,
            on_change=state.bind(f"options.{field}", key),
            help=f"One provider's on-demand price for {gpu} (its commitments where it lists them), "
            "or the median across the catalogue's providers. A provider without a price for "
            "this GPU is refused under Sizing.",
        )


MODES = {"run": "One training run", "portfolio": "Portfolio"}


def render() -> None:
    st.title("Workload")
    mode = "portfolio" if state.is_portfolio() else "run"
    st.session_state["w_mode"] = mode  # the scenario in force says which (a link, a sample)
    st.radio(
        "Plan for",
        list(MODES),
        format_func=MODES.get,
        horizontal=True,
        key="w_mode",
        on_change=portfolio_view.switch_mode,
        help="One training run used over the term, or a portfolio of workloads (pre-training, "
        "fine-tuning, serving, steady research use) from several teams. Switching keeps the "
        "other one in this session as you left it.",
    )
    if mode == "portfolio":
        portfolio_view.render()
        return
    _run_page()


def _run_page() -> None:
    """One training run (scenario version 1)."""
    st.caption(
        "Describe the training run and the contract term. Every page uses this scenario; "
        "the Share button in the sidebar makes a link to it."
    )

    presets = load_presets()
    gpus = load_gpus()

    left, right = st.columns([3, 2], gap="large")
    with left:
        _model_section(presets)
        _cluster_section(gpus)
        _use_over_the_term()
    with right:
        _sizing_panel()
        next_step()


def _model_section(presets: dict[str, ModelShape]) -> None:
    """The model (a preset, or custom from its parameter counts), the tokens, the sequence
    length, the precision and the execution choices."""
    st.subheader("Model")
    choice = _model_picker(presets)
    if choice == CUSTOM:
        _custom_parameters()
    own_model_input("w", None if choice == CUSTOM else choice, _use_own_model)
    _tokens_and_precision()
    execution_inputs(
        fp8_ok=sw.current("workload.precision") == "fp8",
        fp8_needs="precision FP8 (Model, Precision)",
    )


def _model_picker(presets: dict[str, ModelShape]) -> str:
    """The Model box; a change of model (to or from a custom one) is put in the scenario and the
    page rerun. The model chosen."""
    custom = state.get("workload.params") is not None  # params win over a preset (schema)
    model_choice = CUSTOM if custom else (sw.current("workload.model") or CUSTOM)
    # the session's models of its own after the presets, named now (app/views/forms.py says why)
    labels = {m: own_models.label(m) for m in [*presets, *own_models.ids()]}
    labels[CUSTOM] = "Custom (from parameter counts)"
    choice = st.selectbox(
        "Model",
        list(labels),
        index=list(labels).index(model_choice if model_choice in labels else CUSTOM),
        format_func=lambda m: labels.get(m, m),
        key="w_model",
        help="Published shapes: model_presets.csv, each with its paper or model card. "
        "A custom model gets a Llama-3-like shape from its parameter count; a model of your "
        "own is given by its fields, below.",
    )
    if choice != model_choice:
        if choice == CUSTOM:
            shape = get_preset(model_choice)
            state.put("workload.model", None)
            state.put("workload.params", float(round(shape.params_total, -6)))
            if shape.is_moe:
                state.put("workload.active_params", float(round(shape.params_active, -6)))
        else:
            for key in ("params", "active_params"):
                state.put(f"workload.{key}", None)
            state.put("workload.model", choice)
        st.rerun()
    return choice


def _use_own_model(model_id: str) -> None:
    """A model of one's own (app/views/own_model.py) as the run's model, in place of params."""
    for key in ("params", "active_params"):
        state.put(f"workload.{key}", None)
    state.put("workload.model", model_id)
    st.session_state.pop("w_model", None)  # the picker drawn again at the new model


def _custom_parameters() -> None:
    """A custom model's total and active parameters."""
    c1, c2 = st.columns(2)
    sw.number(
        c1,
        "Total parameters (billions)",
        "workload.params",
        "w_params",
        step=1.0,
        scale=1e9,
        unit="billion",
        help="All weights, experts included.",
    )
    active = state.get("workload.active_params")
    c2.number_input(
        "Active parameters per token (billions, 0 = dense)",
        min_value=0.0,  # 0 stands for a dense model (no active_params)
        max_value=sw.limits("workload.active_params", 1e9)[1],
        value=float(active or 0) / 1e9,
        step=1.0,
        format="%g",
        key="w_active",
        on_change=state.bind(
            "workload.active_params", "w_active", lambda b: b * 1e9 if b > 0 else None
        ),
        help="For a mixture-of-experts model: the parameters one token passes through. "
        f"{sw.allowed('workload.active_params', 1e9, 'billion')}, or 0 for a dense model.",
    )


def _tokens_and_precision() -> None:
    """Training tokens, sequence length and precision."""
    c1, c2, c3 = st.columns(3)
    # a text box: a number box cannot group thousands ("2000" beside the GPUs' "1,024")
    sw.count(
        c1,
        "Training tokens (billions)",
        "workload.tokens",
        "w_tokens",
        scale=1e9,
        unit="billion",
        placeholder=f"{sw.start('workload.tokens') / 1e9:,.0f} (the default)",
        help="Tokens seen in one training run (Llama 3: 15,600 billion).",
    )
    seq = int(sw.current("workload.seq_len"))
    # the usual lengths, and the scenario's own (a link or file may give any allowed length)
    seqs = sorted({1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072, seq})
    c2.selectbox(
        "Sequence length",
        seqs,
        index=seqs.index(seq),
        key="w_seq",
        on_change=state.bind("workload.seq_len", "w_seq"),
        help="Tokens per training sequence; longer sequences cost more attention compute and "
        f"memory. {sw.allowed('workload.seq_len')} in a share link or scenario file.",
    )
    precision = sw.current("workload.precision")
    c3.selectbox(
        "Precision",
        ["bf16", "fp8"],
        index=["bf16", "fp8"].index(precision),
        key="w_precision",
        on_change=state.bind("workload.precision", "w_precision"),
        format_func=str.upper,
        help=f"FP8 needs FP8 tensor cores (not {', '.join(gpus_with('fp8', has=False))}).",
    )


def _cluster_section(gpus: dict) -> None:
    """The GPU, the cluster's size (a GPU count or a deadline) and the restart time."""
    st.subheader("Cluster")
    c1, c2 = st.columns(2)
    gpu = sw.current("cluster.gpu")
    c1.selectbox(
        "GPU",
        list(gpus),
        index=list(gpus).index(gpu),
        key="w_gpu",
        format_func=lambda g: (
            f"{g} ({gpus[g].memory_gib:g} GiB, {gpus[g].bf16_dense_tflops:,.0f} TF)"
        ),
        on_change=state.bind("cluster.gpu", "w_gpu"),
        help="Specifications and sources: models/data/gpus.csv.",
    )
    _cluster_size(c2)

    sw.number(
        st,
        "Restart after a failure (minutes)",
        "reliability.restart_minutes",
        "w_restart",
        step=1.0,
        unit="minutes",
        help="Minutes from a failure to training again (detect, swap the node, reload the "
        "last checkpoint); with the failure rate and checkpoint interval it sets goodput. "
        + glossary.GOODPUT,
    )


def _cluster_size(c2) -> None:
    """Size the cluster by a GPU count or by a deadline, and the count or the deadline."""
    modes = ["fixed", "deadline"]
    mode = "deadline" if state.get("cluster.deadline_days") else "fixed"
    new_mode = c2.radio(
        "Size the cluster by",
        modes,
        index=modes.index(mode),
        horizontal=True,
        key="w_sizing",
        format_func={"fixed": "GPU count", "deadline": "deadline"}.get,
        help="A fixed GPU count, or the fewest GPUs with which the first run ends by a "
        "deadline counted from the decision, provisioning included (failures and restarts "
        "too).",
    )
    if new_mode != mode:
        if new_mode == "deadline":
            state.put("cluster.gpus", None)
            state.put("cluster.deadline_days", sw.start("cluster.deadline_days"))
        else:
            state.put("cluster.deadline_days", None)
            state.put("cluster.gpus", sw.start("cluster.gpus"))
        st.rerun()
    if new_mode == "fixed":
        sw.count(
            c2,
            "GPUs",
            "cluster.gpus",
            "w_gpus",
            placeholder="the efficient size",
            help="The most is the largest cluster the planner sizes (past 65,536 GPUs "
            "its fabric is a four-tier fat tree of 64-port switches); "
            "left empty, the efficient size (the Guide's advice; the smallest that fits is shown "
            "beside it).",
        )
    else:
        sw.number(
            c2,
            "Deadline (days from the decision to the first result)",
            "cluster.deadline_days",
            "w_deadline",
            step=5.0,
            unit="days",
            help="Provisioning included: the Compare page sizes the cluster so that the option "
            "that can deliver first finishes its first run by then, and marks the options "
            "that cannot. This page shows the GPUs for the training alone.",
        )


def _use_over_the_term() -> None:
    """Runs or steady use, the term, how owned hardware is paid and housed, who prices the rented
    and cloud options, the rental commitment, the licence and the options compared."""
    st.subheader("Use over the term")
    c1, c2, c3 = st.columns(3)
    usage_modes = ["runs", "utilisation"]
    umode = sw.current("usage.mode")
    c1.radio(
        "Workload over the term",
        usage_modes,
        index=usage_modes.index(umode),
        key="w_umode",
        format_func={"runs": "training runs", "utilisation": "steady use"}.get,
        on_change=state.bind("usage.mode", "w_umode"),
        help="A number of runs of this workload back to back, or steady use at a utilisation.",
    )
    if umode == "runs":
        sw.number(c2, "Runs over the term", "usage.runs", "w_runs", step=1.0, help="")
        sw.count(
            c2,
            "Value of a day earlier, per run ($)",
            "usage.value_usd_per_day_earlier",
            "w_value_time",
            help="What a day earlier for each run's result is worth to you. With it, an option "
            "whose results come later pays for the days in the ranking (its own 'value of time' "
            "line on Compare, not a cash flow). Empty: time has no value.",
            placeholder="time has no value",
        )
    else:
        sw.slider(
            c2,
            "Utilisation (%)",
            "usage.utilisation_pct",
            "w_util",
            help="Share of hours the GPUs do useful work.",
        )
    sw.slider(
        c3,
        "Term (months)",
        "term.months",
        "w_term",
        unit="months",
        help="The contract term every option is compared over.",
    )
    _owned_hardware()
    provider_inputs()
    _rental_licence_and_options()


def _owned_hardware() -> None:
    """How owned hardware is paid (and the loan's length) and where it lives."""
    c1, c2 = st.columns(2)
    fin = sw.current("term.financing")
    c1.selectbox(
        "Owned hardware is paid",
        ["cash", "loan", "lease"],
        index=["cash", "loan", "lease"].index(fin),
        key="w_fin",
        on_change=state.bind("term.financing", "w_fin"),
        help="Cash on acceptance, an equipment loan (rate in Assumptions), or an operating lease.",
    )
    facility = sw.current("options.facility")
    c2.selectbox(
        "Owned hardware lives in",
        ["colocation", "owned"],
        index=["colocation", "owned"].index(facility),
        key="w_facility",
        on_change=state.bind("options.facility", "w_facility"),
        format_func={
            "colocation": "colocation (rented space)",
            "owned": "a new facility of our own",
        }.get,
        help="Colocation at $/kW-month, or building a data hall at $/kW (18–24 months).",
    )
    _depreciation_input(c2)
    if fin == "loan":
        sw.slider(
            c1,
            "Loan length (years)",
            "term.loan_years",
            "w_loan_years",
            unit="years",
            help="Years over which the equipment loan is repaid (its rate is on the "
            "Assumptions page).",
        )


#: how owned hardware is depreciated after tax (Term.depreciation), in words
DEPRECIATION_WORDS = {
    "straight_line": "straight line over its life",
    "bonus_2025": "US 2025 bonus (100 % at once)",
}


def _depreciation_input(column) -> None:
    """How the after-tax figures depreciate owned hardware (pricing/tax.py)."""
    chosen = sw.current("term.depreciation")
    column.selectbox(
        "After tax, owned hardware is depreciated",
        list(DEPRECIATION_WORDS),
        index=list(DEPRECIATION_WORDS).index(chosen),
        format_func=DEPRECIATION_WORDS.get,
        key="w_depreciation",
        on_change=state.bind("term.depreciation", "w_depreciation"),
        help=Term.model_fields["depreciation"].description.capitalize()
        + " (26 U.S.C. § 168(k) and § 168(c); a lease depreciates nothing).",
    )


def _rental_licence_and_options() -> None:
    """How a rented or managed cluster is held, the software licence and the options compared."""
    commitments = {
        "1y": "1-year commitments",
        "3y": "3-year commitments",
        "monthly": "month to month",
        "whole_term": "for the whole term",
    }
    held = sw.current("options.rent_commitment")
    st.selectbox(
        "A rented or managed cluster is held",
        list(commitments),
        index=list(commitments).index(held),
        format_func=commitments.get,
        key="w_commitment",
        on_change=state.bind("options.rent_commitment", "w_commitment"),
        help=Options.model_fields["rent_commitment"].description.capitalize() + ".",
    )
    portfolio_view.past_term_input("w_past_term")
    st.toggle(
        "Pay a per-GPU software licence (NVIDIA AI Enterprise)",
        value=bool(sw.current("options.software_licence")),
        key="w_licence",
        on_change=state.bind("options.software_licence", "w_licence"),
        help=Options.model_fields["software_licence"].description.capitalize()
        + "; the price is licence_usd_per_gpu_year on the Assumptions page.",
    )
    site_inputs.render(st, "w")  # the buyer's constraints (app/views/site_inputs.py)
    sw.toggle(st, "Bridge a late option until its go-live", "options.bridge", "w_bridge")
    portfolio_view.bridge_price_input("w_bridge_price")
    portfolio_view.options_input("w_options")


def _sizing_panel() -> None:
    """The core's sizing of the run, or the problems and the error that stop it."""
    st.subheader("Sizing")
    sc, problems = state.scenario()
    if problems:
        state.show_problems(problems)
    else:
        with st.spinner("Sizing the cluster..."):
            plan, answer, err = state.sized_run(sc)
        if err:
            state.show_error(*err)
        else:
            if answer is not None:  # the same sentence as Compare's, the PDF's and the CLI's
                said = deadline_sizing(
                    answer.deadline_days, answer.label, answer.ready_day, answer.first_result_day
                )
                st.caption(md_plain(said) + ".")
            own_model_caption(sc.workload.model or "")
            _sizing_results(plan)


def _sizing_results(plan: TrainingPlan) -> None:
    """The GPUs, memory, days, goodput and MFU, the layout and execution, and the memory chart."""
    lay = plan.layout
    m1, m2 = st.columns(2)
    m1.metric("GPUs", f"{plan.gpus:,}", help=f"Sizing: {plan.sizing}")
    m2.metric(
        "Memory per GPU",
        gib(plan.memory_gib_per_gpu["total"]),
        help=f"of {gib(plan.memory_capacity_gib)}",
    )
    m1.metric("Ideal days", days(plan.ideal_days), help="No failures, no restarts")
    low, high = plan.train_days_low, plan.train_days_high
    likely = band(low, high).strip().removeprefix("(").removesuffix(")")
    m2.metric(
        "Whole-run days",
        days(plan.train_days),
        help=f"What a buyer pays for, and what costs use: the steady state x "
        f"{plan.whole_run_factor:.2f} for restarts, evaluation, data stalls, warm-up and schedule "
        f"phases and an allocation not fully used; {likely} given the whole-run model's "
        "errors on published runs, each source left out of the fit in turn (Validation page)",
    )
    m1.metric(
        "Steady-state days",
        days(plan.steady_days),
        help="This layout's step time x steps, with the modelled failures and restarts",
    )
    m2.metric("Goodput", pct(plan.goodput, 1), help=glossary.GOODPUT)
    m1.metric(
        "MFU",
        pct(plan.mfu, 1),
        help=f"{glossary.MFU} Here {plan.model_tflops_per_gpu:.0f} model TFLOP/s per GPU.",
    )
    if plan.sizing == "deadline" and (advice := efficient_size_advice(plan.gpus, plan.efficient)):
        st.info(md_plain(advice) + ".", icon=":material/speed:")
    if note := scaling_note(plan.scaling, plan.layout):  # what the count buys over half of it
        (st.warning if plan.scaling.warns else st.caption)(md_plain(note) + ".")
    st.markdown(
        f"**Layout:** TP {lay.tp}{f' · CP {lay.cp}' if lay.cp > 1 else ''} · "
        f"PP {lay.pp} · DP {lay.dp} · EP {lay.ep} · "
        f"ZeRO-{lay.zero} · recompute {lay.recompute} · micro-batch {lay.micro_batch} · "
        f"interleave {lay.interleave}  \n**Execution:** {execution_text(plan.execution, plan.gpu)}",
        help=LAYOUT_HELP,
    )
    st.caption(
        f"Whole run {days(plan.train_days)}, {likely} (the whole-run model's error range "
        f"on published whole runs, size class {plan.size_class} by active parameters); steady "
        f"state {days(plan.steady_days)}. "
        f"{plan.model.name}: {si(plan.model.params)} parameters; {plan.steps:,} steps of "
        f"{si(plan.global_batch_tokens)} tokens; step {plan.step_time_s:.2f} s"
        f"{' (' + moe + ')' if (moe := moe_step_text(plan.step_breakdown_s)) else ''}"
        f"{'; ' + small if (small := small_model_step_text(plan)) else ''}; "
        f"{plan.search.layouts_evaluated:,.0f} layouts searched. "
        f"Checkpoint {gib(plan.checkpoint.size_gib)} every {plan.checkpoint.interval_min:.0f} min."
    )
    plan_chart("training_memory", plan, state.dark_theme(), key="chart_training_memory")

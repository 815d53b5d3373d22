"""The Workload page in portfolio mode (scenario version 2): a table of workloads validated by the
schema (models/portfolio/workloads.py parse_workloads, through Scenario), the core's sizing of the selected
row beside it, and the portfolio's monthly demand by team and by kind (models/portfolio/demand.py). The
selected row's inputs that the table has no column for are under it (app/views/workload_details.py).

The table shows `scenario["workloads"]` as typed: an edit is written there as it was typed (a cell
cleared goes back to the schema default), so a bad value stays in its cell while the message names
`workloads[i].field` and its range, and the other pages use the last valid scenario meanwhile.
Cells a kind does not have are left empty and ignored. After each edit the table is drawn afresh
(a new key), so it always shows the scenario.

The expansion phases of the owned cluster (`options.build_expansions`: N GPUs ordered in month M,
each ready on its own build timeline, pricing/planning/) are a second table, kept the same
way: as typed, its problems named `options.build_expansions[i].field` with the allowed range.
Beside it, the hardware refresh age (`options.build_refresh_after_months`, empty: none), kept as
typed too; both fields' messages come from app/field_problems.py, as the share link's do.
"""

from __future__ import annotations

import math

import pandas as pd
import streamlit as st

from app import schema_widgets as sw
from app import state
from app.charts.portfolio import portfolio_demand
from app.field_problems import (
    EXPANSION_FIELD,
    REFRESH_FIELD,
    expansion_problems,
    refresh_problems,
    refresh_range,
)
from app.formatting import md_plain
from app.views import workload_details
from app.views.execution import execution_inputs
from models.hardware import load_gpus
from models.options import OPTION_IDS, Billing, label, spec
from models.portfolio.workloads import MAX_WAIT_DAYS_DEFAULT, WORKLOAD_KINDS
from models.scenario import FP8_PARAMS_KINDS, Term
from models.shapes import load_presets

#: session keys: the table's generation (in its key) and the selected row
GENERATION, SELECTED = "p_table_generation", "p_selected"
#: widget keys of this view start with this, so they are dropped when the scenario is replaced
PREFIX = "p_"

#: the refresh age's text box
REFRESH_KEY = "p_refresh"
#: the owned cluster's plan: fields whose problems leave the workloads sized meanwhile
PLAN_FIELDS = (EXPANSION_FIELD, REFRESH_FIELD)

#: sample portfolios (app/data/portfolio_<name>.json) and their buttons
SAMPLES = {
    "enterprise": "Enterprise team",
    "university": "University, shared",
    "lab": "Foundation-model lab",
}

#: the table's columns: field -> (header, help). A row shows the fields its kind has.
COLUMNS: dict[str, tuple[str, str]] = {
    "kind": ("Kind", "pretrain, finetune, serve or steady research use"),
    "name": ("Name", "unique within the portfolio"),
    "team": ("Team", "who is charged for it (chargeback on Compare)"),
    "start_month": ("Start month", "first month, 0 = the start of the term"),
    "duration_months": ("Months", "how many months it runs"),
    "model": ("Model", "model preset (pretrain, finetune, serve)"),
    "tokens": ("Tokens", "pretrain: training tokens per run; finetune: dataset tokens per epoch"),
    "gpus": (
        "GPUs",
        "pretrain, finetune: GPUs per run, empty for the fewest that fit; steady: GPUs at its peak",
    ),
    "runs_per_month": ("Runs / month", "pretrain: runs started a month (0.25: one every 4 months)"),
    "jobs_per_month": ("Jobs / month", "finetune: jobs started a month"),
    "method": ("Method", "finetune: full, LoRA or QLoRA"),
    "rps": ("Requests/s", "serve: requests per second in its first month"),
    "growth_pct_per_month": ("Growth %/month", "serve: traffic growth a month, compounded"),
    "utilisation_pct": ("Busy %", "steady: share of hours its GPUs are busy"),
    "max_wait_days": (
        "Max wait (days)",
        "service level: the longest its work may wait for capacity after release (and the "
        "option's go-live); empty for its kind's default: "
        + ", ".join(f"{k} {v:g}" for k, v in MAX_WAIT_DAYS_DEFAULT.items()),
    ),
}
INTEGER_FIELDS = {"start_month", "duration_months", "gpus"}

#: the expansion phases' table: field -> (header, help)
EXPANSION_COLUMNS: dict[str, tuple[str, str]] = {
    "gpus": ("GPUs added", "GPUs the phase adds to the owned cluster"),
    "month": (
        "Month ordered",
        "month the phase is ordered, 0 = the decision; it is ready after its own build lead time",
    ),
}


def _drop_widgets() -> None:
    """A new scenario in force: this view's inputs are drawn from it, not from their last state."""
    for key in [k for k in st.session_state if str(k).startswith(PREFIX)]:
        if key not in (GENERATION, SELECTED):
            del st.session_state[key]
    st.session_state[GENERATION] = st.session_state.get(GENERATION, 0) + 1
    st.session_state[SELECTED] = 0


def switch_mode() -> None:
    """The mode switch's callback (app/views/workload.py)."""
    state.switch_mode(st.session_state["w_mode"] == "portfolio")
    _drop_widgets()


def _load(name: str) -> None:
    state.load_portfolio(name)
    _drop_widgets()


def _fields(kind) -> dict:
    record = WORKLOAD_KINDS.get(kind) if isinstance(kind, str) else None
    return record.model_fields if record else {}


def _cell(w: dict, col: str):
    """What the table shows: the value as typed, else the kind's default, blank where the kind has
    no such field."""
    fields = _fields(w.get("kind"))
    if col in w:
        return w[col]
    if col in fields:
        return fields[col].get_default(call_default_factory=True)
    return None


def _frame(workloads: list) -> pd.DataFrame:
    rows = [
        {col: _cell(w, col) if isinstance(w, dict) else None for col in COLUMNS} for w in workloads
    ]
    return pd.DataFrame(rows, columns=list(COLUMNS)).astype(object)


def _blank(v) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v)) or (isinstance(v, str) and not v)


def _put_cell(row: dict, col: str, value) -> None:
    if _blank(value):
        row.pop(col, None)  # the schema default applies
    else:
        row[col] = value


def _unique_name(base: str, taken: set[str]) -> str:
    name, n = base[:60], 2
    while name in taken:
        suffix = f" {n}"
        name, n = base[: 60 - len(suffix)] + suffix, n + 1
    return name


def apply_edits(workloads: list[dict], delta: dict) -> list[dict]:
    """The workloads after a data_editor's edits (edited_rows, added_rows, deleted_rows): typed
    values kept as typed, cleared cells dropped, fields the row's kind lacks dropped, and a name
    given to a new row that has none."""
    out = [dict(w) for w in workloads]
    for i, change in (delta.get("edited_rows") or {}).items():
        for col, value in change.items():
            _put_cell(out[int(i)], col, value)
    added = []
    for new in delta.get("added_rows") or []:
        row = {"kind": "steady"}
        for col, value in new.items():
            _put_cell(row, col, value)
        added.append(row)
    deleted = {int(i) for i in delta.get("deleted_rows") or []}
    out = [w for j, w in enumerate(out) if j not in deleted] + added
    for w in out:
        fields = _fields(w.get("kind"))
        for col in [c for c in w if fields and c not in fields]:
            del w[col]
    taken = {w.get("name") for w in out}
    for w in out:
        if _blank(w.get("name")):
            kind = w.get("kind")  # a cleared kind is refused by the parser, naming the field
            w["name"] = _unique_name(f"{kind if isinstance(kind, str) else 'new'} workload", taken)
            taken.add(w["name"])
    return out


def _column_config() -> dict:
    presets = list(load_presets())
    config = {}
    for col, (header, help_) in COLUMNS.items():
        if col == "kind":
            config[col] = st.column_config.SelectboxColumn(
                header, help=help_, options=list(WORKLOAD_KINDS), required=True, default="steady"
            )
        elif col == "model":
            config[col] = st.column_config.SelectboxColumn(header, help=help_, options=presets)
        elif col == "method":
            config[col] = st.column_config.SelectboxColumn(
                header, help=help_, options=["full", "lora", "qlora"]
            )
        elif col in ("name", "team"):
            config[col] = st.column_config.TextColumn(header, help=help_)
        else:
            config[col] = st.column_config.NumberColumn(
                header, help=help_, format="%d" if col in INTEGER_FIELDS else "%g"
            )
    return config


def _rows() -> list:
    rows = state.get("workloads")
    return rows if isinstance(rows, list) else []


def _table() -> int:
    """The table of workloads and its buttons; returns the selected row."""
    workloads = _rows()
    generation = st.session_state.get(GENERATION, 0)
    key = f"p_table_{generation}"
    st.data_editor(
        _frame(workloads),
        key=key,
        num_rows="dynamic",
        hide_index=True,
        width="stretch",
        column_config=_column_config(),
    )
    delta = st.session_state.get(key) or {}
    if any(delta.get(k) for k in ("edited_rows", "added_rows", "deleted_rows")):
        state.put("workloads", apply_edits(workloads, delta))
        st.session_state[GENERATION] = generation + 1
        st.rerun()
    st.caption(
        "Add a row with + below the table, remove one with its checkbox and the bin. Cells a kind "
        "does not use stay empty; the selected workload's other inputs (precision, sequence "
        "length, epochs, prompt and output tokens, latency objectives) are below the buttons."
    )
    if not workloads:
        return 0
    selected = min(st.session_state.get(SELECTED, 0), len(workloads) - 1)
    names = [w.get("name", "?") if isinstance(w, dict) else "?" for w in workloads]
    choice = st.selectbox(
        "Selected workload",
        range(len(workloads)),
        index=selected,
        format_func=lambda i: f"{i}: {names[i]}",
        key=f"p_row_{generation}",
    )
    st.session_state[SELECTED] = choice
    c1, c2 = st.columns(2)
    if c1.button("Duplicate", icon=":material/content_copy:", key="p_duplicate", width="stretch"):
        copy_ = dict(workloads[choice])
        copy_["name"] = _unique_name(f"{names[choice]} copy", set(names))
        state.put("workloads", [*workloads[: choice + 1], copy_, *workloads[choice + 1 :]])
        _drop_widgets()
        st.session_state[SELECTED] = choice + 1
        st.rerun()
    if c2.button(
        "Remove",
        icon=":material/delete:",
        key="p_remove",
        width="stretch",
        disabled=len(workloads) < 2,
        help="A portfolio keeps at least one workload.",
    ):
        state.put("workloads", [w for j, w in enumerate(workloads) if j != choice])
        _drop_widgets()
        st.session_state[SELECTED] = max(0, choice - 1)
        st.rerun()
    workload_details.render(choice, generation)
    return choice


def _expansion_rows() -> list:
    rows = state.get(EXPANSION_FIELD)
    return rows if isinstance(rows, list) else []


def apply_expansion_edits(phases: list[dict], delta: dict, new_row: dict) -> list[dict]:
    """The expansion phases after a data_editor's edits: typed values kept as typed, a cleared
    cell dropped (the schema then names it), a new row's empty cells filled from `new_row`."""
    out = [dict(p) if isinstance(p, dict) else {} for p in phases]
    for i, change in (delta.get("edited_rows") or {}).items():
        for col, value in change.items():
            _put_cell(out[int(i)], col, value)
    added = []
    for new in delta.get("added_rows") or []:
        row = dict(new_row)
        for col, value in new.items():
            _put_cell(row, col, value)
        added.append(row)
    deleted = {int(i) for i in delta.get("deleted_rows") or []}
    return [p for j, p in enumerate(out) if j not in deleted] + added


def _expansions(problems: list[tuple[str, str]]) -> None:
    """The owned cluster's expansion phases: a table kept in the scenario as typed."""
    phases = _expansion_rows()
    generation = st.session_state.get(GENERATION, 0)
    key = f"p_expansions_{generation}"
    frame = pd.DataFrame(
        [{c: p.get(c) if isinstance(p, dict) else None for c in EXPANSION_COLUMNS} for p in phases],
        columns=list(EXPANSION_COLUMNS),
    ).astype(object)
    st.data_editor(
        frame,
        key=key,
        num_rows="dynamic",
        hide_index=True,
        column_config={
            col: st.column_config.NumberColumn(header, help=help_, format="%d")
            for col, (header, help_) in EXPANSION_COLUMNS.items()
        },
    )
    delta = st.session_state.get(key) or {}
    if any(delta.get(k) for k in ("edited_rows", "added_rows", "deleted_rows")):
        gpu = load_gpus().get(sw.current("cluster.gpu"))
        months = state.get("term.months", 36)
        new_row = {
            "gpus": gpu.gpus_per_node if gpu else 8,
            "month": min(12, months - 1) if isinstance(months, int) and months > 0 else 0,
        }
        state.put(EXPANSION_FIELD, apply_expansion_edits(phases, delta, new_row) or None)
        st.session_state[GENERATION] = generation + 1
        st.rerun()
    compared = state.get("options.compare") or sw.start("options.compare")
    owned = [
        label(o)
        for o in compared
        if o in OPTION_IDS and spec(o).billing is Billing.OWNED and not spec(o).composed_of
    ]
    st.caption(
        "Each phase orders more GPUs in its month; they serve work from the day its own build "
        "finishes (the build timeline of an order of that size). "
        + (
            f"Applies to {', '.join(owned)}."
            if owned
            else "No owned option is compared: the phases change no result until Build is compared."
        )
    )
    state.show_problems(expansion_problems(problems, state.get("term.months", 36)))


def _store_refresh() -> None:
    """The refresh age as typed: a whole number stored as one, empty for no refresh, any other
    text kept as it is so the schema names the field and its range and the box keeps it."""
    text = st.session_state[REFRESH_KEY]
    number = sw.parse_number(text)
    state.put(REFRESH_FIELD, None if not text.strip() else (text if number is None else number))


def _refresh(problems: list[tuple[str, str]]) -> None:
    """The owned cluster's hardware refresh (options.build_refresh_after_months): off while
    empty; a bad value stays in the box and in the scenario, its problem named with the range."""
    value = state.get(REFRESH_FIELD)
    months = state.get("term.months", 36)
    st.text_input(
        "Refresh the hardware after (months)",
        value="" if value is None else str(value),
        placeholder="no refresh",
        key=REFRESH_KEY,
        on_change=_store_refresh,
        help="Replace the owned cluster's GPUs (not its expansion phases) when they reach this "
        "age, and again at each multiple: the new hardware is ordered its lead time ahead and "
        "the old sold at the resale value for that age. Empty: kept to the term end. "
        f"{refresh_range(months)[:1].upper()}{refresh_range(months)[1:]}.",
    )
    state.show_problems(refresh_problems(problems, months))


def _sizing(sc, i: int, demand) -> None:
    """The core's sizing of workload i."""
    s, err = state.workload_sizing(sc, i)
    if err:
        state.show_error(*err)
        return
    m1, m2 = st.columns(2)
    if s.gang:
        m1.metric("GPUs per run", f"{s.gpus_per_run:,}")
        length = f"{s.run_days:,.1f} days" if s.run_days >= 2 else f"{s.run_days * 24:,.1f} hours"
        m2.metric("Run length", length, help="Wall-clock, failures and restarts included")
    else:
        m1.metric("GPUs, first month", f"{s.gpus_by_month[0]:,.0f}")
        m2.metric("GPUs, last month", f"{s.gpus_by_month[-1]:,.0f}")
    if demand is not None:
        wd = demand.workloads[i]
        if wd.gang:
            m1.metric("Runs in the term", f"{wd.runs:,}")
        else:
            m1.metric("Busy share", f"{s.busy_fraction:.0%}")
        m2.metric("GPU-hours demanded", f"{wd.demanded_gpu_hours:,.0f}")
    st.caption(md_plain(s.basis))


#: how the months a commitment runs past the term are valued (Term.past_term), in words
PAST_TERM_CHOICES = {
    "idle": "paid and idle",
    "resold": "resold or assigned at term end",
}


def past_term_input(key: str) -> None:
    """The choice of how a commitment's months past the term are valued (Workload, Portfolio)."""
    chosen = sw.current("term.past_term")
    st.selectbox(
        "Commitment months past the term are",
        list(PAST_TERM_CHOICES),
        index=list(PAST_TERM_CHOICES).index(chosen),
        format_func=PAST_TERM_CHOICES.get,
        key=key,
        on_change=state.bind("term.past_term", key),
        help=Term.model_fields["past_term"].description.capitalize()
        + " (on the Assumptions page).",
    )


def _settings() -> None:
    """GPU, term, options, the execution plan and the restart time: the parts a portfolio shares
    with a training-run scenario (the last two apply to its pre-training runs)."""
    gpus = load_gpus()
    c1, c2, c3 = st.columns(3)
    gpu = sw.current("cluster.gpu")
    c1.selectbox(
        "GPU",
        list(gpus),
        index=list(gpus).index(gpu) if gpu in gpus else 0,
        key="p_gpu",
        on_change=state.bind("cluster.gpu", "p_gpu"),
        help="Every workload is sized on this GPU. Specifications: models/data/gpus.csv.",
    )
    sw.count(
        c2,
        "GPUs of the fixed-size options",
        "cluster.gpus",
        "p_gpus",
        placeholder="sized to the demand",
        help="Empty: each fixed-size option (build, rent, managed, committed cloud) is sized to "
        "the demand by its capacity plan; a count fixes their size.",
    )
    sw.slider(
        c3,
        "Term (months)",
        "term.months",
        "p_term",
        unit="months",
        help="The contract term every option is compared over.",
    )
    sw.toggle(st, "Public cloud allowed", "constraints.public_cloud_allowed", "p_public_cloud")
    sw.toggle(st, "Bridge the work before each go-live", "options.bridge", "p_bridge")
    past_term_input("p_past_term")
    chosen = state.get("options.compare") or sw.start("options.compare")
    st.multiselect(
        "Options to compare",
        list(OPTION_IDS),
        default=chosen,
        key="p_options",
        format_func=label,
        on_change=state.bind("options.compare", "p_options"),
        help="Build, rent a dedicated cluster, a managed service, or public cloud.",
    )
    training = [w for w in state.get("workloads") or [] if w.get("kind") in FP8_PARAMS_KINDS]
    execution_inputs(
        fp8_ok=bool(training) and all(w.get("precision") == "fp8" for w in training),
        fp8_needs="every pre-training and fine-tuning workload in FP8",
    )
    sw.number(
        st,
        "Restart after a failure (minutes)",
        "reliability.restart_minutes",
        "p_restart",
        step=1.0,
        unit="minutes",
        help="Minutes from a failure to training again (detect, swap the node, reload the last "
        "checkpoint); with the GPU's failure rate it sets the goodput of every pre-training run.",
    )


def render() -> None:
    st.caption(
        "A portfolio of workloads: who needs GPUs, for what, from when. Every option on Compare "
        "serves this demand on its own capacity plan."
    )
    cols = st.columns(len(SAMPLES))
    for col, (name, title) in zip(cols, SAMPLES.items(), strict=True):
        col.button(
            title,
            key=f"p_sample_{name}",
            on_click=_load,
            args=(name,),
            icon=":material/dataset:",
            width="stretch",
            help=f"Load the sample portfolio app/data/portfolio_{name}.json",
        )
    _settings()
    if problem := state.link_problem():
        st.caption(
            f"No share link for this portfolio ({md_plain(problem)}): the address holds no "
            "scenario until it can be linked."
        )

    left, right = st.columns([3, 2], gap="large")
    with left:
        st.subheader("Workloads")
        selected = _table()
    sc, problems = state.scenario()
    others = [p for p in problems if not p[0].startswith(PLAN_FIELDS)]
    if problems and not others:  # only the owned plan is wrong: the workloads are sized meanwhile
        sc, _ = state.scenario_without(*PLAN_FIELDS)
    demand = None
    with right:
        st.subheader("Sizing")
        if others or sc is None:
            state.show_problems(others)
        else:
            demand, err = state.portfolio_demand(sc)
            if err:
                state.show_error(*err)
            with st.spinner("Sizing the workload..."):
                _sizing(sc, selected, demand)
    if demand is not None:
        st.plotly_chart(
            portfolio_demand(demand, dark=state.dark_theme()),
            theme=None,
            width="stretch",
            key="chart_portfolio_demand",
        )
    st.subheader("Expansion phases of the owned cluster")
    phases, refresh = st.columns([3, 2], gap="large")
    with phases:
        _expansions(problems)
    with refresh:
        _refresh(problems)

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

from app import own_models, state
from app import schema_widgets as sw
from app.charts.portfolio import portfolio_demand
from app.field_problems import (
    EXPANSION_FIELD,
    REFRESH_FIELD,
    expansion_problems,
    refresh_problems,
    refresh_range,
)
from app.formatting import BRIDGE_PRICES, md_plain
from app.views import site_inputs, workload_details
from app.views.execution import execution_inputs
from app.views.forms import own_model_caption
from app.views.own_model import own_model_input
from app.workloads_csv import MAX_CSV_BYTES, read_workloads_csv, workloads_csv
from models.errors import InputError
from models.hardware import load_gpus
from models.options import OPTION_IDS, Billing, label, spec
from models.portfolio.workloads import MAX_WAIT_DAYS_DEFAULT, WORKLOAD_KINDS
from models.scenario import FP8_PARAMS_KINDS, Options, Term
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
    "model": (
        "Model",
        "pretrain, finetune, serve: a model preset, or a model of your own (given as JSON under "
        "the table; the scenario file and the share link carry its fields)",
    ),
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
    "value_usd_per_day_earlier": (
        "$ per day earlier",
        "value of time: what a day less of its mean wait (its results a day earlier) is worth; "
        "an option whose results come later pays for the days in the ranking (not a cash flow). "
        "Empty: time has no value",
    ),
    "max_wait_days": (
        "Max wait (days)",
        "service level: the longest its work may wait for capacity after release (and the "
        "option's go-live); empty for its kind's default: "
        + ", ".join(f"{k} {v:g}" for k, v in MAX_WAIT_DAYS_DEFAULT.items()),
    ),
}
INTEGER_FIELDS = {"start_month", "duration_months", "gpus"}
#: the columns that say which workload a row is: pinned at the table's left
KEY_COLUMNS = ("kind", "name", "team", "model")

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


def _model_options(workloads: list) -> dict[str, str]:
    """The Model column's choices and their names: the presets, the session's models of its own
    (app/own_models.py) and any other model a row names (a scenario file's own model), so a
    row's model is always one of them."""
    named = [w.get("model") for w in workloads if isinstance(w, dict)]
    ids = [*load_presets(), *own_models.ids(), *(m for m in named if isinstance(m, str))]
    return {m: own_models.label(m) for m in dict.fromkeys(ids)}


def _column_config(workloads: list) -> dict:
    models = _model_options(workloads)
    config = {}
    for col, (header, help_) in COLUMNS.items():
        if col == "kind":
            config[col] = st.column_config.SelectboxColumn(
                header, help=help_, options=list(WORKLOAD_KINDS), required=True, default="steady"
            )
        elif col == "model":
            config[col] = st.column_config.SelectboxColumn(
                header,
                help=help_,
                options=list(models),
                format_func=lambda m: models.get(m, m),
            )
        elif col == "method":
            config[col] = st.column_config.SelectboxColumn(
                header, help=help_, options=["full", "lora", "qlora"]
            )
        elif col in ("name", "team"):
            config[col] = st.column_config.TextColumn(header, help=help_)
        else:
            config[col] = st.column_config.NumberColumn(
                header, help=help_, format="%d" if col in INTEGER_FIELDS else "%g", width="small"
            )
    for col in KEY_COLUMNS:
        config[col]["pinned"] = True
    return config


def _rows() -> list:
    rows = state.get("workloads")
    return rows if isinstance(rows, list) else []


def _table() -> None:
    """The table of workloads, across the page's width: its key columns (kind, name, team, model)
    pinned at the left, so they stay in view whatever else scrolls."""
    workloads = _rows()
    generation = st.session_state.get(GENERATION, 0)
    key = f"p_table_{generation}"
    st.data_editor(
        _frame(workloads),
        key=key,
        num_rows="dynamic",
        hide_index=True,
        width="stretch",
        column_config=_column_config(workloads),
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


def _selection() -> int:
    """The selected workload, its buttons and its other inputs; returns the selected row."""
    workloads = _rows()
    generation = st.session_state.get(GENERATION, 0)
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
    _own_model(workloads, choice)
    return choice


#: the workloads CSV's uploader and the problem its last file had (kept outside PREFIX: a new
#: scenario drops this view's widgets, and the upload is what made it)
CSV_FILE, CSV_ERROR = "workloads_csv_file", "workloads_csv_error"


def _import_csv() -> None:
    """The uploaded workloads file in force (app/workloads_csv.py), or its first problem kept to
    show, naming the row and column; the workloads stay as they were then."""
    file = st.session_state.get(CSV_FILE)
    if file is None:
        return
    try:
        if file.size > MAX_CSV_BYTES:  # refused before it is read
            raise InputError("workloads", f"larger than {MAX_CSV_BYTES // 1024} KiB")
        items = read_workloads_csv(file.getvalue().decode("utf-8-sig"))
    except UnicodeDecodeError:
        st.session_state[CSV_ERROR] = ("workloads", f"{file.name[:80]}: not UTF-8 text")
        return
    except InputError as exc:
        st.session_state[CSV_ERROR] = (exc.field, f"{file.name[:80]}: {exc}")
        return
    st.session_state.pop(CSV_ERROR, None)
    state.put("workloads", items)
    _drop_widgets()


def _csv_files(sc) -> None:
    """Download the workloads as CSV (every field, the service level and the value of time
    included) and upload such a file in their place."""
    down, up = st.columns(2)
    if sc is not None and sc.workloads:
        down.download_button(
            "Download workloads (CSV)",
            workloads_csv(sc.workloads),
            file_name="workloads.csv",
            mime="text/csv",
            icon=":material/download:",
            key="p_csv_download",
            help="One row per workload, every field a column (max_wait_days and "
            "value_usd_per_day_earlier too); edit it in a spreadsheet and upload it back.",
        )
    up.file_uploader(
        "Upload workloads (CSV)",
        type=["csv"],
        key=CSV_FILE,
        on_change=_import_csv,
        help="A header with kind and name and any workload fields; an empty cell or a column left "
        f"out takes the kind's default. At most {MAX_CSV_BYTES // 1024} KiB.",
    )
    if error := st.session_state.get(CSV_ERROR):
        state.show_error(*error)


def _own_model(workloads: list, choice: int) -> None:
    """The "model of your own" inputs (app/views/own_model.py) for the selected row, when its
    kind has a model: a model given there becomes the row's (and a choice in the Model column)."""
    row = workloads[choice] if isinstance(workloads[choice], dict) else {}
    if "model" not in _fields(row.get("kind")):
        return

    def use(model_id: str) -> None:
        rows = [dict(w) if isinstance(w, dict) else w for w in _rows()]
        if choice < len(rows) and isinstance(rows[choice], dict):
            rows[choice]["model"] = model_id
            state.put("workloads", rows)
            st.session_state[GENERATION] = st.session_state.get(GENERATION, 0) + 1

    model = row.get("model") if isinstance(row.get("model"), str) else None
    if model:
        own_model_caption(model)
    own_model_input("p", model, use)


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


def options_input(key: str) -> None:
    """The options compared (`options.compare`), one run or portfolio: chips that wrap, so each is
    in view in a column (issue 32)."""
    st.multiselect(
        "Options to compare",
        list(OPTION_IDS),
        default=state.get("options.compare") or sw.start("options.compare"),
        key=key,
        format_func=label,
        on_change=state.bind("options.compare", key),
        wrap=True,
        help="Build, rent a dedicated cluster, a managed service, or public cloud.",
    )


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


def bridge_price_input(key: str) -> None:
    """The choice of what a dedicated bridge pays per GPU-hour (Workload, Portfolio), shown
    while bridging is on."""
    if not sw.current("options.bridge"):
        return
    chosen = sw.current("options.bridge_price")
    st.selectbox(
        "A dedicated bridge pays",
        list(BRIDGE_PRICES),
        index=list(BRIDGE_PRICES).index(chosen),
        format_func=BRIDGE_PRICES.get,
        key=key,
        on_change=state.bind("options.bridge_price", key),
        help=Options.model_fields["bridge_price"].description.capitalize() + ".",
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
    site_inputs.render(st, "p")  # the buyer's constraints (app/views/site_inputs.py)
    sw.toggle(st, "Bridge the work before each go-live", "options.bridge", "p_bridge")
    bridge_price_input("p_bridge_price")
    past_term_input("p_past_term")
    options_input("p_options")
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

    st.subheader("Workloads")
    _table()
    left, right = st.columns([3, 2], gap="large")
    with left:
        selected = _selection()
    sc, problems = state.scenario()
    with left:
        _csv_files(sc)
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

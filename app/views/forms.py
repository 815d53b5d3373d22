"""The scaffolding the Serve and Fine-tune pages (app/views/serve.py, finetune.py) share: the page's
layout (the inputs on the left, the core's answer on the right, its chart under both), the
problems and the core's error shown where the answer would be, the model and GPU pickers, the
cache key of a record and the record a share link carries.

Each page keeps its own record in an app/record_widgets.py `Form` (bounds, choices and the
"Allowed: ..." help come from the record's Field()s) and passes its own sections and words."""

from __future__ import annotations

import json
from collections.abc import Callable

import pandas as pd
import streamlit as st
from pydantic import BaseModel

from app import own_models, state
from app.formatting import md_plain
from app.record_widgets import Form
from app.views.own_model import own_model_input
from models.hardware import load_gpus
from models.scenario import Term, field_bounds
from models.shapes import load_presets


def sizing_page(
    title: str,
    caption: str,
    *,
    inputs: Callable[[], None],
    record: Callable[[], tuple],
    heading: str,
    spinner: str,
    size: Callable[..., tuple],
    results: Callable[..., None],
    chart: Callable[..., object],
    chart_key: str,
    below: Callable[..., None] | None = None,
) -> None:
    """A form's page: `inputs` drawn on the left; on the right under `heading`, the problems of
    `record()` (a Form's (record, problems)), else the core's error, else `results`; then the
    chart across the page, and `below(*answer, record)` across the page after it (the cost
    tables: in the right column their columns were cut off). `size(record)` returns the core's
    answer as a tuple whose last item is the error (None or (field, message)); the items before
    it are handed to `results(*answer, record)` and `chart(*answer, record, dark)`."""
    st.title(title)
    st.caption(caption)
    left, right = st.columns([3, 2], gap="large")
    with left:
        inputs()
    state.sync_link()  # the address carries these inputs from the first visit
    inp, problems = record()
    with right:
        st.subheader(heading)
        if problems:
            state.show_problems(problems)
            return
        with st.spinner(spinner):
            *answer, err = size(inp)
        if err:
            state.show_error(*err)
            return
        results(*answer, inp)
    st.plotly_chart(
        chart(*answer, inp, state.dark_theme()),
        theme=None,
        width="stretch",
        key=chart_key,
    )
    if below is not None:
        below(*answer, inp)


def model_choice(form: Form, where, key: str, *, help: str):
    """The Model picker: the published shapes (models/shapes.py), then the session's models of
    its own (app/own_models.py), shown by name."""
    # the names read now: a format_func may be called where session state is not at hand
    labels = {m: own_models.label(m) for m in [*load_presets(), *own_models.ids()]}
    return form.choice(
        where,
        "Model",
        "model",
        key,
        choices=list(labels),
        format_func=lambda m: labels.get(m, m),
        help=help,
    )


def own_model(form: Form, prefix: str, picker_key: str) -> None:
    """The "model of your own" expander under a page's pickers (app/views/own_model.py); a model
    it takes becomes the form's, and the picker (`picker_key`) shows it."""

    def use(model_id: str) -> None:
        form.put("model", model_id)
        st.session_state.pop(picker_key, None)  # drawn again at the new model

    own_model_input(prefix, form.current("model"), use)


def own_model_caption(model_id: str) -> None:
    """A result's line naming the model of one's own it is for (nothing for a preset)."""
    if line := own_models.caption(model_id):
        st.caption(md_plain(line), help="Given as JSON under 'A model of your own'.")


def gpu_choice(form: Form, where, key: str):
    """The GPU picker: the GPU catalogue (models/hardware.py), each with its memory."""
    gpus = load_gpus()
    return form.choice(
        where,
        "GPU",
        "gpu",
        key,
        choices=list(gpus),
        format_func=lambda g: f"{g} ({gpus[g].memory_gib:g} GiB)" if g in gpus else g,
        help="Specifications and sources: models/data/gpus.csv.",
    )


def cache_key(inp: BaseModel) -> str:
    """A record as the key of the page's cached plan: its JSON, keys sorted, the fields it was
    given only (validated again, the rest take their defaults as before: an engine left unset
    stays the GPU's default, models/serving/builds.py EngineInputs)."""
    return json.dumps(inp.model_dump(mode="json", exclude_unset=True), sort_keys=True)


def link_record(form: Form, leave_out=()) -> BaseModel | None:
    """The inputs as the share link carries them: None if this session never opened the page or
    they are invalid now."""
    if form.key not in st.session_state:
        return None
    return form.record(leave_out=leave_out)[0]


def term_input(key: str, where=st) -> int:
    """The contract term an option's cost is priced over on Serve and Fine-tune, in the scenario's
    bounds (models/scenario.py Term), 36 months to start."""
    bounds = field_bounds(Term, "months")
    return int(
        where.number_input(
            "Term (months)",
            min_value=int(bounds["ge"]),
            max_value=int(bounds["le"]),
            value=36,
            step=12,
            key=key,
            help="the contract term every option is priced over, as on Compare",
        )
    )


def priced_table(data: dict | None, why: str, rows: list[list[str]] | None, captions) -> None:
    """A cost table of the Serve and Fine-tune pages (app/serving_cost.py rows: a header, then
    one row per option) with its captions, or why it was not priced."""
    if data is None or rows is None:
        st.info(md_plain(f"Not priced: {why}."))
        return
    st.dataframe(pd.DataFrame(rows[1:], columns=rows[0]), hide_index=True, width="stretch")
    for line in captions:
        st.caption(md_plain(line))


def pinned_table(frame, hide_index: bool = True, column_config: dict | None = None, **kw) -> None:
    """A table of the Validation page, across its width, its first column (the row's name: a run, a kind,
    an engine) pinned at the left, so it stays in view where the rest scrolls (issue 32: every
    table's key columns visible at 1,280 px)."""
    config = dict(column_config or {})
    first = str(frame.columns[0])
    config[first] = {**(config.get(first) or {}), "pinned": True}
    st.dataframe(frame, hide_index=hide_index, width="stretch", column_config=config, **kw)

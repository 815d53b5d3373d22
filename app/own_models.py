"""A portal session's models of one's own (issue 29, item 4): a JSON file or pasted JSON of
model_presets.csv's fields, checked as the command line checks a `--model` file
(models/model_file.py), registered for the server under its content id (`register_own`: the
file's model_id and a hash of its fields) and kept as the session's own copy.

The server holds a bounded number of such models (models/shapes.py MAX_OWN_MODELS, the least
recently used dropped first), shared by every session only in that the same content has the same
id; `register_session()`, run before every page (app/state.py init), registers the session's
copies again, so a model another session's work pushed out comes back. A share link carries the
fields of every model of one's own it names (app/share_link.py, its `models` section), and a
link's models become the opening session's copies (`restore`, from app/state.py init).
The scenario the pages validate carries the fields of the session's models its workloads name
(`with_definitions`, into the scenario's `own_models`, models/scenario.py), so its JSON and link
reopen anywhere; a scenario's own models, opened or loaded, become the session's copies.

No widgets here (app/views/own_model.py draws them); session state only."""

from __future__ import annotations

import streamlit as st

from app.formatting import si
from models.errors import InputError
from models.model_file import model_from_fields, register_own
from models.shapes import ModelShape, load_presets

#: session key: content id -> the model's fields (the session's own copies), oldest first
KEY = "own_models"
#: most models a session keeps; adding another drops its oldest
MAX_SESSION_MODELS = 8


def _copies() -> dict[str, dict]:
    return st.session_state.setdefault(KEY, {})


def register_session() -> None:
    """Every run: each of the session's models registered again from its copy (idempotent)."""
    for fields in list(_copies().values()):
        try:
            register_own(model_from_fields(fields))
        except InputError:  # a copy was checked when it was added; nothing else puts one there
            continue


def add(shape: ModelShape) -> str:
    """`shape` registered and kept as the session's own; its id (a preset's own fields: the
    preset's id, nothing kept). InputError when it takes a preset's id with other fields."""
    model_id = register_own(shape)
    if model_id in load_presets():
        return model_id
    copies = _copies()
    copies.pop(model_id, None)
    copies[model_id] = shape.model_dump(mode="json")
    while len(copies) > MAX_SESSION_MODELS:
        del copies[next(iter(copies))]
    return model_id


def ids() -> list[str]:
    """The session's models of its own, oldest first."""
    return list(_copies())


def shape(model_id: str) -> ModelShape | None:
    fields = _copies().get(model_id)
    return None if fields is None else ModelShape.model_validate(fields)


def label(model_id: str) -> str:
    """How a model reads in a picker: a preset's name, a model of one's own's name marked so."""
    presets = load_presets()
    if model_id in presets:
        return presets[model_id].name
    own = shape(model_id)
    return f"{own.name} (your own)" if own else model_id


def caption(model_id: str) -> str | None:
    """The line a result carries for a model of one's own (None for a preset)."""
    own = shape(model_id)
    if own is None:
        return None
    active = f", {si(own.params_active)} active" if own.is_moe else ""
    return (
        f"Model of your own: {own.name} ({si(own.params_total)} parameters{active}; id {model_id})."
    )


def _named(data: dict) -> list[str]:
    """The models a scenario dict's workloads name (a one-run `workload` and a portfolio's
    `workloads`), in order."""
    one = data.get("workload")
    many = data.get("workloads")
    rows = [one] if isinstance(one, dict) else []
    rows += [w for w in many if isinstance(w, dict)] if isinstance(many, list) else []
    return list(dict.fromkeys(m for w in rows if isinstance(m := w.get("model"), str)))


def with_definitions(data: dict) -> dict:
    """`data` (the session's scenario dict) with `own_models` holding the fields of each of the
    session's models its workloads name and it does not carry yet, so the scenario validated
    from it (and its JSON, share link, PDF) reopens anywhere (models/scenario.py own_models).
    `data` itself is left as it is; a scenario of presets comes back unchanged."""
    given = data.get("own_models")
    carried = list(given) if isinstance(given, list) else []
    have = set()
    for entry in carried:
        try:
            have.add(register_own(model_from_fields(entry)))
        except InputError:  # the schema names it when the scenario is validated
            continue
    extra = [_copies()[m] for m in _named(data) if m in _copies() and m not in have]
    if not extra or (given is not None and not isinstance(given, list)):
        return data
    return {**data, "own_models": carried + extra}


def restore(entries: list[dict]) -> None:
    """A share link's models (already checked by the link's codec) as the session's own."""
    for fields in entries:
        try:
            add(model_from_fields(fields))
        except InputError:
            continue

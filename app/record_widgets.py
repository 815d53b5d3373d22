"""Inputs for a typed record of the cores (models/serving/plan.py ServeInputs, models/finetune/plan.py
FinetuneInputs) kept as a plain dict in st.session_state under its own key, as the scenario is
(app/state.py): widgets read their value from the dict and write back through on_change, bounds and
"Allowed: ..." help are read from the record's Field()s (as app/schema_widgets.py does for the
scenario), and what the user typed stays in the dict, valid or not, so a bad value is named under
the results and is still in its box."""

from __future__ import annotations

import typing

import streamlit as st
from pydantic import BaseModel, ValidationError

from app.schema_widgets import parse_number
from models.scenario import field_bounds, range_text


class Form:
    """One record's inputs: `model` the pydantic class, `key` the session key of its dict,
    `starting` the values a new session starts with where the record has no default (a model and a
    GPU to show something); the record's own defaults fill the rest."""

    def __init__(self, model: type[BaseModel], key: str, starting: dict):
        self.model, self.key, self.starting = model, key, starting

    # --- the dict in session state

    def data(self) -> dict:
        if self.key not in st.session_state:
            st.session_state[self.key] = dict(self.starting)
        return st.session_state[self.key]

    def get(self, name: str):
        return self.data().get(name)

    def put(self, name: str, value) -> None:
        """Sets one field; None removes it, so the record's default applies."""
        if value is None:
            self.data().pop(name, None)
        else:
            self.data()[name] = value

    def bind(self, name: str, widget_key: str, transform=None):
        """on_change callback copying a widget's value into the dict."""

        def callback():
            value = st.session_state[widget_key]
            self.put(name, transform(value) if transform else value)

        return callback

    # --- what the record says about a field

    def default(self, name: str):
        """The record's default, else the page's starting value."""
        info = self.model.model_fields[name]
        value = info.get_default(call_default_factory=True)
        return self.starting.get(name) if value is None else value

    def current(self, name: str):
        value = self.get(name)
        return self.default(name) if value is None else value

    def _is_float(self, name: str) -> bool:
        annotation = self.model.model_fields[name].annotation
        return float in (annotation, *typing.get_args(annotation))

    def limits(self, name: str, scale: float = 1) -> tuple:
        """(min, max) in the widget's unit; an exclusive bound (gt=0) is given as the bound itself
        (every value the record accepts fits, and the bound gets the record's message)."""
        b = field_bounds(self.model, name)
        low, high = b.get("ge", b.get("gt")), b.get("le", b.get("lt"))
        if scale == 1 and not self._is_float(name):
            return low, high
        return tuple(None if x is None else x / scale for x in (low, high))

    def allowed(self, name: str, scale: float = 1, unit: str = "") -> str:
        text = range_text(self.model, name, scale=scale, unit=unit)
        return text[:1].upper() + text[1:]

    def options(self, name: str) -> list:
        """The choices of a Literal field; an optional one's start with None (left out: the
        record's default)."""
        annotation = self.model.model_fields[name].annotation
        args = typing.get_args(annotation)
        none = [None] if type(None) in args else []
        for arg in (annotation, *args):
            if typing.get_origin(arg) is typing.Literal:
                return none + list(typing.get_args(arg))
        raise TypeError(f"{name} is not a choice")

    # --- widgets

    def number(self, where, label, name, key, *, step, help, scale: float = 1, unit: str = ""):
        """A number input over the field's range, shown divided by `scale`; an int field without a
        scale stays whole."""
        low, high = self.limits(name, scale)
        whole = scale == 1 and not self._is_float(name)
        value = self.current(name)
        shown = int(value) if whole else float(value) / scale
        return where.number_input(
            label,
            min_value=low,
            max_value=high,
            value=shown,
            step=int(step) if whole else float(step),
            format="%d" if whole else "%g",
            key=key,
            on_change=self.bind(name, key, None if scale == 1 else lambda v: v * scale),
            help=f"{help} {self.allowed(name, scale, unit)}.".strip(),
        )

    def optional(self, where, label, name, key, *, help, placeholder, unit: str = ""):
        """An optional number as text (empty: the field left out), read by parse_number; text that
        is not a number is kept as typed, so the record names the field and its range."""

        def store():
            text = st.session_state[key]
            number = parse_number(text)
            self.put(name, None if not text.strip() else (text if number is None else number))

        value = self.get(name)
        if isinstance(value, float) and value.is_integer():
            value = int(value)  # 2000, not 2000.0
        return where.text_input(
            label,
            value="" if value is None else str(value),
            placeholder=placeholder,
            key=key,
            on_change=store,
            help=f"{help} {self.allowed(name, unit=unit)}; empty: {placeholder}.".strip(),
        )

    def choice(self, where, label, name, key, *, help, choices=None, format_func=str):
        choices = list(choices if choices is not None else self.options(name))
        value = self.current(name)
        if value not in choices:  # a value this list does not offer is still shown
            choices.append(value)
        return where.selectbox(
            label,
            choices,
            index=choices.index(value),
            format_func=format_func,
            key=key,
            on_change=self.bind(name, key),
            help=help,
        )

    # --- the record

    def record(self, leave_out=()):
        """(the validated record, []) or (None, [(field, message with its allowed range)])."""
        fields = {k: v for k, v in self.data().items() if v is not None and k not in leave_out}
        try:
            return self.model.model_validate(fields), []
        except ValidationError as exc:
            problems = []
            for err in exc.errors():
                name = str(err["loc"][0]) if err["loc"] else "input"
                msg = err["msg"].removeprefix("Value error, ")
                rng = range_text(self.model, name) if name in self.model.model_fields else ""
                problems.append((name, f"{msg} ({rng})" if rng else msg))
            return None, problems

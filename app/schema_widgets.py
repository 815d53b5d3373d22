"""Inputs for scenario fields whose bounds, starting values and "Allowed: ..." help are read from the
schema (models/scenario.py), so no range is written twice and every value the schema accepts can be
shown. A field is named by its path in the scenario, e.g. "usage.runs"."""

from __future__ import annotations

import math
import re
import typing

import streamlit as st

from app import state
from models.scenario import SECTIONS, field_bounds, range_text


def _field(path: str):
    section, name = path.split(".")
    return SECTIONS[section], name


def _is_float(path: str) -> bool:
    model, name = _field(path)
    annotation = model.model_fields[name].annotation
    return float in (annotation, *typing.get_args(annotation))


def start(path: str):
    """The field's default in the schema, or its first documented example when the default is empty
    (a GPU count when the user switches from a deadline to a count)."""
    model, name = _field(path)
    info = model.model_fields[name]
    value = info.get_default(call_default_factory=True)
    return info.examples[0] if value is None and info.examples else value


def current(path: str):
    """The scenario's value for the field, else where the schema starts it."""
    value = state.get(path)
    return start(path) if value is None else value


def limits(path: str, scale: float = 1) -> tuple:
    """(min, max) for a widget that shows the field divided by `scale` (floats for a float field or
    a scaled one). A widget cannot leave out one end, so an exclusive bound (gt=0) is given as the
    bound itself: every value the schema accepts fits, and the bound itself gets the schema's message.
    """
    bounds = field_bounds(*_field(path))
    low, high = bounds.get("ge", bounds.get("gt")), bounds.get("le", bounds.get("lt"))
    if scale == 1 and not _is_float(path):
        return low, high
    return tuple(None if b is None else b / scale for b in (low, high))


def allowed(path: str, scale: float = 1, unit: str = "") -> str:
    """'Allowed: more than 0 and at most 1,000' from the schema, in the widget's unit."""
    text = range_text(*_field(path), scale=scale, unit=unit)
    return text[:1].upper() + text[1:]


def number(where, label, path, key, *, step: float, help: str, scale: float = 1, unit: str = ""):
    """A float number input for the field, shown divided by `scale` (1e9 with unit 'billion');
    '%g' shows small values such as 0.001 as they are."""
    low, high = limits(path, scale)
    return where.number_input(
        label,
        min_value=low,
        max_value=high,
        value=float(current(path)) / scale,
        step=float(step),
        format="%g",
        key=key,
        on_change=state.bind(path, key, None if scale == 1 else lambda v: v * scale),
        help=f"{help} {allowed(path, scale, unit)}.".strip(),
    )


def slider(where, label: str, path: str, key: str, *, help: str, unit: str = ""):
    """A slider over the field's whole range in steps of one; a float field keeps any value it has
    (a link's 33.3 % stays 33.3)."""
    low, high = limits(path)
    kind = float if _is_float(path) else int
    return where.slider(
        label,
        min_value=low,
        max_value=high,
        value=kind(current(path)),
        step=kind(1),
        format="%g" if kind is float else None,
        key=key,
        on_change=state.bind(path, key),
        help=f"{help} {allowed(path, unit=unit)}.".strip(),
    )


_GROUPED = re.compile(r"[+-]?\d{1,3}([, _]\d{3})+(\.\d*)?")


def parse_number(text: str) -> int | float | None:
    """The number a person means by '1024', '1,024', '1 024', '1e3', '1k' or '1.5k': an int when it
    is whole; None when the text is not a finite number ('1,5' is not: the comma is ambiguous)."""
    t = text.strip().lower()
    if t.endswith("k"):
        t = t[:-1] + "e3"  # parsed as decimal text, so 1.1k is exactly 1100
    if _GROUPED.fullmatch(t.removesuffix("e3")):
        t = re.sub(r"[, _]", "", t)
    try:
        x = float(t)
    except ValueError:
        return None
    if not math.isfinite(x):
        return None
    return int(x) if x.is_integer() else x


def _store_count(path: str, key: str, scale: float = 1) -> None:
    """The number typed (times `scale`); nothing: the field left out (its schema default); otherwise
    the text itself, so the schema names the field and its range under Sizing and what was typed
    stays, in the box and in the scenario."""
    text = st.session_state[key]
    number = parse_number(text)
    if number is not None and scale != 1:
        number = float(number * scale)
    state.put(path, None if not text.strip() else (text if number is None else number))


def _grouped(value, scale: float = 1) -> str:
    """A field's value as its text box shows it: '1,024'; shown divided by `scale`, '2,000' or
    '0.001' (up to 15 significant digits, so 0.1 + 0.2 reads '0.3'); text typed stays as typed."""
    if isinstance(value, str):
        return str(value)
    if scale == 1:
        return f"{value:,}" if isinstance(value, int) else str(value)
    x = value / scale
    return f"{int(x):,}" if float(x).is_integer() else f"{x:,.15g}"


def count(
    where,
    label: str,
    path: str,
    key: str,
    *,
    help: str,
    placeholder: str,
    scale: float = 1,
    unit: str = "",
):
    """A number field as text, read by parse_number (a browser's number box for integers reads 1e3
    as 1, and none groups thousands), shown divided by `scale` (1e9 with unit 'billion') with
    thousands separators. Empty, with `placeholder`, while the scenario leaves the field out."""
    value = state.get(path)
    return where.text_input(
        label,
        value="" if value is None else _grouped(value, scale),
        placeholder=placeholder,
        key=key,
        on_change=_store_count,
        args=(path, key, scale),
        help=f"{help} {allowed(path, scale, unit)}. Written as 1024, 1,024, 1e3 or 1k.".strip(),
    )


def toggle(where, label: str, path: str, key: str, help: str = "") -> bool:
    """An on/off input for a boolean field, its help the schema's description (and `help`)."""
    model, name = _field(path)
    said = (model.model_fields[name].description or "").capitalize()
    return where.toggle(
        label,
        value=bool(current(path)),
        key=key,
        on_change=state.bind(path, key),
        help=" ".join(t for t in (said + "." if said else "", help) if t),
    )

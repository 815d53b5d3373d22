"""The base of the typed results the engine hands to the page, the PDF and the CLI: a pydantic
model with named fields in units, no extra keys. Callers read attributes (`plan.layout.tp`,
`c.recommendation.option`), never string keys."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict


class Record(BaseModel):
    model_config = ConfigDict(extra="forbid")


#: each record class's field names, read once (`construct`)
_FIELD_NAMES: dict[type, frozenset[str]] = {}


def construct(cls: type[Record], values: dict | None = None, /, **fields) -> Record:
    """A record of `cls` from values the engine computed, already of the fields' types, without
    validation: what `cls.model_construct` builds (the same instance state pydantic's own
    constructor leaves: `__dict__`, the fields set, no extras, no private attributes), at a
    quarter of its cost, for the hundreds of outcomes a capacity search builds. Every field must
    be given (else model_construct fills the defaults); tests/test_capacity_bounds.py checks it
    equals model_construct, so a pydantic upgrade that changes the state fails there."""
    data = {**(values or {}), **fields}
    names = _FIELD_NAMES.get(cls)
    if names is None:  # pydantic's `model_fields` is a descriptor costing ~7 µs a read
        names = _FIELD_NAMES[cls] = frozenset(cls.model_fields)
    if data.keys() != names:
        return cls.model_construct(**data)
    out = cls.__new__(cls)
    object.__setattr__(out, "__dict__", data)
    object.__setattr__(out, "__pydantic_fields_set__", set(data))
    object.__setattr__(out, "__pydantic_extra__", None)
    object.__setattr__(out, "__pydantic_private__", None)
    return out


def at_least(floor: float, why: str) -> Callable[[Any], Any]:
    """A field validator (mode="before") that refuses a number under `floor`, saying `why` the
    floor is there: "5e-324 is under one request a day (...)". The field's own ge=floor gives the
    same floor to the schema, the pages' inputs and their "allowed" text; this gives the reason
    (pydantic's message only says "greater than or equal to 1.1574074074074073e-05")."""

    def check(value: Any) -> Any:
        if isinstance(value, int | float) and not isinstance(value, bool) and value < floor:
            raise ValueError(f"{value:g} is under {why}")
        return value

    return check

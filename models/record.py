"""The base of the typed results the engine hands to the page, the PDF and the CLI: a pydantic
model with named fields in units, no extra keys. Callers read attributes (`plan.layout.tp`,
`c.recommendation.option`), never string keys."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict


class Record(BaseModel):
    model_config = ConfigDict(extra="forbid")


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

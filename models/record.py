"""The base of the typed results the engine hands to the page, the PDF and the CLI: a pydantic
model with named fields in units, no extra keys. Callers read attributes (`plan.layout.tp`,
`c.recommendation.option`), never string keys."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Record(BaseModel):
    model_config = ConfigDict(extra="forbid")

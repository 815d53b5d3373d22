"""The base of the typed results the engine hands to the page, the PDF and the CLI.

A `Record` is a pydantic model with named fields in units. During the move from dictionaries to
typed results it also answers `record["field"]` and `record.get("field")`, so a caller not yet
moved keeps working; every caller in this repository reads attributes.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict


class Record(BaseModel):
    model_config = ConfigDict(extra="forbid")

    def __getitem__(self, name: str) -> Any:
        try:
            return getattr(self, name)
        except AttributeError:
            raise KeyError(name) from None

    def get(self, name: str, default: Any = None) -> Any:
        return getattr(self, name, default)

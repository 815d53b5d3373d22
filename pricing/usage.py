"""The scenario's own numbers the cost lines read, apart from the catalogue's figures
(pricing/inputs.py CostInputs.figures, each with a source and a date)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar


@dataclass(frozen=True)
class UsageInputs:
    """The scenario's own numbers the cost lines read (a version 1 scenario's usage: how many
    training runs, or the utilisation of steady use), kept apart from the catalogue's figures
    (`CostInputs.figures`, each with a source and a date): they are the buyer's to set in
    `usage`, never an override. The decision support varies them as it varies the figures, so
    the parameter table (`base_params`) holds both."""

    runs: float
    utilisation_pct: float

    #: each one's unit, as a figure's (the tornado and the flip points print it)
    UNITS: ClassVar[dict[str, str]] = {"runs": "runs", "utilisation_pct": "%"}

    def values(self) -> dict[str, float]:
        return {"runs": self.runs, "utilisation_pct": self.utilisation_pct}


#: the parameter table's keys that are the scenario's usage, not catalogue figures
USAGE_KEYS = frozenset(UsageInputs.UNITS)

"""A named set of saved scenarios: what the portal keeps in the session, what a share link carries
(app/share_link.py, section `side_by_side`) and what is compared side by side
(pricing/side_by_side.py). Names are printable, 1 to MAX_NAME_CHARS characters, unique; a set holds
at most MAX_SAVED scenarios and picks 2 to 3 of them (MIN_SCENARIOS, MAX_SCENARIOS).

Light on purpose (pydantic and the scenario schema only): the CLI's `decode` and `link` read it.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from models.checks import printable
from models.errors import InputError
from models.scenario import Scenario

#: how many scenarios a side-by-side comparison holds
MIN_SCENARIOS, MAX_SCENARIOS = 2, 3
#: how many scenarios a session may keep saved (it compares 2-3 of them)
MAX_SAVED = 6
#: longest scenario name
MAX_NAME_CHARS = 60


def check_name(name: object, field: str = "name") -> str:
    """A scenario's name: printable text (models/checks.py `printable`, as workload and team names),
    1 to MAX_NAME_CHARS characters once runs of white space are one space."""
    if not isinstance(name, str):
        raise InputError(field, "a scenario's name must be text")
    text = " ".join(name.split())
    if not text or len(text) > MAX_NAME_CHARS:
        raise InputError(field, f"a scenario's name takes 1 to {MAX_NAME_CHARS} characters")
    try:
        return printable("a scenario's name", text)
    except ValueError as exc:
        raise InputError(field, str(exc)) from None


def check_count(n: int, field: str = "scenarios") -> None:
    if not MIN_SCENARIOS <= n <= MAX_SCENARIOS:
        raise InputError(
            field,
            f"{n} scenario(s) given; a side-by-side comparison takes "
            f"{MIN_SCENARIOS} to {MAX_SCENARIOS}",
        )


def check_unique(names: Sequence[str], field: str = "scenarios") -> None:
    seen = set()
    for name in names:
        if name in seen:
            raise InputError(field, f"two scenarios are named {name!r}; each needs its own name")
        seen.add(name)


# ------------------------------------------------------------------------------- the saved set


class NamedScenario(BaseModel):
    """One saved scenario and the name the buyer gave it."""

    model_config = ConfigDict(extra="forbid")

    name: str
    scenario: Scenario

    @field_validator("name", mode="before")
    @classmethod
    def _name(cls, v):
        try:
            return check_name(v)
        except InputError as exc:
            raise ValueError(str(exc)) from None


class ScenarioSet(BaseModel):
    """The scenarios saved in a session (at most MAX_SAVED, names unique) and the 2-3 picked to be
    compared side by side (names of saved ones; empty: none picked yet)."""

    model_config = ConfigDict(extra="forbid")

    scenarios: list[NamedScenario] = Field(default_factory=list, max_length=MAX_SAVED)
    picked: list[str] = Field(default_factory=list, max_length=MAX_SCENARIOS)

    @model_validator(mode="after")
    def _consistent(self) -> ScenarioSet:
        names = [s.name for s in self.scenarios]
        try:
            check_unique(names)
            check_unique(self.picked, "picked")
        except InputError as exc:
            raise ValueError(str(exc)) from None
        missing = [p for p in self.picked if p not in names]
        if missing:
            raise ValueError(f"picked names a scenario that is not saved: {missing[0]!r}")
        return self

    def named(self, name: str) -> Scenario | None:
        return next((s.scenario for s in self.scenarios if s.name == name), None)

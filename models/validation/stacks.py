"""The software stack classes a scenario can choose (`Execution.software_stack`): each one's name and
what it covers, read from models/data/validation/stack_classes.csv (the classes the held-out runs
were sorted into, docs/reference/software-stacks.md), for the classes the step-time model defines
(constants.SOFTWARE_STACKS: what each does differently)."""

from __future__ import annotations

import csv
import functools
import pathlib

from pydantic import ConfigDict

from models import DATA_DIR
from models.constants import DEFAULT_SOFTWARE_STACK, SOFTWARE_STACKS
from models.record import Record

DATA_FILE = DATA_DIR / "validation" / "stack_classes.csv"


class StackClass(Record):
    model_config = ConfigDict(extra="forbid", frozen=True)

    stack_id: str
    name: str
    what_it_covers: str
    #: the default: what a competent team gets today (constants.DEFAULT_SOFTWARE_STACK)
    default: bool


@functools.lru_cache(maxsize=1)
def load_stacks(path: pathlib.Path = DATA_FILE) -> dict[str, StackClass]:
    """The selectable classes in constants.SOFTWARE_STACKS order; each must have a row in the file
    (a class the model runs but cannot name is an error, not a blank label)."""
    with path.open(newline="") as f:
        rows = {r["stack_class"]: r for r in csv.DictReader(f)}
    missing = [s for s in SOFTWARE_STACKS if s not in rows]
    if missing:
        raise ValueError(f"{path.name} has no row for the stack classes {missing}")
    return {
        s: StackClass(
            stack_id=s,
            name=rows[s]["name"],
            what_it_covers=rows[s]["what_it_covers"],
            default=s == DEFAULT_SOFTWARE_STACK,
        )
        for s in SOFTWARE_STACKS
    }

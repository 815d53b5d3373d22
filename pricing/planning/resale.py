"""Hardware resale at its own age: an expansion phase, a refresh, or hardware bought for later
work is sold at the resale curve's figure for its age (residual_values.csv), not the base's."""

from __future__ import annotations

import dataclasses

from models.numbers import on_day
from models.units import DAYS_PER_YEAR
from pricing.catalogue.loader import Catalogue
from pricing.inputs import CostInputs


def age_at_term_end(inp: CostInputs, ready_day: float, cat: Catalogue) -> float:
    """Years from `ready_day` to the term end, no more than the resale curve's last age."""
    return min(max(inp.term_days - ready_day, 0.0) / DAYS_PER_YEAR, cat.residual_last_age_years)


def aged(inp: CostInputs, ready_day: float, cat: Catalogue) -> CostInputs:
    """`inp` with its resale at the age of hardware accepted on `ready_day` at term end
    (residual_values.csv, as pricing/inputs.py prices the base), unless the figure is overridden."""
    why = f"an expansion phase accepted on {on_day(ready_day)}"
    return with_resale_age(inp, age_at_term_end(inp, ready_day, cat), cat, why)


def aged_years(inp: CostInputs, age: float, cat: Catalogue, ready_day: float) -> CostInputs:
    """`inp` with its resale at `age` years (residual_values.csv): hardware sold at a refresh
    (module docstring), accepted on `ready_day`; unless the figure is overridden."""
    return with_resale_age(
        inp, age, cat, f"hardware accepted on {on_day(ready_day)}, sold at its refresh"
    )


def with_resale_age(inp: CostInputs, age: float, cat: Catalogue, why: str) -> CostInputs:
    """`inp` with residual_value_pct from residual_values.csv at `age` years (`why` says whose
    age), unless the buyer overrode the figure."""
    figures = dict(inp.figures)
    old = figures["residual_value_pct"]
    if not old.overridden:
        figures["residual_value_pct"] = dataclasses.replace(
            old,
            value=cat.residual_value_pct(age),
            source=f"residual_values.csv at {age:.1f} years ({why})",
        )
    return dataclasses.replace(inp, figures=figures, resale_age_years=age)

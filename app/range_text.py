"""The words for figures carried over a range (pricing/ranges.py): the resale value an owned
cluster is sold at, with its sourced range, for Compare, the Guide, the text report and the PDF;
and the range cell of the Assumptions page. Reads the comparison's typed `Assumption` fields."""

from __future__ import annotations

from app.formatting import usd
from models.options import ids_where
from pricing.results import Assumption, Comparison

#: the options whose hardware is sold at the term's end (the registry's owned flag)
_OWNED_IDS = ids_where(owned=True)


def _pct(x: float) -> str:
    return f"{x:.0f} %"


def range_cell(a: Assumption) -> str:
    """'range 25–65 %: <where it comes from>. ' before a ranged figure's source; '' without one."""
    if a.range_low is None or a.range_high is None:
        return ""
    if a.unit == "%":
        span = f"{a.range_low:.3g}–{a.range_high:.3g} %"
    elif a.unit == "ratio":
        span = f"{a.range_low:.2f}–{a.range_high:.2f}×"
    else:
        span = f"{a.range_low:g}–{a.range_high:g} {a.unit}"
    return f"Range {span}: {a.range_source}. "


def resale_line(c: Comparison) -> str | None:
    """How the owned hardware's resale is valued: 'Resale at the term's end: Build $12.4M, at
    53 % of the hardware's price at its age then, within a sourced range of 32–73 % at that age
    (…); the tornado and the Monte Carlo carry that range.' None when no owned option sells
    hardware or the comparison used no resale figure."""
    a = next((a for a in c.assumptions if a.key == "residual_value_pct"), None)
    owned = [
        o for o in c.options if o.available and o.residual_value_usd and o.option in _OWNED_IDS
    ]
    if a is None or a.value is None or not owned:
        return None
    sold = ", ".join(f"{o.label} {usd(o.residual_value_usd)}" for o in owned)
    head = (
        f"Resale at the term's end: {sold}, at {_pct(a.value)} of the GPUs' price at their age "
        "then (residual_values.csv; the host and fabric lose value at their own rates)"
    )
    if a.overridden:
        return head + " (your figure)."
    if a.range_low is None or a.range_high is None:
        return head + "."
    return (
        f"{head}, within a sourced range of {a.range_low:.0f}–{_pct(a.range_high)} at that "
        f"age ({a.range_source}); the tornado and the Monte Carlo carry that range."
    )

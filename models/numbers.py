"""How numbers are written, one rule per kind: money, prices, durations, points in time, counts,
percentages, ratios and sizes. Every layer's text uses these (the engine's recommendation and flip
points, the terminal report, the portal, the PDF); app/formatting.py re-exports them."""

from __future__ import annotations

import math

#: the one rule for money (`usd`): from this many dollars (after rounding to the cent) amounts are
#: shown in millions with two decimals ("$0.87M", "$1.69M"), below it in whole dollars ("$36,688"),
#: so a table of cluster totals reads in one unit and small lines stay exact
MILLIONS_FROM_USD = 100_000
#: what a figure that does not exist (NaN, infinity) prints as
NA = "n/a"
#: prefixes of a unit (988 GB) and suffixes of a bare count (405 B parameters, 15 T tokens)
_UNIT_PREFIXES = ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"))
_COUNT_SUFFIXES = ((1e15, "P"), (1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "k"))
#: plurals that are not the word plus "s"
_PLURALS = {"switch": "switches", "GPU-hour": "GPU-hours", "person": "people", "box": "boxes"}


def _bad(x: float | None) -> bool:
    return x is not None and not math.isfinite(x)


def si(x: float, unit: str = "") -> str:
    """A count with a suffix ('405 B', '15 T', '1.2 M'), or a quantity with an SI prefix on its unit
    ('988 GB', '1.5 kW'): three significant digits; NaN -> 'n/a'."""
    if _bad(x):
        return NA
    for div, suffix in _UNIT_PREFIXES if unit else _COUNT_SUFFIXES:
        if abs(x) >= div:
            return f"{x / div:.3g} {suffix}{unit}"
    return f"{x:.3g} {unit}".rstrip()


def gib(x: float | None) -> str:
    """A size in GiB: '920 GiB', '1.5 TiB' from 1,024 GiB up (binary units, as memory is sold)."""
    if x is None or _bad(x):
        return NA
    return f"{x / 1024:,.1f} TiB" if abs(x) >= 1024 else f"{x:,.0f} GiB"


def usd(x: float | None) -> str:
    """Money, one rule everywhere: '$0.87M' (millions, two decimals) from MILLIONS_FROM_USD up,
    '$36,688' (whole dollars) below; '-$1.20M' when negative; '-' for none, 'n/a' for NaN."""
    if x is None:
        return "-"
    if _bad(x):
        return NA
    whole = round(abs(x))
    sign = "-" if x < 0 and whole else ""
    if whole >= MILLIONS_FROM_USD:
        return f"{sign}${abs(x) / 1e6:,.2f}M"
    return f"{sign}${whole:,}"


def usd_rate(x: float | None, per: str = "") -> str:
    """A price per unit, to the cent: '$11.34', or '$11.34 per GPU-hour' with `per`."""
    if x is None:
        return "-"
    if _bad(x):
        return NA
    sign = "-" if x < 0 and round(abs(x), 2) else ""
    return f"{sign}${abs(x):,.2f}" + (f" per {per}" if per else "")


def days(x: float | None) -> str:
    """A duration: '7.5 days' below ten days (one decimal), '75 days' from ten up; 'n/a' for NaN.
    A point in time is `on_day` ('day 8'), never this."""
    if x is None:
        return "-"
    if _bad(x):
        return NA
    return f"{x:,.0f} days" if abs(x) >= 10 else f"{x:,.1f} days"


def on_day(x: float | None) -> str:
    """A point in time counted from the start of the term: 'day 8' is the day in which day 7.5
    falls (rounded up; day 0 is the start)."""
    if x is None:
        return "-"
    if _bad(x):
        return NA
    return f"day {math.ceil(x - 1e-9):,}"


def plural(n: float, word: str) -> str:
    """'1 node', '2 nodes', '1 switch', '3 switches', '1,024 GPUs' (n shown whole, with commas)."""
    if _bad(n):
        return f"{NA} {_PLURALS.get(word, word + 's')}"
    text = f"{n:,.0f}"
    return f"{text} {word}" if text in ("1", "-1") else f"{text} {_PLURALS.get(word, word + 's')}"


def gpus(n: float) -> str:
    """'1 GPU', '8 GPUs', '16,384 GPUs'."""
    return plural(n, "GPU")


def pct(x: float | None, decimals: int = 0) -> str:
    """A fraction as a percentage with a space before the sign, as the README writes it: 0.83 ->
    '83 %', pct(0.147, 1) -> '14.7 %'; '-' for none, 'n/a' for NaN."""
    if x is None:
        return "-"
    if _bad(x):
        return NA
    text = f"{100 * x:,.{decimals}f}"
    return ("0" if float(text.replace(",", "")) == 0 else text) + " %"


def ratio(x: float | None) -> str:
    """A ratio of two like quantities: '2.84×'; '-' for none, 'n/a' for NaN."""
    if x is None:
        return "-"
    if _bad(x):
        return NA
    return f"{x:,.2f}×"


def band(low: float | None, high: float | None) -> str:
    """' (likely 78-161 days)' from a training-days band, or '' when there is none."""
    if low is None or high is None:
        return ""
    return (
        f" (likely {low:,.0f}–{high:,.0f} days)"
        if high >= 10
        else f" (likely {low:,.1f}–{high:,.1f} days)"
    )


def day_count(x: float) -> str:
    """'1 day', '60 days' (whole days)."""
    n = f"{x:,.0f}"
    return f"{n} day" if n == "1" else f"{n} days"


def mid_sentence(label: str) -> str:
    """A label as it reads inside a sentence: its first word lowercased unless that word has a
    capital after its first letter ('GPU server price', 'PUE' and 'InfiniBand switch price' stay
    as they are; 'Cloud on-demand price' reads 'cloud on-demand price')."""
    first, space, rest = label.partition(" ")
    if first[1:] != first[1:].lower():
        return label
    return f"{first[:1].lower()}{first[1:]}{space}{rest}"


def in_unit(value: float, unit: str) -> str:
    """A flip value in its unit, written by models/numbers: '$2.06 per GPU-hour', '$0.15M per
    year', '2.84×' for a ratio (a multiplier), '6.85 runs', '12 % a year'."""
    if unit.startswith("USD"):
        per = unit.split("/", 1)[1] if "/" in unit else ""
        money = usd_rate(value) if abs(value) < 1_000 else usd(value)
        return f"{money} per {per}" if per else money
    if unit == "ratio":
        return ratio(value)
    return f"{value:,.3g} {UNIT_WORDS.get(unit, unit)}"


#: units said in words in a sentence
UNIT_WORDS = {"%/year": "% a year"}

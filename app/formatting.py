"""Number formatting shared by the terminal tables, the portal and the PDF; and text made safe to
show inside the portal's markdown (md_plain, md_code)."""

from __future__ import annotations

import math
import re

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


#: every ASCII punctuation character (CommonMark lets each be backslash-escaped), so none can start
#: emphasis, a link, code, a heading, a list, a table, HTML, KaTeX ($) or a directive (:red[...]);
#: except "_" between two letters or digits, which cannot (deadline_days stays as it is)
_MD_PUNCT = re.compile(r"[!-/:-@\[-^`{-~]|(?<![^\W_])_|_(?![^\W_])")
#: where a zero-width space goes so that text Streamlit rewrites after parsing stays text: the
#: autolinks (https://..., www.x, a@b.c) and the :emoji: / :material/icon: shortcodes. A backslash
#: is no help there: those rewrites read the text after its escapes are resolved.
_LINKISH = re.compile(r"(?<=:)|(?=@)|(?<=www)(?=\.)", re.IGNORECASE)
ZWSP = "\u200b"
#: longest user-controlled name (an override key, a field path) quoted back on a page
MAX_NAME_CHARS = 80


def deadline_status(met: bool | None, days_past: float | None) -> str:
    """An option against the deadline (OptionResult.meets_deadline, days_past_deadline): 'met',
    '60 days late', 'no run in the term', or '-' without a deadline."""
    if met is None:
        return "-"
    if met:
        return "met"
    return "no run in the term" if days_past is None else f"{day_count(days_past)} late"


def deadline_miss(label: str, deadline: float, first_day: float | None, days_past) -> str:
    """'Build misses the 180-day deadline: its first run ends on day 240, 60 days late
    (provisioning included)' for an option whose meets_deadline is False."""
    if first_day is None or days_past is None:
        return f"{label} misses the {deadline:g}-day deadline: no run ends within the term"
    return (
        f"{label} misses the {deadline:g}-day deadline: its first run ends on day "
        f"{first_day:,.0f}, {day_count(days_past)} late (provisioning included)"
    )


def day_count(x: float) -> str:
    """'1 day', '60 days' (whole days)."""
    n = f"{x:,.0f}"
    return f"{n} day" if n == "1" else f"{n} days"


def deadline_sizing(deadline: float, budget: float, label: str, ready_day: float) -> str:
    """How a deadline sized the cluster (TrainingSummary.train_days_budget, deadline_sized_for)."""
    return (
        f"Sized for the {deadline:g}-day deadline from the decision: {label}, the option that can "
        f"deliver first, is ready on day {ready_day:,.0f}, leaving {budget:,.1f} days to train"
    )


def _one_line(text: object, limit: int | None) -> str:
    """Printable on one line (newlines, tabs, control and format characters become spaces), and
    clipped to `limit` characters with an ellipsis."""
    line = "".join(ch if ch.isprintable() else " " for ch in str(text))
    if limit is not None and len(line) > limit:
        line = line[: limit - 1] + "…"
    return line


def md_plain(text: object, limit: int | None = None) -> str:
    """Text shown literally, on one line, inside Streamlit markdown (st.error, st.markdown ...):
    every ASCII punctuation character is backslash-escaped and a zero-width space breaks up URLs,
    e-mail addresses and :shortcodes:, so user-controlled text in a message (a provider name, a
    link's error) can neither format nor link nor inject anything."""
    line = _LINKISH.sub(ZWSP, _one_line(text, limit))
    return _MD_PUNCT.sub(lambda m: "\\" + m.group(), line)


def md_code(text: object, limit: int = MAX_NAME_CHARS) -> str:
    """A user-controlled name (an override key, a field path) as an inline code span: one line,
    clipped to `limit` characters, its backticks replaced by quotes so the span cannot be closed
    early. Inside a code span markdown, links, KaTeX and shortcodes are all plain text."""
    line = _one_line(text, limit).replace("`", "'")
    return f"` {line} `"  # CommonMark strips one space each side: the name is shown as it is

"""Number formatting shared by the terminal tables, the portal and the PDF; and text made safe to
show inside the portal's markdown (md_plain, md_code)."""

from __future__ import annotations

import re


def si(x: float, unit: str = "") -> str:
    """1.2 M, 405 B, 15 T ..."""
    for div, suffix in ((1e15, " P"), (1e12, " T"), (1e9, " B"), (1e6, " M"), (1e3, " k")):
        if abs(x) >= div:
            return f"{x / div:.3g}{suffix}{unit}"
    return f"{x:.3g} {unit}".rstrip()


def usd(x: float | None) -> str:
    """$12.34M above a million, $123,456 below; '-' for none."""
    if x is None:
        return "-"
    sign = "-" if x < 0 else ""
    return f"{sign}${abs(x) / 1e6:,.2f}M" if abs(x) >= 1e6 else f"{sign}${abs(x):,.0f}"


def usd_rate(x: float | None) -> str:
    return "-" if x is None else f"${x:,.2f}"


def days(x: float | None) -> str:
    return "-" if x is None else f"{x:,.0f} days" if x >= 10 else f"{x:,.1f} days"


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

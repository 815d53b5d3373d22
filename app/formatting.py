"""Number formatting shared by the terminal tables, the portal and the PDF."""

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


_MD_SPECIAL = re.compile(r"([\\`*\[\]|~])")  # "_" stays: intraword, it formats nothing


def md_plain(text: object) -> str:
    """Text shown literally inside Streamlit markdown: HTML angle brackets become entities and
    emphasis, code, link and table punctuation is backslash-escaped, so user-controlled text (a key from a share link,
    a provider name) can neither format nor inject anything."""
    escaped = str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _MD_SPECIAL.sub(r"\\\1", escaped)

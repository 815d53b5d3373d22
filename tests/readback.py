"""Reading a shown number back: the portal writes numbers with the shared rules (models/numbers.py),
so a test that needs the number parses the text, and fails when it is not written by the rule."""

from __future__ import annotations

import re

from models.numbers import days


def number(text: str, unit: str = "") -> float:
    """'22 days' -> 22.0 (unit 'days'), '7.5 days' -> 7.5, '1,024' -> 1024.0, '83.0 %' -> 83.0
    (unit '%'), '141 GiB' -> 141.0 (unit 'GiB'). Fails when the text is not one number in `unit`,
    or (days) when the rule would write that number otherwise ('21.8 days' is not the rule's)."""
    suffix = f" {re.escape(unit)}" if unit else ""
    m = re.fullmatch(rf"(-?\d{{1,3}}(?:,\d{{3}})*(?:\.\d+)?){suffix}", text)
    assert m, f"{text!r} is not a number written in {unit or 'no unit'}"
    x = float(m.group(1).replace(",", ""))
    if unit == "days":
        assert days(x) == text, f"{text!r} is not written by the days rule ({days(x)!r})"
    return x

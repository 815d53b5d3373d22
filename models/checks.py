"""Argument checks shared by the core's plain-number functions, and the one check of the characters
in a name a user gives (`printable`): each raises ValueError naming the argument, so a caller
(CLI, portal) can tell the user which input to change."""

from __future__ import annotations

import math
import numbers


def real(name: str, value: object) -> float:
    """`value` as a finite float."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a real number, got {value!r}")
    number = float(value)
    if not math.isfinite(number):
        raise ValueError(f"{name} must be finite, got {value!r}")
    return number


def positive(name: str, value: object) -> float:
    number = real(name, value)
    if number <= 0.0:
        raise ValueError(f"{name} must be positive, got {value!r}")
    return number


def non_negative(name: str, value: object) -> float:
    number = real(name, value)
    if number < 0.0:
        raise ValueError(f"{name} must be zero or positive, got {value!r}")
    return number


def positive_or_inf(name: str, value: object) -> float:
    """Like `positive`, but +inf is allowed (e.g. an MTBF for a cluster that never fails)."""
    if isinstance(value, numbers.Real) and not isinstance(value, bool) and float(value) == math.inf:
        return math.inf
    return positive(name, value)


def count(name: str, value: object, minimum: int = 1) -> int:
    """`value` as an int of at least `minimum`."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {value!r}")
    return int(value)


def printable(name: str, value: str) -> str:
    """`value` unchanged when every character in it is printable (`str.isprintable`): no C0 or C1
    control character, DEL, line or paragraph separator, and no format character, such as the
    bidi embeddings and overrides U+202A-U+202E and isolates U+2066-U+2069 that reorder the text
    around them. A name is printed in a terminal, a table, a PDF and a chart, where a newline
    splits a row, ESC starts a terminal command and U+202E reverses what follows."""
    bad = next((ch for ch in value if not ch.isprintable()), None)
    if bad is not None:
        raise ValueError(
            f"{name} must be printable text, without control or formatting characters "
            f"(it holds U+{ord(bad):04X})"
        )
    return value

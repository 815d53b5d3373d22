"""Scenario problems with the owned cluster's plan said the way a person fixes them: the schema's
paths and bounds (`options.build_expansions.0.month`, "less than or equal to 59") become the
field as the Workload page names it (`options.build_expansions[0].month`) and its allowed range
in this scenario's term; the refresh age gets its range too. The Workload page shows its
messages through these functions and the share link its refusals, so both say the same.

No Streamlit here: the CLI imports the share link, which imports this module.
"""

from __future__ import annotations

import re

from models.scenario import REFRESH_MONTHS, Expansion, Term, field_bounds, range_text

EXPANSION_FIELD = "options.build_expansions"
REFRESH_FIELD = "options.build_refresh_after_months"
_PHASE = re.compile(re.escape(EXPANSION_FIELD) + r"(?:\.(\d+)|\[(\d+)\])\.(\w+)")


def _term(months) -> int | None:
    """The term in months when it is one the schema accepts, else None (its range unknown)."""
    bounds = field_bounds(Term, "months")
    ok = isinstance(months, int) and not isinstance(months, bool)
    return months if ok and bounds["ge"] <= months <= bounds["le"] else None


def refresh_range(months) -> str:
    """'allowed: 12 to 35 months in a 36-month term, or empty for no refresh' (REFRESH_MONTHS,
    the upper end cut to the term less a month)."""
    low, high = REFRESH_MONTHS
    term = _term(months)
    if term is None:
        return f"allowed: {low} to {high} months, less than the term, or empty for no refresh"
    return f"allowed: {low} to {min(high, term - 1)} months in a {term}-month term, or empty for no refresh"


def name_problem(field: str, message: str, months) -> tuple[str, str]:
    """One (field, message) of explain_validation_error as the Workload page says it: an
    expansion phase's field as `options.build_expansions[i].field` with the Expansion bounds
    (the month within a term of `months`), the refresh age with its range; others unchanged."""
    if field == REFRESH_FIELD:
        if message.startswith("Input should"):  # the schema's own type message: add the range
            message = f"{message} ({refresh_range(months)})"
        return field, message
    m = _PHASE.fullmatch(field)
    if m is None:
        return field, message
    i, name = m.group(1) or m.group(2), m.group(3)
    field = f"{EXPANSION_FIELD}[{i}].{name}"
    if name in Expansion.model_fields and "allowed" not in message and "from 0 to" not in message:
        rng = range_text(Expansion, name)
        term = _term(months)
        if name == "month" and term is not None:
            rng = f"allowed: a whole number from 0 to {term - 1}, within the term"
        message = f"{message} ({rng})" if rng else message
    return field, message


def named_problems(problems: list[tuple[str, str]], months) -> list[tuple[str, str]]:
    """Every problem, those of the owned cluster's plan named by name_problem."""
    return [name_problem(f, msg, months) for f, msg in problems]


def expansion_problems(problems: list[tuple[str, str]], months) -> list[tuple[str, str]]:
    """The problems with the expansion phases, each naming `options.build_expansions[i].field`
    and its allowed range (the schema's Expansion bounds; the month also within the term)."""
    return [name_problem(f, m, months) for f, m in problems if f.startswith(EXPANSION_FIELD)]


def refresh_problems(problems: list[tuple[str, str]], months) -> list[tuple[str, str]]:
    """The problems with the hardware refresh age, each with its allowed range."""
    return [name_problem(f, m, months) for f, m in problems if f == REFRESH_FIELD]

"""What every sub-command of `clusterplan` shares: the parser class and its argument types, the
one-line usage error and the printing that keeps output bounded and strict, and the lazy handles on
the engine (app/cli/__init__.py lists the sub-commands).
"""

from __future__ import annotations

import argparse
import datetime as dt
import difflib
import importlib
import json
import math
import re
import unicodedata
from typing import Any

from pydantic import ValidationError

from models.errors import InputError


class _Lazy:
    """A module imported on first use: `--help`, `decode` and `link` never load the engine, pandas
    or plotly (tests/test_cli_start.py checks; bench/bench_cli_start.py times them)."""

    def __init__(self, name: str):
        self._name = name

    def __getattr__(self, attr: str) -> Any:
        return getattr(importlib.import_module(self._name), attr)


exports = _Lazy("app.exports")
report_text = _Lazy("app.report_text")
scenario_files = _Lazy("app.scenario_files")
share_link = _Lazy("app.share_link")
scenario_model = _Lazy("models.scenario")


def compare(*args, **kwargs):
    """pricing.engine.compare, imported when a command first compares."""
    return importlib.import_module("pricing.engine").compare(*args, **kwargs)


def load_catalogue(*args, **kwargs):
    return importlib.import_module("pricing.catalogue.loader").load_catalogue(*args, **kwargs)


def plan_training(*args, **kwargs):
    return importlib.import_module("models.training.plan").plan_training(*args, **kwargs)


def explain_validation_error(exc: ValidationError):
    return scenario_model.explain_validation_error(exc)


#: longest field path (an override's key is part of it) quoted back in an error
MAX_KEY_CHARS = 80
#: longest unbroken run of characters printed whole: a long file path still fits, a 200 KB key not
MAX_WORD_CHARS = 256
#: longest line printed; the longest message of our own (an unknown override, followed by the list
#: of overridable names) is about 1,200 characters
MAX_LINE_CHARS = 2000
SUFFIXES = {"k": 1e3, "m": 1e6, "b": 1e9, "g": 1e9, "t": 1e12, "p": 1e15}


class UsageError(Exception):
    """One-line input error; exit status 2."""


def one_line(text: object, limit: int = MAX_LINE_CHARS) -> str:
    """`text` made safe to print as one line of a terminal; nothing in it is interpreted.

    Guarantees: no character of Unicode category C is left (C0 and C1 controls, DEL, format
    characters such as bidi overrides and zero-width spaces, lone surrogates): each becomes a space;
    every run of whitespace (line and paragraph separators too) becomes one space, and none is left
    at either end; an unbroken run longer than MAX_WORD_CHARS is cut to that length, ending in "…";
    the result is at most `limit` characters, ending in "…" when cut. Text with none of these
    (ordinary messages, file names, field paths) comes back unchanged.
    """
    clean = "".join(" " if unicodedata.category(ch)[0] == "C" else ch for ch in str(text))
    words = (
        w if len(w) <= MAX_WORD_CHARS else w[: MAX_WORD_CHARS - 1] + "…" for w in clean.split()
    )
    line = " ".join(words)
    return line if len(line) <= limit else line[: limit - 1] + "…"


def printable(text: str) -> str:
    """One line of a table: like `one_line`, but runs of spaces (the columns) are kept."""
    clean = "".join(" " if unicodedata.category(ch)[0] == "C" else ch for ch in text).rstrip()
    return clean if len(clean) <= MAX_LINE_CHARS else clean[: MAX_LINE_CHARS - 1] + "…"


def _not_finite(value: Any, path: str = "") -> str | None:
    """The path of the first number in `value` that is not finite (NaN, ±inf), or None."""
    if isinstance(value, float) and not math.isfinite(value):
        return path or "the value"
    if isinstance(value, dict):
        items = ((f"{path}.{k}" if path else str(k), v) for k, v in value.items())
    elif isinstance(value, list | tuple):
        items = ((f"{path}[{i}]", v) for i, v in enumerate(value))
    else:
        return None
    return next((p for k, v in items if (p := _not_finite(v, k)) is not None), None)


def print_json(prog: str, data: Any, **kwargs: Any) -> None:
    """`data` printed as strict JSON (what --json promises: no NaN or Infinity, which Python's
    json would write and other readers refuse); a number that is not finite prints nothing and is
    a one-line error naming its key."""
    bad = _not_finite(data)
    if bad is not None:
        raise UsageError(
            f"{prog}: --json: {one_line(bad, MAX_KEY_CHARS)} is not a finite number; "
            "nothing printed"
        )
    print(json.dumps(data, indent=2, allow_nan=False, **kwargs))


class Parser(argparse.ArgumentParser):
    def error(self, message: str):  # argparse's default prints the whole usage first
        raise UsageError(f"{self.prog}: {message}")


def number(text: str) -> float:
    """A positive-or-not real number, with an optional K/M/B/T suffix: 15T, 405B, 1e12."""
    t = text.strip().lower().replace("_", "").replace(",", "")
    scale = 1.0
    if t and t[-1] in SUFFIXES:
        t, scale = t[:-1], SUFFIXES[t[-1]]
    try:
        value = float(t) * scale
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number (e.g. 1e12 or 15T)") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number")
    return value


def whole(text: str) -> int:
    value = number(text)
    if value != int(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number")
    return int(value)


def term_months(text: str) -> int:
    """A contract term in whole months, within the scenario's bounds (models/scenario.py Term)."""
    from models.scenario import Term, field_bounds  # only the commands that price need it

    value = whole(text)
    bounds = field_bounds(Term, "months")
    lo, hi = int(bounds["ge"]), int(bounds["le"])
    if not lo <= value <= hi:
        raise argparse.ArgumentTypeError(f"{value} months is not {lo} to {hi}")
    return value


def add_term_argument(parser: argparse.ArgumentParser, what: str) -> None:
    """`--term-months`: the term `what` is priced over on every option (default 36)."""
    parser.add_argument(
        "--term-months",
        type=term_months,
        default=36,
        metavar="N",
        help=f"the term {what} is priced over on every option, months (default 36)",
    )


def model_name(text: str) -> str:
    """A model preset's id, or a JSON file of a model's fields (models/model_file.py), read,
    checked and registered for this run under its own id."""
    from models.shapes import load_presets

    if not text.endswith(".json"):
        if text not in load_presets():
            close = difflib.get_close_matches(text.lower(), list(load_presets()), n=3, cutoff=0.6)
            raise argparse.ArgumentTypeError(
                f"{text[:60]!r} is not a model preset nor a .json model file; "
                + (f"closest: {', '.join(close)}; " if close else "")
                + "presets: "
                + ", ".join(load_presets())
            )
        return text
    from models.errors import InputError
    from models.model_file import read_model_file, register

    try:
        return register(read_model_file(text))
    except InputError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


MODEL_HELP = "model preset id, or a JSON file of model_presets.csv's fields (a model of your own)"


def iso_date(text: str) -> dt.date:
    """A calendar date written YYYY-MM-DD."""
    try:
        if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text.strip()):
            return dt.date.fromisoformat(text.strip())
    except ValueError:
        pass
    raise argparse.ArgumentTypeError(f"{text!r} is not a date written YYYY-MM-DD")


def given(args: argparse.Namespace, flags: dict[str, str], *, aliases: frozenset = frozenset()):
    """The core record's fields from the flags the user gave (`flags`: record field ->
    command-line option, as `sized` names them; argparse leaves the flags not given None, so the
    record's defaults apply). `aliases`: fields named by another field's flag in `sized`'s
    messages only (serve's `batch` is its `--users`), not read from it."""
    values = {
        field: getattr(args, flag.removeprefix("--").replace("-", "_"))
        for field, flag in flags.items()
        if field not in aliases
    }
    return {k: v for k, v in values.items() if v is not None}


def sized(command: str, flags: dict[str, str], size):
    """`size()` (build a core's input record and plan it), its refusal restated as one line
    naming the flag (`flags`: record field -> command-line option)."""
    try:
        return size()
    except ValidationError as exc:
        err = exc.errors()[0]
        name = str(err["loc"][0]) if err["loc"] else ""
        msg = err["msg"].removeprefix("Value error, ")
        raise UsageError(
            f"clusterplan {command}: {flags.get(name, name or 'input')}: {one_line(msg)}"
        ) from None
    except InputError as exc:
        raise UsageError(
            f"clusterplan {command}: {flags.get(exc.field, exc.field)}: {one_line(exc)}"
        ) from None


def priced(price):
    """(what `price()` returns, "") or (None, why the engine refuses it: the field and its
    message): a cost a command prints beside its plan without failing the command."""
    from models.scenario import explain_validation_error

    try:
        return price(), ""
    except InputError as exc:
        return None, f"{exc.field}: {exc}"
    except ValidationError as exc:
        return None, ": ".join(explain_validation_error(exc)[0])


def refused_input(prog: str, path: str, exc: InputError) -> UsageError:
    """The one-line usage error for a scenario file the engine refuses: the file, the field (cut
    to MAX_KEY_CHARS) and the engine's message."""
    return UsageError(f"{prog}: {path}: {one_line(exc.field, MAX_KEY_CHARS)}: {exc}")

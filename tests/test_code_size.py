"""Rooms a newcomer can hold (issue 28): no file over MAX_FILE_LINES and no function over
MAX_FUNCTION_LINES in app/, models/ and pricing/. A file or function let over the limit for a
while is listed with its size when listed: it may shrink (then lower its entry, or drop it once
under the limit) but never grow. The lists are empty since 2026-12-01. ruff's complexity rules
(C901, PLR0912, PLR0915 in pyproject.toml) hold the branches and statements the same way."""

from __future__ import annotations

import ast
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[1]
MAX_FILE_LINES = 700
MAX_FUNCTION_LINES = 80

#: files over the limit, and their lines when listed (none since 2026-12-01: keep it so)
FILES_OVER: dict[str, int] = {}
#: functions over the limit, and their lines when listed (none since 2026-12-01: keep it so)
FUNCTIONS_OVER: dict[str, int] = {}


def sizes(root: pathlib.Path = ROOT) -> tuple[dict[str, int], dict[str, int]]:
    """({file: lines}, {file:function: lines}) of every file and function in app/, models/ and
    pricing/ (a function's lines from its `def` to its last line; nested ones count on their own
    too)."""
    files, functions = {}, {}
    for package in ("app", "models", "pricing"):
        for path in sorted((root / package).rglob("*.py")):
            text = path.read_text()
            rel = path.relative_to(root).as_posix()
            files[rel] = len(text.splitlines())
            for node in ast.walk(ast.parse(text)):
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                    key = f"{rel}:{node.name}"
                    lines = node.end_lineno - node.lineno + 1
                    functions[key] = max(lines, functions.get(key, 0))
    return files, functions


def over(measured: dict[str, int], limit: int, listed: dict[str, int]) -> list[str]:
    """What breaks the rule: anything over `limit` that is not listed, or listed and grown."""
    return [
        f"{name}: {n} lines (limit {limit}"
        + (f", listed at {listed[name]})" if name in listed else ")")
        for name, n in sorted(measured.items())
        if n > limit and n > listed.get(name, limit)
    ]


def test_no_file_and_no_function_grows_past_its_limit():
    files, functions = sizes()
    assert over(files, MAX_FILE_LINES, FILES_OVER) == []
    assert over(functions, MAX_FUNCTION_LINES, FUNCTIONS_OVER) == []


def test_the_list_holds_only_what_is_still_over():
    """An entry whose file or function is gone or under the limit is dropped from the list."""
    files, functions = sizes()
    stale = [f for f in FILES_OVER if files.get(f, 0) <= MAX_FILE_LINES]
    stale += [f for f in FUNCTIONS_OVER if functions.get(f, 0) <= MAX_FUNCTION_LINES]
    assert stale == []


def test_a_grown_function_and_a_new_long_one_are_caught():
    measured = {"a.py:f": 90, "a.py:g": 81, "a.py:h": 80}
    assert over(measured, 80, {"a.py:f": 90}) == ["a.py:g: 81 lines (limit 80)"]
    assert over(measured, 80, {"a.py:f": 89, "a.py:g": 81}) == [
        "a.py:f: 90 lines (limit 80, listed at 89)"
    ]

"""A portfolio's workloads as CSV, one row per workload (the Workload page's download and upload;
no Streamlit here, so a script can call the same functions).

Columns (`COLUMNS`): `kind`, then every field of any workload kind (models/portfolio/workloads.py
WORKLOAD_KINDS) in the order the kinds declare them, `max_wait_days` (the service level) and
`value_usd_per_day_earlier` (the value of time) among them. Export writes every field a row's kind
has, defaults included, so a file says the service level it was planned on; a field the kind does
not have is an empty cell. Import reads a header with `kind` and `name` and any of the columns,
in any order: an empty cell takes the kind's default (a column left out, too). Text that starts
like a formula (= + - @ tab) is written behind a ' (OWASP CSV injection) and read back without it.

Every problem raises InputError naming the row (the file's line: the header is row 1) and the
column, and the allowed range: `row 3 (workload 2), column max_wait_days: ...`.
"""

from __future__ import annotations

import csv
import io
import math
import typing

from models.errors import InputError
from models.portfolio.workloads import WORKLOAD_KINDS, WorkloadBase, parse_workloads
from models.scenario import MAX_WORKLOADS, range_text

#: a workloads file is a few KiB (200 workloads, MAX_WORKLOADS, of about 300 bytes)
MAX_CSV_BYTES = 256 * 1024
#: every field of any kind, `kind` first, in the order the kinds declare them
COLUMNS: tuple[str, ...] = tuple(
    dict.fromkeys(
        ["kind", *(name for model in WORKLOAD_KINDS.values() for name in model.model_fields)]
    )
)
#: a cell starting with one of these is a formula to a spreadsheet: written behind a '
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _text_cell(v: str) -> str:
    return "'" + v if v[:1] in FORMULA_START else v


def _cell(value) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return _text_cell(value)
    if isinstance(value, float):
        return repr(value)  # the float itself, read back exactly
    return str(value)


def workloads_csv(workloads: list[WorkloadBase]) -> str:
    """The validated workloads as CSV: a header of COLUMNS and one row each."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(COLUMNS)
    for record in workloads:
        data = record.model_dump(mode="json")
        w.writerow([_cell(data[c]) if c in data else "" for c in COLUMNS])
    return buf.getvalue()


def _where(line: int, column: str) -> str:
    return f"row {line} (workload {line - 1}), column {column}"


def _numeric(column: str) -> type | None:
    """int or float for a numeric column (its annotation in any kind), else None."""
    for model in WORKLOAD_KINDS.values():
        info = model.model_fields.get(column)
        if info is None:
            continue
        types = set(typing.get_args(info.annotation)) or {info.annotation}
        for t in list(types):  # a Literal of numbers (slo_percentile: 50, 90 or 99)
            if typing.get_origin(t) is typing.Literal:
                types |= {type(v) for v in typing.get_args(t)}
            elif typing.get_origin(info.annotation) is typing.Literal:
                types.add(type(t))
        if int in types:
            return int
        if float in types:
            return float
    return None


def _value(text: str, column: str, line: int):
    """A cell as the field's type: blank None, text unquoted, numbers parsed (1,024 and 1e3 too)."""
    t = text.strip()
    if not t:
        return None
    kind = _numeric(column)
    if kind is None:
        return t[1:] if t[:1] == "'" and t[1:2] in FORMULA_START else t
    try:
        x = float(t.replace(",", "").replace("_", ""))
    except ValueError:
        raise InputError(
            column, f"{_where(line, column)}: '{t[:40]}' is not a number{_range(column)}"
        ) from None
    if not math.isfinite(x):
        raise InputError(column, f"{_where(line, column)}: '{t[:40]}' is not a finite number")
    return int(x) if kind is int and x.is_integer() and abs(x) < 2**53 else x


def _range(column: str) -> str:
    """' (allowed: at least 0 and at most 3650)' from the first kind that has the column."""
    model = next(m for m in WORKLOAD_KINDS.values() if column in m.model_fields)
    text = range_text(model, column)
    return f" ({text})" if text else ""


def _rows(text: str) -> list[tuple[int, dict[str, str]]]:
    reader = csv.reader(io.StringIO(text))
    try:
        header = [h.strip() for h in next(reader)]
    except StopIteration:
        raise InputError("workloads", "the file is empty: a header row is needed") from None
    except csv.Error as exc:
        raise InputError("workloads", f"row 1: not CSV ({exc})") from None
    unknown = [h for h in header if h not in COLUMNS]
    if unknown:
        raise InputError(
            unknown[0],
            f"row 1, column {unknown[0][:40]!r}: not a workload field; allowed: {', '.join(COLUMNS)}",
        )
    missing = [c for c in ("kind", "name") if c not in header]
    if missing or len(set(header)) < len(header):
        what = f"no {missing[0]} column" if missing else "a column named twice"
        raise InputError("workloads", f"row 1: {what} (the header names each column once)")
    rows = []
    try:
        for cells in reader:
            line = reader.line_num
            if not any(c.strip() for c in cells):
                continue  # a blank line
            if len(cells) > len(header):
                raise InputError(
                    "workloads", f"row {line}: {len(cells)} cells for {len(header)} columns"
                )
            rows.append((line, dict(zip(header, cells, strict=False))))
            if len(rows) > MAX_WORKLOADS:
                raise InputError(
                    "workloads", f"more than {MAX_WORKLOADS} workloads (allowed: {MAX_WORKLOADS})"
                )
    except csv.Error as exc:
        raise InputError("workloads", f"row {reader.line_num}: not CSV ({exc})") from None
    return rows


def read_workloads_csv(text: str) -> list[dict]:
    """The workloads of a CSV file as the scenario holds them (validated: every row a workload of
    its kind, names unique). InputError naming the row and column on the first problem."""
    if len(text.encode()) > MAX_CSV_BYTES:
        raise InputError("workloads", f"larger than {MAX_CSV_BYTES // 1024} KiB")
    rows = _rows(text)
    if not rows:
        raise InputError("workloads", "no workload rows under the header")
    items = []
    for line, cells in rows:
        item = {}
        for column, text_ in cells.items():
            value = _value(text_, column, line)
            if value is not None:
                item[column] = value
        items.append(item)
    try:
        parse_workloads(items)
    except InputError as exc:
        index, _, rest = exc.field.removeprefix("workloads[").partition("]")
        column = rest.lstrip(".") or "kind"
        line = rows[int(index)][0] if index.isdigit() and int(index) < len(rows) else 0
        detail = str(exc).split(": ", 1)[-1]
        raise InputError(exc.field, f"{_where(line, column)}: {detail}") from None
    return items

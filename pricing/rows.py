"""Arrays over many parameter sets (rows: the base case, tornado variants, Monte Carlo draws) as
the cash flows compute them (pricing/cashflows.py): a month's share of a window, a row computed
once where every row is alike, and, over many sets, a figure or timing no set moves taken as one
row (`Rows`), a payment in one month kept as its column (`MonthColumns`) and each part's line
added into its option's line in place (`add_line`). Each gives the numbers the plain arrays give.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np

from pricing.inputs import DAYS_PER_MONTH


class MonthColumns:
    """An (n, M) array that is 0 but in a few months, kept as {month: its (n,) or (1,) column}
    (`Context.at_month` over many parameter sets): adding it to another, to 0 or to an array
    gives, element by element, what adding its array (`dense`) gives, without adding the zeros;
    a month that only one of two holds keeps its column as it is (x, not x + 0: only the sign of
    a 0 can differ, which adding the option's lines into their total, from +0, cannot show)."""

    __array_ufunc__ = None  # an array + MonthColumns: MonthColumns.__radd__

    def __init__(self, shape: tuple[int, int], columns: dict[int, np.ndarray]):
        self.shape, self.columns = shape, columns

    def dense(self) -> np.ndarray:
        out = np.zeros(self.shape)
        for month, column in self.columns.items():
            out[:, month] = column
        return out

    def __add__(self, other):
        if isinstance(other, MonthColumns):  # both: the sum; one: its own column
            columns = dict(self.columns)
            for month, b in other.columns.items():
                a = columns.get(month)
                columns[month] = b if a is None else a + b
            return MonthColumns(np.broadcast_shapes(self.shape, other.shape), columns)
        if np.ndim(other) == 0 and other == 0:  # 0 + x is x
            return MonthColumns(self.shape, dict(self.columns))
        if np.ndim(other) == 0:
            return self.dense() + other
        other = np.asarray(other)
        shape = np.broadcast_shapes(self.shape, other.shape)
        whole = np.broadcast_to(other, shape)
        out = whole + 0.0
        for month, column in self.columns.items():
            out[:, month] = whole[:, month] + column
        return out

    __radd__ = __add__


def window(months: int, start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """Share of each month inside [start, end) days, shape (n, M)."""
    start, end = np.asarray(start, dtype=float), np.asarray(end, dtype=float)
    if (
        start.ndim == end.ndim == 2
        and start.shape[1] == end.shape[1] == 1
        and max(len(start), len(end)) > 1
        and (start == start.flat[0]).all()
        and (end == end.flat[0]).all()
    ):  # every row alike (a portfolio's ready day): one row, spread as a read-only view
        row = window(months, start[:1], end[:1])
        return np.broadcast_to(row, (max(len(start), len(end)), months))
    lo = np.arange(months)[None, :] * DAYS_PER_MONTH
    overlap = np.minimum(end, lo + DAYS_PER_MONTH) - np.maximum(start, lo)
    return np.clip(overlap, 0.0, DAYS_PER_MONTH) / DAYS_PER_MONTH


def per_distinct_row(fn: Callable[..., np.ndarray], *columns: np.ndarray) -> np.ndarray:
    """`fn(*columns)` for (n, 1) columns and an (n, M) result whose each row depends only on that
    row of the columns: when every row is alike (a portfolio's ready month, a figure no draw
    moves), computed on one row and spread to n as a read-only view (the same numbers)."""
    n = max(len(c) for c in columns)
    if n > 1 and all((c == c[0]).all() for c in columns):
        one = fn(*(c[:1] for c in columns))
        return np.broadcast_to(one, (n, one.shape[1]))
    return fn(*columns)


def add_line(flows: dict, summed: set[str], key: str, value) -> None:
    """flows[key] + value into flows[key] (value alone if there is none): the first sum is a new
    array, and each later one is added into it in place (`summed`: the keys whose array is such
    a sum), the same numbers without a new array per part."""
    if key not in flows:
        flows[key] = value
        return
    total = flows[key]
    if (
        key in summed
        and isinstance(total, np.ndarray)
        and isinstance(value, np.ndarray)
        and np.broadcast_shapes(total.shape, value.shape) == total.shape
    ):
        total += value
        return
    flows[key] = total + value
    summed.add(key)


class Rows:
    """Arrays of n parameter-set rows taken as one row where every row is alike (pricing/
    cashflows.py `option_flows`): an (n, 1) column of one value, an (n, M) array spread from one
    row (a read-only view). Each line is then computed as on n rows, the same operations on the
    same numbers, and each product by a figure no set moves on one row instead of n."""

    def __init__(self, n: int):
        self.n = n
        self._seen: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    def array(self, a):
        """`a`'s first row where every row of it is alike, else `a` (each array looked at once)."""
        if not isinstance(a, np.ndarray) or a.ndim != 2 or len(a) != self.n:
            return a
        hit = self._seen.get(id(a))
        if hit is not None and hit[0] is a:
            return hit[1]
        alike = a.strides[0] == 0 or (a.shape[1] == 1 and (a == a[0]).all())
        out = a[:1] if alike else a
        self._seen[id(a)] = (a, out)
        return out

    def params(self, P: dict) -> dict:
        """P with each figure taken as one row where every row is alike, when read (RowParams)."""
        return RowParams(P, self)

    def context(self, ctx: Any) -> Any:
        """A Context of pricing/cashflows.py (and its parts' P and Contexts) with each timing
        taken as one row where every row is alike, its payments in one month as MonthColumns."""
        fields = (
            "ready_day",
            "train_days",
            "runs_done",
            "busy",
            "busy_end",
            "held",
            "beyond_months",
        )
        parts = tuple((s, i, self.params(p), self.context(c)) for s, i, p, c in ctx.parts)
        bridge = ()
        if ctx.bridge:  # the bridge to go-live (pricing/bridge.py), as a part is
            s, i, p, c = ctx.bridge
            bridge = (s, i, self.params(p), self.context(c))
        alike = {f: self.array(getattr(ctx, f)) for f in fields}
        return dataclasses.replace(ctx, parts=parts, bridge=bridge, month_columns=True, **alike)

    def spread(self, flows: dict, months: int) -> dict[str, np.ndarray]:
        """Each line as an (n, M) array: a MonthColumns' array, a row spread as a read-only view."""
        shape = (self.n, months)
        return {
            k: np.broadcast_to(v.dense(), shape)
            if isinstance(v, MonthColumns)
            else np.broadcast_to(v, np.broadcast_shapes(np.shape(v), shape))
            for k, v in flows.items()
        }


class RowParams(dict):
    """P with each figure taken as one row where every row is alike (`Rows.array`) when the
    cash flows first read it (an owned cluster's part reads a few dozen of its figures)."""

    def __init__(self, P: dict, rows: Rows):
        super().__init__()
        self._P, self._rows = P, rows

    def __missing__(self, key: str):
        value = self[key] = self._rows.array(self._P[key])
        return value

    def __contains__(self, key) -> bool:
        return key in self._P

    def get(self, key, default=None):
        return self[key] if key in self._P else default

"""What the Validation page's evidence sections share: shares shown in percent, a per-class table
read from a validation module's `as_json()`, and the section's render (subheader, caption, table
with whole-percent columns). Each section keeps its own caption and its choice of columns; no
figure is recomputed here, only multiplied by 100 for display."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import pandas as pd
import streamlit as st

from app.views.forms import pinned_table

# A percent column: its name and the path of keys to a share in a class of `as_json()`.
Column = tuple[str, tuple[str, ...]]

# The third-party sets' band: a row is within it when its |error| is at most 40 % (issue 29).
BAND_COLUMN = "within 40 % (share %)"
# The end of each third-party set's caption: issue 29's targets and the sign convention.
TARGETS_NOTE = (
    "Issue 29's targets: median |error| at most 20 % and at least 80 % of rows within 40 %; "
    "signed + means the model predicts more than was measured."
)


def pct(x: float | None) -> float | None:
    """A share as percent, 100 * x; None stays None (a class with no scored row)."""
    return None if x is None else 100 * x


def band_columns(metrics: Mapping[str, str]) -> list[Column]:
    """Per metric (key -> display name) of a third-party set: the median |error|, the signed
    median and the share of rows within the band, each read from `class[key]`."""
    return [
        column
        for key, name in metrics.items()
        for column in (
            (f"{name} median |error| %", (key, "median_abs")),
            (f"{name} signed %", (key, "signed_median")),
            (f"{name} {BAND_COLUMN}", (key, "within_band")),
        )
    ]


def _at(c: Mapping, path: Sequence[str]):
    for key in path:
        c = c[key]
    return c


def class_table(
    classes: Iterable[Mapping],
    labels: Sequence[str],
    counts: Sequence[str],
    columns: Sequence[Column],
) -> pd.DataFrame:
    """One row per class: its label fields ("" where a class has none, as the all-rows line),
    its counts as they are, then each column's share in percent (`pct` of the value at its
    path), in the order given."""
    rows = []
    for c in classes:
        row = {k: c.get(k, "") for k in labels} | {k: c[k] for k in counts}
        row |= {name: pct(_at(c, path)) for name, path in columns}
        rows.append(row)
    return pd.DataFrame(rows)


def band_table(
    data: Mapping, labels: Sequence[str], all_label: str, metrics: Mapping[str, str]
) -> pd.DataFrame:
    """A third-party set's table: the all-rows line (`all_label` in the first label field), then
    one row per class; rows, refused, and per metric `band_columns`, in percent."""
    classes = [data["all"] | {labels[0]: all_label}, *data["classes"]]
    return class_table(classes, labels, ("rows", "refused"), band_columns(metrics))


def percent_columns(table: pd.DataFrame) -> dict:
    """Whole-percent display for every column whose name ends in % or "%)" (a share: "within
    40 % (share %)"), signed ones with a sign."""
    return {
        c: st.column_config.NumberColumn(format="%+.0f" if "signed" in c else "%.0f")
        for c in table.columns
        if c.endswith(("%", "%)"))
    }


def render_evidence(subheader: str, caption: str, table: pd.DataFrame) -> None:
    """A section's subheader, caption and table, the percent columns shown whole."""
    st.subheader(subheader)
    st.caption(caption)
    pinned_table(table, hide_index=True, column_config=percent_columns(table))

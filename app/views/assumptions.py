"""Assumptions: every price and assumption the comparison uses, with its value in force, how much
the answer leans on it, its source and date; type a value to override it for this scenario (the
catalogue files never change). Labels and formats: app/assumption_labels.py; the effect rank is
the order of the tornado's bars (Comparison.sensitivity), read, not recomputed."""

import re

import pandas as pd
import streamlit as st

from app import state
from app.assumption_labels import LABELS, label, value_text
from app.formatting import md_code, md_plain, mid_sentence, usd
from app.range_text import range_cell
from pricing.inputs import override_range
from pricing.results import Comparison
from pricing.usage import USAGE_KEYS

#: session keys: {input: value typed out of its range} (shown as rejected, never in the scenario),
#: and a counter in the editor's key: a new key gives an editor without the user's pending edits,
#: so after an edit is applied or refused the table shows what is in force.
REJECTED, GENERATION = "assumptions_rejected", "assumptions_editor_generation"
#: the table's columns; "key" is hidden, only YOURS is editable
YOURS, STATUS, RANK, GAP = "Override", "Status", "Rank", "NPV gap −/+25 %"
COLUMNS = ("key", "Figure", "In use", YOURS, STATUS, RANK, GAP, "As of", "Source", "Link")
#: a row's height in pixels: above 4 rem, so the grid wraps a long source onto more lines
ROW_HEIGHT_PX = 66
_URL = re.compile(r"https?://[^\s,;)]+")


def render() -> None:
    st.title("Assumptions")
    st.caption(
        "Every figure behind the comparison, with where it comes from. Type a value in the unit "
        "its name gives to override it for this scenario only, clear it to go back to the "
        "catalogue; overrides travel in the share link. Planner defaults are figures no public "
        "source gives; their notes say why the value was chosen."
    )

    sc, c = state.require_comparison("Reading the catalogue...")
    defaults, _ = state.comparison(sc.model_copy(update={"overrides": {}}))
    overrides = dict(sc.overrides)
    rejected: dict[str, float] = st.session_state.setdefault(REJECTED, {})
    generation = st.session_state.get(GENERATION, 0)

    if (overrides or rejected) and st.button(
        "Reset all to catalogue defaults", icon=":material/restart_alt:", key="reset_overrides"
    ):
        rejected.clear()
        _apply_and_rerun({})
    if c.sensitivity is not None:
        _ranking_caption(c)

    frame = table(c, defaults or c, overrides, rejected)
    edited = _editor(frame, generation)
    _rejected_errors(c, rejected)
    if edits := _edits(frame, edited):
        _apply_edits(edits, defaults or c, overrides, rejected)


def _ranking_caption(c: Comparison) -> None:
    """What the Rank and NPV gap columns measure: the tornado's swing of the gap between the two
    cheapest options (inputs of the Workload page named apart)."""
    t = c.sensitivity
    names = {o.option: o.label for o in c.options}
    elsewhere = [mid_sentence(b.label) for b in t.bars if b.key in USAGE_KEYS]
    st.caption(
        f"Sorted by how much the answer leans on each figure: rank 1 moves the NPV gap "
        f"between {md_plain(names.get(t.cheapest, t.cheapest))} and "
        f"{md_plain(names.get(t.runner_up, t.runner_up))} (today {usd(t.base_gap_usd)}) most "
        f"when the figure is {t.swing:.0%} lower or higher, or at its range's ends where it has "
        "one (the tornado on Compare). A blank "
        "rank: a figure the tornado does not vary."
        + (
            f" Ranks not listed are inputs set on the Workload page ({', '.join(elsewhere)})."
            if elsewhere
            else ""
        )
        + " Click a column's header to sort by it."
    )


def _editor(frame: pd.DataFrame, generation: int) -> pd.DataFrame:
    """The table, its Override column editable; the table as the user left it."""
    return st.data_editor(
        frame,
        key=f"editor_{generation}",
        hide_index=True,
        width="stretch",
        height="content",
        row_height=ROW_HEIGHT_PX,
        placeholder="",
        disabled=[col for col in frame.columns if col != YOURS],
        column_config={
            "key": None,
            "Figure": st.column_config.TextColumn("Figure", width=190),
            "In use": st.column_config.TextColumn("In use", width=100),
            YOURS: st.column_config.NumberColumn(
                YOURS,
                width=95,
                help="Type a value in the figure's unit to override it; clear it to use the "
                "catalogue's",
            ),
            STATUS: st.column_config.TextColumn(STATUS, width=90),
            RANK: st.column_config.NumberColumn(
                RANK, width=50, help="1 = the answer moves most with this figure (the tornado)"
            ),
            GAP: st.column_config.TextColumn(
                GAP,
                width=110,
                help="The NPV gap between the two cheapest options with the figure 25 % lower, "
                "then 25 % higher",
            ),
            "As of": st.column_config.TextColumn("As of", width=85),
            "Source": st.column_config.TextColumn(
                "Source", width=200, help="Click a cell to read a long source in full"
            ),
            "Link": st.column_config.LinkColumn("Link", width=45, display_text="open"),
        },
    )


def _rejected_errors(c: Comparison, rejected: dict[str, float]) -> None:
    """Each value typed out of its range, with the range and the value in use instead."""
    current = {a.key: a for a in c.assumptions}
    for key, typed in rejected.items():
        lo, hi = override_range(key)
        a = current.get(key)
        st.error(
            f"{md_plain(label(key))} ({md_code('overrides.' + key)}): {typed:g} is out of range "
            f"(allowed: {lo:g} to {hi:g}), so it was not applied; the value in use is "
            f"{md_plain(value_text(key, a.value, a.unit)) if a else 'the catalogue value'}.",
            icon=":material/error:",
        )


def _apply_edits(
    edits: dict[str, float | None],
    defaults: Comparison,
    overrides: dict[str, float],
    rejected: dict[str, float],
) -> None:
    """The edited cells as the scenario's overrides: a cleared cell or the catalogue's figure
    drops the override, a value out of range is kept as rejected; then a rerun."""
    default_of = {a.key: a for a in defaults.assumptions}
    new = dict(overrides)
    for key, value in edits.items():
        rejected.pop(key, None)
        default = default_of[key].value if key in default_of else None
        if value is None or (
            default is not None and abs(value - default) <= 1e-12 * max(1.0, abs(default))
        ):
            new.pop(key, None)  # cleared, or back to the catalogue's figure
        elif not _in_range(key, value):
            rejected[key] = value  # shown as typed; the catalogue's figure stays in use
            new.pop(key, None)
        else:
            new[key] = value
    _apply_and_rerun(new)


def table(
    c: Comparison, defaults: Comparison, overrides: dict[str, float], rejected: dict[str, float]
) -> pd.DataFrame:
    """One row per overridable figure the comparison used: its label, the value in use and the
    user's (an override, or a typed value refused as out of range), the tornado's rank and NPV
    gaps, source and date; most influential first (then by group, app/assumption_labels.py GROUPED)."""
    default_of = {a.key: a for a in defaults.assumptions}
    bars = {b.key: (i + 1, b) for i, b in enumerate(c.sensitivity.bars if c.sensitivity else [])}
    order = list(LABELS)  # by group (app/assumption_labels.py GROUPED)
    rows = []
    for a in c.assumptions:
        d = default_of.get(a.key, a)
        rank, bar = bars.get(a.key, (None, None))
        if a.key in rejected:
            lo, hi = override_range(a.key)
            status = f"rejected: {rejected[a.key]:g}, allowed {lo:g} to {hi:g}"
        elif a.key in overrides:
            status = f"overridden; catalogue {value_text(a.key, d.value, d.unit)}"
        else:
            status = ""
        link = _URL.search(d.source)
        rows.append(
            {
                "key": a.key,
                "Figure": label(a.key),
                "In use": value_text(a.key, a.value, a.unit),
                YOURS: rejected.get(a.key, overrides.get(a.key)),
                STATUS: status,
                RANK: rank,
                GAP: f"{usd(bar.gap_low_usd)} / {usd(bar.gap_high_usd)}" if bar else "",
                "As of": d.as_of or "-",
                "Source": range_cell(a) + d.source,
                "Link": link.group().rstrip(".") if link else None,
            }
        )
    frame = pd.DataFrame(rows, columns=list(COLUMNS))
    position = {k: i for i, k in enumerate(order)}
    frame["_rank"] = frame[RANK].fillna(len(frame) + 1)
    frame["_pos"] = frame["key"].map(lambda k: position.get(k, len(position)))
    frame = frame.sort_values(["_rank", "_pos"], kind="stable").drop(columns=["_rank", "_pos"])
    frame[RANK] = frame[RANK].astype("Int64")
    frame[YOURS] = frame[YOURS].astype("Float64")
    return frame.reset_index(drop=True)


def _edits(frame: pd.DataFrame, edited: pd.DataFrame) -> dict[str, float | None]:
    """{input: the value typed, or None where the cell was cleared} for each edited row."""
    out = {}
    for (_, before), (_, after) in zip(frame.iterrows(), edited.iterrows(), strict=True):
        value = after[YOURS]
        if pd.isna(value):
            if not pd.isna(before[YOURS]):
                out[before["key"]] = None
        elif pd.isna(before[YOURS]) or value != before[YOURS]:
            out[before["key"]] = float(value)
    return out


def _in_range(key: str, value: float) -> bool:
    lo, hi = override_range(key)
    return lo <= value <= hi


def _apply_and_rerun(overrides: dict[str, float]) -> None:
    """The scenario's overrides set (when they changed), a fresh editor, and a rerun."""
    if overrides != dict(state.get("overrides") or {}):
        state.put("overrides", overrides)
    st.session_state[GENERATION] = st.session_state.get(GENERATION, 0) + 1
    st.rerun()

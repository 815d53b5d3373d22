"""Side by side: save the scenario in force under a name (kept in the session), pick 2 or 3 saved
scenarios (the same job on H100 vs B200, a 1-year vs a 3-year commitment) and see their totals,
NPV, ready day, training days and cost per delivered GPU-hour in one table and their cumulative
cost curves on one chart.

Every figure comes from pricing/side_by_side.py `side_by_side`, which copies each scenario's own
comparison (state.comparison, the portal's cached engine call); the table is app/side_by_side.py's,
the one the PDF and `clusterplan compare A B` print. The saved scenarios travel in the share link as
its `side_by_side` section (app/share_link.py; registered with state.register_section), so a link
made here opens with the same scenarios saved and picked.
"""

from __future__ import annotations

import copy
import json

import pandas as pd
import streamlit as st
from pydantic import ValidationError

from app import report_pdf, share_link, state
from app import side_by_side as sbs_text
from app.charts.side_by_side import side_by_side_cost
from app.formatting import md_plain
from app.kinds import words
from models.errors import InputError
from models.scenario_set import (
    MAX_NAME_CHARS,
    MAX_SAVED,
    MAX_SCENARIOS,
    MIN_SCENARIOS,
    ScenarioSet,
    check_name,
)
from pricing.side_by_side import side_by_side

#: session key: the saved scenarios and the picked names, as a ScenarioSet's dict
KEY = "saved_scenarios"
#: the multiselect's own key (Streamlit drops it while another page is shown; KEY keeps the picks)
PICK_KEY = "sbs_pick"
#: session key: the sentence shown once after a save
SAVED_NOTE = "_sbs_saved"
#: session key: the sentence shown once after a saved scenario is put in force
LOADED_NOTE = "_sbs_loaded"


def saved() -> dict:
    return st.session_state.setdefault(KEY, {"scenarios": [], "picked": []})


def link_section() -> ScenarioSet | None:
    """The saved scenarios for the share link (None when none is saved)."""
    data = saved()
    if not data["scenarios"]:
        return None
    try:
        return ScenarioSet.model_validate(data)
    except ValidationError:
        return None


def open_link_section(fields: dict) -> None:
    """A link's saved scenarios (already validated by the link codec) put in the session."""
    st.session_state[KEY] = {
        "scenarios": list(fields.get("scenarios", [])),
        "picked": list(fields.get("picked", [])),
    }
    st.session_state.pop(PICK_KEY, None)


state.register_section("side_by_side", link_section, open_link_section)


def save_current(name: str) -> str | None:
    """Saves the scenario in force as `name` (a saved one of that name is replaced); the problem
    in a sentence when it cannot be: the scenario has an input to fix, the name is not one, the
    session holds MAX_SAVED already, or the set would no longer fit in a share link."""
    sc, problems = state.scenario()
    if problems:
        return "the scenario has an input to fix on the Workload page"
    try:
        name = check_name(name)
    except InputError as exc:
        return str(exc)
    data = saved()
    kept = [s for s in data["scenarios"] if s["name"] != name]
    if len(kept) >= MAX_SAVED:
        return f"at most {MAX_SAVED} scenarios can be saved; remove one first"
    entry = {"name": name, "scenario": copy.deepcopy(state.data())}
    position = next((i for i, s in enumerate(data["scenarios"]) if s["name"] == name), len(kept))
    candidate = {"scenarios": [*kept[:position], entry, *kept[position:]], "picked": []}
    picked = [p for p in data["picked"] if p != name]
    candidate["picked"] = picked[: MAX_SCENARIOS - 1] + [name] if picked else [name]
    try:
        share_link.encode(sc, {"side_by_side": ScenarioSet.model_validate(candidate)})
    except share_link.LinkError as exc:
        return f"the saved scenarios would not fit in a share link ({exc})"
    except ValidationError as exc:
        return exc.errors()[0]["msg"].removeprefix("Value error, ")
    st.session_state[KEY] = candidate
    st.session_state.pop(PICK_KEY, None)
    st.session_state.pop("shared_url", None)
    return None


def load_saved(name: str) -> str | None:
    """Puts the saved scenario `name` in force, as if its inputs were typed on the Workload page
    (Workload, Compare and every other page then show it; state.load_scenario); the problem in a
    sentence when no scenario of that name is saved."""
    entry = next((s for s in saved()["scenarios"] if s["name"] == name), None)
    if entry is None:
        return f"no saved scenario is named “{name}”"
    state.load_scenario(entry["scenario"])
    return None


def _page_link(page: str, label: str, icon: str) -> None:
    """A link to another page of the portal (app/main.py registers them in state.PAGES_KEY; the
    test harness, which has no navigation, shows the label as text)."""
    target = st.session_state.get(state.PAGES_KEY, {}).get(page)
    if target is not None:
        st.page_link(target, label=label, icon=icon)
    else:
        st.markdown(label)


def save_form() -> None:
    """ "Save this scenario as <name>": the one save form, shown on this page and on Compare
    (save_current does the saving)."""
    sc, _ = state.scenario()
    with st.form("sbs_save", border=True):
        name_col, button_col = st.columns([3, 1], vertical_alignment="bottom")
        default = words(sc).save_name(sc) if sc is not None else ""
        name = name_col.text_input(
            "Save this scenario as",
            value=default,
            max_chars=MAX_NAME_CHARS,
            key="sbs_name",
            help="The scenario in force now (Workload page). Change it there and save it again "
            "under another name to compare the two; saving under a saved name replaces it.",
        )
        if button_col.form_submit_button(
            "Save", icon=":material/bookmark_add:", width="stretch", key="sbs_save_go"
        ):
            problem = save_current(name)
            if problem:
                st.error(f"Not saved: {md_plain(problem, 400)}.", icon=":material/error:")
            else:  # run again, so the address's share link carries the new set
                st.session_state[SAVED_NOTE] = f"Saved “{check_name(name)}”."
                st.rerun()
    if note := st.session_state.pop(SAVED_NOTE, None):
        st.success(md_plain(note), icon=":material/bookmark_added:")
        _page_link(
            "side_by_side",
            "Compare saved scenarios on the Side by side page",
            ":material/view_column:",
        )


def _load_form(names: list[str]) -> None:
    """Load a saved scenario back as the scenario in force."""
    left, right = st.columns([3, 1], vertical_alignment="bottom")
    name = left.selectbox(
        "Load a saved scenario as the scenario in force",
        ["", *names],
        key="sbs_load",
        format_func=lambda n: n or "—",
        help="Puts the saved scenario's inputs back on the Workload page; Compare and every "
        "other page then show it. The scenario in force now is not saved by this: save it "
        "first to keep it.",
    )
    if right.button(
        "Load", icon=":material/upload:", key="sbs_load_go", width="stretch", disabled=not name
    ):
        problem = load_saved(name)
        if problem:
            st.error(f"Not loaded: {md_plain(problem, 400)}.", icon=":material/error:")
        else:
            st.session_state[LOADED_NOTE] = f"“{name}” is now the scenario in force."
            st.session_state.pop("sbs_load", None)
            st.rerun()
    if note := st.session_state.pop(LOADED_NOTE, None):
        st.success(md_plain(note), icon=":material/check_circle:")
        _page_link("compare", "See it on the Compare page", ":material/compare_arrows:")


def _on_pick() -> None:
    saved()["picked"] = list(st.session_state[PICK_KEY])


def render() -> None:
    st.title("Side by side")
    st.caption(
        f"Save the scenario in force under a name, change it on the Workload page, save again, "
        f"then compare {MIN_SCENARIOS} or {MAX_SCENARIOS} saved scenarios: e.g. the same job on "
        "H100 vs B200, or a 1-year vs a 3-year commitment."
    )
    save_form()
    data = saved()
    names = [s["name"] for s in data["scenarios"]]
    if not names:
        st.info("No scenario saved yet.", icon=":material/bookmarks:")
        return
    if PICK_KEY not in st.session_state:
        st.session_state[PICK_KEY] = [p for p in data["picked"] if p in names]
    picked = st.multiselect(
        f"Scenarios to compare ({MIN_SCENARIOS} or {MAX_SCENARIOS})",
        names,
        max_selections=MAX_SCENARIOS,
        key=PICK_KEY,
        on_change=_on_pick,
        wrap=True,  # every chip in view: a column would scroll them sideways (issue 32)
    )
    _load_form(names)
    remove = st.selectbox(
        "Remove a saved scenario", ["", *names], key="sbs_remove", format_func=lambda n: n or "—"
    )
    if remove and st.button("Remove", icon=":material/delete:", key="sbs_remove_go"):
        st.session_state[KEY] = {
            "scenarios": [s for s in data["scenarios"] if s["name"] != remove],
            "picked": [p for p in data["picked"] if p != remove],
        }
        st.session_state.pop(PICK_KEY, None)
        st.session_state.pop("sbs_remove", None)
        st.rerun()
    if len(picked) < MIN_SCENARIOS:
        st.info(
            f"Pick {MIN_SCENARIOS} or {MAX_SCENARIOS} saved scenarios to compare them.",
            icon=":material/checklist:",
        )
        return
    _comparison(ScenarioSet.model_validate(data), picked)


def _comparison(saved_set: ScenarioSet, picked: list[str]) -> None:
    named, comparisons = [], []
    with st.spinner("Pricing each scenario..."):
        for name in picked:
            c, err = state.comparison(saved_set.named(name))
            if err:
                st.error(
                    f"{md_plain(name)}: `{md_plain(err[0], 80)}`: {md_plain(err[1], 600)}",
                    icon=":material/error:",
                )
                return
            named.append((name, c))
            comparisons.append(c)
    sbs = side_by_side(named)
    for s in sbs.scenarios:
        st.caption(md_plain(sbs_text.scenario_line(s)))
    rows = sbs_text.table_rows(sbs)
    st.dataframe(
        pd.DataFrame(rows[1:], columns=rows[0]), hide_index=True, width="stretch", key="sbs_table"
    )
    st.caption(
        "Totals and NPV over each scenario's term; ready: the day the cluster is ready, counted "
        f"from the decision; {md_plain(sbs_text.days_note(sbs))}. Every figure is the "
        "scenario's own comparison's (its Compare page shows the same)."
    )
    st.plotly_chart(
        side_by_side_cost(sbs, dark=state.dark_theme()),
        theme=None,
        width="stretch",
        key="chart_side_by_side",
    )
    _pdf(sbs, comparisons)


def _link() -> str:
    base = state.page_address()
    token = st.session_state.get("_link_token")
    return f"{base}?s={token}" if token else ""


@st.cache_data(max_entries=16, ttl=3600, show_spinner=False)
def _pdf_bytes(sbs_json: str, comparisons_json: str, link: str) -> tuple[bytes, int]:
    from pricing.results import Comparison
    from pricing.side_by_side import SideBySide

    report = report_pdf.build_side_by_side_report(
        SideBySide.model_validate_json(sbs_json),
        [Comparison.model_validate(c) for c in json.loads(comparisons_json)],
        link=link,
    )
    return report.data, report.pages


def _pdf(sbs, comparisons) -> None:
    key = sbs.model_dump_json()
    link = _link()
    slot = st.empty()
    ready = st.session_state.get("sbs_pdf_for") == [key, link]
    if not ready and slot.button(
        "Prepare PDF (side by side)", icon=":material/picture_as_pdf:", key="sbs_pdf_prepare"
    ):
        ready = True
    if ready:
        with slot.container():
            try:
                with st.spinner("Building the PDF..."):
                    data, pages = _pdf_bytes(
                        key, json.dumps([c.model_dump(mode="json") for c in comparisons]), link
                    )
            except (report_pdf.ReportError, ValueError) as exc:
                st.error(f"The PDF could not be built: {md_plain(exc)}", icon=":material/error:")
                return
            st.session_state["sbs_pdf_for"] = [key, link]
            st.download_button(
                "Download PDF (side by side)",
                data,
                file_name="clusterplan-side-by-side.pdf",
                mime="application/pdf",
                on_click="ignore",
                type="primary",
                icon=":material/download:",
                key="sbs_pdf_download",
            )
            st.caption(f"{pages} pages")

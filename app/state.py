"""Session state <-> scenario, and the cached calls into the engine.

The scenario lives in `st.session_state["scenario"]` as a plain dict (the share link's JSON), so no
page owns it and nothing resets when the user changes page. Widgets read their value from it and
write back through `on_change`; an input that fails validation is shown with the message and the
last valid scenario stays in force, so what the user typed is never thrown away.
"""

from __future__ import annotations

import copy
import json

import streamlit as st
from pydantic import ValidationError

from app import share_link
from app.formatting import md_plain
from app.scenario_files import EXAMPLE
from models.scenario import Scenario, explain_validation_error
from models.training import SizingError, TrainingPlan, plan_training
from pricing.engine import Comparison, compare
from pricing.inputs import InputError

KEY = "scenario"


def init() -> None:
    """Once per session: the scenario from the link's `s` parameter, else the defaults."""
    if KEY in st.session_state:
        return
    data = copy.deepcopy(EXAMPLE)
    token = st.query_params.get("s")
    if token:
        try:
            data = share_link.decode_data(token)
        except share_link.LinkError as exc:
            st.session_state["link_error"] = str(exc)
    st.session_state[KEY] = data


def data() -> dict:
    return st.session_state[KEY]


def get(path: str, default=None):
    node = data()
    for part in path.split("."):
        if not isinstance(node, dict) or part not in node:
            return default
        node = node[part]
    return node


def put(path: str, value) -> None:
    """Sets one field (dotted path); None removes it, so the schema default applies."""
    parts = path.split(".")
    node = data()
    for part in parts[:-1]:
        node = node.setdefault(part, {})
    if value is None:
        node.pop(parts[-1], None)
    else:
        node[parts[-1]] = value
    st.session_state.pop("shared_url", None)  # an old link no longer matches


def bind(path: str, widget_key: str, transform=None):
    """on_change callback copying a widget's value into the scenario."""

    def callback():
        value = st.session_state[widget_key]
        put(path, transform(value) if transform else value)

    return callback


def scenario() -> tuple[Scenario | None, list[tuple[str, str]]]:
    """The validated scenario, or None and (field, message) problems."""
    try:
        return Scenario.model_validate(data()), []
    except ValidationError as exc:
        return None, explain_validation_error(exc)


@st.cache_data(max_entries=256, show_spinner=False)
def _plan(scenario_json: str) -> tuple[dict | None, tuple[str, str] | None]:
    try:
        plan = plan_training(Scenario.model_validate_json(scenario_json), curve=False)
        return plan.model_dump(mode="json"), None
    except SizingError as exc:
        return None, (exc.field, str(exc))


@st.cache_data(max_entries=128, show_spinner=False)
def _compare(scenario_json: str) -> tuple[dict | None, tuple[str, str] | None]:
    try:
        return compare(Scenario.model_validate_json(scenario_json)).model_dump(mode="json"), None
    except (SizingError, InputError) as exc:
        return None, (exc.field, str(exc))


def _key(sc: Scenario) -> str:
    return json.dumps(sc.model_dump(mode="json"), sort_keys=True)


def training_plan(sc: Scenario) -> tuple[TrainingPlan | None, tuple[str, str] | None]:
    plan, err = _plan(_key(sc))
    return (TrainingPlan.model_validate(plan) if plan else None), err


def comparison(sc: Scenario) -> tuple[Comparison | None, tuple[str, str] | None]:
    result, err = _compare(_key(sc))
    return (Comparison.model_validate(result) if result else None), err


def require_comparison(spinner: str) -> tuple[Scenario, Comparison]:
    """The valid scenario and its comparison; otherwise the problems are shown and the page stops
    (the inputs stay as typed on the Workload page)."""
    sc, problems = scenario()
    if problems:
        st.info("Fix the inputs on the Workload page first.")
        show_problems(problems)
        st.stop()
    with st.spinner(spinner):
        c, err = comparison(sc)
    if err:
        st.error(f"**{md_plain(err[0])}**: {md_plain(err[1])}", icon=":material/error:")
        st.stop()
    return sc, c


def show_problems(problems: list[tuple[str, str]]) -> None:
    for field, message in problems:
        st.error(f"**{md_plain(field)}**: {md_plain(message)}", icon=":material/error:")


def dark_theme() -> bool:
    """The theme the browser reports, else the configured base theme."""
    try:
        kind = st.context.theme.type
    except AttributeError:
        kind = None
    return (kind or st.get_option("theme.base") or "light") == "dark"

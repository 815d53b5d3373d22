"""The comparison's charts on the page, each figure built once per scenario, theme and chart options
and shared by every rerun and every session that shows the same thing.

Why: building a plotly figure validates every property it sets, 20-70 ms a chart on this machine
(bench/bench_rerun_cpu.py), and a Compare page draws two to four of them on every rerun, also when
nothing changed (a click on a view, a download, a glance at another page and back).

What the key holds, and why it is everything a figure reads: a builder in `BUILDERS` is a pure
function of the comparison, the theme (`dark`) and its own options (`option`, `first_run`). The
comparison is the engine's answer for the scenario's JSON (`state.scenario_key`, the same string
the engine's own cache in app/state.py is keyed on; the price catalogue is read-only files, loaded
once), so (builder, scenario JSON, dark, options) names every input. The figure is only read
afterwards: st.plotly_chart copies it (`to_dict`) before serialising, and no caller gets the
object, so a shared figure cannot be changed by one session under another.

A training plan's chart (`PLAN_BUILDERS`) is keyed on the fields of the plan's dump it reads, and
is given only those (so a builder that starts reading another field fails at once, and the test
with it), and the theme: an input that does not move them (the term, a price, an option; the
plan's own search time) draws the same memory chart without building it again.
"""

from __future__ import annotations

import json

import plotly.graph_objects as go
import streamlit as st

from app import state
from app.charts.cost import cost_breakdown, cumulative_cost
from app.charts.memory import training_memory
from app.charts.portfolio import capacity_demand
from app.charts.risk import tornado, uncertainty
from app.charts.scaling import scaling_curve
from app.charts.timeline import provisioning_gantt
from models.scenario import Scenario
from models.training.plan import TrainingPlan

#: the comparison's charts a page draws through this module: name -> builder(c, dark=, **options)
BUILDERS = {
    "cumulative_cost": cumulative_cost,
    "cost_breakdown": cost_breakdown,
    "tornado": tornado,
    "uncertainty": uncertainty,
    "provisioning_gantt": provisioning_gantt,
    "scaling_curve": scaling_curve,
    "capacity_demand": capacity_demand,
}


#: a training plan's charts: name -> (builder(plan dump, dark), the dump's fields it reads)
PLAN_BUILDERS = {
    "training_memory": (
        training_memory,
        ("model", "gpus", "gpu", "layout", "memory_gib_per_gpu", "memory_capacity_gib"),
    ),
}


@st.cache_resource(max_entries=96, show_spinner=False)
def _figure(name: str, scenario_json: str, dark: bool, options_json: str) -> go.Figure:
    """BUILDERS[name] on the comparison of `scenario_json`, in the theme, with the options."""
    c, err = state.comparison(Scenario.model_validate_json(scenario_json))
    if err:  # the page stops on an engine error before it draws a chart (require_comparison)
        raise ValueError(f"{err[0]}: {err[1]}")
    return BUILDERS[name](c, dark=dark, **json.loads(options_json))


def figure(name: str, sc: Scenario, dark: bool, **options) -> go.Figure:
    """The shared figure (for tests and benches: read it, never change it)."""
    return _figure(name, state.scenario_key(sc), dark, json.dumps(options, sort_keys=True))


def chart(name: str, sc: Scenario, dark: bool, *, key: str, **options) -> None:
    """Draws the comparison's chart `name` across the page (theme=None: the shared template's
    look, app/charts/__init__.py)."""
    st.plotly_chart(figure(name, sc, dark, **options), theme=None, width="stretch", key=key)


@st.cache_resource(max_entries=96, show_spinner=False)
def _plan_figure(name: str, fields_json: str, dark: bool) -> go.Figure:
    """PLAN_BUILDERS[name] on the plan fields `fields_json` (their key order kept), in the theme."""
    return PLAN_BUILDERS[name][0](json.loads(fields_json), dark)


def plan_figure(name: str, plan: TrainingPlan, dark: bool) -> go.Figure:
    """The shared figure of the plan's chart (for tests and benches: read it, never change it)."""
    dump = plan.model_dump(mode="json", include=set(PLAN_BUILDERS[name][1]))
    return _plan_figure(name, json.dumps(dump), dark)


def plan_chart(name: str, plan: TrainingPlan, dark: bool, *, key: str) -> None:
    """Draws the training plan's chart `name` across its column (theme=None, as `chart`)."""
    st.plotly_chart(plan_figure(name, plan, dark), theme=None, width="stretch", key=key)

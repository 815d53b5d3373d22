"""Session state <-> scenario, and the cached calls into the engine.

The scenario lives in `st.session_state["scenario"]` as a plain dict (the share link's JSON), so no
page owns it and nothing resets when the user changes page. Widgets read their value from it and
write back through `on_change`; an input that fails validation is shown with the message and the
last valid scenario stays in force, so what the user typed is never thrown away.

The address bar carries the scenario too: `sync_link()`, run before every page, puts the share
token of the current scenario in the `s` query parameter whenever the scenario has changed, so a
reload or a copied address reopens it. A scenario that fails validation has no token (the codec
refuses it), so the address keeps the last valid one until the input is fixed. A page switch in
the navigation drops the query, so the token is put back on every run.

A portfolio (scenario version 2) has no share token until the link codec reads version 2: the
address then drops `s` (it must not reopen another scenario) and `link_problem()` says why. The
Workload page switches between one training run (version 1) and a portfolio; the one not in force
is kept in the session (`switch_mode`), so switching back finds it as it was left.

The Serve and Fine-tune pages keep their inputs apart from the scenario, and register them here
(`register_section`): the token carries each one the session has opened (its last valid inputs) as
an optional section of the link (app/share_link.py), and a link's sections are put back into those
pages' inputs when the session opens. A bad section is named in a warning; the rest opens.

Models of one's own (app/own_models.py) are registered again at the start of every run (`init`);
a token carries the fields of each one it names (share_link's `models` section), and a link's
models become the opening session's own.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable

import streamlit as st
from pydantic import BaseModel, ValidationError

from app import own_models, settings, share_link
from app.assumption_labels import overrides_line
from app.formatting import constraints_line, md_code, md_plain
from app.scenario_files import EXAMPLE, PORTFOLIOS
from models.errors import InputError
from models.portfolio.demand import Demand, Sizing, TrainingSettings, derive_demand, size_workload
from models.scenario import PORTFOLIO_VERSION, Scenario, Workload, explain_validation_error
from models.training.plan import TrainingPlan, plan_training
from pricing import deadline
from pricing.engine import Comparison, compare
from pricing.results import DeadlineAnswer

KEY = "scenario"
#: session keys: the JSON of the scenario the address last matched, and that address's token
_SYNCED, _TOKEN = "_link_synced", "_link_token"
#: longest message (ours, quoting user text) shown with a field
MAX_MESSAGE_CHARS = 1500
#: session key: share-link section name -> the last valid inputs it carried
_LAST_SECTIONS = "_link_sections"
#: share-link sections the pages register: name -> (the page's valid inputs now, or None when the
#: session never opened the page or its inputs are invalid; put a link's fields into the page)
SECTIONS: dict[str, tuple[Callable[[], BaseModel | None], Callable[[dict], None]]] = {}
#: session keys: the scenario of the mode not in force (1: one training run, 2: a portfolio)
_STASH = {1: "_scenario_run", PORTFOLIO_VERSION: "_scenario_portfolio"}
#: session key: why the portfolio in force has no share link (the codec's message)
_LINK_PROBLEM = "_link_problem"
#: session key: set when the address's token is another scenario's (a mode switch, a sample
#: loaded, a portfolio the codec refuses), so it is removed until the one in force has a token
_STALE = "_link_stale"
#: scenario sections a portfolio and a training run share when one is made from the other
SHARED_SECTIONS = ("term", "options", "overrides")


def register_section(
    name: str, current: Callable[[], BaseModel | None], restore: Callable[[dict], None]
) -> None:
    """A page whose inputs travel in the share link as section `name` (share_link.SECTIONS)."""
    if name not in share_link.SECTIONS:
        raise ValueError(f"no share-link section {name!r}")
    SECTIONS[name] = (current, restore)


#: session_state key of the portal's pages by url path (st.Page objects), set by app/main.py so a
#: page can link to the next one (st.page_link)
PAGES_KEY = "_pages"


def init() -> None:
    """Every run: the session's models of its own registered again. Once per session: the
    scenario from the link's `s` parameter (and its models of one's own), else the defaults."""
    own_models.register_session()
    if KEY in st.session_state:
        return
    data = copy.deepcopy(EXAMPLE)
    token = st.query_params.get("s")
    if token:
        try:
            link = share_link.decode_link(token)
        except share_link.LinkError as exc:
            st.session_state["link_error"] = str(exc)
        else:
            data = link.scenario
            st.session_state[_TOKEN] = token
            if "models" in link.sections:
                own_models.restore(copy.deepcopy(link.sections["models"]["models"]))
            _keep_own_models(data)
            for name, fields in link.sections.items():
                if name in SECTIONS:
                    SECTIONS[name][1](copy.deepcopy(fields))
            if link.problems:
                st.session_state["link_section_errors"] = list(link.problems.values())
    st.session_state[KEY] = data
    st.session_state[_SYNCED] = _now()


def _keep_own_models(scenario: dict) -> None:
    """A scenario's own models (its `own_models`, already checked by the schema) kept as the
    session's, so the pickers list them by name."""
    entries = scenario.get("own_models")
    if isinstance(entries, list):
        own_models.restore(copy.deepcopy([e for e in entries if isinstance(e, dict)]))


def _json(data) -> str:
    return json.dumps(data, sort_keys=True, default=str)


def _sections_now() -> dict[str, BaseModel | None]:
    return {name: current() for name, (current, _) in SECTIONS.items()}


def _now() -> str:
    """What the address must match: the scenario as it stands and the pages' valid inputs."""
    sections = {
        k: None if v is None else v.model_dump(mode="json") for k, v in _sections_now().items()
    }
    return _json({"scenario": data(), "sections": sections})


def link_token(sc: Scenario) -> str:
    """The share token of `sc` and of each registered page's inputs: the valid ones now, else the
    last valid ones the link carried (so a value being fixed does not drop them)."""
    last = st.session_state.setdefault(_LAST_SECTIONS, {})
    for name, record in _sections_now().items():
        if record is not None:
            last[name] = record
    return share_link.encode(sc, dict(last))


def sync_link() -> None:
    """The `s` query parameter set to the current scenario's token (see the module docstring)."""
    now = _now()
    if now != st.session_state.get(_SYNCED):
        sc, problems = scenario()
        if not problems:
            try:
                token = link_token(sc)
            except share_link.LinkError as exc:  # too large: the address keeps the last one
                if sc.is_portfolio:  # the codec does not read portfolios yet: no link at all
                    st.session_state[_LINK_PROBLEM] = str(exc)
                    _forget_token()
                    st.session_state[_SYNCED] = now
            else:
                if token != st.session_state.get(_TOKEN):
                    st.session_state.pop("shared_url", None)  # an old link no longer matches
                st.session_state[_TOKEN] = token
                st.session_state[_SYNCED] = now
                st.session_state.pop(_LINK_PROBLEM, None)
                st.session_state.pop(_STALE, None)
    token = st.session_state.get(_TOKEN)
    if token and st.query_params.get("s") != token:
        st.query_params["s"] = token
    elif not token and st.session_state.get(_STALE) and "s" in st.query_params:
        del st.query_params["s"]  # another scenario's token must not stay in the address


def _forget_token() -> None:
    """The address's token no longer matches the scenario in force (see _STALE)."""
    st.session_state.pop(_TOKEN, None)
    st.session_state.pop(_SYNCED, None)
    st.session_state[_STALE] = True


def link_problem() -> str | None:
    """Why the portfolio in force has no share link (None: it has one, or it is not valid yet)."""
    return st.session_state.get(_LINK_PROBLEM) if is_portfolio() else None


def is_portfolio() -> bool:
    """Whether the scenario in force is a portfolio (version 2), valid or not."""
    return data().get("version") == PORTFOLIO_VERSION


def portfolio_from_run(run: dict) -> dict:
    """A first portfolio made from a training-run scenario: its GPU, term, options and overrides,
    and its training run as one pretraining workload over the term (runs / months a month) when the
    model is a preset; otherwise the enterprise sample's workloads."""
    months = int(run.get("term", {}).get("months", 36))
    out = {
        "version": PORTFOLIO_VERSION,
        "cluster": {"gpu": run.get("cluster", {}).get("gpu", "H100-SXM")},
        **{k: copy.deepcopy(run[k]) for k in SHARED_SECTIONS if k in run},
    }
    w, usage = run.get("workload", {}), run.get("usage", {})
    runs = float(usage.get("runs", 1.0)) if usage.get("mode", "runs") == "runs" else 1.0
    first = {
        "kind": "pretrain",
        "name": "training run",
        "team": "default",
        "model": w.get("model", Workload.model_fields["model"].default),
        **{k: w[k] for k in ("tokens", "seq_len", "precision") if k in w},
        **({"gpus": run["cluster"]["gpus"]} if run.get("cluster", {}).get("gpus") else {}),
        "runs_per_month": min(runs / months, 30.0),
        "duration_months": months,
    }
    if w.get("params") is None and first["model"]:
        made = {**out, "workloads": [first]}
        try:
            Scenario.model_validate(made)
        except (ValidationError, InputError):
            pass
        else:
            return made
    sample = json.loads(PORTFOLIOS["enterprise"].read_text())
    return {**out, "workloads": sample["workloads"]}


def run_from_portfolio(portfolio: dict) -> dict:
    """A training-run scenario made from a portfolio: the example run with the portfolio's GPU,
    term, options and overrides."""
    out = copy.deepcopy(EXAMPLE)
    out["cluster"]["gpu"] = portfolio.get("cluster", {}).get("gpu", out["cluster"]["gpu"])
    out.update({k: copy.deepcopy(portfolio[k]) for k in SHARED_SECTIONS if k in portfolio})
    return out


def switch_mode(portfolio: bool) -> None:
    """Puts a portfolio (True) or one training run (False) in force. The scenario being left is
    kept in the session; the one switched to is the one kept before, else made from the other."""
    if is_portfolio() == portfolio:
        return
    now = data()
    st.session_state[_STASH[PORTFOLIO_VERSION if not portfolio else 1]] = now
    stashed = st.session_state.pop(_STASH[PORTFOLIO_VERSION if portfolio else 1], None)
    if stashed is None:
        stashed = portfolio_from_run(now) if portfolio else run_from_portfolio(now)
    st.session_state[KEY] = stashed
    st.session_state.pop("shared_url", None)
    _forget_token()


def load_portfolio(name: str) -> None:
    """Puts the sample portfolio `name` (app/data/portfolio_<name>.json) in force; a training-run
    scenario in force is kept in the session."""
    if not is_portfolio():
        st.session_state[_STASH[1]] = data()
    st.session_state[KEY] = json.loads(PORTFOLIOS[name].read_text())
    st.session_state.pop("shared_url", None)
    _forget_token()


def load_scenario(scenario: dict) -> None:
    """Puts `scenario` (a saved one, as a dict) in force; a scenario of the other mode (a training
    run or a portfolio) in force is kept in the session as switch_mode keeps it."""
    if is_portfolio() != (scenario.get("version") == PORTFOLIO_VERSION):
        st.session_state[_STASH[PORTFOLIO_VERSION if is_portfolio() else 1]] = data()
    st.session_state[KEY] = copy.deepcopy(scenario)
    _keep_own_models(scenario)
    st.session_state.pop("shared_url", None)
    _forget_token()


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
        return Scenario.model_validate(own_models.with_definitions(data())), []
    except ValidationError as exc:
        return None, explain_validation_error(exc)


def scenario_without(*paths: str) -> tuple[Scenario | None, list[tuple[str, str]]]:
    """The scenario validated with fields (dotted paths) left out, so their schema defaults apply:
    the rest of a page goes on while those fields' values are being fixed."""
    trimmed = copy.deepcopy(own_models.with_definitions(data()))
    for path in paths:
        *parents, last = path.split(".")
        node = trimmed
        for part in parents:
            node = node.get(part) if isinstance(node, dict) else None
        if isinstance(node, dict):
            node.pop(last, None)
    try:
        return Scenario.model_validate(trimmed), []
    except ValidationError as exc:
        return None, explain_validation_error(exc)


@st.cache_data(max_entries=256, show_spinner=False)
def _plan(scenario_json: str) -> tuple[dict | None, tuple[str, str] | None]:
    """The run's plan; with a deadline, pricing/deadline.py's answer (counted from the decision,
    provisioning included: the same GPU count as Compare's), as {"deadline": ..., "plan": ...}."""
    try:
        sc = Scenario.model_validate_json(scenario_json)
        if sc.cluster.deadline_days is not None:
            answer = deadline.answer(sc)
            if answer is not None:
                return {"deadline": answer.model_dump(mode="json")}, None
        return {"plan": plan_training(sc, curve=False).model_dump(mode="json")}, None
    except InputError as exc:
        return None, (exc.field, str(exc))


@st.cache_data(max_entries=128, show_spinner=False)
def _compare(scenario_json: str) -> tuple[dict | None, tuple[str, str] | None]:
    try:
        return compare(Scenario.model_validate_json(scenario_json)).model_dump(mode="json"), None
    except InputError as exc:
        return None, (exc.field, str(exc))


def _key(sc: Scenario) -> str:
    """The scenario's JSON, the fields it was given only: validated again, the rest take their
    defaults, and a serving workload's engine left at its default stays the GPU's (a full dump
    would name TensorRT-LLM and an AMD cluster would refuse it: models/serving/builds.py)."""
    return json.dumps(sc.model_dump(mode="json", exclude_unset=True), sort_keys=True)


def scenario_key(sc: Scenario) -> str:
    """The scenario's JSON as the engine's caches key it (one string per scenario)."""
    return _key(sc)


@st.cache_data(max_entries=128, show_spinner=False)
def _demand(
    scenario_json: str, gpu: str, months: int
) -> tuple[dict | None, tuple[str, str] | None]:
    sc = Scenario.model_validate_json(scenario_json)
    try:
        demand = derive_demand(sc.workloads, gpu, months, training=TrainingSettings.of(sc))
        return demand.model_dump(mode="json"), None
    except InputError as exc:
        return None, (exc.field, str(exc))


def portfolio_demand(sc: Scenario) -> tuple[Demand | None, tuple[str, str] | None]:
    """The portfolio's monthly demand as models/portfolio/demand.py derives it, or the problem."""
    full = sc.model_dump(mode="json", exclude_unset=True)  # as `_key`
    key = json.dumps(
        {"version": PORTFOLIO_VERSION}
        | {k: full[k] for k in ("own_models", "workloads", "execution", "reliability") if k in full}
    )
    d, err = _demand(key, sc.cluster.gpu, sc.term.months)
    return (Demand.model_validate(d) if d else None), err


def workload_sizing(sc: Scenario, i: int) -> tuple[Sizing | None, tuple[str, str] | None]:
    """The core's sizing of the portfolio's workload i (models/portfolio/demand.py size_workload, cached)."""
    try:
        sizing = size_workload(
            sc.workloads[i],
            sc.cluster.gpu,
            field=f"workloads[{i}]",
            training=TrainingSettings.of(sc),
        )
        return sizing, None
    except InputError as exc:
        return None, (exc.field, str(exc))


def training_plan(sc: Scenario) -> tuple[TrainingPlan | None, tuple[str, str] | None]:
    plan, _, err = sized_run(sc)
    return plan, err


def sized_run(
    sc: Scenario,
) -> tuple[TrainingPlan | None, DeadlineAnswer | None, tuple[str, str] | None]:
    """(the run's plan, how a deadline sized it (None without one), the error): one answer with
    Compare's (pricing/deadline.py)."""
    out, err = _plan(_key(sc))
    if out is None:
        return None, None, err
    if "deadline" in out:
        answer = DeadlineAnswer.model_validate(out["deadline"])
        return answer.plan, answer, None
    return TrainingPlan.model_validate(out["plan"]), None, None


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
        show_error(*err)
        _offer_to_drop_override(err[0], sc)
        st.stop()
    show_overrides(c)
    show_constraints(c)
    return sc, c


def show_overrides(c: Comparison) -> None:
    """The one line every page that shows a comparison carries while overrides are in force
    (app/assumption_labels.py overrides_line; the PDF prints the same line)."""
    units = {a.key: a.unit for a in c.assumptions}
    if line := overrides_line(c.scenario.overrides, units):
        st.info(md_plain(line, MAX_MESSAGE_CHARS), icon=":material/edit_note:")


def show_constraints(c: Comparison) -> None:
    """The buyer's constraints and the options they leave out, on every page that shows a
    comparison (app/report_text.py constraints_line; the PDF and the text report print the same)."""
    for line in constraints_line(c):
        st.info(md_plain(line, MAX_MESSAGE_CHARS), icon=":material/policy:")


def _offer_to_drop_override(field: str, sc: Scenario) -> None:
    """When an override stops the comparison (a key a link brought, a discount no price uses),
    a button removes just that override, so the page is never a dead end."""
    key = field.removeprefix("overrides.")
    offer = field.startswith("overrides.") and key in sc.overrides
    if offer and st.button("Remove this override", icon=":material/undo:", key="drop_bad"):
        put("overrides", {k: v for k, v in sc.overrides.items() if k != key})
        st.rerun()


def show_link_error() -> None:
    """Once, after init(): why the link in the address could not be opened."""
    if err := st.session_state.pop("link_error", None):
        st.warning(
            f"This share link could not be opened: {md_plain(err, MAX_MESSAGE_CHARS)}. "
            "Showing the default scenario instead.",
            icon=":material/link_off:",
        )
    for err in st.session_state.pop("link_section_errors", []):
        st.warning(
            f"Part of this share link could not be opened: {md_plain(err, MAX_MESSAGE_CHARS)}. "
            "That page shows its starting inputs; the rest of the link is open.",
            icon=":material/link_off:",
        )


def show_error(field: str, message: str) -> None:
    """One problem: the field as code (it may be a key from a link) and the message as plain text."""
    st.error(f"{md_code(field)}: {md_plain(message, MAX_MESSAGE_CHARS)}", icon=":material/error:")


def show_problems(problems: list[tuple[str, str]]) -> None:
    for field, message in problems:
        show_error(field, message)


def dark_theme() -> bool:
    """The theme the browser reports, else the configured base theme."""
    try:
        kind = st.context.theme.type
    except AttributeError:
        kind = None
    return (kind or st.get_option("theme.base") or "light") == "dark"


def page_address() -> str:
    """The address this page was opened at, without its query, for share links made here; the
    local default when Streamlit does not say, or when it is no portal address
    (settings.check_base_url, the check every base URL passes)."""
    try:
        return settings.check_base_url((st.context.url or "").split("?", 1)[0], "page address")
    except (AttributeError, settings.BaseUrlError):
        return share_link.DEFAULT_BASE_URL

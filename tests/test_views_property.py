"""Any scenario the schema accepts renders on every page, and the Workload page's inputs show its
values: the inputs' bounds, starting values and "Allowed: ..." help are read from the schema
(app/schema_widgets.py), and the GPU count reads what a person types (1e3, 1k, 1,024)."""

import copy
import re

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from streamlit.testing.v1 import AppTest

from app.scenario_files import EXAMPLE
from app.schema_widgets import parse_number
from models.hardware import load_gpus
from models.scenario import (
    OPTION_IDS,
    Cluster,
    Scenario,
    Usage,
    Workload,
    field_bounds,
    range_text,
)
from models.shapes import load_presets
from tests.builders import app

PAGES = ["workload", "compare", "assumptions", "guide", "validation", "serve", "finetune"]


def with_(**sections) -> dict:
    """The example scenario with these sections in place of its own."""
    return copy.deepcopy(EXAMPLE) | sections


def errors(at: AppTest) -> str:
    """The error messages as read on the page (markdown escapes and code marks dropped)."""
    text = " ".join(e.value for e in at.error)
    return re.sub(r"\\(.)", r"\1", text).replace("\u200b", "").replace("`", "")


# ------------------------------------------------------------- schema values the widgets refused


@pytest.mark.parametrize("runs", [1e-3, 0.05, 1000.0])
def test_any_allowed_run_count_shows_as_it_is(runs):
    at = app(scenario=with_(usage={"mode": "runs", "runs": runs}))
    assert at.number_input(key="w_runs").value == runs


@pytest.mark.parametrize("days", [1e-3, 0.05, 3650.0])
def test_any_allowed_deadline_shows_and_an_unmeetable_one_says_why(days):
    at = app(scenario=with_(cluster={"gpu": "H100-SXM", "deadline_days": days}))
    assert at.number_input(key="w_deadline").value == days
    if days < 1:
        assert "deadline_days" in errors(at)  # cannot be met: a message, not a blank page


@pytest.mark.parametrize("pct", [1e-6, 0.5, 33.3, 100.0])
def test_any_allowed_utilisation_keeps_its_value(pct):
    at = app(scenario=with_(usage={"mode": "utilisation", "utilisation_pct": pct}))
    assert at.slider(key="w_util").value == pct


@pytest.mark.parametrize("months", [12, 13, 59, 60])
def test_any_allowed_term_keeps_its_months(months):
    at = app(scenario=with_(term={"months": months}))
    term = at.slider(key="w_term")
    assert term.value == months
    assert (months - term.min) % term.step == 0  # a step the slider can land on, not only show


@pytest.mark.parametrize("seq", [128, 3000, 1_048_576])
def test_any_allowed_sequence_length_is_shown(seq):
    at = app(scenario=with_(workload={"model": "llama3-8b", "tokens": 1e9, "seq_len": seq}))
    assert at.selectbox(key="w_seq").value == seq


def test_custom_model_at_the_schema_bounds_shows_its_counts():
    low = with_(workload={"params": 1e8, "active_params": 1e7, "tokens": 1e6, "model": None})
    at = app(scenario=low)
    assert at.selectbox(key="w_model").value == "custom"
    assert at.number_input(key="w_params").value == pytest.approx(0.1)
    assert at.number_input(key="w_active").value == pytest.approx(0.01)
    assert at.text_input(key="w_tokens").value == "0.001"
    high = with_(workload={"params": 1e14, "tokens": 1e15, "model": None})
    at = app(scenario=high)
    assert at.number_input(key="w_params").value == pytest.approx(1e5)
    assert at.text_input(key="w_tokens").value == "1,000,000"


def test_help_gives_the_schema_range_in_the_widget_unit():
    at = app(scenario=with_(workload={"params": 7e9, "model": None}))
    helps = {w.key: w.help for w in [*at.number_input, *at.slider, *at.text_input]}
    assert range_text(Usage, "runs").capitalize() in helps["w_runs"]
    assert "Allowed: more than 0 and at most 1,000." in helps["w_runs"]
    assert "at least 0.1 and at most 100,000 billion" in helps["w_params"]
    assert "at least 0.001 and at most 1,000,000 billion" in helps["w_tokens"]
    assert "at least 1 and at most 262,144" in helps["w_gpus"]
    assert "at least 12 and at most 120 months" in helps["w_term"]


def test_a_scenario_without_a_gpu_count_shows_an_empty_count():
    data = with_(workload={"model": "llama3-8b", "tokens": 1e11}, cluster={"gpu": "H100-SXM"})
    at = app(scenario=data)
    assert at.text_input(key="w_gpus").value == ""
    assert at.text_input(key="w_gpus").placeholder == "the efficient size"
    assert at.metric and not at.error


# ------------------------------------------------------------------------ typing a GPU count


@pytest.mark.parametrize(
    ("typed", "gpus"),
    [("1e3", 1000), ("1k", 1000), ("1.5k", 1500), ("1,024", 1024), (" 2048 ", 2048)],
)
def test_a_gpu_count_is_read_as_the_person_means_it(typed, gpus):
    at = app(scenario=EXAMPLE)
    at.text_input(key="w_gpus").input(typed).run()
    assert not at.exception
    assert at.session_state["scenario"]["cluster"]["gpus"] == gpus
    assert at.text_input(key="w_gpus").value == typed
    assert next(m.value for m in at.metric if m.label == "GPUs") == f"{gpus:,}"


@pytest.mark.parametrize("typed", ["lots", "1,5", "12.5", "0", "1e6", "nan"])
def test_a_gpu_count_that_is_not_one_is_kept_and_named_with_the_range(typed):
    at = app(scenario=EXAMPLE)
    at.text_input(key="w_gpus").input(typed).run()
    assert not at.exception
    assert at.text_input(key="w_gpus").value == typed
    message = errors(at)
    assert "cluster.gpus" in message and "262,144" in message, message
    at.text_input(key="w_gpus").input("512").run()  # fixed: the scenario is valid again
    assert not at.error and at.session_state["scenario"]["cluster"]["gpus"] == 512


def test_clearing_the_gpu_count_sizes_the_smallest_cluster():
    at = app(scenario=with_(workload={"model": "llama3-8b", "tokens": 1e11}))
    at.text_input(key="w_gpus").input("").run()
    assert "gpus" not in at.session_state["scenario"]["cluster"]
    assert not at.error and at.metric


def test_parse_number():
    assert parse_number("1e3") == 1000 and isinstance(parse_number("1e3"), int)
    assert parse_number("1.1k") == 1100 and parse_number("64K") == 64_000
    assert parse_number("1 024") == 1024 and parse_number("1_024") == 1024
    assert parse_number("2.5") == 2.5
    for text in ["", "k", "1,5", "1,0000", "inf", "-nan", "1e999", "0x10", "12 GPUs"]:
        assert parse_number(text) is None, text


# ------------------------------------------------------------ any valid scenario, every page

PRESETS = list(load_presets())
GPUS = list(load_gpus())


def bounded(model, name, *edges, integers=False):
    """Values the schema accepts for a field: its bounds, the given edge values, any between."""
    b = field_bounds(model, name)
    low, high = b.get("ge", b.get("gt")), b["le"]
    inner = st.integers(low, high) if integers else st.floats(low, high, exclude_min="gt" in b)
    ends = [high] if "gt" in b else [low, high]
    return st.one_of(st.sampled_from([*ends, *edges]), inner)


@st.composite
def scenarios(draw) -> dict:
    if draw(st.booleans()):
        workload = {"model": draw(st.sampled_from(PRESETS))}
    else:
        params = draw(bounded(Workload, "params"))
        workload = {"params": params}
        if draw(st.booleans()):
            workload["active_params"] = draw(st.floats(1e7, params))
    seq = draw(
        st.one_of(st.sampled_from([2048, 8192]), bounded(Workload, "seq_len", integers=True))
    )
    workload |= {
        "tokens": draw(bounded(Workload, "tokens")),
        "seq_len": seq,
        "precision": draw(st.sampled_from(["bf16", "fp8"])),
    }
    cluster = {"gpu": draw(st.sampled_from(GPUS))}
    sizing = draw(st.sampled_from(["gpus", "deadline_days", "smallest"]))
    if sizing == "gpus":
        cluster["gpus"] = draw(bounded(Cluster, "gpus", 8, 1024, integers=True))
    elif sizing == "deadline_days":
        cluster["deadline_days"] = draw(bounded(Cluster, "deadline_days", 1e-3, 30.0))
    usage = {
        "mode": draw(st.sampled_from(["runs", "utilisation"])),
        "runs": draw(bounded(Usage, "runs", 1e-3, 0.05, 1.0)),
        "utilisation_pct": draw(bounded(Usage, "utilisation_pct", 1e-6, 0.5, 33.3)),
    }
    data = {
        "version": 1,
        "workload": workload,
        "cluster": cluster,
        "execution": {
            "attention": draw(st.sampled_from(["flash2", "flash1", "none"])),
            "gradient_precision": draw(st.sampled_from(["fp32", "bf16"])),
        },
        "usage": usage,
        "term": {
            "months": draw(st.integers(12, 60)),
            "financing": draw(st.sampled_from(["cash", "loan", "lease"])),
        },
        "options": {
            "compare": draw(st.lists(st.sampled_from(OPTION_IDS), min_size=1, unique=True)),
            "facility": draw(st.sampled_from(["colocation", "owned"])),
        },
        "overrides": {},
    }
    Scenario.model_validate(data)  # the schema accepts it
    return data


def shows_the_scenario(at: AppTest, data: dict) -> None:
    """The Workload page's inputs hold the scenario's values."""
    w, c, u = data["workload"], data["cluster"], data["usage"]
    assert at.selectbox(key="w_model").value == w.get("model", "custom")
    if "params" in w:
        assert at.number_input(key="w_params").value == pytest.approx(w["params"] / 1e9)
        assert at.number_input(key="w_active").value == pytest.approx(
            w.get("active_params", 0) / 1e9
        )
    # a text box (it groups thousands); it parses back to the scenario's count
    assert parse_number(at.text_input(key="w_tokens").value) * 1e9 == pytest.approx(w["tokens"])
    assert at.selectbox(key="w_seq").value == w["seq_len"]
    assert at.selectbox(key="w_precision").value == w["precision"]
    assert at.selectbox(key="w_gpu").value == c["gpu"]
    if "deadline_days" in c:
        assert at.number_input(key="w_deadline").value == c["deadline_days"]
    else:
        # a count reads with thousands separators, as the GPUs metric does
        assert at.text_input(key="w_gpus").value == (f"{c['gpus']:,}" if "gpus" in c else "")
    if u["mode"] == "runs":
        assert at.number_input(key="w_runs").value == u["runs"]
    else:
        assert at.slider(key="w_util").value == u["utilisation_pct"]
    assert at.slider(key="w_term").value == data["term"]["months"]
    assert at.multiselect(key="w_options").value == data["options"]["compare"]
    # sized, or a message saying why not; never a blank page
    assert at.metric or at.error
    assert at.session_state["scenario"] == data  # rendering changed nothing


@settings(max_examples=40)
@example(with_(usage={"mode": "runs", "runs": 0.05}))
@example(with_(usage={"mode": "utilisation", "utilisation_pct": 33.3}, term={"months": 13}))
@given(scenarios())
def test_any_valid_scenario_shows_its_values_on_the_workload_page(data):
    shows_the_scenario(app(scenario=data), data)


@settings(max_examples=25)
@given(scenarios())
def test_any_valid_scenario_renders_on_every_page(data):
    at = app(scenario=data)
    for page in PAGES[1:]:
        at.session_state["_page"] = page
        at.run()
        assert not at.exception, (page, data, at.exception)
        assert at.title, page

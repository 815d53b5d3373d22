"""The scenario schema: defaults, JSON schema and round trip, ranges and the messages that explain them,
and the rules that tie fields together."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from models.hardware import gpu_ids
from models.scenario import MAX_GPUS, SCHEMA_VERSION, Scenario, explain_validation_error
from models.shapes import load_presets

PRESETS = list(load_presets())


def problems(data: dict) -> list[tuple[str, str]]:
    with pytest.raises(ValidationError) as info:
        Scenario.model_validate(data)
    found = explain_validation_error(info.value)
    assert found and all(isinstance(p, str) and isinstance(m, str) and m for p, m in found)
    return found


# -------------------------------------------------------------------------- defaults and schema


def test_defaults_validate():
    s = Scenario()
    assert s == Scenario.model_validate({})
    assert s.version == SCHEMA_VERSION == 1
    assert s.workload.model in PRESETS
    assert s.workload.params is None and s.workload.active_params is None
    assert s.cluster.gpu in gpu_ids()
    assert s.cluster.gpus is None and s.cluster.deadline_days is None
    assert Scenario.model_validate(s.model_dump()) == s


def test_json_schema_is_serialisable_and_carries_the_version():
    schema = Scenario.model_json_schema()
    assert json.loads(json.dumps(schema)) == schema
    # version 1: one workload; version 2: a portfolio of workloads (both shown)
    assert schema["properties"]["version"]["enum"] == [SCHEMA_VERSION, 2]
    assert schema["properties"]["version"]["default"] == SCHEMA_VERSION
    assert "workloads" in schema["properties"]
    assert schema["additionalProperties"] is False
    assert set(schema["properties"]) == set(Scenario.model_fields)
    # the ranges a form or another tool needs are in it
    tokens = schema["$defs"]["Workload"]["properties"]["tokens"]
    assert (tokens["minimum"], tokens["maximum"]) == (1e6, 1e15)
    deadline = schema["$defs"]["Cluster"]["properties"]["deadline_days"]["anyOf"][0]
    assert (deadline["exclusiveMinimum"], deadline["maximum"]) == (0, 3650)


@pytest.mark.parametrize(
    "data",
    [
        {},
        {
            "workload": {"model": "llama3-405b", "tokens": 15e12, "precision": "fp8"},
            "cluster": {"gpu": "H200", "deadline_days": 90.5},
        },
        {
            "workload": {
                "params": 123.4e9,
                "active_params": 12.5e9,
                "seq_len": 4096,
                "global_batch_tokens": 2**22,
            },
            "cluster": {"gpu": "MI300X", "gpus": 1024},
            "reliability": {
                "failures_per_gpu_day": 0.001,
                "restart_minutes": 7.5,
                "storage_write_gbyte_per_s": 250,
            },
        },
    ],
    ids=["defaults", "preset-deadline", "custom-moe-fixed"],
)
def test_json_round_trip_is_identity(data):
    s = Scenario.model_validate(data)
    text = s.model_dump_json()
    back = Scenario.model_validate_json(text)
    assert back == s
    assert back.model_dump_json() == text


@st.composite
def valid_scenarios(draw) -> dict:
    w: dict = {}
    if draw(st.booleans()):
        w["model"] = draw(st.sampled_from(PRESETS))
    else:
        w["params"] = draw(st.floats(1e8, 1e14))
        if draw(st.booleans()):
            w["active_params"] = draw(st.floats(1e7, w["params"]))
    w["tokens"] = draw(st.floats(1e6, 1e15))
    w["seq_len"] = draw(st.integers(128, 1_048_576))
    if draw(st.booleans()):
        w["global_batch_tokens"] = draw(st.integers(w["seq_len"], 1_000_000_000))
    w["precision"] = draw(st.sampled_from(["bf16", "fp8"]))
    c: dict = {"gpu": draw(st.sampled_from(gpu_ids()))}
    target = draw(st.sampled_from(["gpus", "deadline_days", None]))
    if target == "gpus":
        c["gpus"] = draw(st.integers(1, MAX_GPUS))
    elif target == "deadline_days":
        c["deadline_days"] = draw(st.floats(0, 3650, exclude_min=True))
    r = {
        "failures_per_gpu_day": draw(st.none() | st.floats(0, 0.1, exclude_min=True)),
        "restart_minutes": draw(st.floats(0, 24 * 60)),
        "storage_write_gbyte_per_s": draw(st.none() | st.floats(0, 1e6, exclude_min=True)),
    }
    return {"workload": w, "cluster": c, "reliability": r}


@settings(max_examples=60)
@given(valid_scenarios())
def test_any_valid_scenario_survives_a_json_round_trip(data):
    s = Scenario.model_validate(data)
    back = Scenario.model_validate_json(s.model_dump_json())
    assert back == s
    assert back.model_dump_json() == s.model_dump_json()


# ----------------------------------------------------------------------------------- ranges


@pytest.mark.parametrize(
    ("data", "path", "range_text"),
    [
        ({"workload": {"tokens": 10}}, "workload.tokens", "at least 1e+06"),
        ({"workload": {"tokens": 1e16}}, "workload.tokens", "at most 1e+15"),
        ({"workload": {"params": 1e3}}, "workload.params", "at least 1e+08"),
        ({"workload": {"seq_len": 64}}, "workload.seq_len", "at least 128"),
        (
            {"workload": {"global_batch_tokens": 2_000_000_000}},
            "workload.global_batch_tokens",
            "at most 1,000,000,000",
        ),
        ({"cluster": {"gpus": 0}}, "cluster.gpus", "at least 1"),
        ({"cluster": {"gpus": MAX_GPUS + 1}}, "cluster.gpus", "at most 262,144"),
        ({"cluster": {"deadline_days": 0}}, "cluster.deadline_days", "more than 0"),
        ({"cluster": {"deadline_days": 4000}}, "cluster.deadline_days", "at most 3,650"),
        ({"reliability": {"restart_minutes": -1}}, "reliability.restart_minutes", "at least 0"),
        (
            {"reliability": {"failures_per_gpu_day": 1}},
            "reliability.failures_per_gpu_day",
            "at most 0.1",
        ),
        ({"workload": {"tokens": "abc"}}, "workload.tokens", "at least 1e+06"),
        ({"cluster": {"gpus": 8.5}}, "cluster.gpus", "at least 1"),
    ],
    ids=[
        "tokens-low",
        "tokens-high",
        "params-low",
        "seq-low",
        "batch-high",
        "gpus-zero",
        "gpus-high",
        "deadline-zero",
        "deadline-high",
        "restart-negative",
        "failures-high",
        "tokens-text",
        "gpus-fraction",
    ],
)
def test_out_of_range_fields_explain_path_and_allowed_range(data, path, range_text):
    found = problems(data)
    assert len(found) == 1, found
    got_path, message = found[0]
    assert got_path == path
    assert "allowed" in message and range_text in message, message


# ------------------------------------------------- the largest cluster: 262,144 GPUs (issue 27)


def test_the_largest_cluster_is_one_cap_for_both_versions():
    """models/portfolio/workloads.py holds MAX_GPUS and models/scenario.py takes it from there (the scenario
    schema imports the portfolio records, never the other way round)."""
    from models import scenario
    from models.portfolio import workloads as portfolio

    assert scenario.MAX_GPUS is portfolio.MAX_GPUS and MAX_GPUS == 262_144 == 2**18


@pytest.mark.parametrize("gpus", [131_072, 200_000, 262_144])
def test_clusters_past_65536_gpus_are_accepted(gpus):
    s = Scenario.model_validate({"cluster": {"gpus": gpus}})
    assert s.cluster.gpus == gpus
    portfolio = Scenario.model_validate(
        {
            "version": 2,
            "workloads": [{"kind": "steady", "name": "s", "gpus": gpus}],
            "options": {"build_expansions": [{"gpus": gpus, "month": 6}]},
        }
    )
    assert portfolio.workloads[0].gpus == portfolio.options.build_expansions[0].gpus == gpus


@pytest.mark.parametrize(
    ("data", "path"),
    [
        ({"cluster": {"gpus": 262_145}}, "cluster.gpus"),
        (
            {
                "version": 2,
                "workloads": [{"kind": "steady", "name": "s", "gpus": 64}],
                "options": {"build_expansions": [{"gpus": 262_145, "month": 6}]},
            },
            "options.build_expansions.0.gpus",
        ),
        (
            {"version": 2, "workloads": [{"kind": "steady", "name": "s", "gpus": 262_145}]},
            "workloads[0].gpus",
        ),
        (
            {
                "version": 2,
                "workloads": [
                    {"kind": "pretrain", "name": "p", "model": "llama3-8b", "gpus": 262_145}
                ],
            },
            "workloads[0].gpus",
        ),
    ],
    ids=["cluster", "expansion", "steady", "pretrain"],
)
def test_one_gpu_past_the_largest_cluster_is_refused_naming_the_field_and_the_cap(data, path):
    found = problems(data)
    assert len(found) == 1, found
    got_path, message = found[0]
    assert got_path == path
    # the cluster reads "at most 262,144", a workload (models/portfolio/workloads.py _range) "at most
    # 262144", an expansion pydantic's own "less than or equal to 262144"
    assert re.search(r"(at most|less than or equal to) 262,?144\b", message), message


@settings(max_examples=40)
@given(
    st.one_of(
        st.floats(max_value=1e6, exclude_max=True, allow_nan=False),
        st.floats(min_value=1e15, exclude_min=True, allow_nan=False),
    )
)
def test_any_token_count_outside_the_range_is_rejected_with_the_range(tokens):
    [(path, message)] = problems({"workload": {"tokens": tokens}})
    assert path == "workload.tokens"
    assert "allowed: at least 1e+06 and at most 1e+15" in message


def test_every_problem_is_reported():
    found = dict(problems({"workload": {"tokens": 1, "seq_len": 1}, "cluster": {"gpus": 0}}))
    assert set(found) == {"workload.tokens", "workload.seq_len", "cluster.gpus"}


# ------------------------------------------------------------------------------ rules between fields


def test_unknown_preset_is_rejected_with_the_choices():
    [(path, message)] = problems({"workload": {"model": "gpt-9"}})
    assert path == "workload.model"
    assert "llama3-8b" in message


def test_unknown_gpu_is_rejected_with_the_choices():
    [(path, message)] = problems({"cluster": {"gpu": "H999"}})
    assert path == "cluster.gpu"
    assert "H100-SXM" in message


@pytest.mark.parametrize(
    ("data", "path"),
    [
        ({"colour": "blue"}, "colour"),
        ({"workload": {"tokenz": 1e12}}, "workload.tokenz"),
        ({"cluster": {"gpu": "H100-SXM", "nodes": 8}}, "cluster.nodes"),
        ({"reliability": {"mtbf": 3}}, "reliability.mtbf"),
    ],
)
def test_unknown_keys_are_rejected(data, path):
    [(got, message)] = problems(data)
    assert got == path
    assert "extra" in message.lower()


def test_other_schema_versions_are_rejected():
    [(path, _)] = problems({"version": 3})
    assert path == "version"
    [(path, _)] = problems({"version": 2})  # a portfolio needs its workloads
    assert path == "workloads"


def test_unknown_precision_is_rejected():
    [(path, _)] = problems({"workload": {"precision": "fp16"}})
    assert path == "workload.precision"


def test_params_clear_the_preset():
    s = Scenario.model_validate({"workload": {"model": "llama3-8b", "params": 7e9}})
    assert s.workload.model is None
    assert s.workload.params == 7e9
    shape = s.workload.shape()
    assert shape.params_total == pytest.approx(7e9, rel=0.05)
    assert shape.experts == 1
    # and the cleared preset stays cleared through a round trip
    assert Scenario.model_validate_json(s.model_dump_json()).workload.model is None


def test_a_preset_gives_its_own_shape():
    s = Scenario.model_validate({"workload": {"model": "llama3-405b"}})
    assert s.workload.shape().params_total == pytest.approx(405e9, rel=0.02)


def test_neither_preset_nor_params_is_rejected():
    [(path, message)] = problems({"workload": {"model": None}})
    assert path == "workload"
    assert "params" in message


def test_active_params_need_params():
    [(path, message)] = problems({"workload": {"model": "mixtral-8x7b", "active_params": 13e9}})
    assert path == "workload.active_params"
    assert "active_params" in message and "params" in message


def test_active_params_must_not_exceed_params():
    [(path, message)] = problems({"workload": {"params": 7e9, "active_params": 8e9}})
    assert path == "workload.active_params"
    assert "at most" in message


def test_params_with_active_params_make_a_moe_shape():
    s = Scenario.model_validate({"workload": {"params": 100e9, "active_params": 10e9}})
    shape = s.workload.shape()
    assert shape.experts > 1
    assert shape.params_active < shape.params_total
    equal = Scenario.model_validate({"workload": {"params": 7e9, "active_params": 7e9}})
    assert equal.workload.active_params == 7e9


def test_batch_must_hold_one_sequence():
    [(path, message)] = problems({"workload": {"seq_len": 8192, "global_batch_tokens": 4096}})
    assert path == "workload.global_batch_tokens"
    assert "seq_len" in message


def test_a_given_batch_is_counted_in_whole_sequences():
    s = Scenario.model_validate({"workload": {"seq_len": 4096, "global_batch_tokens": 2**21 + 100}})
    assert s.workload.global_batch_seqs() == 512


def test_gpus_and_deadline_together_are_rejected():
    [(path, message)] = problems({"cluster": {"gpus": 64, "deadline_days": 30}})
    assert path == "cluster"
    assert "gpus" in message and "deadline_days" in message
    assert Scenario.model_validate({"cluster": {"gpus": 64}}).cluster.deadline_days is None
    assert Scenario.model_validate({"cluster": {"deadline_days": 30}}).cluster.gpus is None

"""Hostile input to scenario validation: property and fuzz tests, XSS in the portal, no eval.

Whatever a scenario dict, JSON text or scenario file holds, validation ends in a `Scenario` whose
numbers are all finite, or in the documented error (pydantic's `ValidationError` for
`Scenario.model_validate[_json]`, `ScenarioInputError` for `read_scenario`), each within a second.

Share links are covered in tests/test_share_link.py (random text and bytes, mutated tokens, zip
bombs, NaN/Infinity, deep nesting, oversized tokens, code-looking strings); this file adds what is
not there: values of every type at every path of a scenario through the link, the suite's one scan
of the source for pickle/eval/exec, and XSS in a real browser. Markup in the PDF title is
tests/test_report_pdf.py::test_markup_in_the_title_is_printed_not_read.

`HOSTILE_EXAMPLES=5000 .venv/bin/python -m pytest tests/test_scenario_hostile.py` is the longer run
(default: 40 examples per property).
"""

from __future__ import annotations

import copy
import json
import math
import os
import pathlib
import re
import tempfile
import time
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from app import share_link
from app.scenario_files import EXAMPLE, MAX_SCENARIO_BYTES, ScenarioInputError, read_scenario
from models.scenario import Scenario

ROOT = pathlib.Path(__file__).resolve().parents[1]
EXAMPLES = int(os.environ.get("HOSTILE_EXAMPLES", "40"))
PROPS = settings(
    max_examples=EXAMPLES,
    derandomize=EXAMPLES <= 40,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
#: every answer, accepted or refused, within this many seconds
BOUND_S = 1.0
XSS = [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    '"><svg onload=alert(1)>',
    "javascript:alert(1)",
]


def _paths(node: Any, prefix: tuple = ()) -> list[tuple]:
    """Every path in the example scenario: each section, each field, and a new key in each section."""
    out = [prefix] if prefix else []
    if isinstance(node, dict):
        for key, value in node.items():
            out += _paths(value, (*prefix, key))
        out.append((*prefix, "surprise"))
    return out


PATHS = _paths(
    {
        **EXAMPLE,
        "overrides": {"pue": 1.3},
        "reliability": {"restart_minutes": 10.0},
        "execution": {
            "attention": "flash2",
            "tp_comm_overlap": False,
            "gradient_precision": "fp32",
            "fp8_params": False,
        },
    }
)

HOSTILE_NUMBERS = [
    math.nan,
    math.inf,
    -math.inf,
    1e308,
    -1e308,
    5e-324,
    -0.0,
    -1,
    -(10**30),
    10**400,
    -(10**400),
    2**63,
    2**64 + 1,
    0,
    1e15 + 1,
    65_537,
]
scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.sampled_from(HOSTILE_NUMBERS)
    | st.text(max_size=40)
    | st.sampled_from(XSS)
)
json_values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


def with_value(path: tuple, value: Any) -> dict:
    data = copy.deepcopy(EXAMPLE)
    node = data
    for key in path[:-1]:
        if not isinstance(node.get(key), dict):
            node[key] = {}
        node = node[key]
    node[path[-1]] = value
    return data


def all_finite(value: Any) -> bool:
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, dict):
        return all(all_finite(v) for v in value.values())
    if isinstance(value, list):
        return all(all_finite(v) for v in value)
    return True


def validated(call, *args) -> Scenario | None:
    """`call(*args)`: a Scenario with finite numbers, or None for a ValidationError; within BOUND_S."""
    start = time.perf_counter()
    try:
        result = call(*args)
    except ValidationError as exc:
        assert exc.errors(), exc
        result = None
    assert time.perf_counter() - start < BOUND_S
    if result is not None:
        assert all_finite(result.model_dump(mode="python"))
    return result


# ------------------------------------------------------------------- Scenario.model_validate[_json]


@PROPS
@given(st.sampled_from(PATHS), json_values)
def test_any_value_at_any_path_validates_or_is_refused(path, value):
    data = with_value(path, value)
    validated(Scenario.model_validate, data)
    text = json.dumps(data, allow_nan=True)  # NaN, Infinity and -Infinity as JSON literals
    validated(Scenario.model_validate_json, text)


@PROPS
@given(st.sampled_from(PATHS), st.sampled_from(HOSTILE_NUMBERS))
def test_hostile_numbers_at_any_path(path, number):
    data = with_value(path, number)
    validated(Scenario.model_validate, data)
    validated(Scenario.model_validate_json, json.dumps(data, allow_nan=True))


@pytest.mark.parametrize(
    "literal",
    [
        "NaN",
        "Infinity",
        "-Infinity",
        "1e999",
        "-1e999",
        "1" + "0" * 400,
        "9" * 5000,
        "-0",
        "1e-400",
    ],
)
@pytest.mark.parametrize(
    "path",
    [
        ("workload", "tokens"),
        ("cluster", "gpus"),
        ("term", "months"),
        ("usage", "runs"),
        ("overrides", "pue"),
        ("term", "discount_rate_pct"),
    ],
)
def test_json_number_literals(literal, path):
    """Only a zero, written as -0 or as 1e-400 (which underflows to 0), is accepted, and only where
    0 is allowed (an override, the discount rate); NaN, infinities and huge numbers never are."""
    text = json.dumps(with_value(path, "@@")).replace('"@@"', literal)
    sc = validated(Scenario.model_validate_json, text)
    zero_allowed = path in (("overrides", "pue"), ("term", "discount_rate_pct"))
    if literal in ("-0", "1e-400") and zero_allowed:
        assert sc is not None and sc.model_dump()[path[0]][path[1]] == 0.0
    else:
        assert sc is None


@PROPS
@given(st.binary(max_size=2000))
def test_random_bytes_as_json(raw):
    validated(Scenario.model_validate_json, raw)


@pytest.mark.parametrize("depth", [50, 1_000, 100_000])
def test_deep_nesting(depth):
    inner = "[" * depth + "]" * depth
    for text in (
        '{"overrides":' + inner + "}",
        '{"workload":' + '{"a":' * depth + "1" + "}" * (depth + 1),
        inner,
    ):
        assert validated(Scenario.model_validate_json, text) is None
    nested: Any = 1
    for _ in range(min(depth, 5_000)):
        nested = {"a": nested}
    assert validated(Scenario.model_validate, {"overrides": nested}) is None


def test_oversized_payloads():
    many = {f"k{i}": 1.0 for i in range(100_000)}
    assert validated(Scenario.model_validate, {"overrides": many}) is None
    assert validated(Scenario.model_validate, {"workload": {"model": "x" * 10_000_000}}) is None
    assert validated(Scenario.model_validate_json, json.dumps({"overrides": many})) is None
    assert (
        validated(Scenario.model_validate, {"options": {"compare": ["build"] * 1_000_000}}) is None
    )


# ---------------------------------------------------------------------------- scenario files (CLI)


TMP = pathlib.Path(tempfile.mkdtemp(prefix="hostile-"))


def read_file(raw: bytes) -> Scenario | None:
    path = TMP / "scenario.json"
    path.write_bytes(raw)
    start = time.perf_counter()
    try:
        sc = read_scenario(str(path))
    except ScenarioInputError as exc:
        msg = str(exc)
        assert msg.startswith(str(path)) and "\n" not in msg and len(msg) < 600, msg
        sc = None
    assert time.perf_counter() - start < BOUND_S
    if sc is not None:
        assert all_finite(sc.model_dump(mode="python"))
    return sc


@PROPS
@given(st.binary(max_size=3000))
def test_random_bytes_in_a_file(raw):
    read_file(raw)


@PROPS
@given(st.sampled_from(PATHS), json_values)
def test_any_value_at_any_path_in_a_file(path, value):
    read_file(json.dumps(with_value(path, value), allow_nan=True).encode())


@PROPS
@given(st.data())
def test_mutated_example_files(data):
    raw = bytearray(json.dumps(EXAMPLE).encode())
    for _ in range(data.draw(st.integers(1, 6))):
        i = data.draw(st.integers(0, len(raw) - 1))
        op = data.draw(st.sampled_from(["flip", "insert", "delete"]))
        byte = data.draw(st.sampled_from(b'{}[]":,0123456789.eE-+ntfNI\x00\xff'))
        if op == "flip":
            raw[i] = byte
        elif op == "insert":
            raw.insert(i, byte)
        else:
            del raw[i]
    read_file(bytes(raw))


@pytest.mark.parametrize(
    "raw",
    [
        b"[" * 200_000,
        b'{"a":' * 50_000,
        b" " * (MAX_SCENARIO_BYTES + 1),
        b'{"overrides":{' + b",".join(b'"k%d":1' % i for i in range(30_000)) + b"}}",
        b'{"workload":{"tokens":NaN}}',
        b'{"overrides":{"pue":-Infinity}}',
        b"\xef\xbb\xbf" + json.dumps(EXAMPLE).encode(),  # a byte-order mark is fine
    ],
    ids=["deep-list", "deep-object", "oversized", "many-keys", "nan", "minus-inf", "bom"],
)
def test_hostile_files(raw):
    sc = read_file(raw)
    assert (sc is not None) == raw.startswith(b"\xef\xbb\xbf")


def test_an_integer_too_long_for_python_in_a_file():
    read_file(b'{"version":1,"term":{"months":' + b"9" * 5000 + b"}}")


# ----------------------------------------------------------------------- every path through a link


@PROPS
@given(st.sampled_from(PATHS), json_values)
def test_any_value_at_any_path_through_a_link(path, value):
    """decode(token) of any JSON-able scenario: a valid Scenario or a one-line LinkError, fast."""
    data = with_value(path, value)
    try:
        raw = json.dumps(data, separators=(",", ":"), allow_nan=True).encode()
    except ValueError:
        return
    import base64
    import zlib

    token = base64.urlsafe_b64encode(zlib.compress(raw, 9)).decode().rstrip("=")
    start = time.perf_counter()
    try:
        sc = share_link.decode(token)
    except share_link.LinkError as exc:
        msg = str(exc)
        assert msg and "\n" not in msg and len(msg) < 400, msg
    else:
        assert all_finite(sc.model_dump(mode="python"))
    assert time.perf_counter() - start < BOUND_S


# ------------------------------------------------------------------------------ XSS: free text


@pytest.mark.parametrize("payload", XSS)
def test_free_text_fields_refuse_markup(payload):
    """The only free text in the schema is a provider name: the schema takes any short text, and the
    cost engine refuses a name the catalogue does not know, naming the field."""
    from pricing.engine import compare
    from pricing.inputs import InputError

    for field in ("rent_provider", "cloud_provider"):
        sc = validated(Scenario.model_validate, with_value(("options", field), payload))
        assert sc is not None and getattr(sc.options, field) == payload
        with pytest.raises(InputError) as info:
            compare(sc, decision=False)
        assert info.value.field == f"options.{field}"
    for key in ("model", "gpu"):
        section = "workload" if key == "model" else "cluster"
        assert validated(Scenario.model_validate, with_value((section, key), payload)) is None


def xss_link(base: str, page: str = "") -> str:
    data = {**EXAMPLE, "overrides": {XSS[0]: 1.0, XSS[1]: 2.0}}
    return f"{base}{page}?s={share_link.encode_data(data)}"


@pytest.mark.browser
@pytest.mark.e2e
@pytest.mark.parametrize("where", ["compare", "assumptions"])
def test_markup_in_a_link_is_shown_as_text_and_never_runs(portal_url, page, where):
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.set_default_timeout(15_000)
    page.goto(xss_link(portal_url, where))
    page.get_by_text("unknown input").first.wait_for()  # the error names the first unknown key
    page.wait_for_timeout(1000)  # time for an injected handler to fire, were there one
    page.locator("[data-testid='stStatusWidget']").wait_for(state="detached")
    assert dialogs == []
    assert (
        page.evaluate(
            "[...document.scripts].filter(s => s.textContent.includes('alert(1)')).length"
        )
        == 0
    )
    assert page.locator("img[src='x']").count() == 0
    assert page.locator("svg[onload]").count() == 0
    body = page.evaluate("document.body.innerText")
    # the error names one unknown key (the first the engine meets), as plain text
    named = [key for key in XSS[:2] if f"overrides.{key}: unknown input" in body]
    assert len(named) == 1, body[:500]


# ------------------------------------------------------------------------------- no eval anywhere


def test_no_pickle_eval_or_exec_in_the_code():
    """Nothing the planner ships or runs deserialises with pickle, marshal or yaml.load, or runs
    text as code (the one such scan in the suite; tests/ are left out)."""
    pattern = re.compile(
        r"\bpickle\b|\bcPickle\b|\beval\s*\(|\bexec\s*\(|\bmarshal\b|\byaml\.load\("
    )
    offenders = []
    for folder in ("app", "models", "pricing", "bench", "scripts"):
        for path in (ROOT / folder).rglob("*"):
            if path.suffix not in (".py", ".sh") or not path.is_file():
                continue
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if pattern.search(line):
                    offenders.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert not offenders, offenders

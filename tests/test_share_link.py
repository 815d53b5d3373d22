"""Share links (`app.share_link`, `clusterplan link | decode`): round trips, and hostile links.

A link is untrusted input: whatever it holds, decoding ends in a scenario or in a `LinkError` with
one short sentence, quickly, and never in another exception.
"""

from __future__ import annotations

import base64
import json
import math
import re
import sys
import zlib
from typing import Literal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import model_validator

from app import share_link
from app.cli import main
from app.scenario_files import EXAMPLE, PORTFOLIOS, example_json
from app.share_link import (
    MAX_JSON_BYTES,
    MAX_LINK_CHARS,
    LinkError,
    decode,
    decode_data,
    decode_link,
    encode,
    encode_data,
    link_url,
    token_from_url,
)
from models.finetune.plan import FinetuneInputs
from models.hardware import gpu_ids
from models.options import spec
from models.scenario import OPTION_IDS, SCHEMA_VERSION, Scenario
from models.scenario_set import ScenarioSet
from models.serving.plan import ServeInputs, plan_serving
from models.shapes import load_presets
from tests.builders import EVERY_FIELD, TEN_NAMES, ten_workloads, token_of, token_of_json
from tests.readback import assert_one_sentence, refused

FAST = settings(max_examples=60)

#: every section set, and a dozen overrides
FULL = {
    "version": 1,
    "workload": {
        "params": 3.4e11,
        "active_params": 3.7e10,
        "tokens": 1.48e13,
        "seq_len": 4096,
        "global_batch_tokens": 62_914_560,
        "precision": "fp8",
    },
    "cluster": {"gpu": "H200", "deadline_days": 75.5},
    "reliability": {
        "failures_per_gpu_day": 0.00012,
        "restart_minutes": 18.0,
        "storage_write_gbyte_per_s": 400.0,
    },
    "usage": {"mode": "utilisation", "runs": 2.5, "utilisation_pct": 72.5},
    "term": {"months": 48, "discount_rate_pct": 9.5, "financing": "loan", "loan_years": 4},
    "options": {
        # every option a version 1 link could name when the token below was pinned (the
        # options that need a demand over time, hybrid, came later and only with version 2)
        "compare": [o for o in OPTION_IDS if not spec(o).needs_demand],
        "facility": "owned",
        "rent_provider": "Example Dedicated GPU Cloud",
        "cloud_provider": "Example Hyperscaler",
    },
    "overrides": {
        "server_usd_per_gpu": 31500.0,
        "electricity_usd_per_kwh": 0.083,
        "pue": 1.25,
        "colocation_usd_per_kw_month": 165.0,
        "ops_salary_usd_per_year": 185000.0,
        "storage_buy_usd_per_tb": 95.5,
        "installation_usd_per_node": 2500.0,
        "managed_premium_pct": 22.5,
        "egress_usd_per_gb": 0.05,
        "idle_power_pct": 35.0,
        "rent_usd_per_gpu_hour": 2.35,
        "cloud_on_demand_usd_per_gpu_hour": 6.88,
    },
}


# ------------------------------------------------------------------------------------ round trips


def test_example_round_trip():
    scenario = Scenario.model_validate(EXAMPLE)
    token = encode(scenario)
    assert re.fullmatch(r"[A-Za-z0-9_-]+", token)
    assert decode(token) == scenario
    assert decode_data(encode_data(EXAMPLE)) == EXAMPLE


def test_defaults_make_a_tiny_link():
    token = encode(Scenario())
    assert len(token) < 40, token
    assert decode_data(token) == {"version": SCHEMA_VERSION}
    assert decode(token) == Scenario()


def test_encode_data_keeps_keys_and_adds_version():
    data = {"term": {"months": 24}, "workload": {"tokens": 5e11, "model": "llama3-8b"}}
    back = decode_data(encode_data(data))
    assert back == {"version": SCHEMA_VERSION, **data}
    assert list(back) == ["version", "term", "workload"]
    assert list(back["workload"]) == ["tokens", "model"]


@pytest.mark.parametrize("data", [FULL, json.loads(example_json())], ids=["full", "example-output"])
def test_typical_links_are_short(data):
    url = link_url(data)
    assert len(url) < 2000, len(url)
    assert decode_data(token_from_url(url)) == data
    scenario = Scenario.model_validate(data)
    assert len(link_url(scenario)) < 2000
    assert decode(token_from_url(link_url(scenario))) == scenario


def test_link_url_and_token_from_url():
    token = encode(Scenario.model_validate(EXAMPLE))
    assert link_url(EXAMPLE) == f"http://localhost:8501/?s={encode_data(EXAMPLE)}"
    assert link_url(Scenario.model_validate(EXAMPLE)).endswith("?s=" + token)
    url = link_url(EXAMPLE, "https://planner.example.com/app?lang=en")
    assert url.startswith("https://planner.example.com/app?lang=en&s=")
    again = link_url(EXAMPLE, url)  # an s already in the base URL is replaced, not repeated
    assert again.count("s=") == 1 and again == url
    assert token_from_url(url) == encode_data(EXAMPLE)
    assert token_from_url(token) == token
    assert token_from_url("s=" + token) == token
    assert token_from_url(f"https://x.example/p?a=1&s={token}#frag") == token
    for url in (
        "https://planner.example.com/app",
        "https://planner.example.com/app?lang=en",
        "?a=1",
    ):
        with pytest.raises(LinkError, match="no s="):
            token_from_url(url)


# hypothesis: valid scenarios built from a handful of fields

presets = st.sampled_from(list(load_presets()))
positive = st.floats(allow_nan=False, allow_infinity=False)


@st.composite
def scenarios(draw) -> dict:
    workload: dict = {"tokens": draw(st.floats(1e6, 1e15))}
    if draw(st.booleans()):
        workload["model"] = draw(presets)
    else:
        params = draw(st.floats(1e8, 1e14))
        workload["params"] = params
        if draw(st.booleans()):
            workload["active_params"] = draw(st.floats(1e7, params))
    cluster: dict = {"gpu": draw(st.sampled_from(gpu_ids()))}
    target = draw(st.sampled_from(["gpus", "deadline_days", None]))
    if target == "gpus":
        cluster["gpus"] = draw(st.integers(1, 65_536))
    elif target == "deadline_days":
        cluster["deadline_days"] = draw(st.floats(0.01, 3650))
    usage = {
        "mode": draw(st.sampled_from(["runs", "utilisation"])),
        "runs": draw(st.floats(0.01, 1000)),
        "utilisation_pct": draw(st.floats(0.1, 100)),
    }
    term = {
        "months": draw(st.integers(12, 60)),
        "financing": draw(st.sampled_from(["cash", "loan", "lease"])),
    }
    options = {"compare": draw(st.lists(st.sampled_from(OPTION_IDS), min_size=1, unique=True))}
    overrides = draw(
        st.dictionaries(
            st.sampled_from(
                [
                    "server_usd_per_gpu",
                    "electricity_usd_per_kwh",
                    "pue",
                    "colocation_usd_per_kw_month",
                    "managed_premium_pct",
                    "egress_usd_per_gb",
                ]
            ),
            st.floats(0, 1e12, exclude_max=True),
            max_size=4,
        )
    )
    data = {
        "workload": workload,
        "cluster": cluster,
        "usage": usage,
        "term": term,
        "options": options,
        "overrides": overrides,
    }
    keep = draw(st.lists(st.sampled_from(list(data)), unique=True))
    return {key: data[key] for key in keep}


@FAST
@given(scenarios())
def test_generated_scenarios_round_trip(data):
    scenario = Scenario.model_validate(data)
    assert decode(encode(scenario)) == scenario
    assert decode(token_from_url(link_url(scenario))) == scenario
    assert decode_data(encode_data(data)) == {"version": SCHEMA_VERSION, **data}


# ------------------------------------------------------------------------------------ hostile links


@FAST
@given(st.text(max_size=300))
def test_random_text_is_refused_cleanly(text):
    try:
        decode(token_from_url(text))
    except LinkError as exc:
        assert_one_sentence(exc)


@FAST
@given(st.binary(max_size=3000))
def test_random_bytes_behind_valid_base64_are_refused(payload):
    refused(base64.urlsafe_b64encode(payload).decode().rstrip("="))


@FAST
@given(st.binary(max_size=3000))
def test_random_bytes_behind_valid_zlib_are_refused(payload):
    refused(token_of(payload))


@FAST
@given(st.data())
def test_mutated_tokens_never_escape_as_other_errors(data):
    token = encode_data(FULL)
    chars = list(token)
    alphabet = st.sampled_from("ABCXYZabcxyz0189-_=+/.% ~\x00é")
    for _ in range(data.draw(st.integers(1, 4))):
        op = data.draw(st.sampled_from(["flip", "insert", "delete"]))
        i = data.draw(st.integers(0, max(0, len(chars) - 1)))
        if op == "flip" and chars:
            chars[i] = data.draw(alphabet)
        elif op == "insert":
            chars.insert(i, data.draw(alphabet))
        elif chars:
            del chars[i]
    mutated = "".join(chars)
    try:
        scenario = decode(mutated)
    except LinkError as exc:
        assert_one_sentence(exc, mutated)
    else:  # a mutation that still decodes is a whole scenario: finite, and it links back to itself
        assert all(math.isfinite(v) for v in _floats(scenario.model_dump()))
        assert decode(encode(scenario)) == scenario


def _floats(value):
    if isinstance(value, dict):
        for v in value.values():
            yield from _floats(v)
    elif isinstance(value, list):
        for v in value:
            yield from _floats(v)
    elif isinstance(value, float):
        yield value


def test_truncated_tokens_are_refused():
    token = encode_data(FULL)
    for n in range(0, len(token) - 1):
        refused(token[:n])


def test_too_long_token_is_refused_before_decoding():
    msg = refused("A" * 9000, "too long")
    assert "9,000" in msg and "8,192" in msg
    refused("!" * (MAX_LINK_CHARS + 1), "too long")  # not even base64: the length check comes first
    refused("A" * (MAX_LINK_CHARS - 1), "damaged")


@pytest.mark.parametrize(
    "payload",
    [
        b"0" * 6_000_000,
        b'{"a":' * 700_000,
        b'{"version":1,"overrides":{"' + b"a" * 5_000_000 + b'":1.0}}',
    ],
    ids=["zeros", "nesting", "long-key"],
)
def test_zip_bombs_stop_at_the_decompression_cap(payload):
    token = token_of(payload)
    assert len(token) <= MAX_LINK_CHARS, len(token)  # so it is the inflate cap that refuses it
    assert len(payload) > 50 * MAX_JSON_BYTES
    refused(token, "too large")


def test_zlib_stream_cut_short_or_with_trailing_data():
    raw = zlib.compress(json.dumps(EXAMPLE).encode(), 9)
    refused(base64.urlsafe_b64encode(raw[:-6]).decode().rstrip("="), "damaged")
    refused(base64.urlsafe_b64encode(raw + b"junk").decode().rstrip("="), "damaged")


@pytest.mark.parametrize("obj", [[], [EXAMPLE], 42, "scenario", None, True])
def test_json_that_is_not_an_object(obj):
    refused(token_of_json(obj), "not a JSON object")


@pytest.mark.parametrize(
    "text",
    [
        '{"version":1,"overrides":{"pue":NaN}}',
        '{"version":1,"overrides":{"pue":Infinity}}',
        '{"version":1,"overrides":{"pue":-Infinity}}',
        '{"version":1,"overrides":{"pue":1e999}}',
    ],
)
def test_non_finite_numbers(text):
    refused(token_of(text.encode()), "not finite")


@pytest.mark.parametrize("depth", [20, 200, 10_000])
def test_deep_nesting(depth):
    text = '{"version":1,"overrides":' + '{"a":' * depth + "1" + "}" * (depth + 1)
    refused(token_of(text.encode()), "nested too deeply")


@pytest.mark.parametrize("text", ["not json", '{"version":1', "\xff\xfe", '{"version":1}{}'])
def test_damaged_json(text):
    refused(token_of(text.encode("latin-1")), "damaged")


def test_huge_integer_is_refused():
    refused(token_of(b'{"version":' + b"9" * 5000 + b"}"))


@pytest.mark.parametrize(
    ("version", "pattern"),
    [
        (99, "newer version of the planner"),
        (3, "newer version of the planner"),
        (0, "too old"),
        (-3, "too old"),
        ("1", "not a whole number"),
        (1.0, "not a whole number"),
        (True, "not a whole number"),
        (None, "not a whole number"),
    ],
)
def test_bad_versions(version, pattern):
    refused(token_of_json({**EXAMPLE, "version": version}), pattern)


def test_missing_version():
    data = {k: v for k, v in EXAMPLE.items() if k != "version"}
    refused(token_of_json(data), "no schema version")


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"term": {"months": 6}}, "term.months"),
        ({"cluster": {"gpu": "TPU-v9"}}, "cluster.gpu"),
        ({"workload": {"model": "llama3-70b", "tokens": -1}}, "workload.tokens"),
        ({"usage": {"mode": "sometimes"}}, "usage.mode"),
        ({"overrides": {"pue": "1.2"}}, "overrides.pue"),
        ({"surprise": 1}, "surprise"),
    ],
)
def test_invalid_fields_are_named(change, field):
    msg = refused(token_of_json({**EXAMPLE, **change}), "scenario is invalid")
    assert field in msg, msg


def test_range_is_explained():
    msg = refused(token_of_json({**EXAMPLE, "term": {"months": 6}}))
    assert "allowed: at least 12 and at most 120" in msg, msg


@pytest.mark.parametrize(
    "text",
    [
        "__import__('os').system('touch /tmp/pwned')",
        "eval(compile('1','x','eval'))",
        "{{7*7}}",
        "!!python/object/apply:os.system ['id']",
    ],
)
def test_code_looking_strings_stay_data_and_run_nothing(text, code_events):
    with code_events() as events:
        refused(token_of_json({**EXAMPLE, "workload": {"model": text}}), "workload.model")
        refused(token_of_json({**EXAMPLE, text: 1}), "Extra inputs are not permitted")
        scenario = decode(token_of_json({**EXAMPLE, "overrides": {text: 1.0}}))
    assert events == []
    assert scenario.overrides == {text: 1.0}  # a key like any other, which the engine will refuse


#: audit events (PEP 578) of running code, a shell or an unpickler
CODE_EVENTS = frozenset(
    {"exec", "compile", "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork",
     "subprocess.Popen", "pickle.find_class", "marshal.loads", "ctypes.dlopen"}
)  # fmt: skip
_recording: list[list[str]] = []


def _audit(event: str, args) -> None:
    if _recording and event in CODE_EVENTS:
        _recording[-1].append(event)


@pytest.fixture(scope="session")
def code_events():
    """A context manager that records code-running audit events while it is open."""
    import contextlib

    sys.addaudithook(_audit)  # hooks cannot be removed: it records only inside the block

    @contextlib.contextmanager
    def recording():
        _recording.append([])
        try:
            yield _recording[-1]
        finally:
            _recording.pop()

    with recording() as control:  # the hook sees what it must: compile() is reported
        compile("1", "<control>", "eval")
    assert control == ["compile"]
    return recording


def test_long_and_control_characters_in_field_names_are_clipped():
    key = "x\n" * 5000
    msg = refused(token_of_json({**EXAMPLE, key: 1}), "invalid")
    assert len(msg) < 300


def test_encode_refuses_invalid_and_oversized_data():
    for bad in (
        {"term": {"months": 6}},
        {"version": 2},
        {"version": "1"},
        [1, 2],
        {"overrides": {"pue": float("nan")}},
    ):
        with pytest.raises(LinkError) as info:
            encode_data(bad)
        assert_one_sentence(info.value)
    with pytest.raises(LinkError, match="too large"):
        encode_data({"overrides": {"k" * 70_000: 1.0}})
    rng = __import__("random").Random(7)
    noisy = {
        "version": 1,
        "overrides": {
            "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(200)): 1.0
            for _ in range(60)
        },
    }
    with pytest.raises(LinkError, match="too large"):
        encode_data(noisy)


# -------------------------------------------------------------------------------------- migrations


def test_migrations_upgrade_older_links(monkeypatch):
    class ScenarioV2(Scenario):
        version: Literal[2] = 2

        @model_validator(mode="after")
        def _portfolio_by_version(self):  # a made-up v2, not the portfolio schema's
            return self

    def one_to_two(data: dict) -> dict:  # pretend v1 spelled term.months as term.years
        data = dict(data)
        term = dict(data.get("term", {}))
        if "years" in term:
            term["months"] = int(term.pop("years") * 12)
        data["term"] = term
        return data

    monkeypatch.setattr(share_link, "VERSIONS", (2,))
    monkeypatch.setattr(share_link, "Scenario", ScenarioV2)
    monkeypatch.setattr(share_link, "MIGRATIONS", {1: one_to_two})
    old = token_of_json({"version": 1, "term": {"years": 4}})
    assert decode_data(old) == {"version": 2, "term": {"months": 48}}
    assert decode(old).term.months == 48
    refused(token_of_json({"version": 3}), "newer version")
    refused(token_of_json({"version": 0}), "too old")

    def broken(data: dict) -> dict:
        raise KeyError("workload")

    monkeypatch.setattr(share_link, "MIGRATIONS", {1: broken})
    refused(old, "could not be upgraded")


def test_no_migrations_needed_today():
    assert all(v < min(share_link.VERSIONS) for v in share_link.MIGRATIONS)


# ------------------------------------------------------------------------------------------- CLI


def cli(capsys, *args: str) -> tuple[int, str, str]:
    rc = main(list(args))
    out, err = capsys.readouterr()
    return rc, out, err


def test_cli_link_then_decode(capsys, tmp_path):
    path = tmp_path / "example.json"
    path.write_text(json.dumps(EXAMPLE, indent=2))
    rc, out, err = cli(capsys, "link", str(path))
    assert rc == 0 and not err
    url = out.strip()
    assert url.startswith("http://localhost:8501/?s=") and "\n" not in url
    rc, out, err = cli(capsys, "decode", url)
    assert rc == 0 and not err
    assert json.loads(out) == json.loads(path.read_text())
    assert out.strip() == json.dumps(EXAMPLE, indent=2)


def test_cli_example_output_links_and_decodes(capsys, tmp_path):
    rc, out, _ = cli(capsys, "example")
    path = tmp_path / "example.json"
    path.write_text(out)
    rc, url, err = cli(capsys, "link", str(path))
    assert rc == 0 and len(url.strip()) < 2000
    rc, out, err = cli(capsys, "decode", url.strip())
    assert rc == 0 and json.loads(out) == json.loads(path.read_text())
    token = token_from_url(url.strip())
    rc, out2, _ = cli(capsys, "decode", token)  # a bare token works too
    assert rc == 0 and out2 == out


def test_cli_link_adds_version(capsys, tmp_path):
    path = tmp_path / "s.json"
    path.write_text('{"term": {"months": 24}}')
    rc, url, _ = cli(capsys, "link", str(path))
    rc, out, _ = cli(capsys, "decode", url.strip())
    assert json.loads(out) == {"version": SCHEMA_VERSION, "term": {"months": 24}}


def test_cli_base_url(capsys, tmp_path):
    path = tmp_path / "s.json"
    path.write_text(json.dumps(EXAMPLE))
    rc, out, _ = cli(capsys, "link", str(path), "--base-url", "https://planner.example.com/app")
    assert rc == 0 and out.startswith("https://planner.example.com/app?s=")
    rc, out, _ = cli(capsys, "decode", out.strip())
    assert rc == 0 and json.loads(out) == EXAMPLE


@pytest.mark.parametrize(
    "tamper",
    [
        lambda url: url[:-10],
        lambda url: url.replace("?s=", "?s=x"),
        lambda url: url[:40] + "!!" + url[42:],
        lambda url: url.split("?")[0],
        lambda url: url + "A" * 9000,
    ],
)
def test_cli_decode_of_tampered_link(capsys, tamper):
    url = link_url(EXAMPLE)
    rc, out, err = cli(capsys, "decode", tamper(url))
    assert rc == 2 and not out
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("clusterplan decode: the link"), err
    assert "Traceback" not in err and token_from_url(url) not in err


@pytest.mark.parametrize(
    ("text", "pattern"),
    [
        ('{"term": {"months": 6}}', "term.months"),
        ("[1, 2]", "object"),
        ("not json", "not valid JSON"),
        ('{"workload": {"tokens": NaN}}', r"a number in it is not finite \(NaN\)"),
        ('{"workload": {"tokens": -Infinity}}', r"not finite \(-Infinity\)"),
        ('{"term": {"months": 1e999}}', r"not finite \(1e999\)"),
    ],
)
def test_cli_link_of_bad_file(capsys, tmp_path, text, pattern):
    path = tmp_path / "bad.json"
    path.write_text(text)
    rc, out, err = cli(capsys, "link", str(path))
    assert rc == 2 and not out
    lines = err.strip().splitlines()
    assert (
        len(lines) == 1
        and lines[0].startswith("clusterplan link: ")
        and re.search(pattern, lines[0])
    )


# ------------------------------------------------------------- Serve and Fine-tune sections

SERVE = ServeInputs(
    model="llama3-8b",
    gpu="H200",
    precision="fp8",
    input_tokens=1000,
    output_tokens=300,
    users=48,
    tpot_ms=40,
)
FINETUNE = FinetuneInputs(
    model="llama3-8b", method="qlora", gpu="L40S", tokens=5e7, lora_rank=64, pure_bf16=True
)


def with_sections(**sections) -> str:
    """A token: the example scenario's dict and these raw sections (as a hostile link may hold)."""
    return token_of(json.dumps({**EXAMPLE, **sections}).encode())


def test_sections_round_trip_beside_the_scenario():
    sc = Scenario.model_validate(FULL)
    token = encode(sc, {"serve": SERVE, "finetune": FINETUNE})
    link = decode_link(token)
    assert link.problems == {}
    assert ServeInputs.model_validate(link.sections["serve"]) == SERVE
    assert FinetuneInputs.model_validate(link.sections["finetune"]) == FINETUNE
    assert link.scenario == decode_data(token) == decode_data(encode(sc))
    assert decode(token) == sc
    raw = json.loads(zlib.decompress(base64.urlsafe_b64decode(token + "==")))
    assert raw["serve"]["version"] == share_link.SECTION_VERSIONS["serve"] == 2
    assert raw["finetune"]["version"] == share_link.SECTION_VERSIONS["finetune"] == 1
    # encode_data takes the sections as written, too
    again = encode_data({**FULL, "serve": share_link.section_data("serve", SERVE)})
    assert decode_link(again).sections == {"serve": link.sections["serve"]}


def test_links_without_sections_are_as_before():
    """An old link (the scenario's JSON alone) opens with no sections and no problem, and a session
    with no Serve or Fine-tune inputs makes exactly the old token."""
    old = token_of(
        json.dumps(
            {
                "version": 1,
                **Scenario.model_validate(FULL).model_dump(
                    mode="json", exclude_defaults=True, exclude={"version"}
                ),
            },
            separators=(",", ":"),
        ).encode()
    )
    link = decode_link(old)
    assert link.sections == {} and link.problems == {}
    assert link.scenario == decode_data(old)
    sc = Scenario.model_validate(FULL)
    assert encode(sc) == encode(sc, {}) == old


@pytest.mark.parametrize(
    "section, field",
    [
        ({"version": 1, **SERVE.model_dump(mode="json"), "tpot_ms": -1}, "tpot_ms"),
        ({"version": 1, **SERVE.model_dump(mode="json"), "input_tokens": "many"}, "input_tokens"),
        ({"version": 1, **SERVE.model_dump(mode="json"), "users": [1, 2]}, "users"),
        ({"version": 1, **SERVE.model_dump(mode="json"), "rps": 3.0}, "give one of rps, users"),
        ({"version": 1, **SERVE.model_dump(mode="json"), "__class__": "os"}, "__class__"),
        ({"version": 1, "gpu": "H200"}, "model"),
        ({"version": 1, **SERVE.model_dump(mode="json"), "model": "x" * 5000}, "too large"),
        ({**SERVE.model_dump(mode="json")}, "version"),
        ({"version": "1", **SERVE.model_dump(mode="json")}, "version"),
        ({"version": 7, **SERVE.model_dump(mode="json")}, "version: made by a newer planner"),
        ([1, 2, 3], "not a JSON object"),
        ("llama3-8b", "not a JSON object"),
    ],
    ids=[
        "range",
        "str-for-int",
        "list-for-int",
        "two-traffics",
        "unknown-key",
        "missing",
        "oversize",
        "no-version",
        "str-version",
        "newer",
        "list",
        "string",
    ],
)
def test_a_bad_serve_section_is_named_and_the_rest_opens(section, field):
    token = with_sections(serve=section, finetune=share_link.section_data("finetune", FINETUNE))
    link = decode_link(token)
    assert set(link.problems) == {"serve"} and "serve" not in link.sections
    message = link.problems["serve"]
    assert message.startswith("the link's Serve inputs were not opened: ") and field in message
    assert len(message) < 400 and "x" * 200 not in message
    assert link.scenario == decode_data(token) == EXAMPLE  # the scenario still opens
    assert FinetuneInputs.model_validate(link.sections["finetune"]) == FINETUNE  # so does the other
    with pytest.raises(LinkError, match="Serve inputs"):  # and nothing writes such a link
        encode_data({**EXAMPLE, "serve": section})


#: tokens the planner wrote before Serve sections were version 2 (the example scenario and a 70B
#: service on H100, version-1 Serve sections): bf16 was the record's default, so the first left it out
V1_SERVE_TOKENS = {
    "bf16": "eNpVkM2KAjEQhN-lz6NkXP_IE3jx5GVhkSFOWhlM0iHpuIj47nZGQc2l4aOqUt03uGDKAwXQbQP_lM6OjAV9A6Yzhgx6pj7eVN0b6F3JjKmKTrGIpFWzufCSzQkrTaUal6OYIkt6rrgnH00SxR8cyuAsNJAwsAxvglgr6B0Vqyl0FgW-iXj9wIy2a6-wl9yM6TJ-9tnfk0UHGpwz3vxMVuogAdJR0KZVarL73QoYQizcvfebr6Vm4S-4WEq5OO42VQ0wH7nzr2uMINITLOpN7g8Y32eu",
    "fp8": "eNpVkM1qAzEMhN9F503w5h8_QS855VIoZXHWSjCxLWPLKSXk3StvAkl9EXzMjEe6wRVzcRRB9x38UL54Mhb0DZguGAvohXp7c3XvYPS1MOYmOqcqkl4tVsJrMWdsNNdm3ExiSizppeGRQjJZFF9wrM5b6CBjZBnBRLE2MHqqVlMcLAp8EfEGx4x26H_hW3IL5uv02Xv_QBY9aPDeBLOcbdVRAqSjoI9eqdnhcy8gZRzdwwOntBPiYqo8vDZe7aR45X9wvZG6adp2rjpgPvEQnveZQKIHWLcr3f8Aq4Vtdg",
}


@pytest.mark.parametrize("precision", list(V1_SERVE_TOKENS))
def test_a_version_1_serve_link_keeps_the_precision_it_was_made_with(precision):
    """Version 1 left bf16 out of its links (its default then); the default is now the GPU's
    (fp8 on H100), so the upgrade to version 2 writes the bf16 in: an old link sizes what it
    sized when it was made, and one that named fp8 keeps it."""
    raw = json.loads(zlib.decompress(base64.urlsafe_b64decode(V1_SERVE_TOKENS[precision] + "==")))
    assert raw["serve"]["version"] == 1 and ("precision" in raw["serve"]) == (precision == "fp8")
    link = decode_link(V1_SERVE_TOKENS[precision])
    assert link.problems == {} and link.sections["serve"]["precision"] == precision
    assert plan_serving(ServeInputs.model_validate(link.sections["serve"])).precision == precision
    assert share_link.section_data("serve", link.sections["serve"])["version"] == 2


@pytest.mark.parametrize("gpu, precision", [("H100-SXM", "fp8"), ("A100-80GB", "bf16")])
def test_a_serve_link_at_the_default_precision_leaves_it_out_and_opens_at_the_gpus(gpu, precision):
    """A version-2 section without a precision is the GPU's default, as the page and the command
    line size it: written without one, it opens without one."""
    inp = ServeInputs(
        model="llama3-8b", gpu=gpu, input_tokens=1000, output_tokens=300, users=48, tpot_ms=40
    )
    token = encode(Scenario.model_validate(EXAMPLE), {"serve": inp})
    raw = json.loads(zlib.decompress(base64.urlsafe_b64decode(token + "==")))
    assert raw["serve"]["version"] == 2 and "precision" not in raw["serve"]
    opened = ServeInputs.model_validate(decode_link(token).sections["serve"])
    assert opened == inp and opened.precision is None
    assert plan_serving(opened).precision == precision


def test_a_bad_finetune_section_is_named():
    bad = {"version": 1, **FINETUNE.model_dump(mode="json"), "lora_rank": 0}
    link = decode_link(with_sections(finetune=bad))
    assert (
        "lora_rank" in link.problems["finetune"] and "Fine-tune inputs" in link.problems["finetune"]
    )


def test_a_section_past_the_links_caps_refuses_the_link():
    """The sections are inside the token: the length and decompression caps hold for them too."""
    huge = {"version": 1, **SERVE.model_dump(mode="json"), "model": "a" * (MAX_JSON_BYTES + 10)}
    token = with_sections(serve=huge)
    assert len(token) <= MAX_LINK_CHARS  # so it is the inflate cap that refuses it
    refused(token, "too large")
    with pytest.raises(LinkError, match="too large"):
        decode_link(token)


def test_cli_decode_prints_the_sections(capsys):
    token = encode(Scenario.model_validate(EXAMPLE), {"serve": SERVE, "finetune": FINETUNE})
    rc, out, err = cli(capsys, "decode", token)
    assert rc == 0 and not err
    printed = json.loads(out)
    assert printed["serve"] == share_link.section_data("serve", SERVE)
    assert printed["finetune"] == share_link.section_data("finetune", FINETUNE)
    assert {k: v for k, v in printed.items() if k not in ("serve", "finetune")} == decode_data(
        token
    )
    bad = with_sections(serve={"version": 1, **SERVE.model_dump(mode="json"), "tpot_ms": 0})
    rc, out, err = cli(capsys, "decode", bad)
    assert rc == 1 and "serve" not in json.loads(out) and json.loads(out) == EXAMPLE
    assert err.startswith("clusterplan decode: the link's Serve inputs") and "tpot_ms" in err


# ------------------------------------------------------------------ version 2: portfolio links

#: tokens the planner wrote for version-1 scenarios before links could hold a portfolio
V1_TOKENS = {
    "defaults": "eNqrVipLLSrOzM9TsjKsBQAiNgSu",
    "example": "eNpNjM0KAyEMBt8lZym6lB58lVIWq2GRVSP-tCyL797YS5vLB8NMTnhhqZ4SaCXgTWUPZBzoExrtmCroRf7dRQ4BNvTasExpy50VJZcr817NhpOWPsPbV6bc-Hud2FLMprBxh2f3wYGAgqnxRJM4ncAG6k5TWh0y_BFuo28N3aoOeIzxAR59PEk",
    "full": "eNptUk2v2jAQ_CvI5wglgfBCrq9V37GXnqrKcuwlWDh26g9o9MR_724g5CHBAbA9Ozu7M5_sDD5oZ1lTZOzi_Mk4oVjzyXqnwLDGJmMyNggv-sCazTZ_fNZ5xoSM-gz88fz29BrdCSxeF9s6f64L8JcbwKbbfL_LWGdcKwxvRZRHPlftyn2xrXaIHjxIfRPJDkPNrhmTJoUInoR2Q8L7jzLPWcYUCGW0Ba7EiBxv1bpCtAejRauNjiNVHIQ2yUPgA3iO5QRmDQrL86IkdIjCR95rmyKQ_nrSHJ0XHfCL1xF41474TQSBpsBi7JMCAubloagUsWcQkaQjb6KxynWVfX3gg4wotJyE4kj9rd7GIxHXOJIO0iUbuRfUkdB74jhoK6zUtsNGaBp1oB8-gvBUinRuoA6BGKXr0SUU9Zu1SRtFesBG_OmFRdVq-de4i53O0riEJ8sV4NNyEwYXHwck7nWMoHgxvrjcjOwPahXyvn02k1N3Pnh31op8ZN__iX4wsPoGSkucVK1-_Py1eie6mfYV_GNED4IUBm9pYoyzR8g0cwCPR56Cmp3GiBbVLYJgQEavJap6IE6X45SDeoOhS7isYl3ipqUzTt7MWpB88gghu4ro3BB4EEb4hY2MoPBUc-jvAWrTgoktulmRndpi6ox5bmOnHJV3yXd_cA3Q69TfslBOgYIOUxuWUdtpDqJVBkPjLng5wTeT2mn5X_bCjy55yuammnf9sP0Fbreu6-v1P8VMbLE",
}
V1_SCENARIOS = {"defaults": {}, "example": EXAMPLE, "full": FULL}


@pytest.mark.parametrize("name", list(V1_TOKENS))
def test_v1_links_are_byte_identical_and_open_as_version_1(name):
    scenario = Scenario.model_validate(V1_SCENARIOS[name])
    assert encode(scenario) == V1_TOKENS[name]
    opened = decode(V1_TOKENS[name])
    assert opened == scenario and opened.version == 1 and opened.workloads is None
    assert "workloads" not in decode_data(V1_TOKENS[name])


def test_ten_workload_portfolio_link_is_short_and_round_trips():
    data = ten_workloads()
    scenario = Scenario.model_validate(data)
    url = link_url(scenario)
    # measured: 1,027 characters (2,673 bytes of JSON before compression)
    assert len(url) < 2000, len(url)
    back = decode(token_from_url(url))
    assert back == scenario and back.version == 2 and len(back.workloads) == 10
    assert [w.kind for w in back.workloads] == [w["kind"] for w in data["workloads"]]
    # the file as given (keys kept, nothing dropped) reads back as the same dict
    assert decode_data(token_from_url(link_url(data))) == data


def test_portfolio_links_hold_only_what_differs_from_each_kinds_defaults():
    data = {"version": 2, "workloads": [{"kind": k, "name": k} for k in EVERY_FIELD]}
    raw = json.loads(zlib.decompress(base64.urlsafe_b64decode(encode_data(data) + "==")))
    assert raw["workloads"] == data["workloads"]
    token = encode(Scenario.model_validate(data))
    assert decode_data(token) == data  # encode wrote `kind` and `name`, and no default


@pytest.mark.parametrize("sample", ["enterprise", "university", "lab"])
def test_sample_portfolios_round_trip(sample):
    data = json.loads(example_json(sample))
    scenario = Scenario.model_validate(data)
    assert decode(encode(scenario)) == scenario
    assert decode_data(encode_data(data)) == data


def _v2(**change) -> dict:
    return {**ten_workloads(), **change}


def _with_workload(i: int, **fields) -> dict:
    data = ten_workloads()
    data["workloads"][i] = {**data["workloads"][i], **fields}
    return data


@pytest.mark.parametrize(
    ("data", "pattern"),
    [
        (
            _v2(workloads=[{"kind": "steady", "name": f"team-{i}"} for i in range(201)]),
            r"workloads: .*at most 200",
        ),
        (
            _with_workload(2, kind="gpu-miner"),
            r"workloads\[2\]\.kind: 'gpu-miner' is not a workload kind; allowed: pretrain,",
        ),
        (_v2(workloads=[{"name": "no kind"}]), r"workloads\[0\]\.kind: missing; allowed: pretrain"),
        (_v2(workloads=[{"kind": ["steady"], "name": "a"}]), r"workloads\[0\]\.kind: '\['steady"),
        (_v2(workloads=[{"kind": "steady", "name": "a"}, 5]), r"workloads\[1\]: .*dictionary"),
        (_with_workload(2, rps=-1), r"workloads\[2\]\.rps: .*one request a day.*allowed: at least"),
        (_with_workload(1, jobs_per_month=0), r"workloads\[1\]\.jobs_per_month: .*one in ten years.*at least"),
        (_with_workload(0, model="gpt-9"), r"workloads\[0\]\.model: unknown model .gpt-9.: not a preset"),
        (_with_workload(4, method="lora"), r"workloads\[4\]\.method: Extra inputs"),
        (_with_workload(5, __class__="os"), r"workloads\[5\]\.__class__: Extra inputs"),
        (_with_workload(6, start_month=200), r"workloads\[6\]\.start_month: .*at most 119"),
        (_with_workload(7, name=TEN_NAMES[0]), r"workloads\[7\]\.name: .*used twice"),
        (_v2(workloads={"a": 1}), r"workloads: .*valid list"),
        (_v2(workloads=[]), r"workloads: .*at least one workload"),
        (_v2(version=1), r"workloads: workloads needs version 2"),
        (_v2(workload={"model": "llama3-8b"}), r"workload: .*not used by a version 2"),
        (_v2(usage={"mode": "utilisation"}), r"usage: .*not used by a version 2"),
    ],
    ids=[
        "201-workloads", "bad-kind", "no-kind", "list-kind", "number-workload", "bad-rps", "zero-rate", "bad-model",
        "other-kinds-field", "dunder-field", "past-ten-years", "duplicate-name", "not-a-list",
        "empty", "v1-with-workloads", "v2-with-workload", "v2-with-usage",
    ],
)  # fmt: skip
def test_hostile_portfolio_links_are_refused_naming_the_field(data, pattern):
    msg = refused(token_of_json(data), "scenario is invalid")
    assert re.search(pattern, msg), msg
    with pytest.raises(LinkError, match=pattern):
        encode_data(data)


def test_oversized_portfolio_links_are_refused():
    rng = __import__("random").Random(11)

    def noise(n: int) -> str:  # text zlib cannot shrink: random CJK, three bytes a character
        return "".join(chr(rng.randrange(0x4E00, 0x9FFF)) for _ in range(n))

    fifty = _v2(
        workloads=[{"kind": "steady", "name": noise(60), "team": noise(40)} for _ in range(50)]
    )
    Scenario.model_validate(fifty)  # valid, but its link would be too long to paste
    with pytest.raises(
        LinkError, match=r"too large for a link \([\d,]+ characters; at most 8,192\)"
    ):
        encode_data(fifty)
    refused(token_of_json(fifty), r"too long \([\d,]+ characters; at most 8,192\)")
    # past the JSON cap: a valid-looking portfolio that inflates beyond 64 KB
    bomb = _v2(workloads=[{"kind": "steady", "name": "x" * 60, "team": "y" * 40}] * 700)
    refused(token_of_json(bomb), r"too large \(over 65,536 bytes\)")


def test_cli_link_and_decode_portfolio_files(capsys, tmp_path):
    for sample in ("enterprise", "university", "lab"):
        rc, out, _ = cli(capsys, "example", "--portfolio", sample)
        path = tmp_path / f"{sample}.json"
        path.write_text(out)
        rc, url, err = cli(capsys, "link", str(path))
        assert rc == 0 and not err and len(url.strip()) < 2000
        rc, out, err = cli(capsys, "decode", url.strip())
        assert rc == 0 and not err
        assert json.loads(out) == json.loads(path.read_text())
        assert json.loads(out)["version"] == 2
    path = tmp_path / "ten.json"
    path.write_text(json.dumps(ten_workloads()))
    rc, url, _ = cli(capsys, "link", str(path))
    rc, out, _ = cli(capsys, "decode", url.strip())
    assert rc == 0 and json.loads(out) == ten_workloads()
    path.write_text(json.dumps(_with_workload(6, rps=-1)))
    rc, out, err = cli(capsys, "link", str(path))
    assert rc == 2 and not out and "workloads[6].rps" in err and "allowed: at least" in err


# ------------------------------------------------------ Side by side: a set of saved scenarios


def _variant(**cluster) -> dict:
    data = json.loads(json.dumps(EXAMPLE))
    data["cluster"].update(cluster)
    return data


#: the same job on H100 and on B200, and a sample portfolio (version 2)
SAVED = ScenarioSet(
    scenarios=[
        {"name": "H100", "scenario": _variant()},
        {"name": "B200", "scenario": _variant(gpu="B200")},
        {"name": "lab portfolio", "scenario": json.loads(PORTFOLIOS["lab"].read_text())},
    ],
    picked=["B200", "H100"],
)


def with_set(section) -> str:
    return with_sections(side_by_side=section)


def test_a_set_round_trips_in_one_link():
    token = encode(Scenario.model_validate(EXAMPLE), {"side_by_side": SAVED, "serve": SERVE})
    link = decode_link(token)
    assert link.problems == {}
    assert ScenarioSet.model_validate(link.sections["side_by_side"]) == SAVED
    assert ServeInputs.model_validate(link.sections["serve"]) == SERVE
    assert link.scenario == decode_data(encode(Scenario.model_validate(EXAMPLE)))
    assert len(token) < MAX_LINK_CHARS // 4  # three scenarios take about a kilobyte


def _set_data(**changes) -> dict:
    return {**share_link.section_data("side_by_side", SAVED), **changes}


def _named(i: int, scenario: dict | None = None) -> dict:
    return {"name": f"s{i}", "scenario": scenario if scenario is not None else _variant()}


@pytest.mark.parametrize(
    "section, field",
    [
        (_set_data(scenarios=[_named(i) for i in range(7)]), "scenarios"),
        (_set_data(scenarios=[_named(0, _variant(gpus=-1))]), "scenarios.0.scenario.cluster.gpus"),
        (_set_data(scenarios=[_named(0, {"version": 9})]), "scenarios.0.scenario.version"),
        (
            _set_data(
                scenarios=[
                    _named(0, {"version": 2, "workloads": [{"kind": "steady", "name": "a"}, 5]})
                ]
            ),
            "workloads[1]: Input should be a valid dictionary",
        ),
        (_set_data(scenarios=[_named(0), _named(0)], picked=[]), "two scenarios are named"),
        (_set_data(picked=["nobody"]), "not saved"),
        (_set_data(picked=["H100", "B200", "lab portfolio", "H100"]), "picked"),
        (_set_data(scenarios=[{"name": "a\u202eb", "scenario": _variant()}], picked=[]), "name"),
        (_set_data(scenarios=[{"name": "x" * 61, "scenario": _variant()}], picked=[]), "name"),
        (_set_data(scenarios={"H100": _variant()}), "scenarios"),
        (_set_data(__import__="os"), "__import__"),
        (_set_data(scenarios=[_named(0, {"overrides": {"k" * 30000: 1.0}})]), "too large"),
        ({**_set_data(), "version": 2}, "version: made by a newer planner"),
        ("H100,B200", "not a JSON object"),
    ],
    ids=[
        "seven-saved",
        "bad-scenario-field",
        "bad-scenario-version",
        "number-for-workload",
        "repeated-name",
        "picks-unsaved",
        "picks-four",
        "bidi-name",
        "long-name",
        "dict-for-list",
        "unknown-key",
        "oversize",
        "newer",
        "string",
    ],
)
def test_a_bad_set_is_named_and_the_rest_opens(section, field):
    link = decode_link(with_set(section))
    assert set(link.problems) == {"side_by_side"} and "side_by_side" not in link.sections
    message = link.problems["side_by_side"]
    assert message.startswith("the link's saved scenarios (Side by side) were not opened: ")
    assert field in message and len(message) < 400 and "x" * 61 not in message
    assert link.scenario == EXAMPLE  # the scenario in force still opens
    with pytest.raises(LinkError, match="saved scenarios"):  # and nothing writes such a link
        encode_data({**EXAMPLE, "side_by_side": section})


def test_a_set_stays_within_the_links_caps():
    """Six saved scenarios whose overrides do not compress: past the 8 KB token cap, refused when
    written; a hand-made token past it is refused when read, before any decompression."""
    import random

    rng = random.Random(7)
    letters = "abcdefghijklmnopqrstuvwxyz"

    def noise() -> dict:
        return {"".join(rng.choices(letters, k=20)): rng.random() * 1e6 for _ in range(64)}

    noisy = [_named(i, {**_variant(), "overrides": noise()}) for i in range(6)]
    section = _set_data(scenarios=noisy, picked=[])
    assert len(json.dumps(section)) < share_link.SECTION_JSON_BYTES["side_by_side"]
    with pytest.raises(LinkError, match="too large for a link"):
        encode_data({**EXAMPLE, "side_by_side": section})
    token = with_set(section)
    assert len(token) > MAX_LINK_CHARS
    refused(token, "too long")
    # inflating past 64 KB is refused too, however well it compresses
    padded = with_set(_set_data(picked=[], scenarios=[_named(0)], pad="a" * MAX_JSON_BYTES))
    assert len(padded) <= MAX_LINK_CHARS
    refused(padded, "too large")


def test_cli_decode_prints_the_set(capsys):
    token = encode(Scenario.model_validate(EXAMPLE), {"side_by_side": SAVED})
    rc, out, err = cli(capsys, "decode", token)
    assert rc == 0 and not err
    printed = json.loads(out)
    assert (
        ScenarioSet.model_validate(
            {k: v for k, v in printed["side_by_side"].items() if k != "version"}
        )
        == SAVED
    )

"""`clusterplan example | schema | compare`: scenario files in, comparisons out, for people and scripts.

Most cases call `app.cli.main([...])` in-process; two run the installed console script to prove the
entry point works end to end and that a bad file reaches the shell as status 2 with one stderr line.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import math
import pathlib
import re
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.cli import main
from app.recommendation_text import recommendation_text
from app.scenario_files import MAX_SCENARIO_BYTES
from models.scenario import Scenario
from pricing.engine import compare

ROOT = pathlib.Path(__file__).resolve().parents[1]
CLUSTERPLAN = ROOT / ".venv" / "bin" / "clusterplan"
KINDS = ("build", "rent", "managed", "cloud")
OPTION_KEYS = (
    "option",
    "total_usd",
    "npv_usd",
    "monthly_usd",
    "breakdown_usd",
    "usd_per_gpu_hour",
    "usd_per_training_run",
    "timeline",
    "ready_day",
    "first_result_day",
)
TOP_KEYS = ("options", "recommendation", "sensitivity", "uncertainty", "flip_points")
SECTIONS = ("workload", "cluster", "usage", "term", "options", "overrides")


# --------------------------------------------------------------------------------------- helpers


def cli(capsys, *args: str) -> tuple[int, str, str]:
    rc = main(list(args))
    out, err = capsys.readouterr()
    return rc, out, err


def quiet_main(args: list[str]) -> tuple[int, str, str]:
    """main() with its output captured here (for module-scoped fixtures, where capsys is not)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(args)
    return rc, out.getvalue(), err.getvalue()


def one_error_line(rc: int, out: str, err: str) -> str:
    """The single stderr line of a command that must fail as a usage error."""
    assert rc == 2, (rc, out[:200], err)
    assert out == ""
    assert "Traceback" not in err
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("clusterplan compare: "), lines[0]
    return lines[0]


def write(path: pathlib.Path, content: str | bytes) -> str:
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return str(path)


def strict_json(text: str):
    """json.loads that refuses NaN and Infinity, as RFC 8259 parsers (JavaScript, Go, jq) do."""

    def refuse(name: str):
        raise ValueError(f"non-standard JSON constant {name}")

    return json.loads(text, parse_constant=refuse)


def approx_usd(x: float):
    return pytest.approx(x, rel=1e-9, abs=1e-3)


# -------------------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def example_text() -> str:
    rc, out, err = quiet_main(["example"])
    assert rc == 0, err
    return out


@pytest.fixture(scope="module")
def example(example_text) -> dict:
    return json.loads(example_text)


@pytest.fixture(scope="module")
def example_path(example_text, tmp_path_factory) -> str:
    return write(tmp_path_factory.mktemp("scenario") / "example.json", example_text)


@pytest.fixture(scope="module")
def comparison(example_path) -> dict:
    rc, out, err = quiet_main(["compare", example_path, "--json"])
    assert rc == 0, err
    assert err == ""
    return json.loads(out)


# ------------------------------------------------------------------------------- example, schema


def test_example_is_a_valid_scenario_comparing_all_four_kinds(capsys):
    rc, out, err = cli(capsys, "example")
    assert rc == 0
    assert err == ""
    scenario = Scenario.model_validate_json(out)
    kinds = {o.split(":")[0] for o in scenario.options.compare}
    assert set(KINDS) <= kinds, scenario.options.compare
    assert any(o.startswith("cloud") for o in scenario.options.compare)
    # printing it again gives the same text: the example is data, not a random draw
    assert cli(capsys, "example")[1] == out


def test_example_round_trips_through_compare_from_a_file(capsys, example_text, tmp_path):
    path = write(tmp_path / "s.json", example_text)
    rc, out, err = cli(capsys, "compare", path, "--json")
    assert rc == 0, err
    assert err == ""
    compared = [o["option"] for o in json.loads(out)["options"]]
    assert compared == Scenario.model_validate_json(example_text).options.compare


def test_example_round_trips_through_compare_from_stdin(
    capsys, monkeypatch, example_text, example_path
):
    monkeypatch.setattr(sys, "stdin", io.StringIO(example_text))
    rc, out, err = cli(capsys, "compare", "-", "--json")
    assert rc == 0, err
    assert err == ""
    from_file = cli(capsys, "compare", example_path, "--json")[1]
    assert json.loads(out) == json.loads(from_file)


def test_schema_is_json_schema_of_the_scenario(capsys):
    rc, out, err = cli(capsys, "schema")
    assert rc == 0
    assert err == ""
    schema = json.loads(out)
    assert schema.get("type") == "object"
    props = schema["properties"]
    for key in (*SECTIONS, "version"):
        assert key in props, key
    assert schema == json.loads(json.dumps(Scenario.model_json_schema()))


def test_example_validates_against_the_printed_schema(capsys, example):
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(cli(capsys, "schema")[1])
    jsonschema.validate(example, schema)
    # and the schema is not vacuous: a term out of range fails it
    bad = json.loads(json.dumps(example))
    bad["term"]["months"] = 6
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, schema)


# ----------------------------------------------------------------------------------- compare --json


def test_compare_json_has_every_documented_key(comparison, example):
    for key in TOP_KEYS:
        assert key in comparison, key
    assert [o["option"] for o in comparison["options"]] == example["options"]["compare"]
    for o in comparison["options"]:
        for key in OPTION_KEYS:
            assert key in o, (o["option"], key)
        kind, _, suffix = o["option"].partition(":")
        assert kind in KINDS, o["option"]
        assert suffix == "" or re.fullmatch(r"[a-z0-9_]+", suffix), o["option"]


def test_compare_json_money_adds_up(comparison, example):
    months = example["term"]["months"]
    for o in comparison["options"]:
        name = o["option"]
        assert len(o["monthly_usd"]) == months, name
        assert all(math.isfinite(v) for v in o["monthly_usd"]), name
        assert math.isfinite(o["total_usd"]) and math.isfinite(o["npv_usd"]), name
        assert sum(o["monthly_usd"]) == approx_usd(o["total_usd"]), name
        assert sum(o["breakdown_usd"].values()) == approx_usd(o["total_usd"]), name
        for key in ("usd_per_gpu_hour", "usd_per_training_run"):
            assert o[key] is None or (math.isfinite(o[key]) and o[key] > 0), (name, key)


def test_compare_json_times_are_ordered(comparison):
    for o in comparison["options"]:
        name = o["option"]
        if o.get("available", True):
            assert o["timeline"], name
        for phase in o["timeline"]:
            assert {"start_day", "end_day"} <= set(phase), (name, phase)
            assert 0 <= phase["start_day"] <= phase["end_day"], (name, phase)
        assert o["ready_day"] >= 0, name
        if o["timeline"]:
            assert o["ready_day"] >= max(p["end_day"] for p in o["timeline"]) - 1e-9, name
        assert o["first_result_day"] is None or o["first_result_day"] >= o["ready_day"], name


def test_compare_json_decision_support(comparison):
    compared = [o["option"] for o in comparison["options"]]
    rec = comparison["recommendation"]
    assert rec["option"] in compared, rec
    assert isinstance(rec.get("why"), str) and rec["why"]
    available = {o["option"]: o for o in comparison["options"] if o.get("available", True)}
    cheapest = min(
        (o for o in available.values() if o.get("completes_workload", True)),
        key=lambda o: o["npv_usd"],
    )
    assert rec["option"] == cheapest["option"]

    u = comparison["uncertainty"]
    assert u["options"], u
    assert set(u["options"]) <= set(compared)
    for name, q in u["options"].items():
        assert q["p10_usd"] <= q["p50_usd"] <= q["p90_usd"], (name, q)
        assert 0 <= q["probability_cheapest"] <= 1, (name, q)
    assert sum(q["probability_cheapest"] for q in u["options"].values()) == pytest.approx(1.0)

    s = comparison["sensitivity"]
    assert s["cheapest"] in compared and s["runner_up"] in compared
    assert isinstance(comparison["flip_points"], list)
    for f in comparison["flip_points"]:
        assert f["cheapest_now"] in compared and f["cheapest_after"] in compared, f


def test_compare_json_is_the_engine_output(comparison, example):
    """Same function behind the CLI and the library: identical for the same scenario."""
    c = compare(Scenario.model_validate(example))
    direct = c.model_dump(mode="json")
    direct["recommendation"]["why"] = recommendation_text(c.recommendation)  # the app's words
    assert comparison == json.loads(json.dumps(direct))


# ------------------------------------------------------------------------------------ csv, human


def test_compare_csv_has_one_row_per_option_matching_the_json(capsys, example_path, comparison):
    rc, out, err = cli(capsys, "compare", example_path, "--csv")
    assert rc == 0, err
    assert err == ""
    rows = list(csv.reader(io.StringIO(out)))
    header, body = rows[0], rows[1:]
    for col in ("option", "total_usd", "npv_usd"):
        assert col in header, header
    assert all(len(r) == len(header) for r in body)
    by_option = {o["option"]: o for o in comparison["options"]}
    assert [r[header.index("option")] for r in body] == list(by_option)
    for r in body:
        o = by_option[r[header.index("option")]]
        assert float(r[header.index("total_usd")]) == pytest.approx(o["total_usd"], abs=0.01)
        assert float(r[header.index("npv_usd")]) == pytest.approx(o["npv_usd"], abs=0.01)


def test_compare_human_report_names_every_option_and_recommends(capsys, example_path, comparison):
    rc, out, err = cli(capsys, "compare", example_path)
    assert rc == 0, err
    assert err == ""
    for o in comparison["options"]:
        assert o["label"] in out, o["label"]
    assert "Recommendation" in out


def test_json_and_csv_are_exclusive(capsys, example_path):
    rc, out, err = cli(capsys, "compare", example_path, "--json", "--csv")
    assert rc == 2
    assert out == ""
    assert len(err.splitlines()) == 1 and "Traceback" not in err


# ------------------------------------------------------------------------------------- bad files


def edit(**changes):
    """A function that sets section__field=value (JSON paths, "__" between keys) in a scenario."""

    def apply(data: dict) -> dict:
        data = json.loads(json.dumps(data))
        for path, value in changes.items():
            *parents, last = path.split("__")
            node = data
            for p in parents:
                node = node[p]
            node[last] = value
        return data

    return apply


BAD_SCENARIOS = {
    "term.months too low": (edit(term__months=6), ["term.months", "12", "120"]),
    "term.months too high": (edit(term__months=121), ["term.months", "12", "120"]),
    "tokens too high": (edit(workload__tokens=1e16), ["workload.tokens", "at most"]),
    "unknown gpu": (edit(cluster__gpu="X100"), ["cluster.gpu", "unknown GPU", "H100-SXM"]),
    "unknown rent provider": (
        edit(options__rent_provider="Nobody"),
        ["options.rent_provider", "Nobody"],
    ),
    "unknown cloud provider": (
        edit(options__cloud_provider="Nobody"),
        ["options.cloud_provider", "Nobody"],
    ),
    "unknown override": (edit(overrides__bogus=1.0), ["overrides.bogus", "unknown"]),
    "override out of range": (edit(overrides__pue=-1.0), ["overrides", "pue"]),
    "unknown option id": (edit(options__compare=["build", "cloud:free"]), ["options.compare"]),
    "duplicate option": (
        edit(options__compare=["build", "rent", "build"]),
        ["options.compare", "once"],
    ),
    "no option": (edit(options__compare=[]), ["options.compare"]),
    "extra top-level key": (edit(colour="blue"), ["colour"]),
    "extra nested key": (edit(workload__colour="blue"), ["workload.colour"]),
    "wrong version": (edit(version=2), ["version"]),
    "section not an object": (edit(cluster="H100"), ["cluster"]),
    "gpus and deadline": (edit(cluster__deadline_days=30.0), ["cluster"]),
    "model does not fit": (
        edit(workload__model="llama3-405b", cluster__gpu="H100-SXM", cluster__gpus=8),
        ["gpus", "needs at least"],
    ),
}


@pytest.mark.parametrize("case", list(BAD_SCENARIOS))
def test_bad_scenario_names_the_field(capsys, tmp_path, example, case):
    mutate, expected = BAD_SCENARIOS[case]
    path = write(tmp_path / "bad.json", json.dumps(mutate(example)))
    line = one_error_line(*cli(capsys, "compare", path, "--json"))
    assert path in line, line
    for text in expected:
        assert text in line, (text, line)


def test_field_out_of_range_gives_the_allowed_range(capsys, tmp_path, example):
    path = write(tmp_path / "s.json", json.dumps(edit(term__months=6)(example)))
    line = one_error_line(*cli(capsys, "compare", path))
    assert re.search(r"term\.months: .*at least 12 and at most 120", line), line


@pytest.mark.parametrize(
    "text", ['{"version": 1,', "{'version': 1}", "", '{\n  "term": {\n    "months": 36,\n  }\n}']
)
def test_malformed_json_says_where(capsys, tmp_path, text):
    path = write(tmp_path / "bad.json", text)
    line = one_error_line(*cli(capsys, "compare", path))
    assert "not valid JSON" in line, line
    assert re.search(r"line \d+ column \d+", line), line


def test_malformed_json_gives_the_right_line(capsys, tmp_path, example_text):
    lines = example_text.splitlines()
    lines[3] = lines[3] + " oops"
    path = write(tmp_path / "bad.json", "\n".join(lines))
    line = one_error_line(*cli(capsys, "compare", path))
    assert "line 4 " in line, line


@pytest.mark.parametrize("text", ["[]", "42", "null", '"scenario"', "true", "[{}]"])
def test_non_object_json(capsys, tmp_path, text):
    path = write(tmp_path / "bad.json", text)
    line = one_error_line(*cli(capsys, "compare", path))
    assert re.search(r"dictionary|object|mapping", line, re.I), line


def test_missing_file(capsys, tmp_path):
    path = str(tmp_path / "nowhere.json")
    line = one_error_line(*cli(capsys, "compare", path))
    assert path in line and "cannot read" in line, line


def test_directory_instead_of_file(capsys, tmp_path):
    line = one_error_line(*cli(capsys, "compare", str(tmp_path)))
    assert str(tmp_path) in line, line


@pytest.mark.parametrize(
    "content",
    [b"\xff\xfe\x00\x01binary", b'{"term": {"months": 36}, "x": "\xe9"}', bytes(range(256))],
)
def test_binary_or_non_utf8_file(capsys, tmp_path, content):
    path = write(tmp_path / "bad.json", content)
    line = one_error_line(*cli(capsys, "compare", path))
    assert path in line, line
    assert re.search(r"utf-8|decode|JSON", line, re.I), line


def test_size_cap_is_the_boundary(capsys, tmp_path, example_text):
    body = example_text.rstrip()
    at_cap = body + " " * (MAX_SCENARIO_BYTES - len(body.encode()))
    assert len(at_cap.encode()) == MAX_SCENARIO_BYTES
    path = write(tmp_path / "at_cap.json", at_cap)
    rc, out, err = cli(capsys, "compare", path, "--csv")
    assert rc == 0, err

    path = write(tmp_path / "over_cap.json", at_cap + " ")
    line = one_error_line(*cli(capsys, "compare", path))
    assert path in line and f"{MAX_SCENARIO_BYTES // 1024} KiB" in line, line


def test_size_cap_on_stdin(capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO("{" + " " * MAX_SCENARIO_BYTES + "}"))
    line = one_error_line(*cli(capsys, "compare", "-"))
    assert "standard input" in line and "KiB" in line, line


def test_stdin_errors_name_standard_input(capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO('{"term": {"months": 6}}'))
    line = one_error_line(*cli(capsys, "compare", "-"))
    assert "standard input" in line and "term.months" in line, line


def test_deeply_nested_json_is_a_usage_error(capsys, tmp_path):
    depth = 100_000  # 200 kB, under the 256 KiB cap
    path = write(tmp_path / "deep.json", "[" * depth + "]" * depth)
    one_error_line(*cli(capsys, "compare", path))


def test_zero_runs_override_is_not_a_crash(capsys, tmp_path, example):
    data = edit(overrides__runs=0.0, options__compare=["cloud:on_demand", "cloud:spot"])(example)
    path = write(tmp_path / "s.json", json.dumps(data))
    rc, out, err = cli(capsys, "compare", path, "--json")
    assert "overrides.runs" in one_error_line(rc, out, err)


def test_tiny_storage_bandwidth_is_not_a_crash(capsys, tmp_path):
    path = write(tmp_path / "s.json", '{"reliability": {"storage_write_gbyte_per_s": 1e-7}}')
    line = one_error_line(*cli(capsys, "compare", path))
    assert "reliability.storage_write_gbyte_per_s" in line, line


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_compare_json_is_strict_json_at_the_edges(capsys, tmp_path, example):
    """The slowest restarts allowed, and a GPU with no spot price, still give strict JSON."""
    for name, change in (
        ("slow", edit(overrides__managed_restart_ratio=10.0)),
        ("nospot", edit(cluster__gpu="MI300X", options__compare=["rent", "cloud:spot"])),
    ):
        path = write(tmp_path / f"{name}.json", json.dumps(change(example)))
        rc, out, err = cli(capsys, "compare", path, "--json")
        assert rc == 0, err
        strict_json(out)


def test_out_of_range_override_names_the_field(capsys, tmp_path, example):
    path = write(
        tmp_path / "s.json", json.dumps(edit(overrides__managed_restart_ratio=1e6)(example))
    )
    line = one_error_line(*cli(capsys, "compare", path))
    assert "overrides.managed_restart_ratio" in line and "allowed" in line


# --------------------------------------------------------------------------- random mutations


def _paths(node, prefix=()):
    yield prefix
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _paths(v, (*prefix, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _paths(v, (*prefix, i))


SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**20), max_value=10**20),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.sampled_from(["build", "cloud:spot", "H100-SXM", "llama3-405b", "", "1e12", "Nobody"]),
)


@st.composite
def mutated_text(draw, example: dict) -> str:
    data = json.loads(json.dumps(example))
    paths = [p for p in _paths(data) if p]
    for _ in range(draw(st.integers(1, 3))):
        if not paths:
            break
        path = draw(st.sampled_from(paths))
        parent = data
        try:
            for p in path[:-1]:
                parent = parent[p]
            if not isinstance(parent, dict | list):
                continue
            parent[path[-1]]
        except (KeyError, IndexError, TypeError):
            continue  # an earlier mutation removed or replaced it
        if draw(st.booleans()):
            del parent[path[-1]]
        else:
            parent[path[-1]] = draw(SCALARS)
    text = json.dumps(data, indent=draw(st.sampled_from([None, 2])))
    if draw(st.integers(0, 4)) == 0:
        text = text[: draw(st.integers(0, len(text)))]
    return text


def test_random_mutations_exit_0_or_2(capsys, tmp_path, example):
    path = tmp_path / "mutated.json"

    @settings(max_examples=60)
    @given(text=mutated_text(example))
    def check(text):
        write(path, text)
        rc = main(["compare", str(path), "--json"])
        out, err = capsys.readouterr()
        assert rc in (0, 2), (rc, text)
        assert "Traceback" not in err
        if rc == 2:
            assert len(err.splitlines()) == 1 and out == "", err
        else:
            assert err == ""
            assert [o["option"] for o in json.loads(out)["options"]]

    check()


# ----------------------------------------------------------------------- the installed script


def test_console_script_example_piped_to_compare():
    example = subprocess.run(
        [str(CLUSTERPLAN), "example"], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert example.returncode == 0, example.stderr
    done = subprocess.run(
        [str(CLUSTERPLAN), "compare", "-", "--csv"],
        input=example.stdout,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    rows = list(csv.reader(io.StringIO(done.stdout)))
    assert len(rows) == 1 + len(json.loads(example.stdout)["options"]["compare"])


def test_console_script_bad_file_exits_2_with_one_line(tmp_path):
    path = write(tmp_path / "bad.json", '{"cluster": {"gpu": "X100"}}')
    done = subprocess.run(
        [str(CLUSTERPLAN), "compare", path], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert "Traceback" not in done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert "cluster.gpu" in lines[0]


def test_hourly_prints_owned_cost_from_the_engine_next_to_rental_prices(capsys):
    from models.scenario import Scenario
    from pricing.engine import compare

    rc, out, err = cli(
        capsys,
        "hourly",
        "--gpu",
        "H100-SXM",
        "--gpus",
        "256",
        "--months",
        "36",
        "--utilisation",
        "100",
        "60",
    )
    assert rc == 0, err
    rates = [float(x) for x in re.findall(r"utilisation: \$([\d.]+) per GPU-hour", out)]
    assert len(rates) == 2 and rates[1] > rates[0]  # idle hours still cost money
    engine = compare(
        Scenario.model_validate(
            {
                "workload": {"model": "llama3-70b", "tokens": 1e12},
                "cluster": {"gpu": "H100-SXM", "gpus": 256},
                "usage": {"mode": "utilisation", "utilisation_pct": 60},
                "term": {"months": 36},
                "options": {"compare": ["build"], "bridge": False},
            }
        ),
        decision=False,
    )
    assert rates[1] == pytest.approx(engine.options[0].usd_per_gpu_hour, abs=0.006)
    for label in ("Rent dedicated", "Cloud on-demand", "Cloud spot"):
        assert label in out


def test_hourly_bad_gpu_count_is_one_line(capsys):
    rc, out, err = cli(capsys, "hourly", "--gpus", "0")
    assert rc == 2 and out == "" and len(err.splitlines()) == 1
    assert err.startswith("clusterplan hourly: cluster.gpus: ") and "allowed" in err

"""`clusterplan train`: what the command line promises to people and to scripts.

Most cases call `app.cli.main([...])` in-process; two run the installed console script to prove the
entry point works end to end and that errors reach the shell as status 2 with one stderr line.
"""

from __future__ import annotations

import contextlib
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
from models.errors import InputError
from models.hardware import get_gpu
from models.scenario import Scenario
from models.training.plan import Planner, plan_training
from tests.builders import scenario

ROOT = pathlib.Path(__file__).resolve().parents[1]
LLAMA8_1T = ["--model", "llama3-8b", "--tokens", "1T", "--gpu", "H100-SXM"]
LAYOUT_KEYS = ("tp", "pp", "dp", "ep", "zero", "recompute", "micro_batch", "interleave")
LINE_BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"  # what str.splitlines splits on


# --------------------------------------------------------------------------------------- helpers


def train(capsys, *args: str) -> tuple[int, str, str]:
    rc = main(["train", *args])
    out, err = capsys.readouterr()
    return rc, out, err


def train_json(capsys, *args: str) -> dict:
    rc, out, err = train(capsys, *args, "--json")
    assert rc == 0, err
    assert err == ""
    return json.loads(out)


def usage_error(capsys, *args: str) -> str:
    """Runs a command that must fail as a usage error; returns its one stderr line."""
    rc, out, err = train(capsys, *args)
    assert rc == 2, (rc, out[:200], err)
    assert out == ""
    assert "Traceback" not in err
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].strip()
    return lines[0]


def without_timing(plan: dict) -> dict:
    """A plan's JSON less the one field that measures the run instead of describing the plan."""
    plan = json.loads(json.dumps(plan))
    plan["search"].pop("seconds")
    return plan


def ladder_days(sc: Scenario) -> dict[int, float]:
    """Wall-clock days at every candidate count the planner may choose from (fixed-count plans)."""
    days = {}
    for n in Planner(sc).ladder:
        fixed = sc.model_copy(
            update={"cluster": sc.cluster.model_copy(update={"gpus": n, "deadline_days": None})}
        )
        try:
            days[n] = plan_training(fixed).train_days
        except InputError:
            continue
    return days


# ------------------------------------------------------------------------------- JSON contents


def test_json_has_every_documented_key_with_sane_values(capsys):
    p = train_json(capsys, *LLAMA8_1T, "--gpus", "64", "--curve")

    assert p["gpus"] == 64
    lay = p["layout"]
    for key in LAYOUT_KEYS:
        assert key in lay, key
    assert lay["tp"] * lay["pp"] * lay["dp"] == p["gpus"]
    assert (
        min(lay["tp"], lay["pp"], lay["dp"], lay["ep"], lay["micro_batch"], lay["interleave"]) >= 1
    )
    assert lay["zero"] in (0, 1, 2, 3)

    mem = p["memory_gib_per_gpu"]
    parts = {k: v for k, v in mem.items() if k != "total"}
    assert parts and all(v >= 0 for v in parts.values())
    assert mem["total"] == pytest.approx(sum(parts.values()), rel=1e-6)
    assert 0 < mem["total"] <= get_gpu("H100-SXM").memory_gib

    assert p["step_time_s"] > 0
    assert 0 < p["mfu"] < 1
    assert p["tokens_per_s"] > 0
    # ideal days: the tokens at the plan's throughput, rounded up to whole steps
    assert p["ideal_days"] * 86_400 >= 1e12 / p["tokens_per_s"] * (1 - 1e-9)
    assert p["ideal_days"] * 86_400 <= (1e12 + p["global_batch_tokens"]) / p["tokens_per_s"] * (
        1 + 1e-9
    )
    assert 0 < p["goodput"] <= 1
    assert p["train_days"] >= p["steady_days"] >= p["ideal_days"]
    assert p["ideal_days"] / p["steady_days"] == pytest.approx(p["goodput"], rel=1e-2)
    assert p["train_days"] == pytest.approx(p["steady_days"] * p["whole_run_factor"], rel=1e-9)
    assert p["gpu_hours"] == pytest.approx(p["train_days"] * 24 * p["gpus"], rel=1e-9)

    ck = p["checkpoint"]
    for prefix in ("size", "interval", "write_s"):
        assert any(k.startswith(prefix) and v > 0 for k, v in ck.items()), (prefix, ck)

    assert isinstance(p["fabric"], dict) and p["fabric"]
    assert p["fabric"].get("gpus", p["gpus"]) == p["gpus"]
    assert p["search"]["layouts_evaluated"] >= 1
    assert p["search"]["seconds"] >= 0

    curve = p["curve"]
    counts = [c["gpus"] for c in curve]
    assert len(counts) >= 2
    assert counts == sorted(set(counts)), "curve GPU counts must strictly increase"
    assert p["gpus"] in counts
    chosen = curve[counts.index(p["gpus"])]
    assert chosen["train_days"] == pytest.approx(p["train_days"])
    for c in curve:
        assert c["train_days"] >= c["ideal_days"] > 0
        assert 0 < c["mfu"] < 1
        assert c["gpu_hours"] == pytest.approx(c["train_days"] * 24 * c["gpus"])


def test_curve_only_with_the_curve_flag(capsys):
    assert train_json(capsys, *LLAMA8_1T, "--gpus", "64").get("curve") is None
    assert train_json(capsys, *LLAMA8_1T, "--gpus", "64", "--curve")["curve"]


@pytest.mark.parametrize(
    ("args", "workload", "cluster", "curve"),
    [
        (
            LLAMA8_1T + ["--gpus", "64"],
            {"model": "llama3-8b", "tokens": 1e12},
            {"gpu": "H100-SXM", "gpus": 64},
            False,
        ),
        (
            LLAMA8_1T + ["--deadline-days", "10", "--curve"],
            {"model": "llama3-8b", "tokens": 1e12},
            {"gpu": "H100-SXM", "deadline_days": 10},
            True,
        ),
        (
            [
                "--model",
                "mixtral-8x7b",
                "--tokens",
                "2e12",
                "--gpu",
                "H200",
                "--precision",
                "fp8",
                "--seq-len",
                "4096",
                "--global-batch-tokens",
                "2M",
            ],
            {
                "model": "mixtral-8x7b",
                "tokens": 2e12,
                "precision": "fp8",
                "seq_len": 4096,
                "global_batch_tokens": 2_000_000,
            },
            {"gpu": "H200"},
            False,
        ),
        (
            [
                "--params",
                "100B",
                "--active-params",
                "10B",
                "--tokens",
                "1T",
                "--gpu",
                "H100-SXM",
                "--gpus",
                "64",
            ],
            {"params": 100e9, "active_params": 10e9, "tokens": 1e12},
            {"gpu": "H100-SXM", "gpus": 64},
            False,
        ),
    ],
    ids=["fixed", "deadline+curve", "smallest-fp8-mixtral", "custom-moe"],
)
def test_json_equals_plan_training_on_the_same_scenario(capsys, args, workload, cluster, curve):
    """The command's plan is the core's; with a deadline, the one the deadline's answer gives
    (pricing/deadline.py: counted from the decision, provisioning included, as compare sizes it),
    with the option it left room for beside it."""
    from pricing.deadline import answer

    from_cli = train_json(capsys, *args)
    sc = scenario({}, workload=workload, cluster=cluster)
    if "deadline_days" in cluster:
        a = answer(sc)
        assert from_cli.pop("deadline") == a.model_dump(mode="json", exclude={"plan"})
        direct = a.plan.model_dump(mode="json")
    else:
        direct = plan_training(sc, curve=curve).model_dump(mode="json")
    assert without_timing(from_cli) == without_timing(direct)


# ------------------------------------------------------------------------------------ suffixes


def test_token_suffix_equals_the_plain_number(capsys):
    args = ["--model", "llama3-8b", "--gpu", "H100-SXM", "--gpus", "128"]
    plans = [
        without_timing(train_json(capsys, *args, "--tokens", t))
        for t in ("15T", "15e12", "15t", "15_000_000_000_000")
    ]
    assert all(p == plans[0] for p in plans)
    assert plans[0]["steps"] * plans[0]["global_batch_tokens"] >= 15e12


def test_params_suffix_equals_the_plain_number(capsys):
    args = ["--tokens", "1T", "--gpu", "H100-SXM", "--gpus", "16"]
    with_suffix = train_json(capsys, "--params", "7B", *args)
    assert without_timing(with_suffix) == without_timing(
        train_json(capsys, "--params", "7e9", *args)
    )
    assert with_suffix["model"]["params"] == pytest.approx(7e9, rel=0.05)


# ---------------------------------------------------------------------------------- deadlines


def core_deadline_plan(days: float) -> dict:
    """The core's own deadline sizing (training days only; the command adds provisioning)."""
    sc = scenario({}, workload={"model": "llama3-8b", "tokens": 1e12}, cluster={"gpu": "H100-SXM"})
    sc = sc.model_copy(update={"cluster": sc.cluster.model_copy(update={"deadline_days": days})})
    return plan_training(sc).model_dump(mode="json")


def test_the_commands_deadline_counts_provisioning_and_tighter_ones_get_more_gpus(capsys):
    gpus = []
    for days in (60, 30, 20):  # loosest first
        p = train_json(capsys, *LLAMA8_1T, "--deadline-days", str(days))
        assert p["deadline"]["first_result_day"] <= days
        assert p["deadline"]["ready_day"] > 0  # provisioning counted
        gpus.append(p["gpus"])
    assert gpus == sorted(gpus) and gpus[0] < gpus[-1], gpus


def test_deadline_is_met_and_tighter_deadlines_never_get_fewer_gpus():
    gpus = []
    for days in (30, 10, 3):  # loosest first
        p = core_deadline_plan(days)
        assert p["train_days"] <= days
        assert p["sizing"] == "deadline"
        assert p["layout"]["tp"] * p["layout"]["pp"] * p["layout"]["dp"] == p["gpus"]
        gpus.append(p["gpus"])
    assert gpus == sorted(gpus), gpus
    assert gpus[0] < gpus[-1]


def test_deadline_gets_the_fewest_candidate_gpus_that_meet_it():
    """Checked against every count on the planner's ladder, including the tightest deadline any
    count meets, so a search that skips counts (days are not monotonic in GPUs) shows up."""
    sc = scenario({}, workload={"model": "llama3-8b", "tokens": 1e12}, cluster={"gpu": "H100-SXM"})
    days = ladder_days(sc)
    for deadline in (30.0, 3.0, min(days.values()) * 1.5, min(days.values()) * 1.0001):
        expected = min(n for n, d in days.items() if d <= deadline)
        p = core_deadline_plan(deadline)
        assert p["gpus"] == expected, (deadline, p["gpus"], expected)
        assert p["train_days"] <= deadline


def test_impossible_deadline_names_the_option_and_what_would_work(capsys):
    args = ["--model", "llama3-405b", "--tokens", "15T", "--gpu", "H100-SXM"]
    line = usage_error(capsys, *args, "--deadline-days", "0.001")
    assert "--deadline-days" in line
    m = re.search(r"([\d.]+) days on ([\d,]+) GPUs", line)
    assert m, line
    fastest_days, fastest_gpus = float(m.group(1)), int(m.group(2).replace(",", ""))
    # what it suggests really works: the fastest count, and the earliest first result as a deadline
    p = train_json(capsys, *args, "--gpus", str(fastest_gpus))
    assert p["train_days"] == pytest.approx(fastest_days, abs=0.051)
    earliest = int(re.search(r"a deadline of ([\d,]+) days or more", line)[1].replace(",", ""))
    p = train_json(capsys, *args, "--deadline-days", str(earliest))
    assert p["deadline"]["first_result_day"] <= earliest


# ------------------------------------------------------------------------------- custom models


def test_custom_dense_model_from_params(capsys):
    p = train_json(capsys, "--params", "7B", "--tokens", "1T", "--gpu", "H100-SXM", "--gpus", "16")
    assert p["gpus"] == 16
    assert p["model"]["experts"] == 1
    assert p["model"]["active_params"] == p["model"]["params"]
    assert p["layout"]["tp"] * p["layout"]["pp"] * p["layout"]["dp"] == 16
    assert 0 < p["mfu"] < 1 and p["train_days"] > 0


def test_custom_moe_model_from_params_and_active_params(capsys):
    p = train_json(
        capsys,
        "--params",
        "100B",
        "--active-params",
        "10B",
        "--tokens",
        "1T",
        "--gpu",
        "H100-SXM",
        "--gpus",
        "64",
    )
    assert p["gpus"] == 64
    assert p["model"]["experts"] > 1
    assert p["model"]["params"] == pytest.approx(100e9, rel=0.1)
    assert p["model"]["active_params"] == pytest.approx(10e9, rel=0.1)
    assert p["layout"]["tp"] * p["layout"]["pp"] * p["layout"]["dp"] == 64
    assert p["layout"]["ep"] >= 1
    assert 0 < p["mfu"] < 1 and p["train_days"] > 0


def test_active_params_larger_than_params_is_a_usage_error(capsys):
    line = usage_error(
        capsys,
        "--params",
        "7B",
        "--active-params",
        "8B",
        "--tokens",
        "1T",
        "--gpu",
        "H100-SXM",
        "--gpus",
        "8",
    )
    assert "active" in line and "params" in line


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["--params", "7B", "--active-params", "8B"], "--active-params"),
        (
            ["--model", "llama3-8b", "--seq-len", "4096", "--global-batch-tokens", "1000"],
            "--global-batch-tokens",
        ),
    ],
    ids=["active>params", "batch<seq"],
)
def test_cross_field_errors_name_the_option(capsys, args, option):
    line = usage_error(capsys, *args, "--tokens", "1T", "--gpu", "H100-SXM", "--gpus", "8")
    assert option in line


@pytest.mark.parametrize(
    ("typed", "closest"),
    [
        ("deepseek-r1", "deepseek-v3-like"),
        ("Llama-3-70B", "llama3-70b"),
        ("gpt-oss", "gpt-oss-120b"),
    ],
)
def test_an_unknown_model_names_the_closest_presets_first(capsys, typed, closest):
    line = usage_error(capsys, "--model", typed, "--tokens", "1T", "--gpu", "H100-SXM")
    assert "--model" in line
    head, presets = line.split("; presets: ")
    assert closest in head.split("closest: ")[1].split(", ")
    assert "llama3-8b" in presets.split(", ")  # the whole list is still there


def test_a_name_like_no_preset_gets_no_closest_list(capsys):
    line = usage_error(capsys, "--model", "zzzz", "--tokens", "1T", "--gpu", "H100-SXM")
    assert "closest" not in line and "presets: gpt3-175b" in line


def test_active_params_with_a_preset_is_a_usage_error(capsys):
    line = usage_error(capsys, *LLAMA8_1T, "--active-params", "1B", "--gpus", "8")
    assert "--active-params" in line


# ------------------------------------------------------------------------------- human output


def test_human_output_is_a_table_with_count_layout_and_days(capsys):
    rc, out, err = train(capsys, *LLAMA8_1T, "--gpus", "64")
    assert rc == 0 and err == ""
    assert "64 x H100-SXM" in out
    layout = [line for line in out.splitlines() if line.startswith("Layout")]
    assert len(layout) == 1
    assert all(f"{k} " in layout[0] for k in ("TP", "PP", "DP", "EP"))
    assert "days" in out
    assert "<- chosen" not in out


def test_human_output_with_curve_marks_the_chosen_count(capsys):
    rc, out, _ = train(capsys, *LLAMA8_1T, "--gpus", "64", "--curve")
    assert rc == 0
    chosen = [line for line in out.splitlines() if line.endswith("<- chosen")]
    assert len(chosen) == 1 and chosen[0].split()[0] == "64"


# --------------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("args", "must_contain"),
    [
        (
            ["--model", "llama3-8b", "--tokens", "-5", "--gpu", "H100-SXM", "--gpus", "8"],
            ["--tokens", "allowed"],
        ),
        (
            ["--model", "llama3-8b", "--tokens", "abc", "--gpu", "H100-SXM", "--gpus", "8"],
            ["--tokens", "abc"],
        ),
        (
            ["--model", "llama3-8b", "--tokens", "1e16", "--gpu", "H100-SXM", "--gpus", "8"],
            ["--tokens"],
        ),
        (
            ["--model", "llama3-8b", "--tokens", "1T", "--gpu", "H999", "--gpus", "8"],
            ["--gpu", "H999", "H100-SXM"],
        ),
        (LLAMA8_1T + ["--gpus", "8.5"], ["--gpus", "8.5"]),
        (LLAMA8_1T + ["--gpus", "0"], ["--gpus", "at least 1"]),
        (LLAMA8_1T + ["--gpus", "-8"], ["--gpus"]),
        (LLAMA8_1T + ["--gpus", "300000"], ["--gpus"]),
        (LLAMA8_1T + ["--gpus", "nan"], ["--gpus"]),
        (LLAMA8_1T + ["--deadline-days", "-1"], ["--deadline-days"]),
        (LLAMA8_1T + ["--deadline-days", "x"], ["--deadline-days"]),
        (LLAMA8_1T + ["--gpus", "8", "--seq-len", "64"], ["--seq-len"]),
        (
            ["--model", "llama3-405b", "--tokens", "15T", "--gpu", "H100-SXM", "--gpus", "8"],
            ["--gpus", "needs at least", "H100-SXM"],
        ),
        (
            [
                "--model",
                "llama3-8b",
                "--tokens",
                "1T",
                "--gpu",
                "A100-80GB",
                "--gpus",
                "8",
                "--precision",
                "fp8",
            ],
            ["--precision", "bf16"],
        ),
        (LLAMA8_1T + ["--gpus", "8", "--precision", "fp16"], ["--precision"]),
        (["--model", "llama3-8b", "--gpu", "H100-SXM", "--gpus", "8"], ["--tokens"]),
        (["--model", "llama3-8b", "--tokens", "1T", "--gpus", "8"], ["--gpu"]),
        (["--tokens", "1T", "--gpu", "H100-SXM", "--gpus", "8"], ["--model", "--params"]),
        (LLAMA8_1T + ["--gpus", "8", "--params", "7B"], ["--model", "--params"]),
        (LLAMA8_1T + ["--gpus", "8", "--deadline-days", "3"], ["--gpus", "--deadline-days"]),
        (LLAMA8_1T + ["--model", "gpt-9"], ["--model", "gpt-9"]),
    ],
    ids=[
        "negative-tokens",
        "non-numeric-tokens",
        "too-many-tokens",
        "unknown-gpu",
        "fractional-gpus",
        "zero-gpus",
        "negative-gpus",
        "too-many-gpus",
        "nan-gpus",
        "negative-deadline",
        "non-numeric-deadline",
        "short-seq",
        "model-does-not-fit",
        "fp8-on-a100",
        "unknown-precision",
        "missing-tokens",
        "missing-gpu",
        "missing-model",
        "model-and-params",
        "gpus-and-deadline",
        "unknown-preset",
    ],
)
def test_bad_input_exits_2_with_one_line_naming_the_option(capsys, args, must_contain):
    line = usage_error(capsys, *args)
    for text in must_contain:
        assert text in line, (text, line)


def test_needs_at_least_names_the_true_smallest_count(capsys):
    args = ["--model", "llama3-405b", "--tokens", "15T", "--gpu", "H100-SXM"]
    line = usage_error(capsys, *args, "--gpus", "8")
    m = re.search(r"needs at least ([\d,]+) H100-SXM", line)
    assert m, line
    needed = int(m.group(1).replace(",", ""))
    # neither --gpus nor --deadline-days: the efficient size, the smallest that fits beside it
    efficient = train_json(capsys, *args)
    assert efficient["sizing"] == "efficient size"
    assert efficient["min_gpus"] == needed < efficient["gpus"]
    curve = train_json(capsys, *args, "--curve")
    assert curve["gpus"] == curve["efficient"]["gpus"] == efficient["gpus"]  # the Guide's advice
    assert train_json(capsys, *args, "--gpus", str(needed))["gpus"] == needed


def test_error_stays_on_one_line_when_the_input_has_a_line_break(capsys):
    usage_error(
        capsys, "--model", "llama3-8b", "--tokens", "1\n2", "--gpu", "H100-SXM", "--gpus", "8"
    )


junk = st.one_of(
    st.text(max_size=24),
    st.from_regex(r"[-+ ]?[0-9_,.]{0,12}([eE][-+]?[0-9]{1,4})?[kKmMbBgGtTpPx]?", fullmatch=True),
)


@settings(max_examples=60)
@given(option=st.sampled_from(["--tokens", "--gpus"]), value=junk)
def test_junk_numbers_exit_0_or_2_and_never_raise(option, value):
    values = {"--tokens": "1T", "--gpus": "64"} | {option: value}
    argv = [
        "train",
        "--model",
        "llama3-8b",
        "--gpu",
        "H100-SXM",
        "--json",
        "--tokens",
        values["--tokens"],
        "--gpus",
        values["--gpus"],
    ]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(argv)
    assert rc in (0, 2)
    if rc == 0:
        plan = json.loads(out.getvalue())
        assert plan["layout"]["tp"] * plan["layout"]["pp"] * plan["layout"]["dp"] == plan["gpus"]
        assert err.getvalue() == ""
    else:
        assert out.getvalue() == ""
        assert "Traceback" not in err.getvalue()
        assert err.getvalue().strip()
        if not any(c in value for c in LINE_BREAKS):
            assert len(err.getvalue().splitlines()) == 1, err.getvalue()


# ------------------------------------------------------------------------- the console script


def console_script() -> str:
    for candidate in (
        pathlib.Path(sys.executable).with_name("clusterplan"),
        ROOT / ".venv" / "bin" / "clusterplan",
    ):
        if candidate.exists():
            return str(candidate)
    pytest.fail("the clusterplan console script is not installed (pip install -e .)")


def test_console_script_prints_a_json_plan():
    r = subprocess.run(
        [console_script(), "train", *LLAMA8_1T, "--gpus", "64", "--json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""
    plan = json.loads(r.stdout)
    assert plan["gpus"] == 64
    assert math.isfinite(plan["train_days"])


def test_console_script_error_is_status_2_and_one_line_without_traceback():
    r = subprocess.run(
        [
            console_script(),
            "train",
            "--model",
            "llama3-405b",
            "--tokens",
            "15T",
            "--gpu",
            "H100-SXM",
            "--gpus",
            "8",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 2
    assert r.stdout == ""
    assert "Traceback" not in r.stderr
    lines = r.stderr.splitlines()
    assert len(lines) == 1, r.stderr
    assert "--gpus" in lines[0] and "needs at least" in lines[0] and "H100-SXM" in lines[0]

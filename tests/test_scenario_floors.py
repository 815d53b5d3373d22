"""Floors on traffic and run rates that mean something (issue 27): one request a day for a service,
one run (job) in ten years for a gang workload, one training sequence for a fine-tune; each refused
under its floor with a message that says which floor, on the records (so the CLI flags, the pages'
inputs and the schema get the same bound), and `--json` that is strict JSON whatever the plan.

Before: `serve --rps 5e-324 --json` printed Infinity, "0 replicas" and a 66-trillion-ms TTFT; a
portfolio serve workload whose traffic decayed to nothing was refused as "greater than 0" under
`rps`; `runs_per_month: 1e-300` gave zero runs silently; a fine-tune of 5e-324 tokens planned 0
steps."""

from __future__ import annotations

import json
import warnings

import pytest
from pydantic import ValidationError

from app.cli import common, main
from models.errors import InputError
from models.finetune.plan import FinetuneInputs, plan_finetune
from models.portfolio.demand import Sizing, demand_of, size_workload
from models.portfolio.workloads import (
    MIN_RUNS_PER_MONTH,
    Finetune,
    Pretrain,
    Serve,
    parse_workloads,
    release_months,
)
from models.scenario import field_bounds
from models.serving.plan import MIN_RPS, ServeInputs, plan_serving
from tests.builders import app

SERVE = ["serve", "--model", "llama3-8b", "--gpu", "H100-SXM"]
TOKENS = ["--input-tokens", "100", "--output-tokens", "100"]


def strict_json(text: str):
    """JSON as a strict reader takes it: NaN and Infinity are errors."""

    def refuse(constant: str):
        raise ValueError(f"{constant} in JSON")

    return json.loads(text, parse_constant=refuse)


def refused(capsys, *args: str) -> str:
    rc = main(list(args))
    out, err = capsys.readouterr()
    assert rc == 2 and out == "", (rc, out[:300], err[:300])
    assert err.count("\n") == 1, err
    return err.strip()


# ---------------------------------------------------------------------------- serving traffic


@pytest.mark.parametrize("rps", [5e-324, 1e-300, 1e-6, MIN_RPS * 0.999])
def test_rps_under_one_request_a_day_is_refused_saying_so(rps):
    with pytest.raises(ValidationError, match="under one request a day"):
        ServeInputs(model="llama3-8b", gpu="H100-SXM", input_tokens=100, output_tokens=100, rps=rps)


def test_one_request_a_day_is_planned_with_finite_numbers_and_no_warning():
    inp = ServeInputs(
        model="llama3-8b", gpu="H100-SXM", input_tokens=100, output_tokens=100, rps=MIN_RPS
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # NumPy's divide-by-zero warnings fail the test
        plan = plan_serving(inp)
    assert plan.replicas >= 1 and plan.gpus >= 1
    assert 0 < plan.ttft_ms < 10_000, plan.ttft_ms
    strict_json(json.dumps(plan.model_dump(mode="json")))


def test_tokens_per_day_under_one_request_a_day_is_refused():
    base = {"model": "llama3-8b", "gpu": "H100-SXM", "input_tokens": 100, "output_tokens": 100}
    for tokens in (5e-324, 1.0, 199.0):
        with pytest.raises(ValidationError, match="under one request a day"):
            ServeInputs(**base, tokens_per_day=tokens)
    ServeInputs(**base, tokens_per_day=200.0)  # one request of 200 tokens a day


def test_cli_serve_refuses_a_denormal_rps_with_one_line_and_no_json(capsys):
    """The finding: exit 0, `Infinity` in --json, 0 replicas, NumPy warnings on stderr."""
    line = refused(capsys, *SERVE, *TOKENS, "--rps", "5e-324", "--json")
    assert line.startswith("clusterplan serve: --rps: ") and "one request a day" in line, line


@pytest.mark.parametrize(
    ("flag", "value"), [("--tokens-per-day", "1"), ("--tokens-per-day", "199"), ("--users", "0")]
)
def test_cli_serve_refuses_the_other_traffic_flags_under_their_floor(capsys, flag, value):
    line = refused(capsys, *SERVE, *TOKENS, flag, value)
    assert line.startswith(f"clusterplan serve: {flag}: "), line
    assert "Value error" not in line, line


def test_cli_serve_at_the_floor_prints_strict_json(capsys):
    assert main([*SERVE, *TOKENS, "--rps", repr(MIN_RPS), "--json"]) == 0
    out, err = capsys.readouterr()
    plan = strict_json(out)
    assert plan["replicas"] >= 1 and err == ""


def test_cli_json_never_prints_a_number_that_is_not_finite(capsys, monkeypatch):
    """However a plan came to hold one, --json prints nothing and names the key."""
    import models.serving.plan

    real = models.serving.plan.plan_serving

    def broken(inp):
        return real(inp).model_copy(update={"ttft_ms": float("inf")})

    monkeypatch.setattr(models.serving.plan, "plan_serving", broken)
    line = refused(capsys, *SERVE, *TOKENS, "--rps", "1", "--json")
    assert line == "clusterplan serve: --json: ttft_ms is not a finite number; nothing printed"


def test_print_json_names_the_first_number_that_is_not_finite(capsys):
    with pytest.raises(common.UsageError, match=r"x: --json: a\.b\[1\] is not a finite number"):
        common.print_json("x", {"ok": 1.0, "a": {"b": [0.5, float("nan")]}})
    common.print_json("x", {"a": [1.0, None]})
    assert strict_json(capsys.readouterr().out) == {"a": [1.0, None]}


# ------------------------------------------------------------------------- a portfolio's service


@pytest.mark.parametrize("rps", [5e-324, 1e-300, 1e-6])
def test_a_portfolio_service_under_one_request_a_day_is_refused_saying_so(rps):
    with pytest.raises(InputError) as exc:
        parse_workloads([{"kind": "serve", "name": "chat", "rps": rps}])
    assert exc.value.field == "workloads[0].rps"
    assert "one request a day" in str(exc.value) and "greater than 0" not in str(exc.value)


def test_a_portfolio_service_whose_traffic_decays_under_the_floor_names_the_growth():
    """The finding: traffic shrinking 50 % a month for 120 months reached 0 requests/s and was
    refused under `rps` as "greater than 0"."""
    w = Serve(name="chat", rps=1.0, growth_pct_per_month=-50, duration_months=120)
    with pytest.raises(InputError) as exc:
        size_workload(w, "H100-SXM")
    assert exc.value.field == "workloads[0].growth_pct_per_month", exc.value.field
    assert "one request a day" in str(exc.value) and "month 17" in str(exc.value)


def test_a_portfolio_service_at_the_floor_is_sized():
    w = parse_workloads([{"kind": "serve", "name": "chat", "rps": MIN_RPS}])[0]
    sizing = size_workload(w, "H100-SXM")
    assert min(sizing.gpus_by_month) >= 1


# ----------------------------------------------------------------------------------- run rates


@pytest.mark.parametrize(
    ("kind", "field"), [("pretrain", "runs_per_month"), ("finetune", "jobs_per_month")]
)
@pytest.mark.parametrize("rate", [1e-300, 5e-324, MIN_RUNS_PER_MONTH * 0.99])
def test_a_rate_under_one_run_in_ten_years_is_refused_saying_so(kind, field, rate):
    with pytest.raises(InputError) as exc:
        parse_workloads([{"kind": kind, "name": "w", field: rate}])
    assert exc.value.field == f"workloads[0].{field}"
    assert "one in ten years" in str(exc.value), str(exc.value)


@pytest.mark.parametrize("duration", [1, 12, 120])
def test_the_floor_rate_releases_one_run_in_any_duration(duration):
    w = Pretrain(name="p", runs_per_month=MIN_RUNS_PER_MONTH, duration_months=duration)
    assert release_months(w) == [0.0]
    f = Finetune(name="f", jobs_per_month=MIN_RUNS_PER_MONTH, duration_months=duration)
    assert release_months(f) == [0.0]


def test_a_workload_that_releases_no_run_is_refused_naming_its_rate_not_left_empty():
    """A record made without validation (as a caller can) still gets no silently empty demand."""
    w = Pretrain.model_construct(**{**Pretrain(name="p").model_dump(), "runs_per_month": 1e-300})
    with pytest.raises(InputError) as exc:
        release_months(w)
    assert exc.value.field == "runs_per_month"
    sizing = Sizing(kind="pretrain", gang=True, gpus_per_run=8, run_days=1.0, basis="test")
    with pytest.raises(InputError) as exc:
        demand_of([w], [sizing], 12)
    assert exc.value.field == "workloads[0].runs_per_month"
    assert "releases no run" in str(exc.value)


# ----------------------------------------------------------------------------------- fine-tunes


@pytest.mark.parametrize("tokens", [5e-324, 1.0, 127.0])
def test_fine_tune_tokens_under_one_sequence_are_refused_saying_so(tokens):
    with pytest.raises(ValidationError, match="one sequence"):
        FinetuneInputs(model="llama3-8b", method="lora", gpu="H100-SXM", tokens=tokens)


@pytest.mark.parametrize(
    ("data", "field"),
    [({"tokens": 1000}, "tokens"), ({"tokens": 1e6, "epochs": 1e-300}, "epochs")],
)
def test_a_fine_tune_of_less_than_one_sequence_is_refused_naming_the_field(data, field):
    inp = FinetuneInputs(model="llama3-8b", method="lora", gpu="H100-SXM", **data)
    with pytest.raises(InputError) as exc:
        plan_finetune(inp)
    assert exc.value.field == field and "one sequence of 4,096 tokens" in str(exc.value)


def test_cli_finetune_refuses_what_would_train_on_nothing(capsys):
    """Before: exit 0 and "0 tokens in 1 steps" (--epochs 1e-300), "0 steps" (--tokens 5e-324)."""
    base = ["finetune", "--model", "llama3-8b", "--method", "lora", "--gpu", "H100-SXM"]
    line = refused(capsys, *base, "--tokens", "1e6", "--epochs", "1e-300")
    assert line.startswith("clusterplan finetune: --epochs: ") and "one sequence" in line, line
    line = refused(capsys, *base, "--tokens", "5e-324", "--json")
    assert line.startswith("clusterplan finetune: --tokens: ") and "one sequence" in line, line
    assert "Value error" not in line


def test_a_portfolio_fine_tune_of_less_than_one_sequence_is_refused_naming_the_workload():
    w = Finetune(name="f", tokens=1000.0)
    with pytest.raises(InputError) as exc:
        size_workload(w, "H100-SXM", field="workloads[2]")
    assert exc.value.field == "workloads[2].tokens" and "one sequence" in str(exc.value)


# ------------------------------------------------------------------ the bounds the pages read


def test_the_floors_are_the_records_bounds_that_the_pages_and_schema_read():
    assert field_bounds(ServeInputs, "rps")["ge"] == MIN_RPS
    assert field_bounds(Serve, "rps")["ge"] == MIN_RPS
    assert field_bounds(ServeInputs, "users")["ge"] == 1
    assert field_bounds(ServeInputs, "tokens_per_day")["ge"] == 2
    assert field_bounds(Pretrain, "runs_per_month")["ge"] == MIN_RUNS_PER_MONTH
    assert field_bounds(Finetune, "jobs_per_month")["ge"] == MIN_RUNS_PER_MONTH
    assert field_bounds(FinetuneInputs, "tokens")["ge"] == 128
    schema = ServeInputs.model_json_schema()["properties"]["rps"]
    assert any(s.get("minimum") == MIN_RPS for s in schema.get("anyOf", [schema]))


def test_the_serve_page_takes_its_floor_from_the_record():
    at = app("serve")
    assert at.number_input(key="s_rps").min == MIN_RPS
    at.radio(key="s_traffic").set_value("tokens_per_day").run()
    assert at.number_input(key="s_tokens_day").min == pytest.approx(2e-6)  # millions a day

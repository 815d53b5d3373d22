"""A service's cost per million tokens on each option (pricing/serving_economics.py), on the
command line and the Serve page: the tokens are the traffic's over the months every option serves,
each option's figure is its whole cost over them, no option sizes itself to catch up requests made
before it was ready, and a service without a traffic or an option that cannot serve it has no
figure and says why."""

from __future__ import annotations

import contextlib
import io
import json

import pytest

from app import scenario_files, serving_cost
from app.cli import main
from app.formatting import md_plain, usd_rate
from app.report_pdf import build_report
from app.report_text import comparison_report, text_table, token_cost_rows
from models.errors import InputError
from models.finetune.plan import FinetuneInputs, plan_finetune
from models.hardware import load_gpus
from models.scenario import Scenario
from models.serving.plan import ServeInputs, plan_serving
from pricing.catalogue.loader import load_catalogue
from pricing.engine import compare
from pricing.finetune_economics import economics as job_economics
from pricing.serving_economics import compare_gpus, economics, scenario_of
from tests.builders import app
from tests.readback import flat, pdf_text

#: a 70B chat service on H100s (the Serve page's starting service)
SERVICE = ServeInputs(
    model="llama3-70b",
    gpu="H100-SXM",
    input_tokens=2048,
    output_tokens=256,
    rps=10.0,
    ttft_ms=2000,
    tpot_ms=50,
)


@pytest.fixture(scope="module")
def priced():
    plan = plan_serving(SERVICE)
    return plan, economics(SERVICE, plan, load_catalogue(), term_months=36)


def test_the_tokens_are_the_traffics_from_the_start_to_the_term_end(priced):
    _, e = priced
    seconds = (36 - e.start_month) * 365.25 / 12 * 86_400
    assert e.output_tokens_millions == pytest.approx(10.0 * seconds * 256 / 1e6, rel=1e-12)
    assert e.tokens_millions == pytest.approx(10.0 * seconds * 2304 / 1e6, rel=1e-12)


def test_each_figure_is_the_options_whole_cost_over_those_tokens(priced):
    _, e = priced
    for o in e.options:
        assert o.usd_per_million_output_tokens == pytest.approx(
            o.total_usd / e.output_tokens_millions, rel=1e-12
        )
        # in and out: the same cost over 9 times the tokens (2,304 a request against 256)
        assert o.usd_per_million_tokens * 2304 == pytest.approx(
            o.usd_per_million_output_tokens * 256, rel=1e-12
        )
    figures = {o.option: o.usd_per_million_output_tokens for o in e.options}
    assert e.cheapest == min(figures, key=figures.get)


def test_no_option_sizes_itself_to_catch_up_requests_made_before_it_was_ready(priced):
    """The service starts in the first month every option is ready: a cluster still being built
    is not sent requests it would then serve late on twice the GPUs."""
    plan, e = priced
    assert e.start_month > 0  # an owned cluster takes months to build
    for o in e.options:
        assert o.peak_gpus == pytest.approx(plan.gpus), o.option


def test_users_in_flight_make_a_rate_by_littles_law():
    inp = SERVICE.model_copy(update={"rps": None, "users": 64})
    plan = plan_serving(inp)
    e = economics(inp, plan, load_catalogue())
    cycle_s = (plan.ttft_ms + 256 * plan.tpot_ms) / 1e3
    assert e.requests_per_s == pytest.approx(64 / cycle_s, rel=1e-12)


def test_a_service_without_traffic_or_an_option_that_cannot_serve_it_has_no_figure():
    bare = SERVICE.model_copy(update={"rps": None})
    assert economics(bare, plan_serving(bare), load_catalogue()) is None
    big = SERVICE.model_copy(update={"rps": 400.0})
    e = economics(big, plan_serving(big), load_catalogue())
    spot = next(o for o in e.options if o.option == "cloud:spot")
    assert not spot.available and spot.usd_per_million_output_tokens is None
    assert "spot is not offered" in spot.note
    row = next(r for r in serving_cost.rows(e) if r[0].startswith(spot.label))
    assert row[1:3] == ["-", "-"]


def _cli(*args: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["serve", *args]) == 0
    return out.getvalue()


ARGS = ["--model", "llama3-70b", "--gpu", "H100-SXM", "--input-tokens", "2048"]
ARGS += ["--output-tokens", "256", "--rps", "10", "--ttft-ms", "2000", "--tpot-ms", "50"]


def test_the_command_line_prints_the_engines_figures(priced):
    _, e = priced
    text = _cli(*ARGS)
    for row in serving_cost.rows(e)[1:]:
        line = next(x for x in text.split("\n") if x.strip().startswith(row[0]))
        assert line.split()[-4:] == row[1:] or all(cell in line for cell in row[1:])
    data = json.loads(_cli(*ARGS, "--json"))
    assert data["economics"] == e.model_dump(mode="json")
    assert "not priced: no traffic given" in _cli(*ARGS[:6], "--output-tokens", "256")


def test_a_term_outside_the_scenarios_bounds_is_refused_by_name():
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        assert main(["serve", *ARGS, "--term-months", "500"]) == 2
    assert "argument --term-months: 500 months is not 12 to 120" in err.getvalue()


def test_the_serve_page_shows_the_same_table(priced):
    _, e = priced
    at = app("serve")
    frames = [d.value for d in at.dataframe if "$ per M output tokens" in d.value.columns]
    assert len(frames) == 1
    assert frames[0].values.tolist() == serving_cost.rows(e)[1:]
    at.number_input(key="s_term_months").set_value(60).run()
    frame = next(d.value for d in at.dataframe if "$ per M output tokens" in d.value.columns)
    longer = economics(SERVICE, plan_serving(SERVICE), load_catalogue(), term_months=60)
    assert frame.values.tolist() == serving_cost.rows(longer)[1:]


def test_each_gpu_shows_its_own_plan_and_cheapest_option():
    # TTFT ≤ 1 s: 405B fits no node of 48 GB cards, and over 4 or 8 of them it is too slow
    inp = SERVICE.model_copy(update={"model": "llama3.1-405b", "ttft_ms": 1000.0})
    choices = {c.gpu: c for c in compare_gpus(inp, ["H100-SXM", "B200", "L40S"], load_catalogue())}
    h100 = choices["H100-SXM"]
    plan = plan_serving(inp)
    e = economics(inp, plan, load_catalogue())
    assert (h100.gpus, h100.tpot_ms, h100.cheapest) == (plan.gpus, plan.tpot_ms, e.cheapest)
    assert h100.usd_per_million_output_tokens == min(
        o.usd_per_million_output_tokens for o in e.options if o.usd_per_million_output_tokens
    )
    assert choices["B200"].gpus < h100.gpus  # 192 GB and twice the bandwidth
    # 405B fits no node of 48 GB cards; over 4 or 8 nodes (TP 32, 64: the twenty-fourth
    # amendment) it misses the TTFT objective: said, not raised
    note = choices["L40S"].note
    assert choices["L40S"].gpus is None and "meets TTFT ≤ 1000 ms" in note and "TP64" in note
    row = next(r for r in serving_cost.gpu_rows(list(choices.values())) if r[0] == "L40S")
    assert "best achievable" in row[6] and row[2] == "-"


def test_each_gpu_runs_its_own_default_engine_unless_one_was_chosen():
    """The service with its engine left unset is planned on AMD GPUs with vLLM's ROCm build (the
    AMD default), not refused for TensorRT-LLM; an engine chosen explicitly is kept on every GPU,
    TensorRT-LLM refused on AMD with the reason. Every row names the engine it ran, and each GPU's
    plan is the one its own validated inputs give."""
    gpus = ["H100-SXM", "MI300X"]
    default = {c.gpu: c for c in compare_gpus(SERVICE, gpus, load_catalogue())}
    assert default["H100-SXM"].engine == "TensorRT-LLM"
    assert default["MI300X"].engine.startswith("vLLM (ROCm)") and default["MI300X"].gpus
    amd = SERVICE.model_copy(update={"gpu": "MI300X", "engine": "vllm"})
    assert default["MI300X"].tpot_ms == plan_serving(amd).tpot_ms
    chosen = {c.gpu: c for c in compare_gpus(SERVICE.model_copy(update={"engine": "sglang"}), gpus)}
    assert chosen["H100-SXM"].engine == "SGLang"
    assert chosen["MI300X"].engine.startswith("SGLang (ROCm)")
    pinned = SERVICE.model_copy(update={"engine": "tensorrt-llm"})
    refused = {c.gpu: c for c in compare_gpus(pinned, gpus)}["MI300X"]
    assert refused.gpus is None and "does not run on AMD" in refused.note
    row = next(r for r in serving_cost.gpu_rows(list(default.values())) if r[0] == "MI300X")
    assert row[1] == default["MI300X"].engine


def test_the_caption_says_why_an_options_peak_exceeds_the_plans_gpus():
    """Compare sizes options in whole nodes: a 3-GPU plan is held as one 8-GPU node, and the
    caption says so beside the Peak GPUs column; a plan of whole nodes gets no such clause."""
    small = ServeInputs.model_validate(
        SERVICE.model_dump(exclude={"engine"}) | {"gpu": "MI300X", "rps": 2.0}
    )
    plan = plan_serving(small)
    e = economics(small, plan, load_catalogue())
    assert plan.gpus < 8 and {round(o.peak_gpus) for o in e.options if o.peak_gpus} == {8}
    assert (e.plan_gpus, e.gpus_per_node) == (plan.gpus, 8)
    assert f"whole 8-GPU nodes; the plan above needs {plan.gpus}." in serving_cost.caption(e)
    whole = ServeInputs(
        model="llama3-70b", gpu="H100-SXM", input_tokens=1000, output_tokens=500, rps=40.0
    )
    e = economics(whole, plan_serving(whole), load_catalogue())
    assert e.plan_gpus % 8 == 0 and "Peak GPUs is" not in serving_cost.caption(e)


def test_the_serve_page_compares_every_gpu_on_request():
    at = app("serve")
    assert not [d for d in at.dataframe if "Cheapest option" in d.value.columns]
    at.toggle(key="s_compare_gpus").set_value(True).run()
    frame = next(d.value for d in at.dataframe if "Cheapest option" in d.value.columns)
    want = serving_cost.gpu_rows(compare_gpus(SERVICE, list(load_gpus()), load_catalogue()))
    assert frame.values.tolist() == want[1:]


# ------------------------------------------- a portfolio's serving workloads, on every option


def test_a_portfolios_serving_cost_per_token_is_the_services_own():
    """A portfolio of the one service (from the month every option is ready, as `economics`
    prices it): each option's figure for the workload is the service's, two ways of counting."""
    plan = plan_serving(SERVICE)
    e = economics(SERVICE, plan, load_catalogue())
    c = compare(
        scenario_of(SERVICE, e.requests_per_s, e.term_months, e.start_month),
        load_catalogue(),
        decision=False,
    )
    for o, priced in zip(c.options, e.options, strict=True):
        assert o.usd_per_million_output_tokens["service"] == pytest.approx(
            priced.usd_per_million_output_tokens, rel=1e-9
        ), o.option


def test_the_table_is_on_the_terminal_the_pdf_and_the_compare_page_and_only_for_serving():
    ent = Scenario.model_validate_json(scenario_files.example_json("enterprise"))
    c = compare(ent, load_catalogue())
    rows = token_cost_rows(c)
    assert rows[1][0] == "assistant-api" and len(rows) == 2
    assert rows[1][1:] == [
        usd_rate(o.usd_per_million_output_tokens["assistant-api"]) for o in c.options if o.available
    ]
    # its share is its team's chargeback (the team runs only it): the figure times its tokens
    w = next(x for x in ent.workloads if x.name == "assistant-api")
    for o in (o for o in c.options if o.available):
        d = next(x for x in o.workload_delays if x.name == w.name)
        tokens = sum(w.rps_by_month()) * 365.25 / 12 * 86_400 * w.output_tokens
        served = tokens * d.served_gpu_hours / d.demanded_gpu_hours
        assert o.usd_per_million_output_tokens[w.name] * served / 1e6 == pytest.approx(
            o.chargeback_usd["product"], rel=1e-9
        ), o.option
    assert "\n".join(text_table(rows)) in comparison_report(c)
    pdf = flat(pdf_text(build_report(c).data))
    assert flat("Serving cost per million output tokens") in pdf and flat(rows[1][1]) in pdf
    at = app("compare", scenario=json.loads(scenario_files.example_json("enterprise")))
    frame = next(d.value for d in at.dataframe if "Serving workload" in d.value.columns)
    assert frame.values.tolist() == rows[1:]
    # a portfolio that serves nothing has no table, and its JSON no such field
    lab = compare(Scenario.model_validate_json(scenario_files.example_json("lab")))
    assert len(token_cost_rows(lab)) == 1
    assert "usd_per_million_output_tokens" not in lab.model_dump_json()
    assert "Serving cost per million" not in comparison_report(lab)


def test_a_service_only_partly_served_pays_for_the_tokens_it_serves():
    """On a cluster held at half the GPUs the service needs, an owned option serves part of the
    traffic: its cost is spread over the tokens it serves, not those asked for."""
    data = json.loads(scenario_of(SERVICE, 10.0, 36).model_dump_json())
    data["cluster"]["gpus"] = 4  # the service needs 8
    c = compare(Scenario.model_validate(data), load_catalogue(), decision=False)
    build = next(o for o in c.options if o.option == "build")
    d = build.workload_delays[0]
    assert d.served_gpu_hours < 0.9 * d.demanded_gpu_hours
    asked = 10.0 * 36 * 365.25 / 12 * 86_400 * 256
    served = asked * d.served_gpu_hours / d.demanded_gpu_hours
    assert build.usd_per_million_output_tokens["service"] == pytest.approx(
        build.total_usd / (served / 1e6), rel=1e-9
    )


# ---------------------------------------------------------------- a fine-tune's cost per job

JOB = FinetuneInputs(model="llama3-8b", method="lora", gpu="H100-SXM", tokens=1e8)


def test_a_jobs_cost_is_each_options_total_over_the_jobs_it_finishes():
    plan = plan_finetune(JOB)
    e = job_economics(JOB, plan, load_catalogue(), jobs_per_month=8.0)
    assert e.jobs_released == pytest.approx(8.0 * (36 - e.start_month))
    for o in e.options:
        assert o.usd_per_job == pytest.approx(o.total_usd / o.jobs_finished, rel=1e-12)
        assert o.jobs_finished == pytest.approx(e.jobs_released, abs=1)
    # a cluster held between jobs costs the same whatever the jobs: twice the jobs, half as much
    # per job; per use, the compute scales with the jobs and the cost per job falls far less
    twice = job_economics(JOB, plan, load_catalogue(), jobs_per_month=16.0)
    per_job = {o.option: o.usd_per_job for o in e.options}
    halved = {o.option: o.usd_per_job / per_job[o.option] for o in twice.options}
    assert halved["build"] < 0.55 and halved["cloud:on_demand"] > halved["build"]


def test_the_finetune_command_and_page_show_the_same_table():
    plan = plan_finetune(JOB)
    e = job_economics(JOB, plan, load_catalogue())
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        args = ["finetune", "--model", "llama3-8b", "--method", "lora", "--tokens", "1e8"]
        assert main([*args, "--gpu", "H100-SXM"]) == 0
    assert "\n".join(text_table(serving_cost.job_rows(e))) in out.getvalue()
    at = app("finetune")
    frame = next(d.value for d in at.dataframe if "$ per job" in d.value.columns)
    assert frame.values.tolist() == serving_cost.job_rows(e)[1:]
    at.number_input(key="f_jobs_per_month").set_value(16.0).run()
    frame = next(d.value for d in at.dataframe if "$ per job" in d.value.columns)
    busier = job_economics(JOB, plan, load_catalogue(), jobs_per_month=16.0)
    assert frame.values.tolist() == serving_cost.job_rows(busier)[1:]


def test_an_option_without_a_figure_says_why_once_for_all_it_applies_to():
    """No hyperscaler prices an L40S in the catalogue: the four cloud options have no cost per
    job, and the command and the Fine-tune page say why in one line naming all four (not four
    times, and not silently)."""
    job = FinetuneInputs(model="llama3-8b", method="lora", gpu="L40S", tokens=1e8)
    e = job_economics(job, plan_finetune(job), load_catalogue())
    clouds = [o.label for o in e.options if o.option.startswith("cloud:")]
    assert len(clouds) == 4 and all(not o.available for o in e.options if o.label in clouds)
    why = "no hyperscaler price for L40S in the catalogue"
    assert serving_cost.notes(e) == [f"{', '.join(clouds)}: " + e.options[4].note]
    assert why in e.options[4].note
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        args = ["finetune", "--model", "llama3-8b", "--method", "lora", "--tokens", "1e8"]
        assert main([*args, "--gpu", "L40S"]) == 0
    assert out.getvalue().count(why) == 1 and f"  {serving_cost.notes(e)[0]}" in out.getvalue()
    at = app("finetune")
    at.selectbox(key="f_gpu").set_value("L40S").run()
    captions = [c.value for c in at.caption]
    assert sum(why in c for c in captions) == 1, captions
    assert md_plain(serving_cost.notes(e)[0]) in captions


def test_a_traffic_past_what_a_portfolio_carries_is_not_priced_and_says_why():
    """Ten million users of one-token requests make a rate a portfolio's serving workload does not
    take: the plan stands, its cost is not priced, the command and the page say why."""
    inp = ServeInputs(model="gpt3-175b", gpu="H200", input_tokens=1, output_tokens=1,
                      users=10_000_000, tpot_ms=30.0)  # fmt: skip
    with pytest.raises(InputError, match="workloads\\[0\\].rps"):
        economics(inp, plan_serving(inp), load_catalogue())
    args = ["serve", "--model", "gpt3-175b", "--gpu", "H200", "--input-tokens", "1"]
    args += ["--output-tokens", "1", "--users", "10000000", "--tpot-ms", "30"]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(args) == 0
    assert "Cost per million tokens: not priced: workloads[0].rps" in out.getvalue()

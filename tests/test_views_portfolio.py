"""The portal with a portfolio (scenario version 2): the Workload page's portfolio mode (a table
validated by the schema, the core's sizing of the selected row, samples one click away, both modes
kept in the session) and Compare's capacity, delay and chargeback panels, which show the engine's
numbers (Streamlit's AppTest through tests/portal_harness.py)."""

from __future__ import annotations

import copy
import json
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from streamlit.testing.v1 import AppTest

from app import share_link
from app.charts.portfolio import capacity_demand
from app.formatting import capacity_size, md_plain, sentence, training_run_subject, usd, usd_rate
from app.recommendation_text import recommendation_text
from app.scenario_files import PORTFOLIOS
from app.views.portfolio import apply_edits
from models.errors import InputError
from models.hardware import load_gpus
from models.portfolio.demand import TrainingSettings, derive_demand, size_workload
from models.portfolio.workloads import parse_workloads
from models.scenario import Scenario
from pricing.engine import compare
from tests.builders import app, sample
from tests.portal_app import send_edits
from tests.readback import compare_tables, errors, metric


def to_portfolio(at: AppTest) -> AppTest:
    at.radio(key="w_mode").set_value("portfolio").run()
    assert not at.exception, at.exception
    return at


def number(text: str) -> float:
    """The first number in a metric's text ('32.9 days' -> 32.9)."""
    return float(re.search(r"[\d,]+(?:\.\d+)?", text).group().replace(",", ""))


def edit(at: AppTest, **edits) -> AppTest:
    """What the table's editor sends after the user's edits."""
    return send_edits(at, at.data_editor[0].key, **edits)


def select(at: AppTest, row: int) -> AppTest:
    """Selects a row of the table for its sizing, Duplicate and Remove."""
    box = next(s for s in at.selectbox if s.key.startswith("p_row_"))
    return box.set_value(row).run()


def table(at: AppTest) -> list[dict]:
    return at.data_editor[0].value.to_dict("records")


def workloads(at: AppTest) -> list[dict]:
    return at.session_state["scenario"]["workloads"]


# ------------------------------------------------------------------------- Workload, portfolio


def test_a_sample_loads_in_one_click_and_a_cell_edit_shows_the_cores_sizing():
    at = to_portfolio(app())
    at.button(key="p_sample_lab").click().run()
    data = sample("lab")
    assert workloads(at) == data["workloads"]
    assert [r["name"] for r in table(at)] == [w["name"] for w in data["workloads"]]
    sc = Scenario.model_validate(data)
    s = size_workload(sc.workloads[0], "H100-SXM")
    assert metric(at, "GPUs per run") == f"{s.gpus_per_run:,}" == "512"
    assert metric(at, "Run length") == f"{s.run_days:,.1f} days"
    edit(at, edited={0: {"gpus": 256}})
    assert workloads(at)[0]["gpus"] == 256 and table(at)[0]["gpus"] == 256
    s256 = size_workload(
        Scenario.model_validate(at.session_state["scenario"]).workloads[0], "H100-SXM"
    )
    assert metric(at, "GPUs per run") == "256"
    assert metric(at, "Run length") == f"{s256.run_days:,.1f} days" != f"{s.run_days:,.1f} days"
    demand = derive_demand(
        Scenario.model_validate(at.session_state["scenario"]).workloads, "H100-SXM", 36
    )
    assert metric(at, "GPU-hours demanded") == f"{demand.workloads[0].demanded_gpu_hours:,.0f}"


def test_the_selected_row_is_the_one_sized():
    at = app(scenario=sample("enterprise"))
    select(at, 1)
    sc = Scenario.model_validate(sample("enterprise"))
    s = size_workload(sc.workloads[1], "H100-SXM")  # the serving workload: GPUs month by month
    assert metric(at, "GPUs, first month") == f"{s.gpus_by_month[0]:,.0f}"
    assert metric(at, "GPUs, last month") == f"{s.gpus_by_month[-1]:,.0f}"
    assert s.gpus_by_month[-1] > s.gpus_by_month[0]  # traffic grows 10 % a month


def test_a_bad_cell_names_the_field_and_its_range_and_keeps_what_was_typed():
    at = app(scenario=sample("lab"))
    edit(at, edited={2: {"jobs_per_month": 500.0}})
    message = errors(at)
    assert "workloads[2].jobs_per_month" in message and "at most 100" in message, message
    assert table(at)[2]["jobs_per_month"] == 500.0
    assert workloads(at)[2]["jobs_per_month"] == 500.0
    assert not any(m.label == "GPUs per run" for m in at.metric)  # nothing sized from a bad table
    edit(at, edited={2: {"jobs_per_month": 4.0}})
    assert not at.error and workloads(at)[2]["jobs_per_month"] == 4.0


def test_a_duplicate_name_is_named():
    at = app(scenario=sample("lab"))
    edit(at, edited={1: {"name": "base-8b"}})
    assert "workloads[1].name" in errors(at) and "used twice" in errors(at)
    assert table(at)[1]["name"] == "base-8b"


def test_rows_are_added_duplicated_and_removed():
    at = app(scenario=sample("lab"))
    edit(at, added=[{"kind": "serve", "name": "chat", "team": "product", "rps": 5.0}])
    assert workloads(at)[-1] == {"kind": "serve", "name": "chat", "team": "product", "rps": 5.0}
    assert not at.error and len(table(at)) == 4
    at.button(key="p_duplicate").click().run()  # the selected row: the first
    names = [w["name"] for w in workloads(at)]
    assert names == ["base-8b", "base-8b copy", "base-70b", "evaluations", "chat"]
    assert {**workloads(at)[1], "name": "base-8b"} == workloads(at)[0]
    edit(at, deleted=[0, 2])
    assert [w["name"] for w in workloads(at)] == ["base-8b copy", "evaluations", "chat"]
    select(at, 0).button(key="p_remove").click().run()
    assert [w["name"] for w in workloads(at)] == ["evaluations", "chat"]
    assert not at.error and not at.exception


def test_changing_a_rows_kind_keeps_only_the_fields_the_kind_has():
    rows = sample("lab")["workloads"]
    out = apply_edits(rows, {"edited_rows": {0: {"kind": "steady"}}})
    assert out[0] == {
        "kind": "steady",
        "name": "base-8b",
        "team": "pretraining",
        "gpus": 512,
        "start_month": 0,
        "duration_months": 1,
    }
    assert out[1:] == rows[1:]
    cleared = apply_edits(rows, {"edited_rows": {0: {"gpus": None}}})
    assert "gpus" not in cleared[0]  # a cleared cell: the schema default (the fewest that fit)
    named = apply_edits(rows, {"added_rows": [{}, {}]})
    assert [w["name"] for w in named[-2:]] == ["steady workload", "steady workload 2"]
    # kind and name cleared in one edit (a KeyError before): a new name, the kind left for the
    # parser to name, and the row's values kept
    blank = apply_edits(rows, {"edited_rows": {1: {"kind": None, "name": None}}})
    assert "kind" not in blank[1] and blank[1]["name"] == "new workload"
    assert {k: v for k, v in blank[1].items() if k not in ("kind", "name")} == {
        k: v for k, v in rows[1].items() if k not in ("kind", "name")
    }
    with pytest.raises(InputError, match=r"workloads\[1\]\.kind: missing; allowed: pretrain"):
        parse_workloads(blank)


def test_switching_mode_keeps_the_run_and_the_portfolio():
    at = app()
    at.text_input(key="w_gpus").input("512").run()
    run = copy.deepcopy(at.session_state["scenario"])
    to_portfolio(at)
    assert at.session_state["scenario"]["version"] == 2
    first = workloads(at)[0]  # the training run as the portfolio's first workload
    assert (first["kind"], first["model"], first["gpus"]) == ("pretrain", "llama3-70b", 512)
    at.button(key="p_sample_university").click().run()
    edit(at, edited={0: {"gpus": 40}})
    portfolio = copy.deepcopy(at.session_state["scenario"])
    at.radio(key="w_mode").set_value("run").run()
    assert at.session_state["scenario"] == run
    assert at.text_input(key="w_gpus").value == "512" and metric(at, "GPUs") == "512"
    to_portfolio(at)
    assert at.session_state["scenario"] == portfolio
    assert table(at)[0]["gpus"] == 40


def test_the_address_never_holds_another_scenario_than_the_one_in_force():
    at = app()
    at.text_input(key="w_gpus").input("512").run()
    assert share_link.decode_data(at.query_params["s"])["cluster"]["gpus"] == 512
    to_portfolio(at)
    linked = share_link.decode(at.query_params["s"])  # the portfolio in force, not the run
    assert linked == Scenario.model_validate(at.session_state["scenario"]) and linked.version == 2
    at.radio(key="w_mode").set_value("run").run()
    assert share_link.decode_data(at.query_params["s"])["cluster"]["gpus"] == 512


def test_the_demand_chart_draws_the_demand_by_team_and_kind():
    at = app(scenario=sample("university"))
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    demand = derive_demand(Scenario.model_validate(sample("university")).workloads, "H100-SXM", 36)
    teams = {t["meta"]["name"]: t["y"] for t in spec["data"] if t["meta"]["group"] == "team"}
    kinds = {t["meta"]["name"]: t["y"] for t in spec["data"] if t["meta"]["group"] == "kind"}
    assert teams.keys() == demand.gpu_hours_by_team.keys() and kinds.keys() == {"steady"}
    for name, hours in demand.gpu_hours_by_team.items():
        assert teams[name] == pytest.approx(hours)
    assert kinds["steady"] == pytest.approx(demand.gpu_hours_by_kind["steady"])


# ------------------------------------------------------------------------------ Compare, v2


@pytest.mark.parametrize("name", list(PORTFOLIOS))
def test_compare_shows_the_engines_totals_capacity_delays_and_chargeback(name):
    at = app(scenario=sample(name))
    at.session_state["_page"] = "compare"
    at.run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    c = compare(Scenario.model_validate(sample(name)))
    frames = compare_tables(at)
    totals = frames["totals_v2"].to_dict("records")
    assert [
        (r["Option"], r["NPV"], r["Total (nominal)"], r["$ per delivered GPU-hour"]) for r in totals
    ] == [
        (o.label, usd(o.npv_usd), usd(o.total_usd), usd_rate(o.usd_per_gpu_hour)) for o in c.options
    ]
    charge = frames["chargeback_v2"].set_index("Team").to_dict()
    for o in c.options:  # each team's share, then the option's total (as the CLI and PDF print)
        assert charge[o.label] == {
            **{team: usd(v) for team, v in o.chargeback_usd.items()},
            "Total": usd(o.total_usd),
        }
    # the run storage and checkpoints are sized for, as the PDF and the CLI name it
    run = next(x.value for x in at.caption if "representative run" in x.value)
    assert md_plain(training_run_subject(c)) in run, run
    assert md_plain(f"{c.run_gpus:,}") in run
    capacity = frames["capacity_v2"].set_index("Option").to_dict("index")
    rules = " ".join(m.value for m in at.markdown if m.value.startswith("- **"))
    for o in c.options:
        row = capacity[o.label]
        assert row["GPUs"] == capacity_size(o)  # '1,024 → 8 from day 741' where it steps
        assert f"- **{md_plain(o.label)}**: {md_plain(sentence(o.capacity_rule))}." in rules
        assert row["Served GPU-hours"] == f"{o.served_gpu_hours:,.0f}"
        assert row["Queued at term end"] == f"{o.queued_gpu_hours or 0:,.0f}"
        assert row["Idle GPU-hours"] == f"{o.idle_gpu_hours or 0:,.0f}"
    delays = frames["delays_v2"].set_index("Workload").to_dict()
    for o in c.options:
        for d in o.workload_delays:
            assert (
                delays[o.label][d.name]
                == f"{d.delay_days_max:,.1f} (mean {d.delay_days_mean:,.1f})"
            )
    shown = " ".join(m.value for m in at.markdown)
    assert (
        re.sub(r"\\(.)", r"\1", shown)
        .replace("\u200b", "")
        .count(recommendation_text(c.recommendation))
        == 1
    )
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)  # the recommended option's capacity
    rec = c.option(c.recommendation.option)
    by_kind = {t["meta"]["kind"]: t["y"] for t in spec["data"]}
    assert by_kind["served"] == pytest.approx(rec.served_gpu_hours_by_month)
    assert by_kind["idle"] == pytest.approx(rec.idle_gpu_hours_by_month)
    assert by_kind["demand"] == pytest.approx(rec.demand_gpu_hours)


def test_compare_capacity_chart_follows_the_chosen_option():
    at = app("compare", scenario=sample("enterprise"))
    at.radio(key="compare_capacity_option").set_value("build").run()
    c = compare(Scenario.model_validate(sample("enterprise")))
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    served = next(t["y"] for t in spec["data"] if t["meta"]["kind"] == "served")
    assert served == pytest.approx(c.option("build").served_gpu_hours_by_month)
    assert "Build" in spec["layout"]["title"]["text"]


def test_capacity_chart_of_an_unplanned_option_is_empty():
    c = compare(Scenario.model_validate(sample("lab")))
    fig = capacity_demand(c, "no-such-option")
    assert not fig.data and fig.layout.annotations[0].text.endswith("was not compared")


# ------------------------------------------------------------------------- any valid portfolio

NAMES = st.from_regex(r"[a-z][a-z0-9-]{0,10}", fullmatch=True)


@st.composite
def portfolios(draw) -> dict:
    months = draw(st.integers(12, 60))
    n = draw(st.integers(1, 4))
    out = []
    for i in range(n):
        kind = draw(st.sampled_from(["pretrain", "finetune", "serve", "steady"]))
        start = draw(st.integers(0, months - 1))
        w = {
            "kind": kind,
            "name": f"w{i}-{draw(NAMES)}",
            "team": draw(st.sampled_from(["a", "b", "research"])),
            "start_month": start,
            "duration_months": draw(st.integers(1, 120 - start)),
        }
        if kind == "pretrain":
            w |= {
                "model": draw(st.sampled_from(["llama3-8b", "llama3-70b"])),
                "tokens": draw(st.sampled_from([1e9, 1e11, 1e12])),
                "gpus": draw(st.sampled_from([None, 64, 512])),
                "runs_per_month": draw(st.sampled_from([0.1, 0.5, 1.0])),
            }
        elif kind == "finetune":
            w |= {
                "model": "llama3-8b",
                "method": draw(st.sampled_from(["full", "lora", "qlora"])),
                "jobs_per_month": draw(st.floats(0.5, 20)),
            }
        elif kind == "serve":
            w |= {
                "model": draw(st.sampled_from(["llama3-8b", "llama3-70b"])),
                "rps": draw(st.floats(0.5, 50)),
                "growth_pct_per_month": draw(st.floats(-10, 10)),
                "input_tokens": draw(st.sampled_from([256, 2048, 16384])),
                "tpot_ms": draw(st.sampled_from([None, 30.0, 100.0])),
                "slo_percentile": draw(st.sampled_from([50, 90, 99])),
                "prefill_decode": draw(st.sampled_from(["auto", "colocated", "split"])),
            }
        else:
            w |= {"gpus": draw(st.integers(1, 512)), "utilisation_pct": draw(st.floats(1, 100))}
        out.append({k: v for k, v in w.items() if v is not None})
    data = {
        "version": 2,
        "cluster": {"gpu": draw(st.sampled_from(["H100-SXM", "H200", "B200"]))},
        "term": {"months": months},
        "workloads": out,
    }
    Scenario.model_validate(data)
    return data


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(portfolios())
def test_any_valid_portfolio_renders_on_workload_and_compare(data):
    assert data["cluster"]["gpu"] in load_gpus()
    at = app(scenario=data)
    assert [r["name"] for r in table(at)] == [w["name"] for w in data["workloads"]]
    assert at.session_state["scenario"] == data  # rendering changed nothing
    sized = any(m.label in ("GPUs per run", "GPUs, first month") for m in at.metric)
    assert sized or at.error  # sized, or a message saying why not; never a blank panel
    at.session_state["_page"] = "compare"
    at.run()
    assert not at.exception, at.exception
    assert at.title[0].value == "Compare"
    assert "chargeback_v2" in compare_tables(at) or at.error


def test_a_portfolio_plans_its_pre_training_with_the_scenario_execution_and_reliability():
    """Version 2 used to drop `execution` and `reliability` (a fresh Scenario per run): the classic
    stack, a long restart and BF16 gradients now move the pre-training runs, the demand and the
    representative plan the costs are sized on; fine-tuning keeps plan_finetune's own settings."""

    def runs(sc: Scenario) -> dict[str, float]:
        d = derive_demand(sc.workloads, "H100-SXM", 36, training=TrainingSettings.of(sc))
        return {w.name: w.run_days for w in d.workloads}

    base = Scenario.model_validate(sample("lab"))
    c0, runs0 = compare(base), runs(base)
    for change, slower in (
        ({"execution": {"software_stack": "megatron-3d-classic"}}, True),
        ({"reliability": {"restart_minutes": 600.0}}, True),
        ({"execution": {"gradient_precision": "bf16", "tp_comm_overlap": True}}, False),
    ):
        sc = Scenario.model_validate(sample("lab") | change)
        c, new = compare(sc), runs(sc)
        for name in ("base-8b", "base-70b"):
            moved = new[name] > 1.05 * runs0[name] if slower else new[name] < runs0[name]
            assert moved, (change, name, new[name], runs0[name])
        assert new["evaluations"] == runs0["evaluations"]  # fine-tuning: not the execution plan
        # the comparison's demand and its representative plan (the costs' storage, checkpoints)
        pretrain, pretrain0 = (sum(x.portfolio.gpu_hours_by_kind["pretrain"]) for x in (c, c0))
        assert pretrain > pretrain0 if slower else pretrain < pretrain0, change
        assert c.training.model_dump() != c0.training.model_dump(), change
        if slower:
            assert c.training.train_days > c0.training.train_days, change


def test_a_portfolio_holds_weights_in_fp8_only_when_every_training_workload_trains_in_fp8():
    data = sample("lab") | {"execution": {"fp8_params": True}}
    with pytest.raises(ValueError, match=r"workloads\[0\], base-8b, trains in bf16"):
        Scenario.model_validate(data)
    for w in data["workloads"]:
        if w["kind"] in ("pretrain", "finetune"):
            w["precision"] = "fp8"
    sc = Scenario.model_validate(data)
    plain = copy.deepcopy(data) | {"execution": {}}
    d_fp8 = derive_demand(sc.workloads, "H100-SXM", 36, training=TrainingSettings.of(sc))
    d_plain = derive_demand(sc.workloads, "H100-SXM", 36)
    assert Scenario.model_validate(plain).execution.fp8_params is False
    assert d_fp8.demanded_gpu_hours != d_plain.demanded_gpu_hours


def test_the_portfolio_page_sets_the_stack_its_pre_training_runs_with():
    """The execution plan on the portfolio page: the selected pre-training run's length follows it."""
    at = to_portfolio(app(scenario=sample("lab")))
    workloads = at.session_state["scenario"]["workloads"]
    before = metric(at, "Run length")
    at.selectbox(key="w_stack").set_value("megatron-3d-classic").run()
    assert not at.exception, at.exception
    assert at.session_state["scenario"]["execution"] == {"software_stack": "megatron-3d-classic"}
    assert at.session_state["scenario"]["workloads"] == workloads
    assert number(metric(at, "Run length")) > 1.2 * number(before), (
        before,
        metric(at, "Run length"),
    )


# ------------------------------------------------------------------------- the selected row's details


def detail(at: AppTest, field: str):
    """The box of the selected row's input `field` under the table."""
    return next(
        w
        for w in [*at.text_input, *at.number_input, *at.selectbox]
        if str(w.key).startswith("p_detail_") and w.key.endswith(f"_{field}")
    )


def test_every_input_of_every_kind_is_in_the_table_or_under_it():
    from app.views.portfolio import COLUMNS
    from app.views.workload_details import DETAILS
    from models.portfolio.workloads import WORKLOAD_KINDS

    for kind, model in WORKLOAD_KINDS.items():
        missing = set(model.model_fields) - set(COLUMNS) - set(DETAILS)
        assert not missing, f"{kind}: {sorted(missing)} can be set nowhere on the page"


def test_a_services_prompt_length_and_objectives_are_edited_under_the_table():
    at = app(scenario=sample("enterprise"))
    select(at, 1)
    first = metric(at, "GPUs, last month")
    assert detail(at, "tpot_ms").value == "50"
    detail(at, "input_tokens").set_value(8192).run()
    assert workloads(at)[1]["input_tokens"] == 8192
    sc = Scenario.model_validate(at.session_state["scenario"])
    s = size_workload(sc.workloads[1], "H100-SXM")
    assert metric(at, "GPUs, last month") == f"{s.gpus_by_month[-1]:,.0f}" != first
    detail(at, "prefill_decode").set_value("split").run()
    assert workloads(at)[1]["prefill_decode"] == "split"
    assert "in prefill and decode pools" in " ".join(c.value for c in at.caption)
    detail(at, "ttft_ms").set_value("").run()  # no objective: the field left out
    assert "ttft_ms" not in workloads(at)[1]
    # the table's other rows and the share link's scenario keep every field
    assert workloads(at)[0] == sample("enterprise")["workloads"][0]


def test_a_service_can_be_left_at_the_gpus_default_precision():
    """A service's precision offers the default (None: FP8 where the cluster's GPU has it, else
    BF16, as the Serve page and `clusterplan serve`); choosing it leaves the field out, and on
    H100 the enterprise service's FP8 is that default, so its GPUs stay."""
    at = app(scenario=sample("enterprise"))
    select(at, 1)
    first = metric(at, "GPUs, last month")
    box = detail(at, "precision")
    assert box.value == "fp8" and box.options[0].startswith("Default: FP8 where the GPU has it")
    box.select_index(0).run()  # AppTest's set_value(None) sets nothing
    assert not at.exception and not at.error
    assert "precision" not in workloads(at)[1]
    assert detail(at, "precision").value is None
    assert metric(at, "GPUs, last month") == first


def test_a_bad_detail_names_the_field_and_its_range_and_keeps_what_was_typed():
    at = app(scenario=sample("enterprise"))
    select(at, 1)
    detail(at, "tpot_ms").set_value("fast").run()
    message = errors(at)
    assert "workloads[1].tpot_ms" in message, message
    assert detail(at, "tpot_ms").value == "fast" and workloads(at)[1]["tpot_ms"] == "fast"
    assert not any(m.label == "GPUs, first month" for m in at.metric)
    detail(at, "tpot_ms").set_value("0").run()
    assert "workloads[1].tpot_ms" in errors(at) and "greater than 0" in errors(at), errors(at)
    detail(at, "tpot_ms").set_value("60").run()
    assert not at.error and workloads(at)[1]["tpot_ms"] == 60


def test_lora_rank_is_offered_only_to_an_adapter_method():
    at = app(scenario=sample("enterprise"))
    assert detail(at, "lora_rank").value == 16
    detail(at, "epochs").set_value(3.0).run()
    assert workloads(at)[0]["epochs"] == 3.0
    edit(at, edited={0: {"method": "full"}})
    assert not any(str(w.key).endswith("_lora_rank") for w in at.number_input)
    assert workloads(at)[0]["epochs"] == 3.0  # a table edit keeps the detail typed before it


def test_a_fine_tune_rows_framework_and_savings_are_edited_under_the_table():
    """Issue 31: a portfolio fine-tune carries its framework and memory savings (each left to the
    planner by default); a choice here is written into the workload and sizes it."""
    at = app(scenario=sample("enterprise"))
    select(at, 0)
    assert detail(at, "framework").value == "fsdp"
    assert detail(at, "optimizer_offload").value is None
    detail(at, "framework").set_value("megatron").run()
    detail(at, "optimizer_offload").set_value(True).run()
    assert not at.exception and not at.error
    row = workloads(at)[0]
    assert row["framework"] == "megatron" and row["optimizer_offload"] is True
    sc = Scenario.model_validate(at.session_state["scenario"])
    assert sc.workloads[0].framework == "megatron" and sc.workloads[0].optimizer_offload


def test_a_services_engine_version_is_set_under_the_table_and_kept_in_the_scenario():
    """The engine's release (models/serving/builds.py): typed under the table, it travels in the
    scenario (and so the link); a malformed one is named, never a traceback; empty leaves it out."""
    at = app(scenario=sample("enterprise"))
    select(at, 1)
    detail(at, "engine_version").set_value("0.15.1").run()
    assert not at.exception and not at.error
    assert workloads(at)[1]["engine_version"] == "0.15.1"
    detail(at, "engine_version").set_value("fast!").run()
    assert not at.exception and any("engine_version" in e.value for e in at.error)
    detail(at, "engine_version").set_value("").run()
    assert "engine_version" not in workloads(at)[1]

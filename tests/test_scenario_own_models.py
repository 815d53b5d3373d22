"""A scenario carries the models of one's own its workloads name (issue 29 item 4, in portfolios):
`own_models` in models/scenario.py, checked and registered by models/model_file.py
scenario_models before any workload is validated, so a saved scenario, a share link and
`clusterplan compare FILE` reopen on a machine that never saw the model. Hostile definitions are
refused naming `own_models[i].field` and the allowed range; a workload naming a model nobody
defined says so."""

from __future__ import annotations

import json

import pytest

from app import share_link
from models.model_file import MAX_SCENARIO_MODELS, content_id
from models.scenario import Scenario, explain_validation_error
from models.shapes import ModelShape, get_preset
from pricing.engine import compare
from tests.builders import run_cli, token_of_json

#: each test starts from and leaves the registry as it found it (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("registry")

#: a small MoE of one's own (Mixtral's routing on a 1.5B-class body)
MOE = {
    "model_id": "team-moe",
    "name": "Team MoE",
    "layers": 16,
    "hidden": 2048,
    "heads": 16,
    "kv_heads": 4,
    "ffn_hidden": 4096,
    "vocab": 32000,
    "experts": 8,
    "experts_per_token": 2,
}


def portfolio(models: list | None = None, model: str = "team-moe", **extra) -> dict:
    """A three-workload portfolio (pretrain, finetune, serve) all naming `model`."""
    return {
        "version": 2,
        **({"own_models": models} if models is not None else {}),
        "workloads": [
            {"kind": "pretrain", "name": "pre", "model": model, "tokens": 2e10},
            {"kind": "finetune", "name": "ft", "model": model, "jobs_per_month": 1},
            {"kind": "serve", "name": "svc", "model": model, "rps": 2},
        ],
        "options": {"compare": ["rent", "cloud:on_demand"]},
        **extra,
    }


def problem(data: dict) -> tuple[str, str]:
    with pytest.raises(ValueError) as info:
        Scenario.model_validate(data)
    return explain_validation_error(info.value)[0]


def forget_all(registry) -> None:
    """As a machine that never saw the model: no model of one's own registered."""
    registry.clear()


def test_every_portfolio_kind_names_a_model_of_ones_own_by_its_id(registry):
    sc = Scenario.model_validate(portfolio([MOE]))
    cid = content_id(ModelShape.model_validate(MOE))
    assert [w.model for w in sc.workloads] == [cid] * 3  # named by content, as links name it
    assert get_preset(cid).experts == 8
    c = compare(sc, decision=False)
    delays = c.options[0].workload_delays
    assert {d.name for d in delays} == {"pre", "ft", "svc"}
    assert all(d.demanded_gpu_hours > 0 for d in delays)


def test_a_saved_scenario_reopens_where_the_model_was_never_registered(registry):
    saved = Scenario.model_validate(portfolio([MOE])).model_dump_json()
    before = compare(Scenario.model_validate_json(saved), decision=False)
    forget_all(registry)
    again = Scenario.model_validate_json(saved)  # another machine: only the file
    after = compare(again, decision=False)
    assert again == Scenario.model_validate_json(saved)
    assert after.model_dump() == before.model_dump()


def test_a_workload_naming_a_model_no_one_defined_says_so(registry):
    forget_all(registry)
    field, msg = problem(portfolio(None, model="ghost@0123456789ab"))
    assert field == "workloads[0].model"
    assert "unknown model 'ghost@0123456789ab'" in msg and "own_models" in msg


def test_a_one_run_scenario_names_its_own_model_too(registry):
    sc = Scenario.model_validate({"own_models": [MOE], "workload": {"model": "team-moe"}})
    assert sc.workload.shape().experts == 8
    forget_all(registry)
    assert Scenario.model_validate_json(sc.model_dump_json()).workload.shape() == sc.own_models[0]


def test_a_scenario_of_presets_writes_no_own_models():
    data = Scenario.model_validate(portfolio(None, model="llama3-8b")).model_dump(mode="json")
    assert "own_models" not in data


@pytest.mark.parametrize(
    ("change", "field", "words"),
    [
        ({"layers": 1_000_000}, "own_models[0].layers", "allowed 1 to 1,000"),
        ({"experts": 10**9}, "own_models[0].experts", "allowed 1 to 4,096"),
        (
            {"layers": 1000, "hidden": 131072, "heads": 1024, "ffn_hidden": 1_048_576},
            "own_models[0]",
            "allowed at most 1e+14",
        ),
        ({"evil": "__import__('os')"}, "own_models[0].evil", "not a model field"),
        ({"model_id": "llama3-8b"}, "own_models[0].model_id", "is a preset's"),
        ({"kv_heads": 3}, "own_models[0].kv_heads", "does not divide"),
        ({"name": "x\u202e"}, "own_models[0].name", "printable"),
    ],
)
def test_a_hostile_definition_is_refused_naming_the_field(change, field, words):
    model = MOE | change
    got_field, msg = problem(portfolio([model], model=model["model_id"]))
    assert got_field == field and words in msg, (got_field, msg)


def test_a_missing_size_is_named():
    model = {k: v for k, v in MOE.items() if k != "hidden"}
    assert problem(portfolio([model]))[0] == "own_models[0].hidden"


def test_more_models_than_allowed_or_not_a_list_is_refused():
    many = [MOE | {"model_id": f"m{i}"} for i in range(MAX_SCENARIO_MODELS + 1)]
    field, msg = problem(portfolio(many, model="m0"))
    assert field == "own_models" and f"allowed 0 to {MAX_SCENARIO_MODELS}" in msg
    assert problem(portfolio({"a": 1}))[0] == "own_models"  # type: ignore[arg-type]


def test_one_id_given_two_shapes_is_refused():
    field, msg = problem(portfolio([MOE, MOE | {"layers": 17}]))
    assert field == "own_models[1].model_id" and "two different models" in msg


def test_the_same_definition_twice_is_one_model():
    sc = Scenario.model_validate(portfolio([MOE, dict(MOE)]))
    assert len({w.model for w in sc.workloads}) == 1


def test_a_share_link_carries_the_scenarios_models_once(registry):
    sc = Scenario.model_validate(portfolio([MOE]))
    token = share_link.encode(sc)
    forget_all(registry)
    link = share_link.decode_link(token)
    assert "models" not in link.sections  # the scenario's own_models carry it, not a copy
    assert Scenario.model_validate(link.scenario) == sc


def test_a_link_naming_an_unknown_model_says_so(registry):
    data = Scenario.model_validate(portfolio([MOE])).model_dump(mode="json", exclude_defaults=True)
    del data["own_models"]  # a hand-edited link: the name without its definition
    forget_all(registry)
    with pytest.raises(share_link.LinkError, match="unknown model 'team-moe@"):
        share_link.decode_link(token_of_json({"version": 2, **data}))


def test_clusterplan_compare_reads_a_scenario_file_with_its_models(tmp_path, registry):
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(portfolio([MOE])))
    forget_all(registry)
    rc, out, _ = run_cli("compare", str(path), "--json")
    assert rc == 0
    assert {w["model"] for w in json.loads(out)["scenario"]["workloads"]} == {
        content_id(ModelShape.model_validate(MOE))
    }


def test_clusterplan_compare_names_a_hostile_models_field(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(portfolio([MOE | {"layers": 10**6}])))
    rc, _, err = run_cli("compare", str(path))
    assert rc != 0
    assert "own_models[0].layers: 1,000,000 is over 1,000 (allowed 1 to 1,000)" in err  # once
    assert "Traceback" not in err


def test_a_model_id_a_file_may_not_take_is_named():
    field, msg = problem(portfolio([MOE | {"model_id": "Bad Id"}], model="Bad Id"))
    assert field == "own_models[0].model_id" and "lower-case" in msg

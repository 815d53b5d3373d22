"""Models of one's own in a shared server process (issue 29, item 4): the registry keyed by content
(models/model_file.py register_own, models/shapes.py), the share link's `models` section
(app/share_link.py) that carries their fields and refuses hostile ones naming the field, and the
PDF and the exports naming the model."""

from __future__ import annotations

import json

import pytest

from app import exports, report_pdf, share_link
from models import model_file, shapes
from models.errors import InputError
from models.finetune.plan import FinetuneInputs, plan_finetune
from models.model_file import content_id, register_own
from models.scenario import Scenario
from models.serving.plan import ServeInputs, plan_serving
from models.shapes import get_preset, known_model, load_presets
from pricing.engine import compare
from tests.builders import RUNS, token_of_json
from tests.readback import flat, pdf_text

#: each test starts from and leaves the registry as it found it (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("registry")


def mine(**changes) -> shapes.ModelShape:
    """Llama 3 8B's fields under an id of one's own, with `changes`."""
    fields = get_preset("llama3-8b").model_dump() | {"model_id": "mine", "name": "Mine"}
    return shapes.ModelShape.model_validate(fields | changes)


# ------------------------------------------------------------------------------------ registry


def test_the_same_content_registers_once_under_one_id(registry):
    first = register_own(mine())
    held = len(registry)
    assert register_own(mine()) == first  # again: nothing new
    assert len(registry) == held
    assert first.startswith("mine@") and first == content_id(mine())
    assert get_preset(first) == mine()


def test_different_content_under_one_model_id_gets_another_id():
    a, b = register_own(mine()), register_own(mine(layers=40))
    assert a != b and a.startswith("mine@") and b.startswith("mine@")
    assert get_preset(a).layers == 32 and get_preset(b).layers == 40
    assert register_own(mine(name="Other name")) not in (a, b)  # every field counts


def test_two_contents_of_one_id_are_refused_never_swapped(monkeypatch):
    monkeypatch.setattr(model_file, "content_id", lambda shape: "mine@000000000000")
    register_own(mine())
    with pytest.raises(InputError, match="another model's"):
        register_own(mine(layers=40))
    assert get_preset("mine@000000000000").layers == 32


def test_a_preset_is_never_taken_over():
    before = dict(load_presets())
    assert register_own(get_preset("llama3-70b")) == "llama3-70b"  # the preset itself
    with pytest.raises(InputError, match="a preset's") as exc:
        register_own(mine(model_id="llama3-70b"))
    assert exc.value.field == "model.model_id"
    with pytest.raises(ValueError, match="a preset's id"):
        shapes.add_own_model("llama3-8b", mine())
    register_own(mine())
    assert load_presets() == before  # the presets (and every picker listing them) as they were
    assert get_preset("llama3-70b").layers == 80


def test_the_registry_keeps_the_most_recently_used_within_its_bound(monkeypatch, registry):
    registry.clear()
    monkeypatch.setattr(shapes, "MAX_OWN_MODELS", 3)
    ids = [register_own(mine(layers=n)) for n in (10, 11, 12)]
    assert get_preset(ids[0])  # used: now the most recent
    fourth = register_own(mine(layers=13))
    assert list(registry) == [ids[2], ids[0], fourth]  # ids[1], least recently used, dropped
    assert not known_model(ids[1])
    assert register_own(mine(layers=11)) == ids[1]  # a session's copy brings it back as it was
    assert len(registry) == 3


def test_every_sizing_takes_a_registered_model_and_refuses_an_unregistered_one():
    model = register_own(mine())
    serve = plan_serving(ServeInputs(model=model, gpu="H100-SXM", input_tokens=512,
                                     output_tokens=128, rps=1))  # fmt: skip
    same = plan_serving(ServeInputs(model="llama3-8b", gpu="H100-SXM", input_tokens=512,
                                    output_tokens=128, rps=1))  # fmt: skip
    assert serve.model == model and serve.gpus == same.gpus and serve.tpot_ms == same.tpot_ms
    assert (
        plan_finetune(FinetuneInputs(model=model, method="lora", gpu="H100-SXM", tokens=1e7)).gpus
        >= 1
    )
    assert Scenario.model_validate(RUNS | {"workload": {"model": model}}).workload.model == model
    shapes.forget_own_model(model)
    with pytest.raises(InputError, match="unknown model"):
        plan_serving(ServeInputs(model=model, gpu="H100-SXM", input_tokens=1, output_tokens=1))
    with pytest.raises(ValueError, match="unknown model .*not a preset"):
        Scenario.model_validate(RUNS | {"workload": {"model": model}})


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ('{"model_id": "m", "published_params_b": NaN}', "NaN is not a number"),
        ('{"model_id": "m", "layers": ' + "9" * 5000 + "}", "not JSON"),
        ("[1, 2]", "a JSON object"),
        (b"\xff\xfe", "not JSON"),
        (" " * (model_file.MAX_FILE_BYTES + 1), "over the 65,536 allowed"),
    ],
)
def test_text_that_is_no_model_is_refused_before_it_is_read_as_one(text, says):
    with pytest.raises(InputError, match=says):
        model_file.model_from_json(text, "pasted")


# ----------------------------------------------------------------------------------- share link


def _scenario_and_serve(model: str) -> tuple[Scenario, ServeInputs]:
    sc = Scenario.model_validate(RUNS | {"workload": {"model": model, "tokens": 2e11}})
    serve = ServeInputs(model=model, gpu="H100-SXM", input_tokens=512, output_tokens=128, rps=1)
    return sc, serve


def test_a_link_carries_the_models_fields_and_reopens_them_in_a_fresh_process(registry):
    model = register_own(mine(layers=30))
    sc, serve = _scenario_and_serve(model)
    token = share_link.encode(sc, {"serve": serve})
    registry.clear()  # another server process, or the model dropped since
    link = share_link.decode_link(token)
    assert link.problems == {}
    assert link.scenario["workload"]["model"] == model and link.sections["serve"]["model"] == model
    assert link.sections["models"]["models"] == [
        mine(layers=30).model_dump(mode="json", exclude_defaults=True)
    ]
    assert get_preset(model) == mine(layers=30)  # registered again, the same content
    assert share_link.encode(Scenario.model_validate(link.scenario), {"serve": serve}) == token


def test_a_link_without_a_model_of_ones_own_has_no_models_section():
    sc, serve = _scenario_and_serve("llama3-8b")
    assert "models" not in json.dumps(share_link.decode_link(share_link.encode(sc)).sections)
    plain = share_link.encode(sc, {"serve": serve})
    assert "models" not in share_link.decode_link(plain).sections


def _hostile(models: object, *, in_scenario: bool) -> str:
    """A token naming `mine@...` on its Serve page (and in its scenario when `in_scenario`) with
    `models` as its models section."""
    model = "mine@" + "0" * model_file.HASH_CHARS
    data = {"version": 1, **RUNS, "serve": {"version": 2, "model": model, "gpu": "H100-SXM",
            "input_tokens": 10, "output_tokens": 10}, "models": models}  # fmt: skip
    if in_scenario:
        data["workload"] = {"model": model}
    return token_of_json(data)


def _entry(**changes) -> dict:
    return mine().model_dump(mode="json") | changes


HOSTILE = [
    ({"version": 1, "models": [_entry(source="x" * 9000)]}, "too large (9,"),
    ({"version": 1, "models": [_entry(evil=1)]}, "model 1: evil: not a model field"),
    ({"version": 1, "models": [_entry(layers=10**9)]}, "layers: 1,000,000,000 is over 1,000"),
    ({"version": 1, "models": [_entry(layers=-3)]}, "layers: Input should be greater than"),
    ({"version": 1, "models": [_entry()] * 5}, "at most 4 items"),
    ({"version": 1, "models": [_entry(model_id="llama3-8b")]}, "a preset's"),
    ({"version": 1, "models": [_entry(name="a\u202eb")]}, "name: 1 to 100 printable"),
    ({"version": 1, "models": [_entry()], "extra": 1}, "extra"),
    ({"version": 9, "models": [_entry()]}, "made by a newer planner"),
    ([_entry()], "not a JSON object"),
]


@pytest.mark.parametrize(("models", "says"), HOSTILE)
def test_a_hostile_models_section_is_refused_naming_the_field(models, says):
    held = dict(shapes._OWN)
    link = share_link.decode_link(_hostile(models, in_scenario=False))
    assert "models" not in link.sections
    assert link.problems["models"].startswith("the link's models of your own were not opened")
    assert says in link.problems["models"]
    assert dict(shapes._OWN) == held  # nothing registered
    with pytest.raises(share_link.LinkError, match="models of your own were not opened") as exc:
        share_link.decode_link(_hostile(models, in_scenario=True))
    assert says in str(exc.value)


def test_a_section_naming_a_model_the_link_does_not_carry_is_refused():
    token = _hostile({"version": 1, "models": [_entry(name="Other")]}, in_scenario=False)
    link = share_link.decode_link(token)
    assert "models" in link.sections and "serve" in link.sections  # serve names no known model
    with pytest.raises(InputError, match="unknown model"):
        plan_serving(ServeInputs.model_validate(link.sections["serve"]))
    with pytest.raises(share_link.LinkError, match="unknown model .*not a preset"):
        share_link.decode_link(_hostile({"version": 1, "models": [_entry(name="Other")]},
                                        in_scenario=True))  # fmt: skip


# ------------------------------------------------------------------------------ PDF and exports


def test_the_pdf_and_the_exports_name_the_model_and_the_pdfs_link_carries_it(monkeypatch, registry):
    monkeypatch.setattr(report_pdf, "charts_available", lambda *args, **kwargs: False)
    model = register_own(mine(name="Acme Chat 8B", layers=30))
    sc, _ = _scenario_and_serve(model)
    c = compare(sc)
    assert c.training.model == "Acme Chat 8B"
    assert json.loads(exports.comparison_json(c))["training"]["model"] == "Acme Chat 8B"
    link = share_link.link_url(sc, "http://localhost:8501/")
    text = pdf_text(report_pdf.build_report(c, link=link).data)
    assert "Acme Chat 8B" in text
    assert flat(link) in flat(text)
    registry.clear()
    reopened = share_link.decode_link(share_link.token_from_url(link))
    assert reopened.scenario["workload"]["model"] == model
    assert get_preset(model).name == "Acme Chat 8B"

"""Side by side (pricing/side_by_side.py, models/scenario_set.py): every figure is the scenario's own
comparison's field, in the order given; the count, names and the saved set are checked."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from app.scenario_files import EXAMPLE
from models.errors import InputError
from models.scenario_set import MAX_SAVED, ScenarioSet
from pricing.engine import compare
from pricing.side_by_side import compare_named, side_by_side
from tests.builders import scenario


@pytest.fixture(scope="module")
def pair(fixture_catalogue):
    named = [("1,024 GPUs", scenario(EXAMPLE)), ("512 GPUs", scenario(EXAMPLE, cluster__gpus=512))]
    return named, compare_named(named, fixture_catalogue)


FIELDS = (
    "total_usd",
    "npv_usd",
    "ready_day",
    "train_days",
    "first_result_day",
    "usd_per_gpu_hour",
    "cumulative_usd",
    "available",
    "completes_workload",
    "label",
)


def test_figures_are_each_scenarios_own_comparison_fields(pair, fixture_catalogue):
    named, (sbs, comparisons) = pair
    assert [s.name for s in sbs.scenarios] == ["1,024 GPUs", "512 GPUs"]
    for (name, sc), side, c in zip(named, sbs.scenarios, comparisons, strict=True):
        own = compare(sc, fixture_catalogue)  # the one scenario -> comparison function
        assert c.model_dump() == own.model_dump()
        assert side.gpu == own.training.gpu and side.gpus == own.training.gpus
        assert side.recommended == own.recommendation.option
        assert [o.option for o in side.options] == [o.option for o in own.options]
        for got, want in zip(side.options, own.options, strict=True):
            for f in FIELDS:
                assert getattr(got, f) == getattr(want, f), (name, got.option, f)
    # the two scenarios differ (a run on half the GPUs is longer), so a swapped order would be caught
    h, b = sbs.scenarios
    assert h.options[0].train_days != b.options[0].train_days


def test_order_is_the_order_given(pair):
    named, (_, comparisons) = pair
    swapped = side_by_side([("half", comparisons[1]), ("full", comparisons[0])])
    assert [s.gpus for s in swapped.scenarios] == [512, 1024]


@pytest.mark.parametrize("n", [1, 4])
def test_two_or_three_scenarios_only(pair, n):
    _, (_, comparisons) = pair
    named = [(f"s{i}", comparisons[0]) for i in range(n)]
    with pytest.raises(InputError, match="2 to 3") as exc:
        side_by_side(named)
    assert exc.value.field == "scenarios"


def test_names_are_unique_and_printable(pair):
    _, (_, comparisons) = pair
    with pytest.raises(InputError, match="two scenarios are named"):
        side_by_side([("A", comparisons[0]), ("A", comparisons[1])])
    with pytest.raises(InputError, match="printable"):
        side_by_side([("A\x1b[2J", comparisons[0]), ("B", comparisons[1])])
    with pytest.raises(InputError, match="1 to 60") as exc:
        side_by_side([("A", comparisons[0]), ("   ", comparisons[1])])
    assert exc.value.field == "scenarios[1].name"


def test_compare_named_checks_before_comparing(monkeypatch):
    import pricing.engine

    monkeypatch.setattr(pricing.engine, "compare", lambda *a, **k: pytest.fail("compared"))
    with pytest.raises(InputError):
        compare_named([(f"s{i}", scenario(EXAMPLE)) for i in range(4)])


def test_saved_set_validates():
    sc = scenario(EXAMPLE).model_dump(mode="json")
    ok = ScenarioSet.model_validate(
        {
            "scenarios": [{"name": "a", "scenario": sc}, {"name": "b", "scenario": sc}],
            "picked": ["b"],
        }
    )
    assert ok.named("b") is not None and ok.named("c") is None
    bad = [
        {"scenarios": [{"name": "a", "scenario": sc}] * 2},  # repeated name
        {"scenarios": [{"name": "a", "scenario": sc}], "picked": ["z"]},  # picks an unsaved one
        {"scenarios": [{"name": f"s{i}", "scenario": sc} for i in range(MAX_SAVED + 1)]},
        {"scenarios": [{"name": "a", "scenario": {"cluster": {"gpus": -1}}}]},
        {"scenarios": [{"name": "", "scenario": sc}]},
    ]
    for data in bad:
        with pytest.raises(ValidationError):
            ScenarioSet.model_validate(data)

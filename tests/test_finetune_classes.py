"""Amendment 4 of the fine-tuning model (docs/reference/finetune-model.md): the framework classes,
the source-weighted fit of a per-class efficiency, its leave-one-source-out score and the adoption
rule's verdict (not adopted: the model charges no framework factor)."""

import pathlib
import typing

import pytest

from models.finetune import framework_class as FC
from models.finetune.plan import Framework
from models.validation import finetune_classes as FCL


def test_every_framework_input_has_a_class_named_from_it():
    assert set(typing.get_args(Framework)) == set(FC.FRAMEWORK_CLASS)
    assert FC.framework_class("megatron") == "megatron"
    assert FC.framework_class("fsdp") == "fsdp"
    with pytest.raises(KeyError):
        FC.framework_class("deepspeed")


def test_rows_take_their_class_from_the_framework_column():
    by_id = {r["id"]: r["cls"] for r in FCL.physics_rows()}
    # AutoModel's PyTorch-native TP/PP rows were entered as megatron, its FSDP2 8B row as fsdp
    assert by_id["ft3-automodel2512-llama3.3-70b-lora-h100x16"] == "megatron"
    assert by_id["ft3-automodel2512-llama3.1-8b-lora-h100x1"] == "fsdp"
    assert by_id["tt2405-llama2-70b-lora-a100x8"] == "fsdp"
    assert by_id["mlperf-v4.0-h100x8-llama2-70b-lora"] == "megatron"  # empty column: megatron
    assert sum(c == "fsdp" for c in by_id.values()) == 8


def test_a_source_is_one_publishers_publication():
    rows = FCL.physics_rows()
    keys = {r["id"]: r["source"] for r in rows}
    assert keys["mlperf-v4.0-h100x8-llama2-70b-lora"] == "MLPerf Training v4.0 NVIDIA"
    assert keys["mlperf-v5.1-krai-mi300x8-llama2-70b-lora"] == "MLPerf Training v5.1 Krai"
    assert keys["mlperf-v5.1-mi300x8-llama2-70b-lora"] == "MLPerf Training v5.1 AMD"
    assert keys["tt2409-llama3.1-70b-lora-a100x8"] == "pytorch/torchtune @ 30b8519"
    assert keys["tt2405-llama2-70b-lora-a100x8"] == "pytorch/torchtune @ 0217d44"
    assert len(rows) == 41 and len(set(keys.values())) == 15
    assert {r["split"] for r in rows} <= set(FCL.FIT_SPLITS)


def test_weighted_median_weighs_sources_not_rows():
    assert FCL.weighted_median([1.0, 2.0, 3.0], [1, 1, 1]) == 2.0
    assert FCL.weighted_median([1.0, 2.0, 3.0, 4.0], [1, 1, 1, 1]) == 2.5  # exactly half: mean
    # three rows of one source (1/3 each) against one row of another: one source each side
    assert FCL.weighted_median([0.0, 0.0, 0.0, 1.0], [1 / 3] * 3 + [1]) == 0.5


def test_the_fit_reproduces_the_committed_constants_from_the_rows():
    assert FCL.fit(FCL.physics_rows()) == FC.FITTED_EFFICIENCY
    assert FCL.leave_one_source_out()["fit_all"] == FC.FITTED_EFFICIENCY


def test_the_adoption_rule_figures_and_verdict():
    r = FCL.leave_one_source_out()
    assert r["sources"] == 15
    b, a = r["before"], r["after"]
    assert b["all"]["median_abs_error"] == pytest.approx(0.104, abs=5e-4)
    assert a["all"]["median_abs_error"] == pytest.approx(0.113, abs=5e-4)
    assert a["all"]["signed_median_error"] == pytest.approx(-0.040, abs=5e-4)
    assert r["gain"] == pytest.approx(-0.009, abs=5e-4)
    # the fsdp class gains, the megatron class loses more than that buys over all rows
    assert b["class fsdp"]["median_abs_error"] == pytest.approx(0.125, abs=5e-4)
    assert a["class fsdp"]["median_abs_error"] == pytest.approx(0.095, abs=5e-4)
    assert a["class megatron"]["median_abs_error"] == pytest.approx(0.113, abs=5e-4)
    assert r["adopted"] is False and FC.ADOPTED is r["adopted"]


def test_the_rule_adopts_only_on_a_two_point_gain_within_five_percent_signed():
    r = FCL.leave_one_source_out()
    assert r["adopted"] == (
        r["gain"] >= FCL.MIN_GAIN and abs(r["after"]["all"]["signed_median_error"]) <= 0.05
    )
    assert (FCL.MIN_GAIN, FCL.MAX_SIGNED) == (0.02, 0.05)


def test_not_adopted_the_model_charges_no_framework_factor():
    # the fitted η lives in framework_class.py and nowhere in the model's code reads it
    root = pathlib.Path(FC.__file__).parents[1]
    readers = [
        p.relative_to(root).as_posix()
        for p in root.rglob("*.py")
        if "FITTED_EFFICIENCY" in p.read_text() and p.name != "framework_class.py"
    ]
    assert readers == []


def test_validate_prints_the_leave_one_source_out_block():
    lines = FCL.report_lines()
    assert lines[0].startswith("amendment 4") and "fsdp 0.93, megatron 0.99" in lines[0]
    assert lines[1].startswith("NOT ADOPTED") and "-0.9 points" in lines[1]
    assert any(x.startswith("class fsdp") and "12.5%" in x and "9.5%" in x for x in lines)

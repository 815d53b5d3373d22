"""The held-out whole-run evidence (issue 16): every row of
models/data/validation/whole_runs_heldout.csv parses, names a known preset, GPU and stack class, has a
source, agrees with its own derivation, does not repeat runs.csv, and keeps the file's order.
Nothing here runs the model on these rows: they are entered before anyone looks at their errors."""

from __future__ import annotations

import pathlib

import pytest

from models.hardware import load_gpus
from models.shapes import load_presets
from tests.builders import csv_rows

ROOT = pathlib.Path(__file__).resolve().parents[1]
DATA = ROOT / "models" / "data" / "validation"
HELDOUT = DATA / "whole_runs_heldout.csv"
SKIPPED = DATA / "skipped_heldout.csv"
STACKS = DATA / "stack_classes.csv"
RUNS = DATA / "runs.csv"
STACK_DOC = ROOT / "docs" / "reference" / "software-stacks.md"

BASES = ("reported", "gpus_x_days", "per_tokens")
PRECISIONS = ("bf16", "fp16", "fp8")
#: GPUs a source names that the catalogue lacks, mapped to a catalogue GPU with its scale-up bandwidth
#: per direction (GB/s): H800 = H100 compute and HBM with NVLink cut to 400 GB/s bidirectional.
MAPPED_GPUS = {"H800": ("H100-SXM", 200.0)}


@pytest.fixture(scope="module")
def rows() -> list[dict]:
    return csv_rows(HELDOUT)


def test_every_row_parses_with_positive_inputs(rows):
    assert len(rows) >= 25
    for r in rows:
        assert None not in r and all(v is not None for v in r.values()), r["id"]
        assert float(r["tokens"]) > 0 and float(r["published_gpu_hours"]) > 0, r["id"]
        assert int(r["seq_len"]) > 0, r["id"]
        total, active = float(r["params_total_b"]), float(r["params_active_b"])
        assert 0 < active <= total, r["id"]
        assert r["precision"] in PRECISIONS, r["id"]
        assert r["basis"] in BASES, r["id"]
        assert 2020 <= int(r["year"]) <= 2025, r["id"]
        if r["global_batch_seqs"]:
            assert int(r["global_batch_seqs"]) > 0, r["id"]
        # a GPU count is given exactly when the source publishes one
        assert r["gpu_count_published"] in ("0", "1"), r["id"]
        assert bool(r["gpus"]) == (r["gpu_count_published"] == "1"), r["id"]
        if r["gpus"]:
            assert int(r["gpus"]) > 0, r["id"]


def test_every_row_names_a_known_preset_gpu_and_stack_with_a_source(rows):
    presets, gpus = load_presets(), load_gpus()
    classes = {s["stack_class"] for s in csv_rows(STACKS)}
    for r in rows:
        assert r["model"] in presets, r["id"]
        assert r["gpu"] in gpus, r["id"]
        assert r["stack_class"] in classes, r["id"]
        assert r["source"].strip() and r["stack"].strip() and r["gpu_as_published"].strip(), r["id"]


def test_published_sizes_agree_with_the_preset(rows):
    """The row's parameter counts are the preset's published ones (within 2 %: rounding in the source)."""
    presets = load_presets()
    for r in rows:
        shape = presets[r["model"]]
        assert float(r["params_total_b"]) == pytest.approx(shape.published_params_b, rel=0.02), r[
            "id"
        ]
        active = shape.published_active_params_b or shape.published_params_b
        assert float(r["params_active_b"]) == pytest.approx(active, rel=0.02), r["id"]


def test_derived_gpu_hours_follow_from_count_and_days(rows):
    """`gpus_x_days` rows: GPU-hours = GPUs x days x 24, the days and count in the row; other bases
    carry no days."""
    for r in rows:
        if r["basis"] == "gpus_x_days":
            assert r["gpus"] and float(r["wall_days"]) > 0, r["id"]
            want = int(r["gpus"]) * float(r["wall_days"]) * 24
            assert float(r["published_gpu_hours"]) == pytest.approx(want, rel=1e-6), r["id"]
        else:
            assert not r["wall_days"], r["id"]


def test_gpus_missing_from_the_catalogue_are_mapped_with_their_fabric(rows):
    """A GPU the catalogue lacks is mapped with the scale-up bandwidth that differs; a catalogue GPU
    keeps its own (the column stays empty)."""
    for r in rows:
        if r["gpu_as_published"] in MAPPED_GPUS:
            gpu, scaleup = MAPPED_GPUS[r["gpu_as_published"]]
            assert r["gpu"] == gpu and float(r["scaleup_gbyte_per_s_per_gpu"]) == scaleup, r["id"]
        else:
            assert not r["scaleup_gbyte_per_s_per_gpu"], r["id"]


def test_no_run_repeats_a_runs_csv_row(rows):
    scored = [r for r in csv_rows(RUNS) if r["kind"] == "gpu_hours"]
    ids = {r["id"] for r in csv_rows(RUNS)}
    assert len({r["id"] for r in rows}) == len(rows)
    for r in rows:
        assert r["id"].startswith("ho-") and r["id"] not in ids, r["id"]
        for s in scored:
            same_run = s["model"] == r["model"] and float(s["tokens"]) == float(r["tokens"])
            assert not same_run, (r["id"], s["id"])
            assert float(s["published"]) != float(r["published_gpu_hours"]), (r["id"], s["id"])


def test_rows_are_grouped_by_gpu_in_catalogue_order_then_by_year(rows):
    order = list(load_gpus())
    keys = [(order.index(r["gpu"]), int(r["year"])) for r in rows]
    assert keys == sorted(keys)


def test_every_stack_class_is_defined_in_the_reference_page():
    text = STACK_DOC.read_text()
    for s in csv_rows(STACKS):
        assert f"`{s['stack_class']}`" in text, s["stack_class"]
        assert s["name"].strip() and s["what_it_covers"].strip()


def test_skipped_runs_say_why():
    for s in csv_rows(SKIPPED):
        assert s["run"].strip() and s["source"].strip() and s["reason"].strip()


#: Scale-out per GPU of the instances a source names, Gb/s: AWS p4d.24xlarge has 400 Gb/s EFA for 8
#: A100s (AWS EC2 P4 specifications).
NAMED_INSTANCE_SCALEOUT = {"p4d": 50.0}


def test_rows_on_a_named_instance_carry_its_fabric(rows):
    """A row whose source names the cloud instance gets that instance's scale-out per GPU, not the
    catalogue GPU's default (BloombergGPT and Falcon 180B ran on p4d)."""
    for r in rows:
        for instance, gbit in NAMED_INSTANCE_SCALEOUT.items():
            if instance in r["gpu_as_published"].lower():
                assert float(r["scaleout_gbit_per_s_per_gpu"]) == gbit, r["id"]


def test_every_row_states_what_its_gpu_hours_cover(rows):
    """`scope`: the pre-training run only, all training of the model (not split by the source), or
    not split; the notes quote the source's wording for every row that is not plain pre-training."""
    from models.validation.training import HELDOUT_SCOPES

    for r in rows:
        assert r["scope"] in HELDOUT_SCOPES, r["id"]
        if r["scope"] != "pre-training":
            assert "scope" in r["notes"], r["id"]


def test_source_layouts_split_the_published_batch(rows):
    """Where a row carries its source's layout (tp, pp, micro_batch, grad_accum from the config
    file), data-parallel ranks x micro-batch x accumulation is the published global batch, and the
    config file is named."""
    given = [r for r in rows if r.get("tp")]
    assert given
    for r in given:
        assert r["config_source"], r["id"]
        if not (r["gpus"] and r["micro_batch"]):  # DeepSeek: GPU count or micro-batch not published
            assert int(r["pp"]) >= 1 and int(r["ep"] or 1) >= 1, r["id"]
            continue
        dp = int(r["gpus"]) // (int(r["tp"]) * int(r["pp"]))
        assert dp * int(r["tp"]) * int(r["pp"]) == int(r["gpus"]), r["id"]
        assert dp * int(r["micro_batch"]) * int(r["grad_accum"]) == int(r["global_batch_seqs"]), r[
            "id"
        ]
        assert r["recompute"] in ("none", "selective", "full"), r["id"]
        assert r["attention"] in ("flash2", "flash1", "none"), r["id"]
        assert r["config_source"], r["id"]

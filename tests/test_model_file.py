"""A model of one's own as a file (models/model_file.py; issue 29, item 4): the fields of a preset
row as JSON, taken by `train`, `serve` and `finetune` as a preset is, and refused, naming the
field, when a file is too large, not JSON, or asks for sizes past its bounds."""

from __future__ import annotations

import json

import pytest

from models.errors import InputError
from models.model_file import LIMITS, MAX_FILE_BYTES, read_model_file, register
from models.serving.plan import ServeInputs, plan_serving
from models.shapes import forget_own_model, get_preset
from tests.builders import run_cli


@pytest.fixture
def model_file(tmp_path):
    """A file of Llama 3 70B's own fields under another id; the ids registered are forgotten."""
    fields = get_preset("llama3-70b").model_dump() | {"model_id": "my-70b", "name": "Mine"}
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(fields))
    yield path, fields
    forget_own_model("my-70b")


def test_a_model_file_sizes_as_the_preset_of_the_same_shape(model_file):
    path, _ = model_file
    rc, out, _ = run_cli(
        "serve", "--model", str(path), "--gpu", "H100-SXM", "--input-tokens", "2048",
        "--output-tokens", "256", "--rps", "10", "--json",
    )  # fmt: skip
    assert rc == 0
    mine = json.loads(out)
    preset = plan_serving(
        ServeInputs(model="llama3-70b", gpu="H100-SXM", input_tokens=2048, output_tokens=256,
                    rps=10)
    ).model_dump(mode="json")  # fmt: skip
    assert mine["model"] == "my-70b"
    for field in ("gpus", "tp", "batch", "tpot_ms", "ttft_ms", "kv_bytes_per_token"):
        assert mine[field] == preset[field], field
    for command in (
        ["train", "--tokens", "1e11", "--gpu", "H100-SXM", "--gpus", "64"],
        ["finetune", "--method", "lora", "--tokens", "1e7", "--gpu", "H100-SXM"],
    ):
        rc, out, err = run_cli(command[0], "--model", str(path), *command[1:])
        assert rc == 0, err
        assert "Mine" in out or "my-70b" in out


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"layers": LIMITS["layers"] + 1}, "layers"),
        ({"vocab": 10**12}, "vocab"),
        ({"experts": 8, "experts_per_token": 9}, "experts_per_token"),
        ({"kv_heads": 7}, "kv_heads"),
        ({"hidden": -1}, "hidden"),
        ({"model_id": "Bad ID!"}, "model_id"),
        ({"evil": 1}, "evil"),
        # the twelfth amendment's fields (docs/reference/serving-evidence.md)
        ({"full_attention_layers": 81}, "full_attention_layers"),
        ({"linear_state_bytes_per_layer": 10**10}, "linear_state_bytes_per_layer"),
        ({"sparse_attention_tokens": -1}, "sparse_attention_tokens"),
    ],
)
def test_a_file_asking_for_what_it_may_not_is_refused_naming_the_field(tmp_path, change, field):
    fields = get_preset("llama3-70b").model_dump() | {"model_id": "x"} | change
    path = tmp_path / "m.json"
    path.write_text(json.dumps(fields))
    with pytest.raises(InputError) as exc:
        read_model_file(path)
    assert exc.value.field == f"model.{field}"
    rc, _, err = run_cli("serve", "--model", str(path), "--gpu", "H100-SXM",
                      "--input-tokens", "10", "--output-tokens", "10")  # fmt: skip
    assert rc == 2 and "--model" in err and field in err and "Traceback" not in err


def test_a_file_too_large_or_not_json_is_refused(tmp_path):
    big = tmp_path / "big.json"
    big.write_text(" " * (MAX_FILE_BYTES + 1))
    with pytest.raises(InputError, match="over the"):
        read_model_file(big)
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(InputError, match="not JSON"):
        read_model_file(bad)
    with pytest.raises(InputError, match="No such file"):
        read_model_file(tmp_path / "missing.json")


def test_a_file_cannot_take_over_a_presets_id(tmp_path):
    fields = get_preset("llama3-8b").model_dump() | {"layers": 99}
    path = tmp_path / "m.json"
    path.write_text(json.dumps(fields))
    with pytest.raises(InputError, match="a preset's"):
        register(read_model_file(path))
    assert get_preset("llama3-8b").layers == 32

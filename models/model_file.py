"""A model given as a file rather than a preset (issue 29, item 4): a JSON object with the fields
of `models/data/model_presets.csv` (dense, grouped-query attention, MoE with shared experts and
leading dense layers, an attention head width of its own, MLA's latent K/V cache), checked as a
preset row is and bounded, since a file is untrusted: at most MAX_FILE_BYTES, every size within
LIMITS, nothing but those fields. Once read it is registered for the process under its own
`model_id`, so every sizing (`train`, `serve`, `finetune`) takes it by that id as it takes a
preset's."""

from __future__ import annotations

import json
import pathlib
import re

from pydantic import ValidationError

from models.errors import InputError
from models.shapes import ModelShape, load_presets

MAX_FILE_BYTES = 64 * 1024
#: the largest value each size may take (well above today's largest open models: DeepSeek-V3's
#: 61 layers and 256 experts, Llama 3.1 405B's 16,384 hidden, Qwen's 151,936 vocabulary)
LIMITS = {
    "layers": 1_000,
    "hidden": 131_072,
    "heads": 1_024,
    "kv_heads": 1_024,
    "ffn_hidden": 1_048_576,
    "vocab": 4_000_000,
    "experts": 4_096,
    "experts_per_token": 256,
    "shared_experts": 64,
    "dense_layers": 1_000,
    "dense_ffn_hidden": 1_048_576,
    "attn_head_dim": 4_096,
    "kv_cache_dim": 65_536,
    "routing_limit": 4_096,
}
MODEL_ID = re.compile(r"[a-z0-9][a-z0-9._-]{0,59}")


def read_model_file(path: str | pathlib.Path) -> ModelShape:
    """The model the file describes, checked (module docstring); InputError naming the field."""
    p = pathlib.Path(path)
    try:
        size = p.stat().st_size
    except OSError as exc:
        raise InputError("model", f"{path}: {exc.strerror}") from None
    if size > MAX_FILE_BYTES:
        raise InputError("model", f"{path}: {size:,} bytes, over the {MAX_FILE_BYTES:,} allowed")
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError("model", f"{path}: not JSON ({exc})") from None
    if not isinstance(data, dict):
        raise InputError("model", f"{path}: a JSON object of model_presets.csv's fields is needed")
    unknown = sorted(set(data) - set(ModelShape.model_fields))
    if unknown:
        raise InputError(f"model.{unknown[0]}", f"{path}: {unknown[0]}: not a model field")
    try:
        shape = ModelShape.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(x) for x in err["loc"])
        raise InputError(f"model.{where}", f"{path}: {where}: {err['msg']}") from None
    _check(shape, str(path))
    return shape


def _check(shape: ModelShape, path: str) -> None:
    if not MODEL_ID.fullmatch(shape.model_id):
        raise InputError(
            "model.model_id",
            f"{path}: model_id: {shape.model_id[:60]!r} is not lower-case letters, digits, '.', "
            "'_' and '-', at most 60",
        )
    for field, limit in LIMITS.items():
        if getattr(shape, field) > limit:
            raise InputError(
                f"model.{field}", f"{path}: {field}: {getattr(shape, field):,} is over {limit:,}"
            )
    if shape.experts_per_token > shape.experts:
        raise InputError(
            "model.experts_per_token",
            f"{path}: experts_per_token: {shape.experts_per_token} is more than the "
            f"{shape.experts} experts",
        )
    if shape.kv_heads > shape.heads or shape.heads % shape.kv_heads:
        raise InputError(
            "model.kv_heads",
            f"{path}: kv_heads: {shape.kv_heads} does not divide the {shape.heads} attention heads",
        )
    if shape.dense_layers > shape.layers:
        raise InputError(
            "model.dense_layers", f"{path}: dense_layers: more than the {shape.layers} layers"
        )


def register(shape: ModelShape) -> str:
    """Makes `shape` a model every sizing of this process takes by its id; a preset's id is not
    taken over (a file cannot change what `llama3-70b` means). Returns the id."""
    presets = load_presets()
    known = presets.get(shape.model_id)
    if known is not None and known != shape:
        raise InputError(
            "model.model_id",
            f"model_id: {shape.model_id!r} is a preset's; give the file's model another id",
        )
    presets[shape.model_id] = shape
    return shape.model_id

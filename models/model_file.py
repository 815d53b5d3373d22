"""A model given as a file rather than a preset (issue 29, item 4): a JSON object with the fields
of `models/data/model_presets.csv` (dense, grouped-query attention, MoE with shared experts and
leading dense layers, an attention head width of its own, MLA's latent K/V cache), checked as a
preset row is and bounded, since a file is untrusted: at most MAX_FILE_BYTES, every size within
LIMITS, a name and a source of at most NAME_CHARS and SOURCE_CHARS printable characters, nothing
but those fields. The same checks read a file (`read_model_file`, the command line), the portal's
upload or pasted text (`model_from_json`), a share link's fields (`model_from_fields`) and a
scenario's `own_models` (`scenario_models`: at most MAX_SCENARIO_MODELS, registered as the
portal registers them, so a portfolio's workloads can name them on any machine). A model whose
sizes multiply past MAX_PARAMS parameters is refused too.

Two registrations, both kept apart from the presets (models/shapes.py holds them; a preset's id
is never taken over, so `llama3-70b` always means the published shape):

- `register` (the command line, one process per run): under the file's own `model_id`, so the
  outputs name the model as the file does;
- `register_own` (the portal, one server process for every session): under `content_id`, the
  file's `model_id` and a short hash of all its fields, so the same content always gets the same
  id (registering again changes nothing) and different content never shares one; sessions do not
  see each other's models unless they hold the same content. models/shapes.py keeps at most
  MAX_OWN_MODELS, the least recently used dropped first; a session registers its own again on
  every run (app/own_models.py).
"""

from __future__ import annotations

import hashlib
import json
import pathlib
import re

from pydantic import ValidationError

from models.errors import InputError
from models.shapes import ModelShape, add_own_model, load_presets, own_model

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
    "attention_params_per_layer": 10_000_000_000,
    "full_attention_layers": 1_000,
    "linear_state_bytes_per_layer": 1_000_000_000,
    "sparse_attention_tokens": 10_000_000,
    "indexer_heads": 1_024,
    "indexer_dim": 65_536,
}
#: the most parameters a model file may describe: a version-1 workload's own cap on `params`
#: (models/scenario.py Workload, 1e14), so sizes each within LIMITS cannot multiply into a model
#: no planner input could name (1,000 layers of 4,096 experts of 1,048,576-wide FFNs)
MAX_PARAMS = 1e14
#: the most models of one's own a scenario carries in `own_models` (a session keeps 8,
#: app/own_models.py MAX_SESSION_MODELS)
MAX_SCENARIO_MODELS = 8
#: longest name and source (the presets' longest are 30 and about 410 characters)
NAME_CHARS = 100
SOURCE_CHARS = 1_000
MODEL_ID = re.compile(r"[a-z0-9][a-z0-9._-]{0,59}")
#: hex digits of the content hash in a portal id (`model_id@` and these)
HASH_CHARS = 12


def read_model_file(path: str | pathlib.Path) -> ModelShape:
    """The model the file describes, checked (module docstring); InputError naming the field."""
    p = pathlib.Path(path)
    try:
        size = p.stat().st_size
    except OSError as exc:
        raise InputError("model", f"{path}: {exc.strerror}") from None
    if size > MAX_FILE_BYTES:
        raise InputError("model", f"{path}: {size:,} bytes, over the {MAX_FILE_BYTES:,} allowed")
    return model_from_json(p.read_bytes(), str(path))


def _say(where: str, text: str) -> str:
    return f"{where}: {text}" if where else text


def _refuse_constant(name: str):
    raise ValueError(f"{name} is not a number")


def model_from_json(raw: bytes | str, where: str = "") -> ModelShape:
    """The model a JSON text describes (an upload, a pasted text, a file's bytes), checked;
    InputError naming the field, its message starting with `where` when given."""
    data = raw.encode("utf-8") if isinstance(raw, str) else raw
    if len(data) > MAX_FILE_BYTES:
        raise InputError(
            "model", _say(where, f"{len(data):,} bytes, over the {MAX_FILE_BYTES:,} allowed")
        )
    try:
        fields = json.loads(data.decode("utf-8"), parse_constant=_refuse_constant)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        # ValueError: not JSON, NaN or Infinity, an integer of too many digits
        raise InputError("model", _say(where, f"not JSON ({exc})"[:200])) from None
    return model_from_fields(fields, where)


def model_from_fields(data: object, where: str = "") -> ModelShape:
    """The model a dict of model_presets.csv's fields describes, checked (module docstring)."""
    if not isinstance(data, dict):
        raise InputError(
            "model", _say(where, "a JSON object of model_presets.csv's fields is needed")
        )
    unknown = sorted(set(data) - set(ModelShape.model_fields), key=str)
    if unknown:
        name = str(unknown[0])[:60]
        raise InputError(f"model.{name}", _say(where, f"{name}: not a model field"))
    try:
        shape = ModelShape.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        field = ".".join(str(x) for x in err["loc"])
        msg = err["msg"] + (f" (allowed {allowed(field)})" if field in LIMITS else "")
        raise InputError(f"model.{field}", _say(where, f"{field}: {msg}")) from None
    _check(shape, where)
    return shape


def allowed(field: str) -> str:
    """A bounded size's range as a message gives it: '1 to 1,000'."""
    low = next((m.ge for m in ModelShape.model_fields[field].metadata if hasattr(m, "ge")), 0)
    return f"{low:,} to {LIMITS[field]:,}"


def _check(shape: ModelShape, where: str) -> None:
    if not MODEL_ID.fullmatch(shape.model_id):
        raise InputError(
            "model.model_id",
            _say(
                where,
                f"model_id: {shape.model_id[:60]!r} is not lower-case letters, digits, '.', "
                "'_' and '-', at most 60",
            ),
        )
    for field, most in (("name", NAME_CHARS), ("source", SOURCE_CHARS)):
        text = getattr(shape, field)
        if len(text) > most or not text.isprintable() or (field == "name" and not text.strip()):
            raise InputError(
                f"model.{field}",
                _say(where, f"{field}: 1 to {most:,} printable characters, on one line"),
            )
    for field, limit in LIMITS.items():
        if getattr(shape, field) > limit:
            raise InputError(
                f"model.{field}",
                _say(
                    where,
                    f"{field}: {getattr(shape, field):,} is over {limit:,} "
                    f"(allowed {allowed(field)})",
                ),
            )
    if shape.experts_per_token > shape.experts:
        raise InputError(
            "model.experts_per_token",
            _say(
                where,
                f"experts_per_token: {shape.experts_per_token} is more than the "
                f"{shape.experts} experts (allowed 1 to experts)",
            ),
        )
    if shape.kv_heads > shape.heads or shape.heads % shape.kv_heads:
        raise InputError(
            "model.kv_heads",
            _say(
                where,
                f"kv_heads: {shape.kv_heads} does not divide the {shape.heads} attention heads",
            ),
        )
    for field in ("dense_layers", "full_attention_layers"):
        if getattr(shape, field) > shape.layers:
            raise InputError(
                f"model.{field}",
                _say(where, f"{field}: more than the {shape.layers} layers (allowed 0 to layers)"),
            )
    if shape.params_total > MAX_PARAMS:
        raise InputError(
            "model",
            _say(
                where,
                f"layers, hidden, ffn_hidden, experts and vocab give {shape.params_total:.3g} "
                f"parameters (allowed at most {MAX_PARAMS:g})",
            ),
        )


def _refuse_preset_id(shape: ModelShape) -> str | None:
    """The preset's id when `shape` is that preset exactly; InputError when it takes a preset's id
    with other fields; None when its id is no preset's."""
    known = load_presets().get(shape.model_id)
    if known is None:
        return None
    if known != shape:
        raise InputError(
            "model.model_id",
            f"model_id: {shape.model_id!r} is a preset's; give your model another id",
        )
    return shape.model_id


def register(shape: ModelShape) -> str:
    """Makes `shape` a model every sizing of this process takes by its own id (the command line:
    one run, one process). A preset's id is not taken over (a file cannot change what
    `llama3-70b` means), nor an id this process already holds for other fields. Returns the id."""
    if (preset := _refuse_preset_id(shape)) is not None:
        return preset
    known = own_model(shape.model_id)
    if known is not None and known != shape:
        raise InputError(
            "model.model_id",
            f"model_id: {shape.model_id!r} is another model's in this run; give this one another id",
        )
    add_own_model(shape.model_id, shape)
    return shape.model_id


def canonical_json(shape: ModelShape) -> str:
    """Every field of the model, keys sorted, no spaces: what `content_id` hashes."""
    return json.dumps(shape.model_dump(mode="json"), sort_keys=True, separators=(",", ":"))


def content_id(shape: ModelShape) -> str:
    """`model_id@` and the first HASH_CHARS hex digits of the SHA-256 of its canonical JSON. The
    '@' is not a character a model_id may hold, so no file's id, nor a preset's, is ever one."""
    digest = hashlib.sha256(canonical_json(shape).encode("utf-8")).hexdigest()
    return f"{shape.model_id}@{digest[:HASH_CHARS]}"


def register_own(shape: ModelShape) -> str:
    """Registers `shape` for a shared server (the portal): under `content_id` (module docstring);
    a preset's exact fields under the preset's id; a preset's id with other fields refused.
    Registering the same content again only marks it recently used. Returns the id."""
    if (preset := _refuse_preset_id(shape)) is not None:
        return preset
    model_id = content_id(shape)
    known = own_model(model_id)
    if known is not None and known != shape:  # two contents of one hash: refused, never swapped
        raise InputError("model.model_id", f"model_id: {model_id!r} is another model's")
    add_own_model(model_id, shape)
    return model_id


def is_content_id(model_id: object) -> bool:
    """Whether `model_id` has the form `content_id` gives (a model of one's own in the portal)."""
    if not isinstance(model_id, str):
        return False
    base, at, digest = model_id.partition("@")
    return (
        bool(at)
        and MODEL_ID.fullmatch(base) is not None
        and re.fullmatch(f"[0-9a-f]{{{HASH_CHARS}}}", digest) is not None
    )


def scenario_models(entries: object, field: str = "own_models") -> dict[str, str]:
    """A scenario's models of one's own (its `own_models`: at most MAX_SCENARIO_MODELS, each
    checked as a model file is), each registered under its content id (`register_own`), so the
    workloads that name one validate and size on any machine. Returns the id each is known by
    in the scenario (its own `model_id`, and its content id) -> the id it is registered under.
    InputError naming `own_models[i].field`: a bad model, or one `model_id` given two shapes."""
    if not isinstance(entries, list):
        raise InputError(field, f"{field}: a list of model files' fields is needed")
    if len(entries) > MAX_SCENARIO_MODELS:
        raise InputError(
            field,
            f"{field}: {len(entries)} models, over the {MAX_SCENARIO_MODELS} a scenario may "
            f"carry (allowed 0 to {MAX_SCENARIO_MODELS})",
        )
    ids: dict[str, str] = {}
    for i, entry in enumerate(entries):
        where = f"{field}[{i}]"
        try:
            shape = model_from_fields(entry)
            registered = register_own(shape)
        except InputError as exc:  # "model.layers", "layers: ..." -> "own_models[0].layers", "..."
            sub = exc.field.removeprefix("model").removeprefix(".")
            text = str(exc).removeprefix(f"{sub}: ") if sub else str(exc)
            raise InputError(where + exc.field.removeprefix("model"), text) from None
        if ids.get(shape.model_id, registered) != registered:
            raise InputError(
                f"{where}.model_id",
                f"{where}.model_id: {shape.model_id!r} is given to two different models; "
                "give each its own id",
            )
        ids[shape.model_id] = ids[registered] = registered
    return ids

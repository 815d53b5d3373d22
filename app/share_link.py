"""Share links: the whole scenario in one query parameter `s`.

Format: compact JSON (with the schema `version` inside) -> zlib (level 9) -> base64url without
`=` padding. A link is untrusted input, so decoding is bounded at every step: the token's length
before anything else, the decompressed size while inflating, JSON constants and nesting depth while
parsing, then the version (older ones are migrated) and the pydantic schema.

Two schema versions are read and written as they are (`VERSIONS`): 1, one training workload, and
2, a portfolio of `workloads` (at most 200; models/scenario.py MAX_WORKLOADS), each written with its `kind` and
only the fields that differ from that kind's defaults, so a ten-workload portfolio with every
field set is about 1,000 characters. A version-1 link is not migrated: it opens, and is written,
as before, byte for byte. Every problem becomes
a `LinkError` whose message is one short sentence for the user; the token itself is never echoed.

Optional sections beside the scenario's fields carry the Serve and Fine-tune pages' inputs:
`"serve": {"version": 2, ...ServeInputs}` and `"finetune": {"version": 1, ...FinetuneInputs}`, the
models of one's own they and the scenario name, `"models": {"version": 1, "models": [{fields of
model_presets.csv}, ...]}` (at most MAX_LINK_MODELS, each checked as a model file is,
models/model_file.py, then registered under its content id before anything that names it is
validated; `encode_data` adds it for every registered model of one's own the data names as a
`model` that the scenario's own `own_models` (models/scenario.py) does not already carry, so a
link carries a model's fields once, never only its id), and
the Side by side page's saved scenarios, `"side_by_side": {"version": 1, "scenarios": [{"name",
"scenario"}, ...], "picked": [names]}` (models/scenario_set.py ScenarioSet: at most 6 scenarios,
each validated by the scenario schema, at most SECTION_JSON_BYTES of JSON), each
with its own version (SECTION_MIGRATIONS upgrade older ones) and at most MAX_SECTION_JSON_BYTES of
JSON, inside the same token and its caps. A link without them reads exactly as before. A section
that fails its checks is left out with a message naming it and its field (`decode_link`); the
scenario and the other section still open. A bad scenario refuses the whole link, as before.

No Streamlit or plotly here: the CLI imports this module.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import json
import math
import re
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlsplit, urlunsplit

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from app.field_problems import named_problems
from app.settings import LOCAL_BASE_URL
from models.errors import InputError
from models.finetune.plan import FinetuneInputs
from models.model_file import content_id, is_content_id, model_from_fields, register_own
from models.scenario import (
    PORTFOLIO_VERSION,
    SCHEMA_VERSION,
    Scenario,
    Term,
    explain_validation_error,
)
from models.scenario_set import ScenarioSet
from models.serving.plan import ServeInputs
from models.shapes import own_model

#: longest encoded token accepted (checked before any decoding)
MAX_LINK_CHARS = 8192
#: largest JSON a link may inflate to (a scenario is a few hundred bytes)
MAX_JSON_BYTES = 65536
#: deepest JSON nesting accepted (a scenario nests three levels)
MAX_DEPTH = 16
#: longest field path or message quoted back to the user
MAX_QUOTE_CHARS = 160

DEFAULT_BASE_URL = (
    LOCAL_BASE_URL  # the local default; app/settings.py base_url() is the configured one
)

#: the schema versions a link holds and opens as they are: 1 (one workload), 2 (a portfolio)
VERSIONS: tuple[int, ...] = (SCHEMA_VERSION, PORTFOLIO_VERSION)
#: schema migrations: MIGRATIONS[v] turns a version-v scenario dict into a version-(v+1) one, for
#: versions older than any in VERSIONS. Empty: every version ever written is still read as it is.
MIGRATIONS: dict[int, Callable[[dict], dict]] = {}

#: most models of one's own a link carries (one for each page that takes one, and a spare)
MAX_LINK_MODELS = 4


class OwnModels(BaseModel):
    """A link's models of one's own: each the fields of model_presets.csv, checked as a model file
    (models/model_file.py model_from_fields) once this record validates."""

    model_config = ConfigDict(extra="forbid")

    models: list[dict] = Field(min_length=1, max_length=MAX_LINK_MODELS)


#: the optional sections (top-level keys beside the scenario's) and the record each must validate as
SECTIONS: dict[str, type[BaseModel]] = {
    "serve": ServeInputs,
    "finetune": FinetuneInputs,
    "side_by_side": ScenarioSet,
    "models": OwnModels,
}
#: what each section is called in a message
SECTION_NAMES = {
    "serve": "Serve inputs",
    "finetune": "Fine-tune inputs",
    "side_by_side": "saved scenarios (Side by side)",
    "models": "models of your own",
}
#: each section's schema version, apart from the scenario's
SECTION_VERSIONS = {"serve": 2, "finetune": 1, "side_by_side": 1, "models": 1}


def _serve_v1_precision(fields: dict) -> dict:
    """Serve version 1 to 2: version 1's precision defaulted to bf16, so a link left it out for
    bf16 (section_data drops defaults); version 2's default is the GPU's (fp8 where it has FP8,
    models/serving/precision.py), so the bf16 is written out."""
    if "precision" not in fields:
        fields["precision"] = "bf16"
    return fields


#: SECTION_MIGRATIONS[name][v] turns a version-v section into a version-(v+1) one
SECTION_MIGRATIONS: dict[str, dict[int, Callable[[dict], dict]]] = {
    "serve": {1: _serve_v1_precision},
    "finetune": {},
    "side_by_side": {},
    "models": {},
}
#: largest JSON one section may take (a Serve section is about 250 bytes)
MAX_SECTION_JSON_BYTES = 4096
#: sections allowed more: the saved scenarios hold up to models/scenario_set.py MAX_SAVED whole
#: scenarios (a scenario with 64 overrides is about 2.5 KB); the token's caps still hold
SECTION_JSON_BYTES = {"side_by_side": 24576, "models": 8192}

_TOKEN_RE = re.compile(r"[A-Za-z0-9_-]*")


class LinkError(ValueError):
    """A share link that cannot be read or written; the message is one short sentence for the user."""


class NotFinite(ValueError):
    """A JSON number that is NaN or infinite (Python's json reads NaN, Infinity and 1e999)."""


def _quote(text: str, limit: int = MAX_QUOTE_CHARS) -> str:
    """User-controlled text made safe for a one-line message: printable, and clipped."""
    clean = "".join(ch if ch.isprintable() else "?" for ch in text)
    return clean if len(clean) <= limit else clean[: limit - 1] + "…"


def _invalid(exc: ValidationError, data: dict) -> LinkError:
    """The first problem, named as the Workload page names it (app/field_problems.py: an
    expansion phase as `options.build_expansions[i].field` with its range in the link's term)."""
    term = data.get("term")
    months = term.get("months") if isinstance(term, dict) else Term().months
    problems = named_problems(explain_validation_error(exc), months)
    field, msg = problems[0]
    more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
    return LinkError(f"the link's scenario is invalid: {_quote(field, 80)}: {_quote(msg)}{more}")


def _validate(data: dict) -> Scenario:
    try:
        return Scenario.model_validate(data)
    except ValidationError as exc:
        raise _invalid(exc, data) from None
    except (TypeError, ValueError, RecursionError):
        raise LinkError("the link's scenario is invalid") from None


def _split(data: dict) -> tuple[dict, dict]:
    """(the scenario's own keys, the optional sections present)."""
    return (
        {k: v for k, v in data.items() if k not in SECTIONS},
        {k: v for k, v in data.items() if k in SECTIONS},
    )


def _section_problem(name: str, problem: str) -> LinkError:
    return LinkError(f"the link's {SECTION_NAMES[name]} were not opened: {problem}")


def _check_section(name: str, section: Any) -> dict:
    """The section's record fields (version dropped, migrated), once they validate; otherwise a
    LinkError naming the section and, for a bad value, its field."""
    if not isinstance(section, dict):
        raise _section_problem(name, "not a JSON object")
    try:
        size = len(json.dumps(section, separators=(",", ":"), ensure_ascii=False).encode("utf-8"))
    except (TypeError, ValueError, RecursionError):
        raise _section_problem(name, "not JSON") from None
    cap = SECTION_JSON_BYTES.get(name, MAX_SECTION_JSON_BYTES)
    if size > cap:
        raise _section_problem(name, f"too large ({size:,} bytes of JSON; at most {cap:,})")
    version = section.get("version")
    if type(version) is not int:
        raise _section_problem(name, "version: missing or not a whole number")
    current = SECTION_VERSIONS[name]
    if version > current:
        raise _section_problem(
            name, f"version: made by a newer planner; this one reads up to {current}"
        )
    fields = {k: v for k, v in section.items() if k != "version"}
    while version < current:
        step = SECTION_MIGRATIONS[name].get(version)
        if step is None:
            raise _section_problem(name, "version: too old for this planner to read")
        try:
            fields = step(dict(fields))
        except Exception:  # a migration meeting data it cannot handle: still the user's bad link
            raise _section_problem(name, f"version {version} could not be upgraded") from None
        version += 1
    try:
        SECTIONS[name].model_validate(fields)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(x) for x in err["loc"]) or "input"
        msg = err["msg"].removeprefix("Value error, ")
        more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
        raise _section_problem(name, f"{_quote(where, 80)}: {_quote(msg)}{more}") from None
    except (TypeError, ValueError, RecursionError):
        raise _section_problem(name, "invalid") from None
    return fields


def _open_models(sections: dict) -> dict | None:
    """The models section of a section dict, checked (its size and shape, then each model as a
    model file is, models/model_file.py), each model registered under its content id (models
    first, so the scenario and the pages' inputs that name them validate); None if the dict has
    none. A model that fails its checks, or takes a preset's id, refuses the section."""
    if "models" not in sections:
        return None
    fields = _check_section("models", sections["models"])
    for i, entry in enumerate(fields["models"]):
        try:
            register_own(model_from_fields(entry))
        except InputError as exc:
            raise _section_problem("models", f"model {i + 1}: {_quote(str(exc))}") from None
    return fields


def section_data(name: str, record: BaseModel | dict) -> dict:
    """A section as a link holds it: `version`, then the fields that differ from the defaults."""
    if isinstance(record, BaseModel):
        record = record.model_dump(mode="json", exclude_defaults=True)
    return {
        "version": SECTION_VERSIONS[name],
        **{k: v for k, v in record.items() if k != "version"},
    }


# ---------------------------------------------------------------------------------------- encode


def _named_models(data: dict) -> list[str]:
    """The content ids (models of one's own) `data` names as a `model` anywhere, in order."""
    found, stack = [], [data]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            model = item.get("model")
            if is_content_id(model) and model not in found:
                found.append(model)
            stack.extend(reversed(list(item.values())))
        elif isinstance(item, list):
            stack.extend(reversed(item))
    return found


def _carried(data: dict) -> set[str]:
    """The content ids of the models the scenario itself carries (its `own_models`,
    models/scenario.py), which need no copy in the `models` section."""
    out = set()
    for entry in data.get("own_models") or []:
        with contextlib.suppress(InputError):
            out.add(content_id(model_from_fields(entry)))
    return out


def _with_models(data: dict) -> dict:
    """`data` with a `models` section holding the fields of each registered model of one's own it
    names (a `models` section given is kept as given)."""
    if "models" in data:
        return data
    carried = _carried(data)
    shapes = [
        s for m in _named_models(data) if m not in carried and (s := own_model(m)) is not None
    ]
    if not shapes:
        return data
    entries = [s.model_dump(mode="json", exclude_defaults=True) for s in shapes]
    return {**data, "models": {"version": SECTION_VERSIONS["models"], "models": entries}}


def encode_data(data: dict) -> str:
    """A token for this scenario dict, keys kept as given (`version` added first if missing), with
    the fields of the models of one's own it names (`_with_models`)."""
    if not isinstance(data, dict):
        raise LinkError("a scenario must be a JSON object")
    if "version" not in data:
        data = {"version": SCHEMA_VERSION, **data}
    data = _with_models(data)
    version = data["version"]
    if type(version) is not int or version not in VERSIONS:
        raise LinkError(f"the scenario's version must be one of {', '.join(map(str, VERSIONS))}")
    scenario_part, sections = _split(data)
    _open_models(sections)
    _validate(scenario_part)
    for name, section in sections.items():
        if name != "models":
            _check_section(name, section)
    try:
        text = json.dumps(data, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
        raw = text.encode("utf-8")
    except (TypeError, ValueError, RecursionError):
        raise LinkError("the scenario cannot be written as JSON") from None
    if len(raw) > MAX_JSON_BYTES:
        raise LinkError(
            f"the scenario is too large for a link ({len(raw):,} bytes of JSON; "
            f"at most {MAX_JSON_BYTES:,})"
        )
    token = base64.urlsafe_b64encode(zlib.compress(raw, 9)).decode("ascii").rstrip("=")
    if len(token) > MAX_LINK_CHARS:
        raise LinkError(
            f"the scenario is too large for a link ({len(token):,} characters; "
            f"at most {MAX_LINK_CHARS:,})"
        )
    return token


def encode(scenario: Scenario, sections: dict[str, BaseModel | dict] | None = None) -> str:
    """A short token: only the values that differ from the defaults, plus `version` (a
    portfolio's workloads each keep their `kind`); with `sections` ({"serve": ServeInputs, ...}),
    those too (section_data)."""
    data = scenario.model_dump(mode="json", exclude_defaults=True)
    data.pop("version", None)
    extra = {name: section_data(name, rec) for name, rec in (sections or {}).items()}
    return encode_data({"version": scenario.version, **data, **extra})


# ---------------------------------------------------------------------------------------- decode


def _bytes_from_token(token: str) -> bytes:
    if not isinstance(token, str):
        raise LinkError("the link is damaged (not text)")
    if len(token) > MAX_LINK_CHARS:
        raise LinkError(
            f"the link is too long ({len(token):,} characters; at most {MAX_LINK_CHARS:,})"
        )
    token = token.strip().rstrip("=")
    if not token:
        raise LinkError("the link is empty (no scenario in it)")
    if not _TOKEN_RE.fullmatch(token):
        raise LinkError("the link is damaged (not base64)")
    try:
        return base64.b64decode(token + "=" * (-len(token) % 4), altchars=b"-_", validate=True)
    except (binascii.Error, ValueError):
        raise LinkError("the link is damaged (not base64)") from None


def _inflate(compressed: bytes) -> bytes:
    inflater = zlib.decompressobj()
    try:
        raw = inflater.decompress(compressed, MAX_JSON_BYTES + 1)
    except zlib.error:
        raise LinkError("the link is damaged (not a compressed scenario)") from None
    if len(raw) > MAX_JSON_BYTES or inflater.unconsumed_tail:
        raise LinkError(f"the link's scenario is too large (over {MAX_JSON_BYTES:,} bytes)")
    if not inflater.eof:
        raise LinkError("the link is damaged (cut short)")
    if inflater.unused_data:
        raise LinkError("the link is damaged (extra data after the scenario)")
    return raw


def _refuse_constant(name: str) -> Any:
    raise NotFinite(name)


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise NotFinite(text)
    return value


def loads_finite(text: str) -> Any:
    """json.loads that raises NotFinite on NaN, Infinity or a number too large for a float: links
    and scenario files alike."""
    return json.loads(text, parse_constant=_refuse_constant, parse_float=_finite_float)


def _depth(value: Any) -> int:
    """Nesting depth of parsed JSON, iteratively (no recursion on hostile input)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, level)
            if level > MAX_DEPTH:
                return level
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, level + 1) for child in children)
    return deepest


def _parse(raw: bytes) -> dict:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise LinkError("the link is damaged (not UTF-8 text)") from None
    try:
        data = loads_finite(text)
    except NotFinite:
        raise LinkError(
            "the link's scenario has a number that is not finite (NaN or infinity)"
        ) from None
    except RecursionError:
        raise LinkError("the link's scenario is nested too deeply") from None
    except ValueError:  # JSONDecodeError, or an integer too long to convert
        raise LinkError("the link is damaged (not valid JSON)") from None
    if not isinstance(data, dict):
        raise LinkError("the link's scenario is not a JSON object")
    if _depth(data) > MAX_DEPTH:
        raise LinkError("the link's scenario is nested too deeply")
    return data


def _migrate(data: dict) -> dict:
    if "version" not in data:
        raise LinkError("the link has no schema version")
    version = data["version"]
    if type(version) is not int:
        raise LinkError("the link's schema version is not a whole number")
    newest = max(VERSIONS)
    if version > newest:
        shown = f" (version {version})" if version < 10**6 else ""
        raise LinkError(
            f"the link was made by a newer version of the planner{shown}; "
            f"this one reads up to version {newest}"
        )
    while version not in VERSIONS:
        step = MIGRATIONS.get(version)
        if step is None:
            raise LinkError("the link's schema version is too old for this planner to read")
        try:
            data = step(dict(data))
        except LinkError:
            raise
        except Exception:  # a migration meeting data it cannot handle: still the user's bad link
            raise LinkError(
                f"the link's scenario (version {version}) could not be upgraded"
            ) from None
        version += 1
        data["version"] = version
    return data


@dataclass(frozen=True)
class Link:
    """What a token holds: the scenario dict (migrated, valid), the sections that passed their checks
    (name -> record fields, without `version`) and, per section refused, the sentence saying why."""

    scenario: dict
    sections: dict[str, dict] = field(default_factory=dict)
    problems: dict[str, str] = field(default_factory=dict)


def decode_link(token: str) -> Link:
    """The scenario and the optional sections of a token; a bad scenario raises LinkError, a bad
    section is only left out (Link.problems says why, naming its field)."""
    scenario_part, raw_sections = _split(_parse(_inflate(_bytes_from_token(token))))
    data = _migrate(scenario_part)
    sections, problems = {}, {}
    try:
        if (models := _open_models(raw_sections)) is not None:
            sections["models"] = models
    except LinkError as exc:
        problems["models"] = str(exc)
    try:
        _validate(data)
    except LinkError:
        if "models" in problems:  # the scenario names the model refused: say why that was
            raise LinkError(problems["models"]) from None
        raise
    for name, section in raw_sections.items():
        if name == "models":
            continue
        try:
            sections[name] = _check_section(name, section)
        except LinkError as exc:
            problems[name] = str(exc)
    return Link(data, sections, problems)


def decode_data(token: str) -> dict:
    """The scenario dict inside a token (migrated to the current version), once it validates;
    any sections are left out (decode_link reads them)."""
    return decode_link(token).scenario


def decode(token: str) -> Scenario:
    return _validate(decode_data(token))


# ------------------------------------------------------------------------------------------- URLs


def link_url(scenario_or_data: Scenario | dict, base_url: str = DEFAULT_BASE_URL) -> str:
    """`base_url` with `s=<token>` added to its query (any `s` already there is replaced)."""
    if isinstance(scenario_or_data, Scenario):
        token = encode(scenario_or_data)
    else:
        token = encode_data(scenario_or_data)
    parts = urlsplit(base_url)
    kept = [p for p in parts.query.split("&") if p and p != "s" and not p.startswith("s=")]
    query = "&".join([*kept, f"s={token}"])
    return urlunsplit(parts._replace(query=query))


def token_from_url(url_or_token: str) -> str:
    """The `s` parameter of a share URL; a bare token (no `?`, no scheme) comes back as it is."""
    if not isinstance(url_or_token, str):
        raise LinkError("the link is damaged (not text)")
    text = url_or_token.strip()
    if len(text) > MAX_LINK_CHARS + 4096:
        raise LinkError(
            f"the link is too long ({len(text):,} characters; at most {MAX_LINK_CHARS:,})"
        )
    if "?" not in text and "://" not in text:
        if text.startswith("s="):
            text = "?" + text
        else:
            return text
    try:
        query = parse_qs(urlsplit(text).query, keep_blank_values=True)
    except ValueError:
        raise LinkError("the link is not a valid URL") from None
    values = query.get("s")
    if not values:
        raise LinkError("the link has no scenario in it (no s= parameter)")
    return values[-1]  # as Streamlit's st.query_params does for a repeated key

"""Scenario files for the command line: read, validate, explain; and the example scenario."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from pydantic import ValidationError

from app.share_link import NotFinite, loads_finite
from models.scenario import Scenario, explain_validation_error

#: a scenario is a few hundred bytes; refuse anything that could not be one
MAX_SCENARIO_BYTES = 256 * 1024

#: the sample scenario (`clusterplan example`, the portal's first page): a data file
EXAMPLE = json.loads((Path(__file__).parent / "data" / "example_scenario.json").read_text())


class ScenarioInputError(ValueError):
    """A scenario that cannot be read; the message names the field or the place in the file."""


#: sample portfolios (scenario version 2) from the seed's users: data files
PORTFOLIOS = {
    name: Path(__file__).parent / "data" / f"portfolio_{name}.json"
    for name in ("enterprise", "university", "lab")
}


def example_json(portfolio: str | None = None) -> str:
    """The example scenario, or the sample portfolio `portfolio` (PORTFOLIOS), validated."""
    if portfolio is not None:
        data = json.loads(PORTFOLIOS[portfolio].read_text())
        return Scenario.model_validate(data).model_dump_json(indent=2, exclude_defaults=True)
    return Scenario.model_validate(EXAMPLE).model_dump_json(indent=2)


def read_scenario_data(path: str) -> dict:
    """The JSON object in a scenario file ('-': standard input), size-capped, not yet validated."""
    where = "standard input" if path == "-" else path
    try:
        if path == "-":
            stream = getattr(sys.stdin, "buffer", None)
            raw = (
                stream.read(MAX_SCENARIO_BYTES + 1)
                if stream
                else sys.stdin.read(MAX_SCENARIO_BYTES + 1).encode()
            )
        else:
            with open(path, "rb") as f:
                raw = f.read(MAX_SCENARIO_BYTES + 1)
    except OSError as exc:
        raise ScenarioInputError(
            f"cannot read {where}: {exc.__class__.__name__}: {exc.strerror or exc}"
        ) from None
    if len(raw) > MAX_SCENARIO_BYTES:
        raise ScenarioInputError(f"{where}: larger than {MAX_SCENARIO_BYTES // 1024} KiB")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ScenarioInputError(f"{where}: not UTF-8 text (byte {exc.start})") from None
    try:
        data = loads_finite(text)
    except NotFinite as exc:
        raise ScenarioInputError(
            f"{where}: a number in it is not finite ({str(exc)[:20]}): "
            "every value must be a real number"
        ) from None
    except json.JSONDecodeError as exc:
        raise ScenarioInputError(
            f"{where}: not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
        ) from None
    except RecursionError:
        raise ScenarioInputError(f"{where}: not a scenario: JSON nested too deeply") from None
    except ValueError:  # e.g. an integer longer than Python's 4,300-digit conversion limit
        raise ScenarioInputError(f"{where}: not a scenario: a number in it is too long") from None
    if not isinstance(data, dict):
        raise ScenarioInputError(f"{where}: not a scenario: the JSON must be an object {{...}}")
    return data


def read_scenario(path: str) -> Scenario:
    where = "standard input" if path == "-" else path
    data = read_scenario_data(path)
    try:
        return Scenario.model_validate(data)
    except ValidationError as exc:
        field, msg = explain_validation_error(exc)[0]
        raise ScenarioInputError(f"{where}: {field}: {msg}") from None

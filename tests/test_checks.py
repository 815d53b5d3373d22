"""Workload names and teams refuse control and bidi characters (issue 27), with the one check
scenario names use (models/checks.py `printable`): a newline splits the rows of `clusterplan
compare`, a carriage return overwrites one, ESC starts a terminal command (ESC[2J clears the
screen), and U+202E reverses the text after it in the report, the PDF and the page. The message
names the field, as every workload error does (models/portfolio/workloads.py parse_workloads)."""

from __future__ import annotations

import base64
import json
import zlib

import pytest
from pydantic import ValidationError

from app import share_link
from app.scenario_files import PORTFOLIOS
from models.errors import InputError
from models.portfolio.workloads import parse_workloads
from models.scenario import Scenario
from models.scenario_set import check_name

#: newline, carriage return, ESC (with a clear-screen), DEL, a C1 control, the bidi override and
#: embedding, an isolate, the line separator
CONTROL = ["a\nb", "a\rb", "a\x1b[2Jb", "a\x7fb", "a\x85b", "a\u202eb", "a\u202ab", "a\u2066b"]
CONTROL += ["a\u2028b", "\x00"]


@pytest.mark.parametrize("bad", CONTROL)
@pytest.mark.parametrize("field", ["name", "team"])
def test_workload_names_and_teams_refuse_control_and_bidi_characters(bad, field):
    items = [{"kind": "steady", "name": "fine"}, {"kind": "steady", "name": "other", field: bad}]
    with pytest.raises(InputError) as err:
        parse_workloads(items)
    assert err.value.field == f"workloads[1].{field}"
    message = str(err.value)
    assert message.startswith(f"workloads[1].{field}: ") and "printable" in message
    assert f"U+{ord(next(ch for ch in bad if not ch.isprintable())):04X}" in message
    assert message.isprintable()


@pytest.mark.parametrize("field", ["name", "team"])
def test_a_scenario_and_a_link_refuse_them_too(field):
    data = json.loads(PORTFOLIOS["lab"].read_text())
    data["workloads"][2][field] = "evil\x1b[2J\u202e"
    with pytest.raises(ValidationError, match=rf"workloads\[2\]\.{field}"):
        Scenario.model_validate(data)
    raw = json.dumps(data, ensure_ascii=False).encode()
    token = base64.urlsafe_b64encode(zlib.compress(raw, 9)).decode().rstrip("=")
    with pytest.raises(share_link.LinkError) as err:
        share_link.decode(token)
    assert f"workloads[2].{field}" in str(err.value) and "printable" in str(err.value)


def test_printable_names_in_any_script_are_kept():
    names = ["équipe-α", "研究 team", "R&D <core>", "$$x$$", "emoji 🚀", "a  b"]
    workloads = parse_workloads(
        [{"kind": "steady", "name": n, "team": n} for n in names]  # the hostile chart names too
    )
    assert [(w.name, w.team) for w in workloads] == [(n, n) for n in names]


def test_scenario_names_use_the_same_check():
    """A run of white space (a newline too) is one space, as before; a bidi override is refused,
    named in the same words as a workload's."""
    assert check_name(" my \n plan ") == "my plan"
    with pytest.raises(InputError, match=r"printable.*U\+202E"):
        check_name("plan\u202e")

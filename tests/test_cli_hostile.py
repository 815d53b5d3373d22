"""The command line under hostile and careless use: what it echoes, where it writes, which link.

- Every error is one printable line: control characters (C0, DEL, C1) and Unicode format
  characters from a scenario's keys, file names or arguments never reach the terminal, and a
  200 KB key costs the line no more than a few hundred characters.
- `report -o PATH` refuses a PATH it cannot write before any comparison or PDF work.
- `report --link URL` refuses a whole share link that opens a different scenario.
"""

from __future__ import annotations

import json
import os
import pathlib
import re
import subprocess
import time
import unicodedata

import pytest
from pypdf import PdfReader

from app import report_pdf, share_link
from app.cli import common, main
from app.cli import report as report_command
from app.scenario_files import EXAMPLE
from models.scenario import Scenario

ROOT = pathlib.Path(__file__).resolve().parents[1]
CLUSTERPLAN = ROOT / ".venv" / "bin" / "clusterplan"
BASE_URL = "https://planner.example.com/compare"
HOSTILE_KEYS = {
    "terminal title": "\x1b]0;pwned\x07x",
    "clear screen, line break": "a\nb\x1b[2J",
    "C1 CSI and NEL": "\x9b2J\x85next",
    "carriage return": "ok\rclusterplan compare: all good",
    "bidi override, zero width, line separator": "\u202eevil\u200b\u2028x",
    "DEL and tab": "x\x7f\ty",
}
#: value -> how the scenario fails: unknown input (pricing), out of range (pydantic validator,
#: the key inside the message), wrong type (pydantic, the key inside the field path)
VALUES = {"unknown": 1.0, "negative": -1.0, "not a number": "x"}
#: what each failure says after the key
REASONS = {
    "unknown": "unknown input; overridable:",
    "negative": "must be a number from 0 to 1e12",
    "not a number": "Input should be a valid number",
}
BIG_KEY = "k" * 200_000


def write_scenario(path: pathlib.Path, data: dict) -> str:
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


def one_clean_line(err: str) -> str:
    """The one stderr line, after checking it is one line with nothing a terminal would act on."""
    assert err.endswith("\n") and err.count("\n") == 1, repr(err[:300])
    line = err[:-1]
    assert not any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F for c in line), repr(line[:300])
    assert not any(unicodedata.category(c)[0] == "C" for c in line), repr(line[:300])
    assert len(line.splitlines()) == 1, repr(line[:300])
    assert "  " not in line, line
    return line


def failing(capsys, *args: str) -> str:
    rc = main(list(args))
    out, err = capsys.readouterr()
    assert rc == 2, (rc, out[:200], err[:300])
    assert out == ""
    return one_clean_line(err)


# ---------------------------------------------------------------------------------- what it echoes


@pytest.mark.parametrize("command", ["compare", "report"])
@pytest.mark.parametrize("value", ["unknown", "not a number"])  # "negative": repr, escaped already
@pytest.mark.parametrize("key", list(HOSTILE_KEYS))
def test_hostile_override_key_gives_one_clean_line(capsys, tmp_path, command, value, key):
    path = write_scenario(tmp_path / "s.json", {"overrides": {HOSTILE_KEYS[key]: VALUES[value]}})
    output = ["-o", str(tmp_path / "r.pdf")] if command == "report" else []
    line = failing(capsys, command, path, *output)
    assert line.startswith(f"clusterplan {command}: {path}: overrides"), line


@pytest.mark.parametrize("value", list(VALUES))
def test_a_200_kb_key_costs_the_line_a_bounded_number_of_characters(capsys, tmp_path, value):
    short = failing(
        capsys, "compare", write_scenario(tmp_path / "a.json", {"overrides": {"k": VALUES[value]}})
    )
    long = failing(
        capsys,
        "compare",
        write_scenario(tmp_path / "b.json", {"overrides": {BIG_KEY: VALUES[value]}}),
    )
    assert "overrides" in long, long
    assert len(long) <= len(short) + common.MAX_WORD_CHARS, (len(short), len(long))
    # the unknown key's line lists every overridable name (1,817 characters with the bridge's
    # rate): it may reach the line's cap, where one_line cuts it with "…"
    assert len(long) <= common.MAX_LINE_CHARS, len(long)
    if value != "unknown":  # without the catalogue's list of overridable names: short
        assert len(long) < 500, len(long)
    assert REASONS[value] in short and REASONS[value] in long, (short, long)  # why, after the key


def test_unknown_override_names_the_key_clipped_to_80_characters(capsys, tmp_path):
    line = failing(
        capsys, "compare", write_scenario(tmp_path / "s.json", {"overrides": {BIG_KEY: 1.0}})
    )
    key = re.search(r"overrides\.(k+…)", line)
    assert key and len(key.group(1)) <= 80, line


def test_file_names_and_arguments_are_echoed_clean(capsys, tmp_path):
    missing = str(tmp_path / "a\x1b[2J\nb\u202e.json")
    assert "cannot read" in failing(capsys, "compare", missing)
    example = write_scenario(tmp_path / "s.json", EXAMPLE)
    # compare reads a second argument as a second scenario file (side by side), echoed clean
    assert "cannot read" in failing(capsys, "compare", example, "\x1b]0;pwned\x07")
    assert "unrecognized arguments" in failing(capsys, "decode", "x", "\x1b]0;pwned\x07")
    line = failing(capsys, "report", example, "-o", str(tmp_path / "no\x1b[2J" / "r.pdf"))
    assert "-o/--output" in line


@pytest.mark.parametrize(
    "url", ["http://portal\x1b]0;pwned\x07/", "http://portal/\u202e", "http://x]/"]
)
def test_link_refuses_a_base_url_it_would_echo_badly_or_cannot_read(capsys, tmp_path, url):
    example = write_scenario(tmp_path / "s.json", EXAMPLE)
    assert "--base-url" in failing(capsys, "link", example, "--base-url", url)


def test_report_with_an_unreadable_link_is_a_usage_error(capsys, tmp_path):
    example = write_scenario(tmp_path / "s.json", EXAMPLE)
    line = failing(capsys, "report", example, "-o", str(tmp_path / "r.pdf"), "--link", "http://x]/")
    assert "--link" in line


def test_console_script_stderr_bytes_are_one_printable_line(tmp_path):
    path = write_scenario(tmp_path / "s.json", {"overrides": {HOSTILE_KEYS["terminal title"]: 1}})
    done = subprocess.run(
        [str(CLUSTERPLAN), "compare", path], cwd=ROOT, capture_output=True, timeout=60
    )
    assert done.returncode == 2 and done.stdout == b""
    body = done.stderr
    assert body.endswith(b"\n") and body.count(b"\n") == 1, body[:300]
    assert not any(b < 0x20 or b == 0x7F for b in body[:-1]), body[:300]
    assert not re.search("[\x80-\x9f]", body.decode("utf-8")), body[:300]
    assert b"overrides." in body


# ---------------------------------------------------------------------------- where report writes


@pytest.fixture
def no_pdf_work(monkeypatch):
    """Comparing and building the PDF both fail the test if they start."""

    def boom(*args, **kwargs):
        raise AssertionError("the report started work it could not write")

    monkeypatch.setattr(report_command, "compare", boom)  # where `report` looks it up
    monkeypatch.setattr(report_pdf, "build_report", boom)


def unwritable_outputs(tmp_path: pathlib.Path) -> dict[str, str]:
    cases = {
        "no such directory": str(tmp_path / "missing" / "r.pdf"),
        "a directory": str(tmp_path),
        "a file as the directory": str(tmp_path / "s.json" / "r.pdf"),
    }
    if os.geteuid() != 0:  # root writes anywhere
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o500)
        cases["a read-only directory"] = str(locked / "r.pdf")
    return cases


def test_report_refuses_an_unwritable_output_before_any_work(capsys, tmp_path, no_pdf_work):
    example = write_scenario(tmp_path / "s.json", EXAMPLE)
    for case, output in unwritable_outputs(tmp_path).items():
        start = time.perf_counter()
        line = failing(capsys, "report", example, "-o", output)
        assert time.perf_counter() - start < 1.0, case
        assert line.startswith("clusterplan report: -o/--output: cannot write"), (case, line)
        assert output in line, (case, line)
    assert not (tmp_path / "missing").exists()


@pytest.fixture
def built(monkeypatch) -> list[dict]:
    """build_report replaced by a recorder that returns a one-page stand-in PDF."""
    calls: list[dict] = []

    def fake(comparison, **kwargs):
        calls.append(kwargs)
        return report_pdf.Report(b"%PDF-stand-in", 1, True)

    monkeypatch.setattr(report_pdf, "build_report", fake)
    return calls


def test_report_to_standard_output_still_works(capsysbinary, tmp_path, built):
    example = write_scenario(tmp_path / "s.json", EXAMPLE)
    assert main(["report", example, "-o", "-"]) == 0
    out, err = capsysbinary.readouterr()
    assert out == b"%PDF-stand-in"
    assert err == b"standard output: 1 pages\n"
    assert len(built) == 1


# ------------------------------------------------------------------------------ which link it prints


def test_report_refuses_a_share_link_of_another_scenario(capsys, tmp_path, built):
    example = write_scenario(tmp_path / "s.json", EXAMPLE)
    other = json.loads(json.dumps(EXAMPLE))
    other["cluster"]["gpus"] = 2048
    link = share_link.link_url(other, BASE_URL)
    line = failing(capsys, "report", example, "-o", str(tmp_path / "r.pdf"), "--link", link)
    assert line.startswith("clusterplan report: --link: "), line
    assert "different scenario" in line, line
    assert built == [] and not (tmp_path / "r.pdf").exists()


@pytest.mark.parametrize(
    "make",
    [
        lambda: share_link.link_url(
            Scenario.model_validate(EXAMPLE), BASE_URL
        ),  # as `link` makes it
        lambda: share_link.link_url(EXAMPLE, BASE_URL + "?tab=cost"),  # every value spelled out
    ],
    ids=["short", "spelled out"],
)
def test_report_takes_the_share_link_of_its_own_scenario(capsys, tmp_path, built, make):
    example = write_scenario(tmp_path / "s.json", EXAMPLE)
    link = make()
    rc = main(["report", example, "-o", str(tmp_path / "r.pdf"), "--link", link])
    assert rc == 0, capsys.readouterr().err
    assert [b["link"] for b in built] == [link]


def test_report_with_a_base_url_links_its_own_scenario(capsys, tmp_path, built):
    example = write_scenario(tmp_path / "s.json", EXAMPLE)
    assert main(["report", example, "-o", str(tmp_path / "r.pdf"), "--link", BASE_URL]) == 0
    link = built[0]["link"]
    assert link.startswith(BASE_URL + "?s=")
    assert share_link.decode(share_link.token_from_url(link)) == Scenario.model_validate(EXAMPLE)


def test_report_prints_its_own_share_link_in_the_pdf(capsys, tmp_path, monkeypatch):
    monkeypatch.setattr(report_pdf, "charts_available", lambda *args, **kwargs: False)
    example = write_scenario(tmp_path / "s.json", EXAMPLE)
    assert main(["link", example, "--base-url", BASE_URL]) == 0
    link = capsys.readouterr().out.strip()
    out = tmp_path / "r.pdf"
    assert main(["report", example, "-o", str(out), "--link", link]) == 0
    text = "".join(page.extract_text() for page in PdfReader(out).pages)
    assert re.sub(r"\s+", "", link) in re.sub(r"\s+", "", text)


SERVE_ARGS = ["--model", "llama3-8b", "--gpu", "H100-SXM", "--input-tokens", "100"]
SERVE_ARGS += ["--output-tokens", "100"]
FINETUNE_ARGS = ["--model", "llama3-8b", "--method", "lora", "--gpu", "H100-SXM"]


@pytest.mark.parametrize(
    "args, flag",
    [
        (["finetune", *FINETUNE_ARGS, "--tokens", "nan"], "--tokens"),
        (["finetune", *FINETUNE_ARGS, "--tokens", "1e9", "--epochs", "inf"], "--epochs"),
        (["serve", *SERVE_ARGS, "--rps", "inf"], "--rps"),
        (["serve", *SERVE_ARGS, "--tokens-per-day", "nan"], "--tokens-per-day"),
        (["serve", *SERVE_ARGS, "--rps", "1", "--ttft-ms", "nan"], "--ttft-ms"),
        (["serve", *SERVE_ARGS, "--rps", "1", "--tpot-ms=-inf"], "--tpot-ms"),
    ],
)
def test_a_number_that_is_not_finite_is_named_as_such(capsys, args, flag):
    """These flags read plain floats, so 'nan' reached the schema and came back as 'Input should
    be less than or equal to 1000000', a range it is not outside of."""
    assert main(args) == 2
    err = capsys.readouterr().err
    assert f"argument {flag}: " in err and "is not a finite number" in err, err


def test_the_finetune_and_serve_numbers_take_suffixes(capsys):
    assert main(["finetune", *FINETUNE_ARGS, "--tokens", "2B"]) == 0
    assert "2B" not in capsys.readouterr().err

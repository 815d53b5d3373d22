"""The portal's address, wherever it is read, is checked once (app/settings.py check_base_url): an
http(s) address with a host and nothing a terminal or a PDF viewer would act on. `javascript:`,
`data:` and `file:` addresses, and addresses with a line break, a space or an invisible character,
are refused with exit status 2 and one line naming the flag, the variable or the file they came
from, never printed or put in a link (issue 27)."""

from __future__ import annotations

import json
import pathlib
import types

import pytest

from app import report_pdf, settings, state
from app.cli import main
from app.scenario_files import EXAMPLE

GOOD = "https://planner.example.org/compare"
#: what is refused, and a word of the reason the line gives
HOSTILE = {
    "javascript:alert(1)": "http:// or https://",
    "JavaScript:alert(document.cookie)//https://x": "http:// or https://",
    "data:text/html,<script>alert(1)</script>": "http:// or https://",
    "file:///etc/passwd": "http:// or https://",
    # with a host, so that only the scheme check refuses them
    "javascript://planner.example.org/%0Aalert(1)": "not javascript:",
    "file://fileserver/share/planner.html": "not file:",
    "planner.example.org": "http:// or https://",
    "https://planner.example.org/\nclick-here": "U+000A",
    "https://planner.example.org/a b": "U+0020",
    "https://planner.example.org/\u202eevil": "U+202E",
    "https://planner.example.org/\x1b]0;pwned\x07": "U+001B",
    "https:///no-host": "no host",
    "http://x]/": "not a valid URL",
    "http://planner.example.org:port/": "not a valid URL",
}


@pytest.fixture
def scenario_file(tmp_path) -> str:
    path = tmp_path / "s.json"
    path.write_text(json.dumps(EXAMPLE), encoding="utf-8")
    return str(path)


@pytest.fixture(autouse=True)
def no_setting(monkeypatch):
    """No address from the environment or a secrets file unless a test gives one."""
    monkeypatch.delenv(settings.ENV_BASE_URL, raising=False)
    monkeypatch.setattr(settings, "secrets_files", lambda: [])


def refused(capsys, *args: str) -> str:
    rc = main(list(args))
    out, err = capsys.readouterr()
    assert rc == 2, (rc, out[:200], err[:300])
    assert out == "" and err.endswith("\n") and err.count("\n") == 1, (out[:200], err[:300])
    return err[:-1]


@pytest.mark.parametrize("url", list(HOSTILE))
def test_check_base_url_refuses_what_is_no_portal_address(url):
    with pytest.raises(settings.BaseUrlError) as exc:
        settings.check_base_url(url, "--flag")
    message = str(exc.value)
    assert message.startswith("--flag: ") and HOSTILE[url] in message, message
    assert "\n" not in message and "\x1b" not in message, message


@pytest.mark.parametrize(
    "url", [GOOD, "http://localhost:8501/", "https://[::1]:8443/", "HTTPS://Planner.Example.org"]
)
def test_check_base_url_takes_an_http_address(url):
    assert settings.check_base_url(f"  {url}\n", "--flag") == url


@pytest.mark.parametrize("url", list(HOSTILE))
def test_link_refuses_the_flag(capsys, scenario_file, url):
    line = refused(capsys, "link", scenario_file, "--base-url", url)
    assert line.startswith("clusterplan link: --base-url: "), line


@pytest.mark.parametrize("url", list(HOSTILE))
def test_link_refuses_the_variable(capsys, monkeypatch, scenario_file, url):
    monkeypatch.setenv(settings.ENV_BASE_URL, url)
    line = refused(capsys, "link", scenario_file)
    assert line.startswith(f"clusterplan link: {settings.ENV_BASE_URL}: "), line


@pytest.mark.parametrize("url", list(HOSTILE))
def test_report_refuses_the_flag(capsys, tmp_path, scenario_file, url):
    out = tmp_path / "r.pdf"
    line = refused(capsys, "report", scenario_file, "-o", str(out), "--link", url)
    assert line.startswith("clusterplan report: --link: "), line
    assert not out.exists()


@pytest.mark.parametrize("url", list(HOSTILE))
def test_report_refuses_the_variable(capsys, monkeypatch, tmp_path, scenario_file, url):
    """The finding: `report` put CLUSTERPLAN_BASE_URL in the PDF's link unchecked."""
    monkeypatch.setenv(settings.ENV_BASE_URL, url)
    out = tmp_path / "r.pdf"
    line = refused(capsys, "report", scenario_file, "-o", str(out))
    assert line.startswith(f"clusterplan report: {settings.ENV_BASE_URL}: "), line
    assert not out.exists()


def test_a_secrets_file_address_is_checked_and_named(capsys, monkeypatch, tmp_path, scenario_file):
    secrets = tmp_path / "secrets.toml"
    secrets.write_text('base_url = "javascript:alert(1)"\n', encoding="utf-8")
    monkeypatch.setattr(settings, "secrets_files", lambda: [secrets])
    line = refused(capsys, "link", scenario_file)
    assert line.startswith(f"clusterplan link: base_url in {secrets}: use the portal's"), line


def test_the_pdf_default_link_leaves_out_an_address_that_is_refused(monkeypatch):
    comparison = types.SimpleNamespace(scenario=json.loads(json.dumps(EXAMPLE)))
    monkeypatch.setenv(settings.ENV_BASE_URL, "javascript:alert(1)")
    assert report_pdf.default_link(comparison) is None
    monkeypatch.setenv(settings.ENV_BASE_URL, GOOD)
    assert report_pdf.default_link(comparison).startswith(GOOD + "?s=")


@pytest.mark.parametrize(
    ("page", "expected"),
    [
        (f"{GOOD}?s=abc", GOOD),
        ("javascript:alert(1)", settings.LOCAL_BASE_URL),
        ("https://planner.example.org/\nx", settings.LOCAL_BASE_URL),
        ("", settings.LOCAL_BASE_URL),
        (None, settings.LOCAL_BASE_URL),
    ],
)
def test_the_pages_links_start_from_a_checked_address(monkeypatch, page, expected):
    fake = types.SimpleNamespace(context=types.SimpleNamespace(url=page))
    monkeypatch.setattr(state, "st", fake)
    assert state.page_address() == expected


def test_the_setting_still_reads_env_then_secrets_then_local(tmp_path):
    secrets = tmp_path / "secrets.toml"
    secrets.write_text(f'base_url = " {GOOD} "\n', encoding="utf-8")
    assert settings.base_url({settings.ENV_BASE_URL: " https://env.example.com/ "}, [secrets]) == (
        "https://env.example.com/"
    )
    assert settings.base_url({}, [secrets]) == GOOD
    assert settings.base_url({}, [pathlib.Path(tmp_path / "none.toml")]) == settings.LOCAL_BASE_URL

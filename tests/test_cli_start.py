"""The command line starts light: `--help`, `decode` and `link` load neither pandas, plotly nor the
cost engine (bench/bench_cli_start.py times them); and the portal's address for links comes from
the setting (app/settings.py), localhost only as the local default, which the PDF says."""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys

import pytest

from app import cli, scenario_files, settings, share_link
from app.cli import example as example_command

ROOT = pathlib.Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "app" / "data" / "example_scenario.json"
HEAVY = ("pandas", "plotly", "pricing.engine", "pricing.catalogue.loader", "streamlit")
PROBE = (
    "import sys, io, contextlib; from app.cli import main\n"
    "with contextlib.redirect_stdout(io.StringIO()):\n"
    "    try:\n"
    "        main(sys.argv[1:])\n"
    "    except SystemExit:\n"
    "        pass\n"
    "import json; print(json.dumps(sorted(m for m in sys.modules)))"
)


def _loaded(*args: str) -> set[str]:
    out = subprocess.run(
        [sys.executable, "-c", PROBE, *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)},
    ).stdout
    return set(json.loads(out.strip().splitlines()[-1]))


@pytest.mark.parametrize(
    "args",
    [
        ("--help",),
        ("link", str(EXAMPLE)),
        ("decode", share_link.link_url(json.loads(EXAMPLE.read_text()))),
    ],
    ids=["help", "link", "decode"],
)
def test_light_commands_do_not_load_the_engine(args):
    loaded = _loaded(*args)
    # the parser is built from every sub-command's module: each is loaded, and none of them
    # pulls in the engine
    assert {"app.cli", "app.cli.common", *(m.__name__ for m in cli.COMMANDS.values())} <= loaded
    assert not [m for m in HEAVY if m in loaded]


def test_help_via_python_dash_m_does_not_load_pandas_or_plotly():
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            "import runpy, sys; sys.argv = ['clusterplan', '--help']\n"
            "try:\n    runpy.run_module('app.cli', run_name='__main__')\n"
            "except SystemExit:\n    pass\n"
            "print('LOADED', 'pandas' in sys.modules, 'plotly' in sys.modules)",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "usage: clusterplan" in out and out.strip().endswith("LOADED False False")


def test_the_parser_names_the_sample_portfolios_the_files_hold():
    assert sorted(example_command.PORTFOLIO_NAMES) == sorted(scenario_files.PORTFOLIOS)


def test_base_url_from_env_then_secrets_then_local(tmp_path):
    secrets = tmp_path / "secrets.toml"
    secrets.write_text('base_url = "https://planner.example.org/"\n')
    broken = tmp_path / "broken.toml"
    broken.write_text("base_url = [unclosed\n")
    env = {settings.ENV_BASE_URL: "https://env.example.com/"}
    assert settings.base_url(env, [secrets]) == "https://env.example.com/"
    assert settings.base_url({settings.ENV_BASE_URL: "  "}, [broken, secrets]) == (
        "https://planner.example.org/"
    )
    assert settings.base_url({}, [broken, tmp_path / "missing.toml"]) == settings.LOCAL_BASE_URL


def test_is_local():
    assert settings.is_local("http://localhost:8501/?s=x")
    assert settings.is_local("http://127.0.0.1:8501/")
    assert not settings.is_local("https://planner.example.org/?s=x")


def test_cli_link_reads_the_setting(monkeypatch, capsys):
    monkeypatch.setenv(settings.ENV_BASE_URL, "https://planner.example.org/compare")
    assert cli.main(["link", str(EXAMPLE)]) == 0
    assert capsys.readouterr().out.startswith("https://planner.example.org/compare?s=")
    monkeypatch.delenv(settings.ENV_BASE_URL)
    monkeypatch.chdir(ROOT / "app")  # no .streamlit/secrets.toml here
    monkeypatch.setattr(settings, "secrets_files", lambda: [])
    assert cli.main(["link", str(EXAMPLE)]) == 0
    assert capsys.readouterr().out.startswith("http://localhost:8501/?s=")


@pytest.fixture(scope="module")
def example_comparison(fixture_catalogue):
    from models.scenario import Scenario
    from pricing.engine import compare

    return compare(Scenario.model_validate_json(EXAMPLE.read_text()), fixture_catalogue, draws=50)


def _pdf_words(data: bytes) -> str:
    import io
    import re

    from pypdf import PdfReader

    text = " ".join(page.extract_text() for page in PdfReader(io.BytesIO(data)).pages)
    return re.sub(r"\s+", " ", text)


def test_pdf_says_when_its_link_is_local(example_comparison, monkeypatch):
    from app import report_pdf

    monkeypatch.setattr(report_pdf, "charts_available", lambda *a, **k: False)
    monkeypatch.delenv(settings.ENV_BASE_URL, raising=False)
    monkeypatch.setattr(settings, "secrets_files", lambda: [])
    local = _pdf_words(report_pdf.build_pdf(example_comparison))
    assert "This is a local address" in local and "CLUSTERPLAN_BASE_URL" in local
    monkeypatch.setenv(settings.ENV_BASE_URL, "https://planner.example.org/")
    assert report_pdf.default_link(example_comparison).startswith("https://planner.example.org/?s=")
    public = _pdf_words(report_pdf.build_pdf(example_comparison))
    assert "This is a local address" not in public

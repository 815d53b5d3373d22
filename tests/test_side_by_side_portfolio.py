"""A portfolio beside a single training run (issue 27): side by side, a portfolio is marked as one
(pricing/side_by_side.py SideScenario.is_portfolio, workloads, teams, peak GPUs) and every
presentation reads it: its line says "portfolio of N workloads" where a single run's says "one
training run of", and its training-days cells say "portfolio of N workloads" instead of its
representative run's days, in the CLI text, the PDF (pypdf readback) and the page (AppTest)."""

from __future__ import annotations

import copy
import io
import json
import re

import pytest
from pypdf import PdfReader

from app import report_pdf
from app import side_by_side as sbs_text
from app.cli import main
from app.formatting import days
from app.scenario_files import EXAMPLE
from app.views import side_by_side as page
from models.scenario import Scenario
from pricing.side_by_side import compare_named
from tests.builders import app, sample

LAB = sample("lab")  # 3 workloads, 2 teams
MARK = "portfolio of 3 workloads"


@pytest.fixture(scope="module")
def result(fixture_catalogue):
    named = [("run", Scenario.model_validate(EXAMPLE)), ("lab", Scenario.model_validate(LAB))]
    return compare_named(named, fixture_catalogue)


def test_the_result_says_which_scenario_is_a_portfolio(result):
    sbs, comparisons = result
    run, lab = sbs.scenarios
    assert (run.is_portfolio, run.workloads, run.teams, run.peak_gpus) == (False, 1, 1, None)
    assert lab.is_portfolio and lab.workloads == 3 and lab.teams == 2
    assert lab.peak_gpus == round(max(comparisons[1].portfolio.peak_gpus))


def test_the_table_marks_the_portfolio_and_gives_it_no_one_run_days(result):
    sbs, comparisons = result
    rows = sbs_text.table_rows(sbs)
    col = rows[0].index("Training days")
    lab = [r for r in rows[1:] if r[0] == "lab"]
    run = [r for r in rows[1:] if r[0] == "run"]
    live = [o for o in comparisons[1].options if o.available]
    assert [r[col] for r in lab if r[col] != "-"] == [MARK] * len(live)
    assert [r[col] for r in run] == [days(o.train_days) for o in comparisons[0].options]
    assert sbs_text.scenario_line(sbs.scenarios[0]).startswith("run: one training run of ")
    assert sbs_text.scenario_line(sbs.scenarios[1]).startswith(
        f"lab: {MARK} (2 teams) on H100-SXM, peak {sbs.scenarios[1].peak_gpus:,} GPUs demanded"
    )
    assert "a portfolio has no one run" in sbs_text.days_note(sbs)


def test_the_cli_text_marks_the_portfolio(tmp_path, capsys):
    files = []
    for name, data in (("run", EXAMPLE), ("lab", LAB)):
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(data), encoding="utf-8")
        files.append(str(path))
    assert main(["compare", *files]) == 0
    out = capsys.readouterr().out
    assert "  run: one training run of Llama 3 70B on 1,024 × H100-SXM" in out
    assert f"  lab: {MARK} (2 teams) on H100-SXM, peak " in out
    table = out.split("Scenario  Option", 1)[1].split("\n\n", 1)[0].splitlines()[1:]
    lab_start = next(i for i, line in enumerate(table) if line.lstrip().startswith("lab "))
    lab = table[lab_start:]
    assert lab and all(MARK in line or "not available" in line for line in lab), lab
    assert not any(re.search(r"\d days? ", line) for line in lab), lab  # no one run's days
    assert all(MARK not in line for line in table[:lab_start])
    assert "a portfolio has no one run" in out


def test_the_pdf_marks_the_portfolio(result, monkeypatch):
    sbs, comparisons = result
    monkeypatch.setattr(report_pdf, "charts_available", lambda *a, **k: False)
    data = report_pdf.build_side_by_side_report(sbs, comparisons, link="").data
    text = " ".join(p.extract_text() for p in PdfReader(io.BytesIO(data)).pages)
    flat = re.sub(r"\s+", " ", text)
    assert "run: one training run of Llama 3 70B on 1,024 × H100-SXM" in flat
    assert f"lab: {MARK} (2 teams) on H100-SXM, peak" in flat
    # the table wraps cells: count the words without spaces
    squeezed = re.sub(r"\s+", "", text)
    live = [o for o in comparisons[1].options if o.available]
    assert squeezed.count(MARK.replace(" ", "")) == len(live) + 1  # the cells and its line
    assert "aportfoliohasnoonerun" in squeezed


def test_the_page_marks_the_portfolio():
    at = app("side_by_side", timeout=180)
    at.session_state[page.KEY] = {
        "scenarios": [
            {"name": "run", "scenario": copy.deepcopy(EXAMPLE)},
            {"name": "lab", "scenario": copy.deepcopy(LAB)},
        ],
        "picked": ["run", "lab"],
    }
    at.run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    table = at.dataframe[0].value
    lab = table[table["Scenario"] == "lab"]
    assert set(lab["Training days"]) <= {MARK, "-"} and MARK in set(lab["Training days"])
    assert MARK not in set(table[table["Scenario"] == "run"]["Training days"])
    # as read on the page: markdown escapes and zero-width spaces dropped
    captions = re.sub(r"\\(.)", r"\1", " ".join(c.value for c in at.caption)).replace("\u200b", "")
    assert f"lab: {MARK} (2 teams)" in captions and "run: one training run of" in captions
    assert "a portfolio has no one run" in captions

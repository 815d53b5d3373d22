"""The PDF report and the CSV/JSON downloads, read back as a user would get them.

The PDF is read with pypdf (text, page count, page resources) and its first pages rendered with
poppler's pdftoppm. Chart checks need Chromium: without it they are skipped locally and fail in
CI (CI set), where scripts install it.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import math
import os
import pathlib
import re
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor

import pytest
from PIL import Image, ImageStat
from pypdf import PdfReader
from streamlit.testing.v1 import AppTest

from app import exports, report_pdf, share_link
from app.cli import main
from app.formatting import pct, usd
from app.recommendation_text import headline, reasons, recommendation_text
from app.scenario_files import EXAMPLE
from models.scenario import Scenario
from models.training.whole_run import whole_run_band
from pricing.engine import compare
from tests.builders import GENERATED
from tests.readback import flat, pdf_text

HARNESS = str(pathlib.Path(__file__).with_name("portal_harness.py"))
BASE_URL = "https://planner.example.com/compare"
CHART_TITLES = (
    "Cumulative cost over the term",
    "Cost breakdown over the term",
    "Time to first result",
    "Training time against cluster size",
    "Sensitivity of the recommendation",
    "Uncertainty of the cost",
)
IN_CI = bool(os.environ.get("CI"))

needs_chromium = pytest.mark.skipif(
    report_pdf.chromium_path() is None and not IN_CI,
    reason="Chromium is not installed (CI checks the charts)",
)
needs_poppler = pytest.mark.skipif(
    shutil.which("pdftoppm") is None and not IN_CI,
    reason="pdftoppm (poppler-utils) is not installed",
)


def undated(text: str) -> str:
    return re.sub(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC", "<generated>", text)


def no_charts(monkeypatch) -> None:
    monkeypatch.setattr(report_pdf, "charts_available", lambda *args, **kwargs: False)


@pytest.fixture(scope="module")
def comparison():
    return compare(Scenario.model_validate(EXAMPLE))


@pytest.fixture(scope="module")
def link():
    return share_link.link_url(Scenario.model_validate(EXAMPLE), BASE_URL)


@pytest.fixture(scope="module")
def report(comparison, link):
    return report_pdf.build_report(comparison, link=link, generated=GENERATED)


@pytest.fixture(scope="module")
def text(report):
    return pdf_text(report.data)


# ------------------------------------------------------------------------------------- content


def test_every_total_the_recommendation_and_the_link(comparison, report, text, link):
    assert report.data.startswith(b"%PDF-")
    for o in comparison.options:
        assert o.label in text
        assert usd(o.total_usd) in text, (o.label, usd(o.total_usd))
        assert usd(o.npv_usd) in text
    # the answer in one sentence, then its reasons, in that order (as on Compare and in the text
    # report: issue 32)
    rec = comparison.recommendation
    said = [flat(headline(rec)), *(flat(f"- {line}.") for line in reasons(rec))]
    where = [flat(text).find(part) for part in said]
    assert -1 not in where and where == sorted(where), where
    assert f"Recommendation: {rec.label}" in text
    assert flat(link) in flat(text)
    assert share_link.decode(share_link.token_from_url(link)) == Scenario.model_validate(EXAMPLE)


def test_every_assumption_with_its_source_and_date(comparison, text):
    body = flat(text)
    for a in comparison.assumptions:
        assert flat(a.key) in body, a.key
        assert flat(a.source) in body, a.source
        if a.as_of:
            assert a.as_of in text
    assert len({a.source for a in comparison.assumptions}) >= 10


def test_pages_are_numbered_and_dated(report, comparison):
    pages = PdfReader(io.BytesIO(report.data)).pages
    assert 3 <= len(pages) <= 20 and report.pages == len(pages)
    newest = max(a.as_of for a in comparison.assumptions if a.as_of)
    for n, page in enumerate(pages, start=1):
        words = page.extract_text()
        assert f"page {n} of {len(pages)}" in words
        assert "generated 2026-11-29 12:00 UTC" in words
        assert f"catalogue as of {newest}" in words or "catalogue as of 20" in words


@needs_chromium
def test_charts_are_vector_drawings(report):
    assert report.charts, report.charts_note
    reader = PdfReader(io.BytesIO(report.data))
    chart_pages = reader.pages[0:4]  # the cost over the term is on page 1
    words = "\n".join(page.extract_text() for page in chart_pages)
    for title in CHART_TITLES:  # text drawn by the SVG, not pixels of a picture
        assert title in words
    assert "Month of the term" in words and "GPUs (log scale)" in words
    for page in reader.pages:
        resources = page.get("/Resources") or {}
        assert "/XObject" not in resources  # no embedded images anywhere
    ops = b"\n".join(page.get_contents().get_data() for page in chart_pages)
    assert len(re.findall(rb"(?<=\s)(?:l|re|c)(?=\s)", ops)) > 500  # lines, rectangles, curves


@needs_poppler
def test_first_page_renders_and_is_not_blank(report, tmp_path):
    pdf = tmp_path / "report.pdf"
    pdf.write_bytes(report.data)
    last = 2 if report.charts else 1
    subprocess.run(
        [
            "pdftoppm",
            "-r",
            "40",
            "-f",
            "1",
            "-l",
            str(last),
            "-png",
            str(pdf),
            str(tmp_path / "page"),
        ],
        check=True,
        capture_output=True,
        timeout=60,
    )
    pngs = sorted(tmp_path.glob("page*.png"))
    assert len(pngs) == last
    for png in pngs:  # the cover, and the first page of charts
        with Image.open(png) as im:
            assert im.size[0] > 200
            assert ImageStat.Stat(im.convert("L")).stddev[0] > 20, png.name


#: links a PDF viewer would run or open on the reader's computer: printed, never made clickable
HOSTILE_LINKS = (
    "javascript:alert(1)",
    "JavaScript:app.alert(1)//https://planner.example.com/",
    "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==",
    "file:///etc/passwd",
)


def link_targets(data: bytes) -> list[str]:
    """The URI of every link annotation in the PDF, read back with pypdf."""
    targets = []
    for page in PdfReader(io.BytesIO(data)).pages:
        for annot in page.get("/Annots") or []:
            action = annot.get_object().get("/A")
            if action is not None and "/URI" in action.get_object():
                targets.append(str(action.get_object()["/URI"]))
    return targets


def test_a_hostile_link_given_to_the_builders_is_printed_but_never_clickable(
    comparison, monkeypatch, link
):
    """The guard inside the PDF (app/report_pdf/document.py _safe_link), reached directly: `report --link` and
    the settings refuse these addresses earlier (tests/test_settings.py), so only a caller of the
    builders can bring one here."""
    from pricing.side_by_side import side_by_side

    no_charts(monkeypatch)
    sbs = side_by_side([("A", comparison), ("B", comparison)])
    builders = {
        "report": lambda url: report_pdf.build_report(comparison, link=url, generated=GENERATED),
        "side by side": lambda url: report_pdf.build_side_by_side_report(
            sbs, [comparison, comparison], link=url, generated=GENERATED
        ),
    }
    for name, build in builders.items():
        assert link in link_targets(build(link).data), name  # the readback sees a safe link
        for hostile in HOSTILE_LINKS:
            data = build(hostile).data
            assert flat(hostile) in flat(pdf_text(data)), (name, hostile)  # printed as text
            bad = [t for t in link_targets(data) if not t.lower().startswith("http")]
            assert bad == [], (name, hostile, bad)


# ----------------------------------------------------------------------------------- user text


def test_unicode_title_round_trips(comparison, monkeypatch):
    no_charts(monkeypatch)
    title = "Zürich – H100 €"
    data = report_pdf.build_pdf(comparison, title=title, generated=GENERATED)
    assert title in pdf_text(data)
    assert PdfReader(io.BytesIO(data)).metadata.title == title


def test_markup_in_the_title_is_printed_not_read(comparison, monkeypatch):
    no_charts(monkeypatch)
    title = "<script>alert(1)</script> **bold** {x} {nb} <b>&amp;</b>"
    words = pdf_text(report_pdf.build_pdf(comparison, title=title, generated=GENERATED))
    assert flat(title) in flat(words)
    assert report_pdf.plain("bell\x07 and\nnew  line") == "bell and new line"


# --------------------------------------------------------------------------------- no Chromium


def test_without_chromium_the_tables_still_carry_every_number(comparison, monkeypatch, link):
    no_charts(monkeypatch)
    report = report_pdf.build_report(comparison, link=link, generated=GENERATED)
    words = pdf_text(report.data)
    assert not report.charts
    assert "Charts need Chromium" in words
    assert "thetablesbelowholdeverynumber" in flat(words)
    for o in comparison.options:
        assert usd(o.total_usd) in words
        assert usd(o.cumulative_usd[-1]) in words
    for title in CHART_TITLES[:4]:
        assert title not in words
    assert flat(link) in flat(words)
    assert 3 <= report.pages <= 20


def test_a_missing_browser_is_named(monkeypatch):
    monkeypatch.setenv("BROWSER_PATH", "/nonexistent/chromium")
    assert report_pdf.chromium_path() is None
    assert report_pdf.charts_available() is False
    assert "not found" in report_pdf._charts_note()


# -------------------------------------------------------------------------------- concurrency


def test_concurrent_exports_all_succeed_and_agree(comparison, report, link):
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(
            pool.map(
                lambda _: report_pdf.build_report(comparison, link=link, generated=GENERATED),
                range(4),
            )
        )
    assert all(r.data.startswith(b"%PDF-") for r in results)
    assert all(r.charts == report.charts for r in results)
    assert {r.data for r in results} == {report.data}  # same input, same bytes


# ---------------------------------------------------------------------------------- CLI, portal


def test_cli_report_has_the_same_content_as_build_pdf(comparison, tmp_path, capsys, link):
    scenario = tmp_path / "scenario.json"
    scenario.write_text(json.dumps(EXAMPLE))
    out = tmp_path / "out.pdf"
    assert main(["report", str(scenario), "-o", str(out), "--link", BASE_URL]) == 0
    stdout = capsys.readouterr().out
    pages = len(PdfReader(out).pages)
    assert stdout.strip() == f"{out}: {pages} pages"
    direct = report_pdf.build_pdf(comparison, link=link)
    assert undated(pdf_text(out.read_bytes())) == undated(pdf_text(direct))


def test_cli_report_errors_are_one_line(tmp_path, capsys):
    scenario = tmp_path / "scenario.json"
    scenario.write_text(json.dumps(EXAMPLE))
    cases = [
        (["report", str(tmp_path / "missing.json"), "-o", str(tmp_path / "a.pdf")], "cannot read"),
        (["report", str(scenario), "-o", str(tmp_path / "no" / "dir" / "a.pdf")], "cannot write"),
        (
            [
                "report",
                str(scenario),
                "-o",
                str(tmp_path / "a.pdf"),
                "--link",
                "javascript:alert(1)",
            ],
            "--link",
        ),
    ]
    for args, expected in cases:
        assert main(args) == 2
        out, err = capsys.readouterr()
        assert out == "" and len(err.splitlines()) == 1, err
        assert err.startswith("clusterplan report: ") and expected in err


def test_portal_builds_the_same_pdf_as_the_cli(monkeypatch, tmp_path, capsys):
    from app.views import compare as compare_page

    built: list[bytes] = []
    real = report_pdf.build_report

    def recording(*args, **kwargs):
        report = real(*args, **kwargs)
        built.append(report.data)
        return report

    monkeypatch.setattr(report_pdf, "build_report", recording)
    with contextlib.suppress(Exception):
        compare_page._pdf_report.clear()
    at = AppTest.from_file(HARNESS, default_timeout=120)
    at.run()
    at.session_state["_page"] = "compare"
    at.run()
    labels = [b.label for b in at.get("download_button")]
    assert "Monthly cash flows (CSV)" in labels and "Whole comparison (JSON)" in labels
    assert "Download PDF report" not in labels  # built only when asked for
    assert not built
    at.button(key="pdf_prepare").click().run()
    assert not at.exception, at.exception
    assert "Download PDF report" in [b.label for b in at.get("download_button")]
    assert len(built) == 1

    scenario = tmp_path / "scenario.json"
    scenario.write_text(json.dumps(at.session_state["scenario"]))
    out = tmp_path / "cli.pdf"
    assert main(["report", str(scenario), "-o", str(out)]) == 0  # default link, as the portal's
    capsys.readouterr()
    assert undated(pdf_text(out.read_bytes())) == undated(pdf_text(built[0]))


# --------------------------------------------------------------------------------- CSV, JSON


def test_monthly_csv_rows_sum_to_each_total(comparison):
    rows = list(csv.DictReader(io.StringIO(exports.monthly_csv(comparison))))
    assert rows and list(rows[0]) == list(exports.CSV_HEADER)
    for o in comparison.options:
        mine = [r for r in rows if r["option"] == o.option]
        months = len(o.monthly_usd)
        assert {r["category"] for r in mine} == set(o.breakdown_usd)
        assert len(mine) == months * len(o.breakdown_usd)  # every category in every month
        assert math.isclose(
            sum(float(r["usd"]) for r in mine), o.total_usd, rel_tol=1e-9, abs_tol=1e-3
        )
        for category, total in o.breakdown_usd.items():
            got = sum(float(r["usd"]) for r in mine if r["category"] == category)
            assert math.isclose(got, total, rel_tol=1e-9, abs_tol=1e-3), category
        for m in (1, months):
            got = sum(float(r["usd"]) for r in mine if int(r["month"]) == m)
            assert math.isclose(got, o.monthly_usd[m - 1], rel_tol=1e-9, abs_tol=1e-3)


def _strict(text: str):
    def refuse(name):
        raise ValueError(f"not strict JSON: {name}")

    return json.loads(text, parse_constant=refuse)


def test_comparison_json_is_strict_and_whole(comparison):
    data = _strict(exports.comparison_json(comparison))
    engine = json.loads(json.dumps(comparison.model_dump(mode="json")))
    assert "why" not in engine["recommendation"]  # the core returns facts, the app the words
    engine["recommendation"]["why"] = recommendation_text(comparison.recommendation)
    assert data == engine
    # where the words always were: after the fastest option
    assert list(data["recommendation"])[:4] == ["option", "label", "fastest_option", "why"]
    broken = comparison.model_copy(deep=True)
    broken.options[0].usd_per_gpu_hour = float("nan")
    broken.options[0].npv_usd = float("inf")
    data = _strict(exports.comparison_json(broken))
    assert data["options"][0]["usd_per_gpu_hour"] is None and data["options"][0]["npv_usd"] is None


def test_svg_is_tidied_for_fpdf():
    svg = (
        '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><defs><g class="clips">'
        '<clipPath id="c1"><rect width="5" height="5"/></clipPath></g><g class="patterns">'
        '<pattern id="p1"><path d="M0,0L1,1" stroke="rgb(1, 2, 3)"/></pattern></g></defs>'
        '<path d="M0,0L5,5" style="opacity: 0.5; fill: rgb(0, 0, 0); fill-opacity: 0; '
        'stroke-dasharray: 9px, 9px; stroke-width: 0px"/>'
        '<path d="M0,0L5,5" style="fill: url(\'#p1\');"/>'
        '<text style="font-size: 12px">\u25c6 net total</text></svg>'
    )
    out = report_pdf.svg_for_pdf(svg.encode("utf-8")).decode()
    defs = out.split("</defs>")[0]
    assert '<clipPath id="c1">' in defs and "pattern" not in defs and "<g" not in defs
    assert "fill: none" in out and "stroke: none" in out and "stroke-dasharray: 9, 9" in out
    assert not re.search(r"[\s;\"]opacity:", out)  # folded into fill and stroke opacity
    assert "stroke-opacity: 0.5" in out
    assert "fill: rgb(1, 2, 3); fill-opacity: 0.45" in out
    if 0x25C6 not in report_pdf._chart_glyphs():  # Liberation Sans has no ◆: DejaVu draws it
        assert "font-family: DejaVu" in out


def test_training_days_come_with_their_band(comparison, text):
    from app.formatting import band

    t = comparison.training
    # the band from the whole-run model's leave-one-out errors on published whole runs, by the
    # model's active-size class (models/training/whole_run.py), read from the result
    low, high = whole_run_band(comparison.scenario.workload.shape().params_active)
    assert (t.train_days_low, t.train_days_high) == pytest.approx(
        (t.train_days / (1 + high), t.train_days / (1 + low))
    )
    flat = " ".join(text.split())
    assert band(t.train_days_low, t.train_days_high).strip() in flat


def test_the_execution_plan_is_on_the_cover(comparison, text):
    ex = comparison.scenario.execution
    flat = " ".join(text.split())
    assert "Execution plan" in flat and f"attention {ex.attention}" in flat


def test_the_band_coverage_and_both_modes_are_in_the_report(text):
    """The whole-run band's coverage of the fitted runs (each left out of the fit) and the model's
    errors in both modes beside the rule of thumb's (models/validation/whole_run.py,
    models/validation/training.py modes_summary). Both added batches are in the fit since
    amendment 3, so the report quotes no batch as unseen and says none has been scored yet."""
    from models.validation.whole_run import whole_run_scores

    flat = " ".join(text.split())
    w = whole_run_scores()
    loo = w["leave_one_out"]
    assert f"The band contains {loo['band_coverage']:.0%} of them" in flat
    assert "no run outside the fit has been scored against this form yet" in flat
    assert "runs added after the fit and entered" not in flat
    assert f"over {len(w['rows'])} runs, each with its source left out of the fit" in flat
    assert f"whole-run expectation median {loo['all']['median_abs_error']:.0%}" in flat
    assert f"steady state median {w['pre_fit']['all']['median_abs_error']:.0%}" in flat


def test_the_uncertainty_table_writes_shares_as_every_page_does(comparison, text):
    """The PDF's uncertainty table wrote '77%' where Compare and the text report write '77 %'."""
    labels = {o.option: o.label for o in comparison.options}
    for key, q in comparison.uncertainty.options.items():
        row = (
            re.escape(labels[key])
            + r"[^\n]*"
            + re.escape(pct(q.probability_cheapest))
            + r"\s+"
            + re.escape(pct(q.probability_completes))
        )
        assert re.search(row, text), key


def test_page_one_holds_the_answer_the_totals_what_decides_it_and_the_cost_chart(
    comparison, report
):
    """Page 1 is the summary (issue 32): the recommendation's sentence, every option's NPV, the
    inputs that move the answer most and the cost over the term, drawn; the scenario table and
    the notes follow on page 2."""
    reader = PdfReader(io.BytesIO(report.data))
    first, second = (flat(p.extract_text()) for p in reader.pages[:2])
    assert flat(headline(comparison.recommendation)) in first
    for o in comparison.options:
        assert flat(usd(o.npv_usd)) in first, o.label
    assert flat("What decides it:") in first
    widest = max(comparison.sensitivity.bars, key=lambda b: abs(b.gap_high_usd - b.gap_low_usd))
    assert flat(widest.label[1:]) in first
    if report.charts:
        assert flat("Cumulative cost (USD)") in first
    assert flat("Scenario") in second and flat("Scenario") not in first.split(flat("Totals"))[0]

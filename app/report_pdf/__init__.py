"""The PDF report of a comparison, for the file: what the buyer saw in the portal, on paper.

`build_pdf(c)` lays out, on A4 with fpdf2: a cover (title, scenario, the recommendation and why,
the totals table, the share link that reopens the scenario), the six charts of `app.charts` as
vector graphics, for a portfolio (scenario version 2) a "Demand and capacity" section (each
option's size and GPU-hours served, queued, beyond the term and idle, the delay of each workload,
the chargeback by team, a chart of monthly capacity against demand per option and its table;
the tables are `app.report_text`'s, as `clusterplan compare` prints them), tables that hold
every charted number, and every assumption with its source and date. Every page carries the generation date, the catalogue date and "page N of M". Text
from the user (the title, names) goes into plain cells: it is never read as markup.

Charts come from `app.chart_export` (kaleido with Debian's Chromium, one browser per process behind
a lock) as SVG and are drawn as PDF paths and text. Without Chromium the report still builds, with
a line saying that charts need it. The first PDF of a process waits 2-3 s for the browser; after
that a report takes 1-1.5 s (bench/bench_pdf.py).
No Streamlit here.

The package: this module holds the builders the portal, the CLI and the tests call (and the
names they read from `app.report_pdf`); document.py the page and its building blocks,
comparison.py the sections of a comparison's report, side_by_side.py the side-by-side report.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime

from app import settings, share_link
from app.chart_export import (  # noqa: F401  (re-exported for callers of the report)
    CHART_WIDTH_PX,
    ChartsUnavailable,
    ReportError,
    _chart_glyphs,
    _charts_note,
    _font_files,
    chart_svgs,
    charts_available,
    chromium_path,
    figure_svgs,
    print_figure,
    svg_for_pdf,
)
from app.kinds import words
from app.report_pdf.comparison import ComparisonDocument
from app.report_pdf.document import (  # noqa: F401  (re-exported for callers of the report)
    LOCAL_LINK_NOTE,
    MAX_TITLE_CHARS,
    plain,
)
from app.report_pdf.side_by_side import (
    SideBySideDocument,
    side_by_side_figure,
    side_by_side_title,
)
from pricing.results import Comparison
from pricing.side_by_side import SideBySide


@dataclass(frozen=True)
class Report:
    """A built report: the PDF, its page count, whether the charts are in and, if not, why."""

    data: bytes
    pages: int
    charts: bool
    charts_note: str = ""


def default_title(c: Comparison) -> str:
    return words(c.scenario).title(c)


def catalogue_date(c: Comparison) -> str:
    """The newest `as_of` among the comparison's assumptions and the catalogue it was made with."""
    dates = {a.as_of for a in c.assumptions} | {c.catalogue_as_of}
    return max(
        (d[:10] for d in dates if re.fullmatch(r"\d{4}-\d{2}-\d{2}.*", d)), default="unknown"
    )


def default_link(c: Comparison, base_url: str | None = None) -> str | None:
    """The share link that reopens the comparison's scenario at `base_url`, by default the portal's
    configured address (app/settings.py base_url); None if none can be made."""
    try:
        return share_link.link_url(c.scenario, base_url or settings.base_url())
    except (share_link.LinkError, ValueError):
        return None


def build_pdf(
    c: Comparison,
    *,
    link: str | None = None,
    title: str | None = None,
    generated: datetime | None = None,
) -> bytes:
    """The report as PDF bytes (the same bytes for the same input and `generated`).

    `link` is printed as the way to reopen the scenario; None makes one with the default portal
    address (`default_link`), "" leaves it out. `title` (user text, never markup) defaults to a
    summary like "Llama 3 70B on 1,024 × H100-SXM"; `generated` defaults to now (UTC)."""
    return build_report(c, link=link, title=title, generated=generated).data


def build_report(
    c: Comparison,
    *,
    link: str | None = None,
    title: str | None = None,
    generated: datetime | None = None,
) -> Report:
    """`build_pdf`, with the page count and whether the charts are in."""
    generated = (generated or datetime.now(UTC)).astimezone(UTC).replace(microsecond=0)
    if link is None:
        link = default_link(c)
    svgs, note = {}, ""
    if charts_available():
        try:
            svgs = {k: svg_for_pdf(v) for k, v in chart_svgs(c).items()}
        except ChartsUnavailable:
            svgs = {}
    if not svgs:
        note = _charts_note()
    pdf = ComparisonDocument(
        c,
        title=plain(title) if title else default_title(c),
        link=link,
        generated=generated,
        catalogue=catalogue_date(c),
    )
    pdf.write_all(svgs, note)
    return Report(bytes(pdf.output()), pdf.pages_count, bool(svgs), note)


def build_side_by_side_report(
    sbs: SideBySide,
    comparisons: list[Comparison],
    *,
    link: str | None = "",
    title: str | None = None,
    generated: datetime | None = None,
) -> Report:
    """The PDF of 2-3 named scenarios side by side (pricing/side_by_side.py): each scenario and
    what its comparison recommends, the table the portal and `clusterplan compare A B` show
    (app/side_by_side.py), the cumulative cost curves on one chart (app/charts/side_by_side.py) and
    per scenario the monthly numbers behind them, and the share link that reopens the set.
    `comparisons` are the scenarios' own, in the same order (the assumptions and dates)."""
    generated = (generated or datetime.now(UTC)).astimezone(UTC).replace(microsecond=0)
    svg, note = None, ""
    if charts_available():
        try:
            svg = svg_for_pdf(figure_svgs([side_by_side_figure(sbs)])[0])
        except ChartsUnavailable:
            svg = None
    if svg is None:
        note = _charts_note()
    pdf = SideBySideDocument(
        comparisons[0],
        title=plain(title) if title else plain(side_by_side_title(sbs)),
        link=link,
        generated=generated,
        catalogue=max(catalogue_date(c) for c in comparisons),
    )
    pdf.sbs, pdf.comparisons = sbs, comparisons
    pdf.write_side_by_side(svg, note)
    return Report(bytes(pdf.output()), pdf.pages_count, svg is not None, note)

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
"""

from __future__ import annotations

import io
import re
import unicodedata
from dataclasses import dataclass
from datetime import UTC, datetime

from fpdf import FPDF
from fpdf.enums import XPos, YPos

from app import settings, share_link
from app import side_by_side as sbs_text
from app.assumption_labels import overrides_line
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
from app.charts.common import CATEGORY_COLORS, HEIGHT_PX
from app.charts.side_by_side import side_by_side_cost
from app.formatting import (
    band,
    days,
    deadline_miss,
    on_day,
    pct,
    sentence,
    si,
    training_run_subject,
    training_run_text,
    usd,
    usd_rate,
)
from app.recommendation_text import recommendation_text
from app.report_text import (
    accuracy_line,
    after_tax_line,
    capacity_rows,
    chargeback_rows,
    deadline_sizing_line,
    delay_notes,
    delay_rows,
    execution_text,
    gpu_hours,
    monthly_capacity_rows,
    refresh_lines,
)
from pricing import freshness, price_checks
from pricing.results import Comparison, OptionResult
from pricing.side_by_side import SideBySide

MAX_TITLE_CHARS = 200
MUTED, INK, ACCENT, RULE = (107, 114, 128), (38, 39, 48), (0, 114, 178), (229, 231, 235)
WARN = (180, 83, 9)


@dataclass(frozen=True)
class Report:
    """A built report: the PDF, its page count, whether the charts are in and, if not, why."""

    data: bytes
    pages: int
    charts: bool
    charts_note: str = ""


def plain(text: object, limit: int = MAX_TITLE_CHARS) -> str:
    """User text as one printable line: control and format characters become spaces, runs of
    space collapse, and it is clipped. Nothing in it is interpreted."""
    clean = "".join(" " if unicodedata.category(ch)[0] == "C" else ch for ch in str(text))
    clean = " ".join(clean.split())
    return clean if len(clean) <= limit else clean[: limit - 1] + "…"


def default_title(c: Comparison) -> str:
    t = c.training
    if c.portfolio is not None:
        return f"Portfolio of {len(c.scenario.workloads)} workloads on {c.scenario.cluster.gpu}"
    return f"{t.model} on {t.gpus:,} × {t.gpu}"


def catalogue_date(c: Comparison) -> str:
    """The newest `as_of` among the comparison's assumptions and the catalogue it was made with."""
    dates = {a.as_of for a in c.assumptions} | {c.catalogue_as_of}
    return max(
        (d[:10] for d in dates if re.fullmatch(r"\d{4}-\d{2}-\d{2}.*", d)), default="unknown"
    )


#: printed under a share link that only opens on the computer that made the PDF
LOCAL_LINK_NOTE = (
    "This is a local address: it opens only where the portal runs on this computer. Set "
    f"{settings.ENV_BASE_URL} (or base_url in .streamlit/secrets.toml) to the portal's public "
    "address to share the PDF."
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
    pdf = _Document(
        c,
        title=plain(title) if title else default_title(c),
        link=link,
        generated=generated,
        catalogue=catalogue_date(c),
    )
    pdf.write_all(svgs, note)
    return Report(bytes(pdf.output()), pdf.pages_count, bool(svgs), note)


# -------------------------------------------------------------------------------------- layout


def _result(c: Comparison, option_id: str | None) -> OptionResult | None:
    """The engine's result for an option the recommendation names (None when it names none)."""
    return c.option(option_id) if option_id is not None else None


def _num(v: float | None) -> str:
    if v is None:
        return "n/a"
    a = abs(v)
    text = f"{v:,.0f}" if a >= 1000 else f"{v:,.3f}" if a >= 1 else f"{v:.4g}"
    return text.rstrip("0").rstrip(".") if "." in text and "e" not in text else text


def _safe_link(url: str) -> bool:
    return url.lower().startswith(("https://", "http://"))


class _Document(FPDF):
    """A4 portrait, 15 mm margins, DejaVu text; the page furniture is drawn once all pages exist."""

    def __init__(
        self, c: Comparison, *, title: str, link: str | None, generated: datetime, catalogue: str
    ) -> None:
        super().__init__(orientation="P", unit="mm", format="A4")
        self.c, self.report_title, self.share_url = c, title, link
        self.stamp, self.catalogue = generated.strftime("%Y-%m-%d %H:%M UTC"), catalogue
        fonts = _font_files()
        self.add_font("DejaVu", "", fonts["body"])
        self.add_font("DejaVu", "B", fonts["bold"])
        # plotly's font stack starts with "Inter": chart text resolves to the chart font
        self.add_font("Inter", "", fonts["chart"])
        self.add_font("Inter", "B", fonts["chart_bold"])
        self.alias_nb_pages(None)  # "page N of M" is written at the end; "{nb}" in user text stays
        self.set_margins(15, 16, 15)
        self.set_auto_page_break(True, margin=17)
        self.set_creation_date(generated)
        self.set_title(title)
        self.set_creator("GPU Cluster Planner")
        self.set_lang("en")
        self.set_draw_color(*RULE)
        self.set_line_width(0.2)

    # ---- building blocks
    def text_block(self, text: str, size: float = 9, color=INK, style: str = "", **kw) -> None:
        self.set_font("DejaVu", style, size)
        self.set_text_color(*color)
        self.multi_cell(0, size * 0.47, text, align="L", new_x=XPos.LMARGIN, new_y=YPos.NEXT, **kw)

    def heading(self, text: str, size: float = 12, before: float = 5) -> None:
        if self.get_y() + 30 > self.page_break_trigger:
            self.add_page()
        else:
            self.ln(before)
        self.text_block(text, size, INK, "B")
        self.ln(1.2)

    def wrap(self, text: str, width: float) -> list[str]:
        """Greedy word wrap at the current font; a word wider than the column (a URL) is split."""
        if self.get_string_width(text) <= width:
            return [text]
        lines, line = [], ""
        for word in text.split(" "):
            trial = f"{line} {word}" if line else word
            if self.get_string_width(trial) <= width:
                line = trial
                continue
            if line:
                lines.append(line)
            line = word
            while self.get_string_width(line) > width and len(line) > 1:
                cut = next(
                    i
                    for i in range(len(line) - 1, 0, -1)
                    if i == 1 or self.get_string_width(line[:i]) <= width
                )
                soft = max(line.rfind(ch, 0, cut) for ch in "_/-.?&=")  # break after one if near
                cut = soft + 1 if soft >= cut - 12 and soft > 0 else cut
                lines.append(line[:cut])
                line = line[cut:]
        return [*lines, line] if line or not lines else lines

    def grid(
        self,
        rows: list[list[str]],
        widths: tuple,
        align: tuple,
        size: float = 7.8,
        header: bool = True,
    ) -> None:
        """A table of plain text (never markup), wrapped within each column, alternate rows
        shaded, the header row bold and repeated after a page break."""
        widths = [w * self.epw / sum(widths) for w in widths]
        pad, lh = 1.2, size * 0.46
        head = None
        for i, row in enumerate(rows):
            bold = header and i == 0
            self.set_font("DejaVu", "B" if bold else "", size)
            cells = [self.wrap(str(text), w - 2 * pad) for text, w in zip(row, widths, strict=True)]
            h = max(map(len, cells)) * lh + 1.8
            if self.get_y() + h > self.page_break_trigger:
                self.add_page()
                if head is not None:
                    self.set_font("DejaVu", "B", size)
                    self.grid_row(*head)
                    self.set_font("DejaVu", "", size)
            fill = (
                (243, 244, 246)
                if bold
                else (249, 250, 251)
                if i % 2 == (0 if header else 1)
                else None
            )
            self.grid_row(cells, widths, align, h, fill)
            if bold:
                head = (cells, widths, align, h, fill)
        self.ln(1.5)

    def grid_row(self, cells, widths, align, h, fill) -> None:
        x, y = self.l_margin, self.get_y()
        if fill:
            self.set_fill_color(*fill)
            self.rect(x, y, self.epw, h, style="F")
        self.set_text_color(*INK)
        lh = self.font_size_pt * 0.46
        for lines, w, al in zip(cells, widths, align, strict=True):
            for k, line in enumerate(lines):
                self.set_xy(x + 1.2, y + 0.9 + k * lh)
                self.cell(w - 2.4, lh, line, align=al[0])
            x += w
        self.line(self.l_margin, y + h, self.l_margin + self.epw, y + h)
        self.set_xy(self.l_margin, y + h)

    def caption(self, text: str) -> None:
        self.text_block(text, 7.5, MUTED)

    # ---- the report
    def write_all(self, svgs: dict[str, bytes], note: str) -> None:
        capacity = {k: v for k, v in svgs.items() if k.startswith("capacity:")}
        svgs = {k: v for k, v in svgs.items() if k not in capacity}
        self.add_page()
        self.cover()
        self.add_page()
        self.heading("Charts", before=0)
        if svgs:
            self.draw_charts(svgs)
        else:
            self.text_block(note, 10, WARN, "B")
        if self.c.portfolio is not None:
            self.demand_capacity(capacity, note)
        self.numbers()
        self.assumptions()
        self.furniture()

    def cover(self) -> None:
        c, t = self.c, self.c.training
        self.text_block("GPU CLUSTER COMPARISON", 8, MUTED, "B")
        self.ln(1)
        self.text_block(self.report_title, 18, INK, "B")
        rate = next((a.value for a in c.assumptions if a.key == "discount_rate_pct_per_year"), None)
        months = c.scenario.term.months
        self.text_block(
            f"Generated {self.stamp} · prices and figures as of {self.catalogue} · term "
            f"{months} months" + (f", NPV at {rate:g} % a year" if rate is not None else ""),
            8.5,
            MUTED,
        )
        if line := overrides_line(c.scenario.overrides, {a.key: a.unit for a in c.assumptions}):
            self.text_block(plain(line, 600), 8.5, WARN)  # the line every portal page shows
        self.ln(4)
        self.recommendation()
        self.stale_prices()
        self.heading("Scenario", 11)
        self.grid(self.scenario_rows(), (34, 146), ("LEFT", "LEFT"), 8, header=False)
        self.heading("Totals over the term", 11)
        rows = [
            [
                "Option",
                "Total (nominal)",
                "NPV",
                "$ per GPU-hour",
                "$ per training run",
                "Ready",
                "First result",
                "Residual value",
            ]
        ]
        for o in c.options:
            ok = o.available
            rows.append(
                [
                    o.label,
                    usd(o.total_usd) if ok else "n/a",
                    usd(o.npv_usd) if ok else "n/a",
                    usd_rate(o.usd_per_gpu_hour),
                    usd(o.usd_per_training_run),
                    on_day(o.ready_day) if ok else "n/a",
                    on_day(o.first_result_day),
                    usd(o.residual_value_usd) if o.residual_value_usd else "-",
                ]
            )
        self.grid(rows, (30, 23, 21, 20, 23, 20, 21, 22), ("LEFT",) + ("RIGHT",) * 7)
        self.caption(after_tax_line(c))
        for o in c.options:
            if not o.completes_workload or not o.available:
                self.caption(f"{o.label}: {o.note}")
        for o in c.options:
            if o.meets_deadline is False:
                deadline = c.scenario.cluster.deadline_days
                self.caption(
                    deadline_miss(o.label, deadline, o.first_result_day, o.days_past_deadline) + "."
                )
        for line in deadline_sizing_line(c):
            self.caption(line + ".")
        self.caption(
            "Totals are sums of monthly cash flows over the term; NPV discounts each month. "
            f"$ per GPU-hour divides the total by the GPU-hours of work done. "
            f"{sentence(training_run_subject(c))}: "
            f"{days(t.train_days)}{band(t.train_days_low, t.train_days_high)}; "
            "the band comes from the model's errors against published runs."
        )
        self.caption(accuracy_line() + ".")
        self.reopen_link(
            "Reopen this scenario",
            "This link opens the same scenario in the planner's portal:",
            "No share link could be made for this scenario.",
        )

    def reopen_link(self, heading: str, intro: str, missing: str) -> None:
        """The share link under `heading`, clickable when safe, with the note when it is local."""
        self.heading(heading, 11)
        if not self.share_url:
            self.caption(missing)
            return
        self.caption(intro)
        if settings.is_local(self.share_url):
            self.caption(LOCAL_LINK_NOTE)
        self.text_block(
            self.share_url,
            7.5,
            ACCENT,
            wrapmode="CHAR",
            link=self.share_url if _safe_link(self.share_url) else "",
        )

    def recommendation(self) -> None:
        c, rec = self.c, self.c.recommendation
        best = _result(c, rec.option)
        fastest = _result(c, rec.fastest_option)
        y0 = self.get_y()
        self.set_fill_color(239, 246, 251)
        title = f"Recommendation: {rec.label or 'none'}"
        self.text_block(title, 12.5, INK, "B", fill=True, padding=(3, 4, 1, 5))
        why = sentence(recommendation_text(rec)) + "."
        self.text_block(why, 9.5, INK, fill=True, padding=(0.5, 4, 1.5, 5))
        lines = []
        if best:
            lines.append(
                f"Cheapest over the term: {best.label}, NPV {usd(best.npv_usd)}, "
                f"nominal {usd(best.total_usd)}."
            )
        if fastest and fastest.first_result_day is not None:
            lines.append(
                f"Fastest to first result: {fastest.label}, first run done on "
                f"{on_day(fastest.first_result_day)}."
            )
        self.text_block("\n".join(lines) or " ", 8.5, MUTED, fill=True, padding=(0.5, 4, 3, 5))
        self.set_fill_color(*ACCENT)
        self.rect(self.l_margin, y0, 1.4, self.get_y() - y0, style="F")
        self.set_fill_color(255, 255, 255)

    def stale_prices(self) -> None:
        """Under the recommendation: the prices it depends on that are over a year older than the
        catalogue, and the planner defaults it leans on (pricing/freshness.py)."""
        c = self.c
        if c.stale_prices:
            self.ln(2)
            self.text_block(
                f"Prices older than 12 months (catalogue as of {plain(c.catalogue_as_of)}):",
                9,
                WARN,
                "B",
            )
            for p in c.stale_prices:
                self.text_block(f"• {plain(freshness.stale_line(p), 600)}", 8.5)
        if c.planner_defaults:
            self.ln(1)
            self.caption(plain(freshness.planner_defaults_line(c), 600))
        if c.price_inversions:
            self.ln(2)
            self.text_block(f"{plain(price_checks.INVERSIONS_HEADING, 600)}:", 9, WARN, "B")
            for p in c.price_inversions:
                self.text_block(f"• {plain(price_checks.inversion_line(p), 600)}", 8.5)

    def scenario_rows(self) -> list[list[str]]:
        s, t = self.c.scenario, self.c.training
        w, cl, u, term, opts = s.workload, s.cluster, s.usage, s.term, s.options
        lay = t.layout
        labels = {o.option: o.label for o in self.c.options}
        work = [t.model, f"{si(w.tokens)} tokens", f"sequence {w.seq_len:,}", w.precision.upper()]
        cluster = f"{t.gpus:,} × {t.gpu} ({t.nodes:,} nodes)"
        if cl.deadline_days:
            cluster += f", deadline {cl.deadline_days:g} days"
        usage = (
            f"{u.runs:g} training runs over the term"
            if u.mode == "runs"
            else f"{u.utilisation_pct:g} % utilisation"
        )
        fin = term.financing + (
            f" over {term.loan_years} years" if term.financing != "cash" else ""
        )
        if s.is_portfolio:
            teams = len({x.team for x in s.workloads})
            work = [
                f"{len(s.workloads)} workloads, {teams} team{'s' if teams != 1 else ''}",
                *(f"{x.name} ({x.kind}, {x.team})" for x in s.workloads[:12]),
            ] + ([f"{len(s.workloads) - 12} more"] if len(s.workloads) > 12 else [])
            cluster = f"{t.gpu}; " + (
                f"{cl.gpus:,} GPUs on the fixed-size options"
                if cl.gpus
                else "each option's size from its capacity plan (Demand and capacity)"
            )
            usage = (
                f"{gpu_hours(self.c.portfolio.demanded_gpu_hours)} GPU-hours over the term, "
                f"peak {max(self.c.portfolio.peak_gpus, default=0):,.0f} GPUs"
            )
        rows = [
            ["Workloads" if s.is_portfolio else "Workload", " · ".join(work)],
            ["Cluster", cluster],
            ["Execution plan", execution_text(s.execution)],
            [
                "Training",
                training_run_text(self.c)
                + f"; layout TP {lay.tp}{f' · CP {lay.cp}' if lay.cp > 1 else ''} · PP {lay.pp} · DP {lay.dp}; "
                + f"MFU {pct(t.mfu, 1)}",
            ],
            ["Demand" if s.is_portfolio else "Usage", usage],
            ["Term", f"{term.months} months, financing: {fin}"],
            ["Facility (build)", opts.facility],
            ["Options compared", ", ".join(labels.get(o, o) for o in opts.compare)],
            [
                "Your overrides",
                ", ".join(
                    f"{k} = {_num(v) if isinstance(v, int | float) else v}"
                    for k, v in sorted(s.overrides.items())
                )
                or "none",
            ],
        ]
        return [[k, plain(v, 600)] for k, v in rows]

    def draw_charts(self, svgs: dict[str, bytes]) -> None:
        for svg in svgs.values():
            size = re.search(rb'<svg[^>]*?width="([\d.]+)"[^>]*?height="([\d.]+)"', svg)
            w_px, h_px = (float(size[1]), float(size[2])) if size else (CHART_WIDTH_PX, HEIGHT_PX)
            w = self.epw
            h = w * h_px / w_px
            if self.get_y() + h > self.page_break_trigger:
                self.add_page()
            self.image(io.BytesIO(svg), x=self.l_margin, y=self.get_y(), w=w, h=h)
            self.current_font_is_set_on_page = False  # the chart's text changed fonts
            self.set_y(self.get_y() + h + 3)

    def demand_capacity(self, svgs: dict[str, bytes], note: str) -> None:
        """A portfolio's demand against each option's capacity plan: the tables `clusterplan
        compare` prints (app/report_text.py) and a chart per option (app.charts.portfolio)."""
        c = self.c
        self.heading("Demand and capacity")
        p = c.portfolio
        self.caption(
            f"The portfolio asks for {gpu_hours(p.demanded_gpu_hours)} GPU-hours over the term, "
            f"at most {max(p.peak_gpus, default=0):,.0f} GPUs at once. Each option serves it on "
            "its own capacity plan; work not started by the term end is queued, work started "
            "and finishing after it is beyond the term, capacity held and not working is idle."
        )
        rows = capacity_rows(c)
        self.heading("GPU-hours over the term", 10, 2)
        self.grid(rows, (30, 18, 22, 22, 20, 20, 22), ("LEFT",) + ("RIGHT",) * 6)
        for o in c.options:
            if o.available and o.capacity_rule:
                self.caption(f"{o.label}: {plain(o.capacity_rule, 400)}.")
            if o.available and o.hardware_refreshes:
                self.caption(f"{o.label}, hardware refresh: {'; '.join(refresh_lines(o))}.")
        rows = delay_rows(c)
        n = len(rows[0]) - 3
        self.heading("Delay per workload", 10)
        self.caption(
            "Days each workload's work waited for capacity: the longest and the mean (a run's "
            "start less its release; steady work weighted by its GPU-hours)."
        )
        self.grid(
            [[plain(x, 60) for x in r] for r in rows],
            (30, 20, 16, *(114 / max(n, 1),) * n),
            ("LEFT", "LEFT", "LEFT") + ("RIGHT",) * n,
            7.4,
        )
        for line in delay_notes(c):
            self.caption(plain(line, 400) + ".")
        rows = chargeback_rows(c)
        n = len(rows[0]) - 1
        self.heading("Chargeback by team", 10)
        self.caption(
            "Each team's share of an option's total cost (nominal): the total times the team's "
            "share of the GPU-hours served; idle capacity is shared in the same proportion."
        )
        self.grid(
            [[plain(x, 60) for x in r] for r in rows],
            (34, *(146 / max(n, 1),) * n),
            ("LEFT",) + ("RIGHT",) * n,
        )
        self.heading("Monthly capacity against demand", 10)
        if svgs:
            self.draw_charts(svgs)
        elif note:
            self.caption(note)
        rows = monthly_capacity_rows(c)
        n = len(rows[0]) - 2
        self.caption("GPU-hours demanded each month and the GPUs each option holds.")
        self.grid(
            rows,
            (14, 28, *(138 / max(n, 1),) * n),
            ("RIGHT",) * (n + 2),
            7.2,
        )

    def numbers(self) -> None:
        c = self.c
        live = [o for o in c.options if o.available]
        self.heading("The numbers behind the charts")
        self.caption("Nominal USD unless marked NPV; days count from the start of the term.")
        if live:
            self.heading("Cumulative cost at the end of each month", 10, 2)
            share = 150 / len(live)
            rows = [["Month", *(o.label for o in live)]]
            rows += [
                [str(m + 1), *(usd(o.cumulative_usd[m]) for o in live)]
                for m in range(len(live[0].cumulative_usd))
            ]
            self.grid(rows, (30, *(share,) * len(live)), ("RIGHT",) * (len(live) + 1), 7.2)
            cats = list(
                dict.fromkeys(
                    [k for k in CATEGORY_COLORS if any(k in o.breakdown_usd for o in live)]
                    + [k for o in live for k in o.breakdown_usd]
                )
            )
            self.heading("Cost breakdown by category over the term", 10)
            rows = [["Category", *(o.label for o in live)]]
            rows += [
                [k, *(usd(o.breakdown_usd[k]) if k in o.breakdown_usd else "-" for o in live)]
                for k in cats
            ]
            rows.append(["Total", *(usd(o.total_usd) for o in live)])
            self.grid(rows, (30, *(share,) * len(live)), ("LEFT",) + ("RIGHT",) * len(live))
            self.heading("Provisioning and time to first result", 10)
            run = "Longest run" if c.portfolio is not None else "One run"
            rows = [["Option", "Ready", run, "First result", "Phases (start and end day)"]]
            for o in live:
                phases = "; ".join(
                    f"{p.phase} {p.start_day:,.0f}–{p.end_day:,.0f}" for p in o.timeline
                )
                rows.append(
                    [
                        o.label,
                        on_day(o.ready_day),
                        days(o.train_days),
                        on_day(o.first_result_day),
                        phases,
                    ]
                )
            self.grid(rows, (28, 18, 18, 22, 94), ("LEFT", "RIGHT", "RIGHT", "RIGHT", "LEFT"))
        curve = c.training.curve
        if curve:
            self.heading("Training time against GPU count", 10)
            rows = [
                [
                    "GPUs",
                    "Step (s)",
                    "MFU",
                    "Ideal",
                    "With failures",
                    "GPU-hours",
                    "Scaling efficiency",
                ]
            ]
            for p in curve:
                mark = " (chosen)" if p.gpus == c.training.gpus else ""
                rows.append(
                    [
                        f"{p.gpus:,}{mark}",
                        f"{p.step_time_s:.2f}",
                        pct(p.mfu, 1),
                        days(p.ideal_days),
                        days(p.train_days),
                        si(p.gpu_hours),
                        pct(p.scaling_efficiency),
                    ]
                )
            self.grid(rows, (30, 20, 20, 24, 30, 26, 30), ("LEFT",) + ("RIGHT",) * 6)
        self.decision()

    def decision(self) -> None:
        c = self.c
        labels = {o.option: o.label for o in c.options}
        s = c.sensitivity
        if s is not None and s.bars:
            a, b = labels.get(s.cheapest, s.cheapest), labels.get(s.runner_up, s.runner_up)
            swing = round(100 * s.swing)
            self.heading("Sensitivity of the recommendation", 10)
            self.caption(
                f"NPV of {b} minus NPV of {a} (today {usd(s.base_gap_usd)}) with each input "
                f"{swing} % lower or higher; below zero, {b} becomes the cheaper."
            )
            rows = [["Input", "Value now", f"Gap at −{swing} %", f"Gap at +{swing} %"]]
            rows += [
                [
                    bar.label,
                    f"{_num(bar.base_value)} {bar.unit}",
                    usd(bar.gap_low_usd),
                    usd(bar.gap_high_usd),
                ]
                for bar in s.bars
            ]
            self.grid(rows, (70, 40, 35, 35), ("LEFT", "RIGHT", "RIGHT", "RIGHT"))
        u = c.uncertainty
        if u is not None and u.options:
            self.heading("Uncertainty of the cost", 10)
            self.caption(
                f"NPV over the term across {u.draws:,} random draws of the uncertain inputs."
            )
            rows = [["Option", "P10", "Median", "P90", "Cheapest in", "Completes in"]]
            for key, q in u.options.items():
                rows.append(
                    [
                        labels.get(key, key),
                        usd(q.p10_usd),
                        usd(q.p50_usd),
                        usd(q.p90_usd),
                        pct(q.probability_cheapest),
                        pct(q.probability_completes),
                    ]
                )
            self.grid(rows, (40, 28, 28, 28, 28, 28), ("LEFT",) + ("RIGHT",) * 5)
        if c.flip_points:
            self.heading("Flip points (where the cheapest option changes)", 10)
            for f in c.flip_points:
                self.text_block(f"• {f.text}", 8.5)

    def assumptions(self) -> None:
        self.heading("Assumptions and their sources")
        self.caption(
            "Every figure the comparison used, with its source and the date the source gives "
            "(blank for figures derived from other rows or taken from the scenario)."
        )
        rows = [["Figure", "Value", "Unit", "Source", "As of"]]
        for a in self.c.assumptions:
            value = _num(a.value) + (" (yours)" if a.overridden else "")
            rows.append([a.key, value, a.unit, a.source, a.as_of])
        self.grid(
            rows, (44, 17, 25, 76, 18), ("LEFT", "RIGHT", "LEFT", "LEFT", "LEFT"), 7, header=True
        )

    def furniture(self) -> None:
        """Running title and footer on every page, now that the page count is known."""
        total = self.pages_count
        self.set_auto_page_break(False)
        for n in range(1, total + 1):
            self.page = n
            self.set_font("DejaVu", "", 7)
            self.current_font_is_set_on_page = False  # this page's stream needs its own Tf
            self.set_text_color(*MUTED)
            if n > 1:
                self.set_xy(self.l_margin, 7)
                self.cell(self.epw, 4, plain(self.report_title, 110), align="L")
            self.set_xy(self.l_margin, self.h - 11)
            self.cell(
                self.epw * 0.8,
                4,
                f"GPU Cluster Planner · generated {self.stamp} · catalogue as of {self.catalogue}",
                align="L",
            )
            self.cell(self.epw * 0.2, 4, f"page {n} of {total}", align="R")
        self.page = total


# ------------------------------------------------------------------------------ side by side


def side_by_side_title(sbs: SideBySide) -> str:
    return "Side by side: " + " vs ".join(s.name for s in sbs.scenarios)


def side_by_side_figure(sbs: SideBySide):
    """The side-by-side PDF's chart (app/charts/side_by_side.py side_by_side_cost) laid out for
    print: its legend of one entry per scenario and option, two a row, below the plot."""
    fig = side_by_side_cost(sbs)
    rows = -(-sum(o.available for s in sbs.scenarios for o in s.options) // 2)
    fig.update_layout(
        legend={"orientation": "h", "yref": "container", "y": 0, "yanchor": "bottom", "x": 0},
        height=HEIGHT_PX + 40 + 18 * rows,
    )
    return print_figure(fig)


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
    pdf = _SideBySideDocument(
        comparisons[0],
        title=plain(title) if title else plain(side_by_side_title(sbs)),
        link=link,
        generated=generated,
        catalogue=max(catalogue_date(c) for c in comparisons),
    )
    pdf.sbs, pdf.comparisons = sbs, comparisons
    pdf.write_side_by_side(svg, note)
    return Report(bytes(pdf.output()), pdf.pages_count, svg is not None, note)


class _SideBySideDocument(_Document):
    sbs: SideBySide
    comparisons: list[Comparison]

    def write_side_by_side(self, svg: bytes | None, note: str) -> None:
        sbs = self.sbs
        self.add_page()
        self.text_block("GPU CLUSTER COMPARISON · SIDE BY SIDE", 8, MUTED, "B")
        self.ln(1)
        self.text_block(self.report_title, 18, INK, "B")
        self.text_block(
            f"Generated {self.stamp} · prices and figures as of {self.catalogue}", 8.5, MUTED
        )
        self.heading("Scenarios", 11)
        for s in sbs.scenarios:
            self.text_block(f"• {plain(sbs_text.scenario_line(s), 600)}", 9)
        self.heading("Side by side", 11)
        rows = [[plain(x, 80) for x in r] for r in sbs_text.table_rows(sbs, grouped=True)]
        self.grid(rows, (24, 38, 22, 22, 17, 20, 24), ("LEFT", "LEFT") + ("RIGHT",) * 5)
        self.caption(
            "Totals and NPV over each scenario's term (nominal USD; NPV discounted at each "
            "scenario's rate). Ready: the day the cluster is ready, counted from the decision; "
            f"{sbs_text.days_note(sbs)}; $ per delivered GPU-hour divides the total by "
            "the GPU-hours of work done. Every figure is the scenario's own comparison's."
        )
        self.add_page()  # the chart is most of a page: it starts one, with its heading
        self.heading("Cumulative cost over the term", before=0)
        if svg is not None:
            self.draw_charts({"side_by_side": svg})
        else:
            self.text_block(note, 10, WARN, "B")
        for s in sbs.scenarios:
            live = [o for o in s.options if o.available]
            if not live:
                continue
            self.heading(f"{plain(s.name, 80)}: cumulative cost at the end of each month", 10)
            rows = [["Month", *(o.label for o in live)]]
            rows += [
                [str(m + 1), *(usd(o.cumulative_usd[m]) for o in live)]
                for m in range(len(live[0].cumulative_usd))
            ]
            share = 150 / len(live)
            self.grid(rows, (30, *(share,) * len(live)), ("RIGHT",) * (len(live) + 1), 7.2)
        self.reopen_link(
            "Reopen these scenarios",
            "This link opens the planner with these scenarios saved, on the Side by side page:",
            "No share link was given for these scenarios.",
        )
        self.furniture()

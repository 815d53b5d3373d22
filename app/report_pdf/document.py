"""The PDF's page and its building blocks (app/report_pdf/): A4 portrait with fpdf2, DejaVu text,
blocks of text, headings, tables of plain text wrapped in their columns, charts drawn from SVG, the
share link that reopens a scenario, and the running title and footer of every page. The
comparison's sections (comparison.py) and the side-by-side report (side_by_side.py) are built
from these. Text from the user goes into plain cells: it is never read as markup."""

from __future__ import annotations

import io
import re
import unicodedata
from datetime import datetime

from fpdf import FPDF
from fpdf.enums import XPos, YPos

from app import settings
from app.chart_export import CHART_WIDTH_PX, _font_files
from app.charts.common import HEIGHT_PX
from pricing.results import Comparison

MAX_TITLE_CHARS = 200
MUTED, INK, ACCENT, RULE = (107, 114, 128), (38, 39, 48), (0, 114, 178), (229, 231, 235)
WARN = (180, 83, 9)


def plain(text: object, limit: int = MAX_TITLE_CHARS) -> str:
    """User text as one printable line: control and format characters become spaces, runs of
    space collapse, and it is clipped. Nothing in it is interpreted."""
    clean = "".join(" " if unicodedata.category(ch)[0] == "C" else ch for ch in str(text))
    clean = " ".join(clean.split())
    return clean if len(clean) <= limit else clean[: limit - 1] + "…"


#: printed under a share link that only opens on the computer that made the PDF
LOCAL_LINK_NOTE = (
    "This is a local address: it opens only where the portal runs on this computer. Set "
    f"{settings.ENV_BASE_URL} (or base_url in .streamlit/secrets.toml) to the portal's public "
    "address to share the PDF."
)


def _safe_link(url: str) -> bool:
    return url.lower().startswith(("https://", "http://"))


class Document(FPDF):
    """A4 portrait, 15 mm margins, DejaVu text; the page furniture is drawn once all pages exist.
    The building blocks every report is made of."""

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

    def heading(self, text: str, size: float = 12, before: float = 5, keep: float = 30) -> None:
        """A section heading, on a new page unless `keep` mm (what must follow it on the same
        page: a chart's height, a table's first rows) fits below it: never alone at a page's
        foot."""
        if self.get_y() + keep > self.page_break_trigger:
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

    def chart_height(self, svg: bytes) -> float:
        """The height, mm, a chart is drawn at across the page's width."""
        size = re.search(rb'<svg[^>]*?width="([\d.]+)"[^>]*?height="([\d.]+)"', svg)
        w_px, h_px = (float(size[1]), float(size[2])) if size else (CHART_WIDTH_PX, HEIGHT_PX)
        return self.epw * h_px / w_px

    def draw_charts(self, svgs: dict[str, bytes]) -> None:
        for svg in svgs.values():
            w = self.epw
            h = self.chart_height(svg)
            if self.get_y() + h > self.page_break_trigger:
                self.add_page()
            self.image(io.BytesIO(svg), x=self.l_margin, y=self.get_y(), w=w, h=h)
            self.current_font_is_set_on_page = False  # the chart's text changed fonts
            self.set_y(self.get_y() + h + 3)

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

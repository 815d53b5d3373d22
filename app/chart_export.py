"""Charts for print: kaleido drives one headless Chromium per process (Debian's /usr/bin/chromium,
started on first use on its own event-loop thread, `mathjax=False` so nothing is fetched) behind a
lock, so concurrent exports queue instead of interleaving. Each figure of `app.charts` comes back
as SVG and is tidied for fpdf2's SVG reader (`svg_for_pdf`); `print_figure` moves legends below
the plot and wraps subtitles for the page. Without Chromium, `charts_available()` is False and
`chart_svgs` raises ChartsUnavailable with the reason. No Streamlit here.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import functools
import logging
import os
import re
import shutil
import threading
import time
import xml.etree.ElementTree as ET
from pathlib import Path

from defusedxml.ElementTree import fromstring as parse_xml

from app.charts.common import HEIGHT_PX
from app.charts.compare import all_figures
from app.charts.portfolio import capacity_demand
from pricing.engine import Comparison

log = logging.getLogger(__name__)

FONT_DIRS = ("/usr/share/fonts/truetype/dejavu", "/usr/share/fonts/dejavu", "/usr/share/fonts/TTF")
CHART_FONT_DIRS = ("/usr/share/fonts/truetype/liberation", "/usr/share/fonts/liberation")
CHART_WIDTH_PX = 820
#: room kept clear at the right of a printed chart's title and subtitle (the template's margin.r)
TITLE_RIGHT_PX = 32
START_TIMEOUT_S, EXPORT_TIMEOUT_S, RETRY_AFTER_S = 60.0, 60.0, 300.0
TABS = 2  # browser tabs exporting at once: one renders while the other reloads
SVG = "http://www.w3.org/2000/svg"
ET.register_namespace("", SVG)
ET.register_namespace("xlink", "http://www.w3.org/1999/xlink")


class ChartsUnavailable(RuntimeError):
    """No charts this time; the message says why, in a few words."""


class ReportError(RuntimeError):
    """The report cannot be built on this machine (a font is missing)."""


# ------------------------------------------------------------------------------------- Chromium


def chromium_path() -> str | None:
    """The browser kaleido will use: $BROWSER_PATH if set (and there), else one on PATH."""
    if env := os.environ.get("BROWSER_PATH"):
        return env if Path(env).is_file() or shutil.which(env) else None
    names = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")
    return next((p for p in map(shutil.which, names) if p), None)


class _ChartServer:
    """One kaleido (one headless Chromium) for the process, used under `lock` only."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.error = ""
        self._kaleido = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._failed_at: float | None = None

    def failed_recently(self) -> bool:
        return self._failed_at is not None and time.monotonic() - self._failed_at < RETRY_AFTER_S

    def _call(self, coro, timeout: float):
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result(timeout)

    def _start(self) -> None:
        if self._kaleido is not None:
            return
        if self.failed_recently():
            raise ChartsUnavailable(self.error)
        path = chromium_path()
        if path is None:
            raise ChartsUnavailable("not found on this machine")
        import kaleido

        async def open_browser():
            k = kaleido.Kaleido(n=TABS, mathjax=False, path=path, timeout=EXPORT_TIMEOUT_S)
            await k.open()
            return k

        self._loop = asyncio.new_event_loop()
        threading.Thread(target=self._loop.run_forever, name="report-kaleido", daemon=True).start()
        try:
            self._kaleido = self._call(open_browser(), START_TIMEOUT_S)
        except Exception as exc:  # no browser, a browser that will not start, a timeout
            raise self._fail(f"{path} did not start: {_short(exc)}") from None
        self.error, self._failed_at = "", None
        atexit.register(self.stop)

    def _fail(self, reason: str) -> ChartsUnavailable:
        """Remember the failure (charts are off for RETRY_AFTER_S), close the browser."""
        self.error, self._failed_at = reason, time.monotonic()
        log.warning("PDF charts unavailable: %s", reason)
        self.stop()
        return ChartsUnavailable(reason)

    def stop(self) -> None:
        k, loop, self._kaleido, self._loop = self._kaleido, self._loop, None, None
        if loop is None:
            return
        if k is not None:
            with contextlib.suppress(Exception):  # closing a broken browser: nothing more to do
                asyncio.run_coroutine_threadsafe(k.close(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)

    def svgs(self, figures: list) -> list[bytes]:
        """Every figure as SVG, in order (starts the browser on first use)."""
        with self.lock:
            self._start()

            async def export():
                return await asyncio.gather(
                    *(
                        self._kaleido.calc_fig(
                            fig,
                            opts={
                                "format": "svg",
                                "width": CHART_WIDTH_PX,
                                "height": int(fig.layout.height or HEIGHT_PX),
                            },
                        )
                        for fig in figures
                    )
                )

            try:
                return self._call(export(), EXPORT_TIMEOUT_S)
            except Exception as exc:  # a crashed or hung browser: tables only, retry later
                raise self._fail(f"chart export failed: {_short(exc)}") from None


_SERVER = _ChartServer()


def _short(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= 120 else text[:119] + "…"


def charts_available(start: bool = True) -> bool:
    """Whether reports get charts: Chromium is there and kaleido works with it. With `start`
    (the default) the browser is started to find out, once per process; `start=False` answers
    at once from what is known (Chromium found, no recent failure). The answer is cached: a
    failure is retried after RETRY_AFTER_S."""
    if _SERVER.failed_recently() or chromium_path() is None:
        return False
    if not start:
        return True
    try:
        with _SERVER.lock:
            _SERVER._start()
    except ChartsUnavailable:
        return False
    return True


def _charts_note() -> str:
    why = _SERVER.error or (
        "not found on this machine" if chromium_path() is None else "not available to this report"
    )
    return f"Charts need Chromium ({why}); the tables below hold every number."


# -------------------------------------------------------------------------------- SVG for fpdf2


@functools.cache
def _font_files() -> dict[str, str]:
    """{"body", "bold", "chart", "chart_bold"}: DejaVu for text, Liberation Sans for charts
    (the metric twin of the Helvetica/Arial Chromium laid the charts out with) when present."""

    def find(dirs, name):
        return next((str(Path(d) / name) for d in dirs if (Path(d) / name).is_file()), None)

    body, bold = find(FONT_DIRS, "DejaVuSans.ttf"), find(FONT_DIRS, "DejaVuSans-Bold.ttf")
    if not body or not bold:
        raise ReportError("the PDF report needs the DejaVu Sans font (Debian: fonts-dejavu-core)")
    chart = find(CHART_FONT_DIRS, "LiberationSans-Regular.ttf")
    chart_bold = find(CHART_FONT_DIRS, "LiberationSans-Bold.ttf")
    if not chart or not chart_bold:
        chart, chart_bold = body, bold
    return {"body": body, "bold": bold, "chart": chart, "chart_bold": chart_bold}


@functools.cache
def _chart_glyphs() -> frozenset[int]:
    from fontTools.ttLib import TTFont

    return frozenset(TTFont(_font_files()["chart"], lazy=True).getBestCmap())


def _style(text: str) -> dict[str, str]:
    pairs = (part.split(":", 1) for part in text.split(";") if ":" in part)
    return {k.strip(): v.strip() for k, v in pairs}


def _number(text: str | None, default: float = 1.0) -> float:
    try:
        return float(str(text).removesuffix("px"))
    except (TypeError, ValueError):
        return default


def svg_for_pdf(svg: bytes) -> bytes:
    """Plotly's SVG, tidied for fpdf2's SVG reader: clip paths lifted to <defs> (nested ones are
    skipped), hatch patterns (unsupported) drawn as a pale fill of their colour, `opacity` folded
    into fill and stroke opacity (fpdf2 lets it override them), invisible fills and zero-width
    strokes dropped, dash lengths without "px", and text the chart font lacks (e.g. ◆) set in
    DejaVu, as Chromium's own font fallback did."""
    root = parse_xml(svg)
    patterns: dict[str, str] = {}
    defs = root.find(f"{{{SVG}}}defs")
    if defs is not None:
        for pat in defs.iter(f"{{{SVG}}}pattern"):
            stroke = next(
                (p.get("stroke") for p in pat.iter() if p.get("stroke")), "rgb(170, 170, 170)"
            )
            patterns[pat.get("id", "")] = stroke
        keep = [
            el
            for el in defs.iter()
            if el.tag
            in (f"{{{SVG}}}clipPath", f"{{{SVG}}}linearGradient", f"{{{SVG}}}radialGradient")
        ]
        for child in list(defs):
            defs.remove(child)
        defs.extend(keep)
    glyphs = _chart_glyphs()
    for el in root.iter():
        style = _style(el.get("style", ""))
        if not style:
            continue
        if "opacity" in style and not el.tag.endswith("}g"):
            op = _number(style.pop("opacity"))
            for key in ("fill-opacity", "stroke-opacity"):
                style[key] = f"{_number(style.get(key)) * op:g}"
        elif style.get("opacity") == "1":
            del style["opacity"]
        fill = re.fullmatch(r"url\(['\"]?#([^'\")]+)['\"]?\)", style.get("fill", ""))
        if fill and fill[1] in patterns:
            style["fill"], style["fill-opacity"] = patterns[fill[1]], "0.45"
        if _number(style.get("fill-opacity")) == 0:
            style["fill"] = "none"
        if _number(style.get("stroke-width")) == 0:
            style["stroke"] = "none"
        if "stroke-dasharray" in style:
            style["stroke-dasharray"] = style["stroke-dasharray"].replace("px", "")
        if el.tag == f"{{{SVG}}}text" and any(
            ord(ch) not in glyphs for ch in "".join(el.itertext())
        ):
            style["font-family"] = "DejaVu"
        el.set("style", "; ".join(f"{k}: {v}" for k, v in style.items()))
    return ET.tostring(root)


@functools.cache
def _metrics(path: str) -> tuple[dict[int, int], dict[str, tuple[int, int]], int]:
    """(character -> glyph name, glyph name -> (advance, lsb), units per em) of a font file."""
    from fontTools.ttLib import TTFont

    font = TTFont(path, lazy=True)
    return font.getBestCmap(), font["hmtx"].metrics, font["head"].unitsPerEm


def pdf_font(text: str) -> str:
    """The font file the PDF sets a chart text element in: the chart font, or DejaVu for the whole
    element when the chart font lacks one of its characters (svg_for_pdf)."""
    glyphs = _chart_glyphs()
    fonts = _font_files()
    return fonts["chart"] if all(ord(ch) in glyphs for ch in text) else fonts["body"]


def text_width_px(text: str, size_px: float, font: str | None = None) -> float:
    """How wide `text` is at `size_px`: the sum of its characters' advance widths in `font` (by
    default the one the PDF sets it in, pdf_font) times size / units per em."""
    cmap, hmtx, upem = _metrics(font or pdf_font(text))
    default = hmtx.get(".notdef", (upem // 2, 0))[0]
    return size_px * sum(hmtx.get(cmap.get(ord(ch), ""), (default, 0))[0] for ch in text) / upem


def wrap_px(text: str, size_px: float, width_px: float) -> list[str]:
    """`text` broken at spaces into lines no wider than `width_px` in the font the PDF sets the
    whole text in (a word longer than the width stays whole on its own line)."""
    font = pdf_font(text)
    lines: list[str] = []
    for word in text.split():
        trial = f"{lines[-1]} {word}" if lines else word
        if lines and text_width_px(trial, size_px, font) <= width_px:
            lines[-1] = trial
        else:
            lines.append(word)
    return lines


def print_figure(fig):
    """A chart of `app.charts` laid out for an A4 column: the legend goes from above the plot
    (where, on a narrow page, it runs into the title) to the foot of the figure, and the title
    starts at the figure's left margin (not the plot's, which long axis labels push right) with a
    long subtitle wrapped to the width left of it at CHART_WIDTH_PX, measured in the font the PDF
    sets it in (wrap_px), so no line runs off the edge. Data and styling stay as on screen."""
    left = fig.layout.margin.l
    if left is None:
        left = fig.layout.template.layout.margin.l or 0
    room = CHART_WIDTH_PX - left - TITLE_RIGHT_PX
    size = (
        fig.layout.title.subtitle.font.size or fig.layout.template.layout.title.subtitle.font.size
    )
    sub = fig.layout.title.subtitle.text or ""
    lines = wrap_px(sub, size or 12, room) or [""]
    fig.update_layout(
        title={"x": left / CHART_WIDTH_PX, "xref": "container", "xanchor": "left"},
        title_subtitle_text="<br>".join(lines),
        margin_t=74 + 16 * len(lines),
    )
    if fig.layout.legend.y is None:  # the template's legend above the plot
        fig.update_layout(
            legend={"yref": "container", "y": 0, "yanchor": "bottom"},
            height=int(fig.layout.height or HEIGHT_PX) + 40,
        )
    return fig


def chart_svgs(c: Comparison) -> dict[str, bytes]:
    """{name: SVG} of every chart in `app.charts.compare.all_figures` order, then for a portfolio
    (version 2) `capacity:<option>` for each available option
    (`app.charts.portfolio.capacity_demand`); ChartsUnavailable if none."""
    figures = {k: print_figure(f) for k, f in all_figures(c).items()}
    for o in c.options:  # an option with a capacity plan (a portfolio's): its chart too
        if o.available and o.capacity_gpus:
            figures[f"capacity:{o.option}"] = print_figure(capacity_demand(c, o.option))
    return dict(zip(figures, _SERVER.svgs(list(figures.values())), strict=True))


# ---------------------------------------------------------------------------------- the report


def figure_svgs(figures: list) -> list[bytes]:
    """Figures already laid out for print (`print_figure`) as SVG, in order; ChartsUnavailable if
    the browser cannot export them."""
    return _SERVER.svgs(figures)

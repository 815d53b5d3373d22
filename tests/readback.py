"""Reading back what the planner shows or says: a shown number (the portal writes numbers with the
shared rules, models/numbers.py, so a test that needs the number parses the text, and fails when it
is not written by the rule), a page's metrics, errors and tables under AppTest, a PDF's text, and a
share link's refusal."""

from __future__ import annotations

import io
import re
import time
from typing import TYPE_CHECKING

import pytest

from models.numbers import days

if TYPE_CHECKING:
    from streamlit.testing.v1 import AppTest


def number(text: str, unit: str = "") -> float:
    """'22 days' -> 22.0 (unit 'days'), '7.5 days' -> 7.5, '1,024' -> 1024.0, '83.0 %' -> 83.0
    (unit '%'), '141 GiB' -> 141.0 (unit 'GiB'). Fails when the text is not one number in `unit`,
    or (days) when the rule would write that number otherwise ('21.8 days' is not the rule's)."""
    suffix = f" {re.escape(unit)}" if unit else ""
    m = re.fullmatch(rf"(-?\d{{1,3}}(?:,\d{{3}})*(?:\.\d+)?){suffix}", text)
    assert m, f"{text!r} is not a number written in {unit or 'no unit'}"
    x = float(m.group(1).replace(",", ""))
    if unit == "days":
        assert days(x) == text, f"{text!r} is not written by the days rule ({days(x)!r})"
    return x


# ------------------------------------------------------------------------------ a page (AppTest)


def metric(at: AppTest, label: str) -> str:
    """The shown value of the page's metric `label`."""
    return next(m.value for m in at.metric if m.label == label)


def as_read(text: str) -> str:
    """Markdown as a reader sees it: escapes, zero-width spaces, code marks and doubled spaces
    dropped."""
    return re.sub(r"\\(.)", r"\1", text).replace("\u200b", "").replace("`", "").replace("  ", " ")


def errors(at: AppTest) -> str:
    """The page's error messages as read."""
    return as_read(" ".join(e.value for e in at.error))


def compare_tables(at: AppTest) -> dict:
    """Compare's v2 tables, told apart by their columns."""
    out = {}
    for df in at.dataframe:
        cols = list(df.value.columns)
        name = (
            "totals_v2"
            if "NPV" in cols
            else "capacity_v2"
            if "Served GPU-hours" in cols
            else "delays_v2"
            if cols[0] == "Workload"
            else "chargeback_v2"
            if cols[0] == "Team"
            else None
        )
        out[name] = df.value
    return out


# ------------------------------------------------------------------------------------- a report


def pdf_text(data: bytes) -> str:
    """The text of every page of a PDF."""
    from pypdf import PdfReader

    return "\n".join(page.extract_text() for page in PdfReader(io.BytesIO(data)).pages)


def flat(text: str) -> str:
    """Text without whitespace: table cells and the link wrap at the PDF's column edges."""
    return re.sub(r"\s+", "", text)


# ----------------------------------------------------------------------------------- a share link


def assert_one_sentence(exc: Exception, token: str | None = None) -> str:
    """A refusal's message: one short line, no traceback, and not the (long) token it refuses."""
    msg = str(exc)
    assert msg and "\n" not in msg and "Traceback" not in msg, msg
    assert len(msg) < 400, msg
    if token and len(token) >= 24:
        assert token not in msg
    return msg


def refused(token, pattern: str = "") -> str:
    """Decoding `token` raises LinkError (and nothing else), fast; returns the message."""
    from app.share_link import LinkError, decode_data

    start = time.perf_counter()
    with pytest.raises(LinkError) as info:
        decode_data(token)
    assert time.perf_counter() - start < 1.0
    msg = assert_one_sentence(info.value, token if isinstance(token, str) else None)
    if pattern:
        assert re.search(pattern, msg, re.I), msg
    return msg


def metric_number(at: AppTest, label: str) -> float:
    """A metric's number ('6,335' -> 6335.0, '12.5 ms' -> 12.5)."""
    text = metric(at, label)
    return number(text, text.partition(" ")[2])


def field_errors(at: AppTest) -> str:
    """The error messages as read on the page: the field's code span and markdown escapes dropped."""
    text = " ".join(re.sub(r"^` (.*?) `", r"\1", e.value) for e in at.error)
    return re.sub(r"\\(.)", r"\1", text).replace("\u200b", "")

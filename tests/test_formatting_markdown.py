"""User-controlled text shown on a page stays text: an override key, a provider name or a link's
error cannot add a heading, a link, KaTeX, an icon or a colour to the page (issue 12).

What Streamlit's markdown would do with a body is judged here from the body itself (`rendering`),
so these checks run without a browser; tests/test_e2e_portal.py opens the same links in Chromium.
"""

from __future__ import annotations

import base64
import json
import re
import zlib

import pytest

from app import share_link
from app.formatting import MAX_NAME_CHARS, md_code, md_plain
from app.scenario_files import EXAMPLE
from tests.builders import app

HOSTILE = (
    "x\n# Heading\n[click](https://evil.example) $x^2$ :material/warning: https://evil.example "
    ":red[red] :smile: www.evil.example a@evil.example **bold** <b>b</b> `tick` _it_ 1. | a | b |"
)
CODE_SPAN = re.compile(r"(?<![`\\])` [^`]* `(?!`)")  # the spans md_code writes


def hazards(body: str) -> list[str]:
    """What the markdown `body` would turn into something other than text, outside code spans."""
    found = []
    if "\n" in body or "\r" in body:
        found.append("a line break (a heading or list could start on the next line)")
    text = CODE_SPAN.sub(" ", body)
    unescaped = re.sub(r"\\[!-/:-@\[-`{-~]", "", text)  # the backslash-escaped characters go
    for char, what in (
        ("`", "code"),
        ("$", "KaTeX"),
        ("[", "a link or colour"),
        ("*", "emphasis"),
        ("<", "HTML"),
        ("|", "a table"),
        ("#", "a heading"),
    ):
        if char in unescaped:
            found.append(f"an unescaped {char!r} ({what})")
    if re.search(r"(?<![^\W_])_|_(?![^\W_])", unescaped):  # "_" not between letters or digits
        found.append("an unescaped '_' (emphasis)")
    plain = text.replace("\\", "")  # what Streamlit's after-parse rewrites see
    for pattern, what in (
        (r"https?://", "an autolink"),
        (r"(?i)www\.", "a www autolink"),
        (r"[\w.+-]@[\w-]", "a mailto autolink"),
        (r":[\w/+-]+:", "a shortcode (emoji, material icon)"),
    ):
        if re.search(pattern, plain):
            found.append(what)
    return found


def test_the_check_itself_sees_each_hazard():
    assert len(hazards(HOSTILE)) >= 10
    assert hazards(md_plain(HOSTILE)) == []
    assert hazards(md_code(HOSTILE)) == []


@pytest.mark.parametrize(
    "text", [HOSTILE, "a\r\nb", "\u202ereversed", "mailto:a@b.co", "WWW.EVIL.EXAMPLE", "x" * 500]
)
def test_md_plain_is_one_line_of_text(text):
    out = md_plain(text)
    assert hazards(out) == [], out
    assert len(md_plain(text, 60)) <= 3 * 60  # clipped before escaping


def test_md_plain_keeps_the_words():
    out = md_plain("unknown input; overridable: pue, server_usd_per_gpu")
    shown = out.replace("\\", "").replace("\u200b", "")
    assert shown == "unknown input; overridable: pue, server_usd_per_gpu"


def test_md_code_is_one_clipped_code_span():
    out = md_code(HOSTILE)
    assert CODE_SPAN.fullmatch(out), out
    inner = out[2:-2]
    assert len(inner) == MAX_NAME_CHARS and inner.endswith("…")
    assert inner.startswith("x # Heading [click](https://evil.example)")
    assert md_code("a`b") == "` a'b `"  # a backtick cannot close the span early


def hostile_link(**changes) -> str:
    return share_link.encode_data({**EXAMPLE, **changes})


@pytest.mark.parametrize("page", ["compare", "assumptions", "guide"])
def test_an_unknown_override_key_from_a_link_is_shown_as_code(page):
    at = app(page, hostile_link(overrides={HOSTILE: 1.0}))
    bodies = [e.value for e in at.error]
    assert bodies, "the unknown key is reported"
    for body in bodies:
        assert hazards(body) == [], body
    assert any("` overrides.x # Heading [click](https://evil.example)" in b for b in bodies)
    assert all(len(b) < 1700 for b in bodies)


def test_a_provider_name_from_a_link_stays_text():
    at = app("compare", hostile_link(options={"rent_provider": HOSTILE[:60]}))
    bodies = [e.value for e in at.error]
    assert bodies and any("rent_provider" in b for b in bodies), bodies
    for body in bodies:
        assert hazards(body) == [], body


def raw_token(data: dict) -> str:
    """A token for data that fails validation (encode_data refuses to write one)."""
    raw = json.dumps(data).encode()
    return base64.urlsafe_b64encode(zlib.compress(raw, 9)).decode().rstrip("=")


def test_a_link_error_quoting_a_key_stays_text():
    at = app("workload", raw_token({**EXAMPLE, "overrides": {HOSTILE: "not a number"}}))
    warnings = [w.value for w in at.warning if "could not be opened" in w.value]
    assert warnings, [w.value for w in at.warning]
    for body in warnings:
        assert hazards(body) == [], body


def test_an_invalid_input_names_the_field_as_code():
    at = app("workload", share_link.encode_data(EXAMPLE))
    at.session_state["scenario"]["cluster"]["gpus"] = -1
    at.session_state["_page"] = "compare"
    at.run()
    bodies = [e.value for e in at.error]
    assert any(b.startswith("` cluster.gpus `: ") for b in bodies), bodies

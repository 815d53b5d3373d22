"""Opening the portal's pages under AppTest, shared by the page tests: the harness renders the page
named in session_state["_page"]; a share-link token goes in the `s` query parameter."""

from __future__ import annotations

import pathlib

from streamlit.testing.v1 import AppTest

HARNESS = str(pathlib.Path(__file__).resolve().with_name("portal_harness.py"))


def open_page(page: str, token: str | None = None, timeout: float = 90) -> AppTest:
    """A fresh session on `page` (from the link `token` if given), run once, with no exception."""
    at = AppTest.from_file(HARNESS, default_timeout=timeout)
    if token is not None:
        at.query_params["s"] = token
    at.session_state["_page"] = page
    at.run()
    assert not at.exception, at.exception
    return at


def goto(at: AppTest, page: str) -> AppTest:
    """Another page in the same session, run, with no exception."""
    at.session_state["_page"] = page
    at.run()
    assert not at.exception, at.exception
    return at


def send_edits(at: AppTest, key: str, *, edited=None, added=None, deleted=None) -> AppTest:
    """What a data editor sends after the user's edits (Streamlit's edited/added/deleted rows),
    then the rerun, with no exception."""
    at.session_state[key] = {
        "edited_rows": edited or {},
        "added_rows": added or [],
        "deleted_rows": deleted or [],
    }
    at.run()
    assert not at.exception, at.exception
    return at

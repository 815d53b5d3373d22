"""Moving about an open portal session under AppTest, shared by the page tests (a session is opened
by tests/builders.py's `app`): the harness renders the page named in session_state["_page"]."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest


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

"""AppTest harness: the portal's state, sidebar and one page chosen by session_state["_page"].

AppTest cannot switch between callable st.Page pages, so the page tests run each page's render()
through this script; app/main.py itself is rendered by test_main_renders and in a real browser.
"""

import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import streamlit as st  # noqa: E402

from app import sidebar, state  # noqa: E402
from app.views import (  # noqa: E402
    assumptions,
    compare,
    finetune,
    guide,
    serve,
    side_by_side,
    validation,
    workload,
)

PAGES = {
    "workload": workload,
    "compare": compare,
    "assumptions": assumptions,
    "guide": guide,
    "validation": validation,
    "serve": serve,
    "finetune": finetune,
    "side_by_side": side_by_side,
}

state.init()
state.sync_link()
sidebar.render()
state.show_link_error()
PAGES[st.session_state.get("_page", "workload")].render()

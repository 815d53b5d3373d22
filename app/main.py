"""Portal entry point: `streamlit run app/main.py` from the repository root.

Pages live in app/pages/; the scenario is shared in st.session_state (app/state.py) and can be
restored from a share link's `s` query parameter on any page.
"""

import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # `streamlit run app/main.py` puts app/, not the root, on the path
    sys.path.insert(0, str(ROOT))

import streamlit as st  # noqa: E402

from app import sidebar, state  # noqa: E402

st.set_page_config(page_title="GPU Cluster Planner", page_icon=str(ROOT / "app" / "assets" / "icon.png"), layout="wide")
state.init()

# File pages: with a pages/ folder beside the main script, Streamlit 1.67 only opens deep links
# (/compare?s=...) in a fresh browser when st.navigation lists those same files.
PAGES = pathlib.Path(__file__).with_name("pages")
page = st.navigation([
    st.Page(PAGES / "workload.py", title="Workload", icon=":material/tune:", default=True),
    st.Page(PAGES / "compare.py", title="Compare", icon=":material/compare_arrows:"),
    st.Page(PAGES / "assumptions.py", title="Assumptions", icon=":material/fact_check:"),
    st.Page(PAGES / "guide.py", title="Guide", icon=":material/help:"),
    st.Page(PAGES / "validation.py", title="Validation", icon=":material/verified:"),
])
sidebar.render()
if err := st.session_state.pop("link_error", None):
    st.warning(f"This share link could not be opened: {err}. Showing the default scenario instead.",
               icon=":material/link_off:")
page.run()

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
from app.pages import assumptions, compare, guide, workload  # noqa: E402

st.set_page_config(page_title="GPU Cluster Planner", page_icon=":material/memory:", layout="wide")
state.init()

page = st.navigation([
    st.Page(workload.render, title="Workload", icon=":material/tune:", url_path="workload", default=True),
    st.Page(compare.render, title="Compare", icon=":material/compare_arrows:", url_path="compare"),
    st.Page(assumptions.render, title="Assumptions", icon=":material/fact_check:", url_path="assumptions"),
    st.Page(guide.render, title="Guide", icon=":material/help:", url_path="guide"),
])
sidebar.render()
if err := st.session_state.pop("link_error", None):
    st.warning(f"This share link could not be opened: {err}. Showing the default scenario instead.",
               icon=":material/link_off:")
page.run()

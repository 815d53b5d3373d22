"""Portal entry point: `streamlit run app/main.py` from the repository root.

Each page is a module in app/views/ with a render() function; the scenario is shared in
st.session_state (app/state.py) and can be restored from a share link's `s` query parameter on any
page. The folder is not called pages/: Streamlit 1.67 treats a pages/ folder beside the entry
script as a legacy multipage app and, for a fresh browser opening a deep link such as
/compare?s=..., runs that page file on its own, without this script (no shared state, no
navigation), so share links to a page would break.
"""

import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # `streamlit run app/main.py` puts app/, not the root, on the path
    sys.path.insert(0, str(ROOT))

import streamlit as st  # noqa: E402

from app import sidebar, state  # noqa: E402
from app.formatting import md_plain  # noqa: E402
from app.views import assumptions, compare, guide, validation, workload  # noqa: E402

st.set_page_config(
    page_title="GPU Cluster Planner",
    page_icon=str(ROOT / "app" / "assets" / "icon.png"),
    layout="wide",
)
state.init()

page = st.navigation(
    [
        st.Page(
            workload.render,
            title="Workload",
            icon=":material/tune:",
            url_path="workload",
            default=True,
        ),
        st.Page(
            compare.render, title="Compare", icon=":material/compare_arrows:", url_path="compare"
        ),
        st.Page(
            assumptions.render,
            title="Assumptions",
            icon=":material/fact_check:",
            url_path="assumptions",
        ),
        st.Page(guide.render, title="Guide", icon=":material/help:", url_path="guide"),
        st.Page(
            validation.render, title="Validation", icon=":material/verified:", url_path="validation"
        ),
    ]
)
sidebar.render()
if err := st.session_state.pop("link_error", None):
    st.warning(
        f"This share link could not be opened: {md_plain(err)}. Showing the default scenario instead.",
        icon=":material/link_off:",
    )
page.run()

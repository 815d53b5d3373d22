"""Portal entry point: `streamlit run app/main.py` from the repository root.

Each page is a module in app/views/ with a render() function; the scenario is shared in
st.session_state (app/state.py) and can be restored from a share link's `s` query parameter on any
page. The folder is not called pages/: Streamlit 1.67 treats a pages/ folder beside the entry
script as a legacy multipage app and, for a fresh browser opening a deep link such as
/compare?s=..., runs that page file on its own, without this script (no shared state, no
navigation), so share links to a page would break.

The Workload page is the default, served at /; /workload (a hand-written or older link) is a hidden
page that switches to it with the same query, so it opens without Streamlit's "Page not found".
Before any page runs, state.sync_link() puts the current scenario in the address (`s`).
Serve (/serve) and Fine-tune (/finetune) keep their own inputs in session state, apart from the
scenario; the share link carries them as optional sections, so their links open with those inputs.
"""

import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # `streamlit run app/main.py` puts app/, not the root, on the path
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

st.set_page_config(
    page_title="GPU Cluster Planner",
    page_icon=str(ROOT / "app" / "assets" / "icon.png"),
    layout="wide",
)
state.init()
# the wide layout's side padding (5rem each side) left tables 818 px of a 1,280 px window: a
# narrower margin gives them about 100 px more, so every table's columns show (issue 32)
st.html("<style>[data-testid='stMainBlockContainer']{padding-left:2rem;padding-right:2rem}</style>")

workload_page = st.Page(
    workload.render,
    title="Workload",
    icon=":material/tune:",
    url_path="home",  # never shown: the default page is served at the root, /
    default=True,
)


def _to_workload() -> None:
    """/workload (a link someone wrote by hand, or an old one): the Workload page at /, same query."""
    st.switch_page(workload_page, query_params=st.query_params.to_dict())


compare_page = st.Page(
    compare.render, title="Compare", icon=":material/compare_arrows:", url_path="compare"
)
side_by_side_page = st.Page(
    side_by_side.render,
    title="Side by side",
    icon=":material/view_column:",
    url_path="side-by-side",
)
#: pages other pages link to: the Workload page's next step, Compare <-> Side by side
st.session_state[state.PAGES_KEY] = {"compare": compare_page, "side_by_side": side_by_side_page}
page = st.navigation(
    [
        workload_page,
        compare_page,
        side_by_side_page,
        st.Page(serve.render, title="Serve", icon=":material/bolt:", url_path="serve"),
        st.Page(
            finetune.render,
            title="Fine-tune",
            icon=":material/model_training:",
            url_path="finetune",
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
        st.Page(_to_workload, title="Workload", url_path="workload", visibility="hidden"),
    ]
)
state.sync_link()
sidebar.render()
state.show_link_error()
page.run()

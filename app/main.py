"""Portal entry point: `streamlit run app/main.py` from the repository root."""

import streamlit as st

st.set_page_config(page_title="GPU Cluster Planner", page_icon=":material/memory:", layout="wide")


def _home() -> None:
    st.title("GPU Cluster Planner")
    st.write(
        "Compare building, renting, a managed service and public cloud for a training workload. "
        "The pages arrive with the portal work; the sizing core is available today as "
        "`clusterplan train`."
    )


page = st.navigation([st.Page(_home, title="Home", icon=":material/home:", url_path="home")])
page.run()

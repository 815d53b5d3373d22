"""User-facing layer: the Streamlit portal and the `clusterplan` command line."""

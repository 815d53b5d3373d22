"""Money and time: price catalogue and cost engine per option. No Streamlit or plotly here."""

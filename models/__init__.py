"""The workload and the physics: scenario schema, hardware, memory, layouts, step time, reliability.

Nothing in this package imports Streamlit or plotly.
"""

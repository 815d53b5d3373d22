"""A portfolio over time: its workloads (workloads.py), the demand they make month by month
(demand.py), and what a capacity serves of it (capacity.py, its gang queue fifo.py)."""

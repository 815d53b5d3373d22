"""Training: sizing one pre-training run (layouts, memory, step time, the layout search,
the GPU count, activation recomputation, failures and checkpoints); plan.py puts them together."""

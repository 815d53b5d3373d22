"""Serving: sizing an inference service (plan.py; its per-GPU formulas in roofline.py)."""

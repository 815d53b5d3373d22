"""Serving: sizing an inference service (plan.py)."""

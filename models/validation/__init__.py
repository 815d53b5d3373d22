"""Validation: the core's estimates against published measurements (training.py, memory.py,
finetune.py, serving.py) and the calibration of its one fitted constant (calibration.py)."""

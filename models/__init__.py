"""The workload and the physics, by concept: training/ (one pre-training run), finetune/, serving/,
portfolio/ (workloads over time, their demand, what a capacity serves), validation/ (the core
against published measurements); the shared base beside them (scenario schema, hardware, model
shapes, units, errors, constants, options).

Nothing in this package imports Streamlit or plotly.
"""

import pathlib

#: the core's data files (GPUs, model presets, validation rows), one folder for every sub-package
DATA_DIR = pathlib.Path(__file__).resolve().parent / "data"

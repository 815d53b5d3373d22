"""Prints the model's step times against Korthikanti et al. 2022 Table 5 (A100, Megatron-LM), then the
search that sets GEMM_SHARE_OF_MAMF: the worst error over the calibration rows (Korthikanti Table 5
and Narayanan 2021, models/validation/training.py CALIBRATION_PREFIXES) for each value on a 0.01 grid.

Run: .venv/bin/python bench/calibration.py
"""

import numpy as np

from models import constants as C
from models.training.memory import GIB, memory_breakdown  # GIB: bytes per GiB (models/units.py)
from models.training.step_time import step_breakdown
from models.validation.calibration import job_and_layout, table5_rows
from models.validation.training import calibration_worst_error

print(
    f"{'model':14} {'recompute':10} {'layout':22} {'measured s':>10} {'model s':>8} {'error':>7} {'GiB/GPU':>8}"
)
errors = []
for row in table5_rows():
    job, lay = job_and_layout(row)
    t = float(step_breakdown(job, lay)["total"][0])
    mem = float(memory_breakdown(job, lay)["total"][0]) / GIB
    measured = float(row["measured_step_s"])
    errors.append(t / measured - 1)
    layout = f"TP{row['tp']} PP{row['pp']} v{row['interleave']} mb{row['micro_batch']}"
    print(
        f"{row['model_id']:14} {row['recompute']:10} {layout:22} {measured:>10.2f} {t:>8.2f} {errors[-1]:>+7.1%} {mem:>8.1f}"
    )
abs_err = [abs(e) for e in errors]
print(
    f"mean absolute error {sum(abs_err) / len(abs_err):.2%}, worst {max(abs_err):.2%}"
    " (Calculon: 3.65 % mean, 8.87 % worst)"
)

print("\nGEMM_SHARE_OF_MAMF search: worst error over the calibration rows")
chosen, grid = C.GEMM_SHARE_OF_MAMF, np.round(np.arange(0.80, 0.981, 0.01), 2)
worst = {}
for share in grid:
    C.GEMM_SHARE_OF_MAMF = float(share)
    worst[float(share)] = calibration_worst_error()
C.GEMM_SHARE_OF_MAMF = chosen
best = min(worst, key=worst.get)
print("  " + "  ".join(f"{k:.2f}:{v:.1%}" for k, v in worst.items()))
print(
    f"  smallest worst error at {best:.2f} ({worst[best]:.1%}); models/constants.py has {chosen:.2f}"
)

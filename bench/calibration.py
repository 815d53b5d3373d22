"""Prints the model's step times against Korthikanti et al. 2022 Table 5 (A100, Megatron-LM).

Run: .venv/bin/python bench/calibration.py
"""

from models.calibration import job_and_layout, table5_rows
from models.memory import GIB, memory_breakdown
from models.step_time import step_breakdown

print(f"{'model':14} {'recompute':10} {'layout':22} {'measured s':>10} {'model s':>8} {'error':>7} {'GiB/GPU':>8}")
errors = []
for row in table5_rows():
    job, lay = job_and_layout(row)
    t = float(step_breakdown(job, lay)["total"][0])
    mem = float(memory_breakdown(job, lay)["total"][0]) / GIB
    measured = float(row["measured_step_s"])
    errors.append(t / measured - 1)
    layout = f"TP{row['tp']} PP{row['pp']} v{row['interleave']} mb{row['micro_batch']}"
    print(f"{row['model_id']:14} {row['recompute']:10} {layout:22} {measured:>10.2f} {t:>8.2f} {errors[-1]:>+7.1%} {mem:>8.1f}")
abs_err = [abs(e) for e in errors]
print(f"mean absolute error {sum(abs_err) / len(abs_err):.2%}, worst {max(abs_err):.2%}"
      " (Calculon: 3.65 % mean, 8.87 % worst)")

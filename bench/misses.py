"""Prints the evidence behind models/data/validation/misses.csv: each scored row beyond its worst-case target, the
rows it is read against, and two checks of candidate causes.

1. Sequence length: the published throughput drop from 4,096 to 8,192 tokens per model size in the
   llm-foundry A100-80GB table, and the model's memory share for each of those layouts.
2. Fabric: the llm-foundry A100-40GB multi-node rows re-predicted with a slower inter-node link per GPU,
   to see whether any one bandwidth fits the 70B 64-GPU row without moving its siblings.
3. Recompute: the Trainy H200 torchtitan rows (per-op selective activation checkpointing, op_sac) at each
   of the model's recompute modes, beside the model's memory and torchtitan's logged peak reserved memory.

Run: .venv/bin/python bench/misses.py
"""

import csv

from models.training.layouts import RECOMPUTE_MODES
from models.training.memory import GIB, memory_breakdown
from models.validation import training as V
from models.validation import training_predict as VP
from models.validation import training_rows as VR

MEMORY = VR.ROOT / "memory.csv"

result = V.validate()
rows = {r["id"]: r for r in result["rows"]}

print("misses (models/data/validation/misses.csv) and the rows they are read against")
for m in result["misses"]["explained"]:
    print(f"  {m['id']:28} error {m['error']:+.1%}  memory (model) {m['memory_share']:.0%} of HBM")
    for o in m["compare_with"]:
        print(
            f"    {o['id']:26} error {o['error']:+.1%}  memory (model) {rows[o['id']]['memory_share']:.0%} of HBM"
        )
print(
    f"  unexplained: {result['misses']['unexplained'] or 'none'}; stale entries: {result['misses']['stale'] or 'none'}"
)

print("\n1. published tokens/s/GPU, A100-80GB, 8 GPUs: 4,096 -> 8,192 tokens")
for size in ("7b", "13b", "30b"):
    a, b = rows[f"lf-a100-80-{size}-8g-s4096"], rows[f"lf-a100-80-{size}-8g-s8192"]
    print(
        f"  {size:4} {a['published']:>6.0f} -> {b['published']:>6.0f}  ({b['published'] / a['published'] - 1:+.0%}); "
        f"model error {a['error']:+.1%} -> {b['error']:+.1%}; memory (model) {a['memory_share']:.0%} -> {b['memory_share']:.0%}"
    )

print("\n2. A100-40GB multi-node rows, error with the inter-node link per GPU set to")
multi = [r for r in VR.load_runs() if r["id"].startswith("lf-a100-40-") and int(r["gpus"]) > 8]
print(f"  {'Gb/s':>6} " + " ".join(f"{r['id'][11:-6]:>9}" for r in multi))
for gbit in (200, 100, 80, 53.3, 40):
    errors = []
    for r in multi:
        pred = VP.predict_step({**r, "scaleout_gbit_per_s_per_gpu": str(gbit)})["predicted"]
        errors.append(pred / float(r["published"]) - 1)
    print(f"  {gbit:>6g} " + " ".join(f"{e:>+9.1%}" for e in errors))
print(
    "  (200 Gb/s = the catalogue's A100 node, 8 x 200 Gb/s; the model's FSDP bandwidth is 8 NICs x the "
    "per-GPU rate x SCALEOUT_EFFICIENCY, capped by NVLink)"
)

print(
    "\n3. torchtitan per-op SAC rows (trainy-): error with each of the model's recompute modes, and the"
)
print(
    "   model's memory on that layout against torchtitan's logged peak reserved memory (memory.csv)"
)
reserved = {r["id"]: float(r["published"]) for r in csv.DictReader(MEMORY.open(newline=""))}
for r in VR.load_runs():
    if not r["id"].startswith("trainy-"):
        continue
    cells = []
    for mode in RECOMPUTE_MODES:  # op_sac: the mode these rows ran (heldout-scores.md Step 13)
        job_row = {**r, "recompute": mode}
        job = VP.job_of(job_row)
        mem = float(memory_breakdown(job, VP.layouts_for(job_row, job))["total"][0]) / GIB
        err = VP.predict_step(job_row)["predicted"] / float(r["published"]) - 1
        cells.append(f"{mode} {err:+.1%} ({mem:.0f} GiB)")
    print(
        f"  {r['id']:24} " + "; ".join(cells) + f"; published reserved {reserved[r['id']]:.1f} GiB"
    )

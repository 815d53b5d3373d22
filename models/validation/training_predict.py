"""The training model's prediction for each validation row (models/validation/training.py): a step
time or throughput at the published layout (or the fastest fitting layout among those matching the
published fields), a whole run's GPU-hours, and a held-out whole run planned as a buyer would plan
it or at its source's own layout; each with the rule of thumb (6·N·D at one MFU) beside it.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from models.hardware import get_gpu
from models.scenario import Cluster, Scenario, Workload
from models.shapes import load_presets
from models.training.job import AttentionKernel, Job
from models.training.layouts import RECOMPUTE_MODES, SEARCH_RECOMPUTE_MODES, Layouts
from models.training.memory import GIB, fits, memory_breakdown
from models.training.plan import plan_training
from models.training.reliability import plan_reliability
from models.training.search import all_layouts, describe, evaluate
from models.training.step_time import model_flops_per_token, step_breakdown
from models.units import SECONDS_PER_DAY, SECONDS_PER_HOUR
from models.validation.calibration import job_and_layout
from models.validation.training_rows import int_cell, shape_of

#: Goodput the rule of thumb assumes for whole runs.
RULE_GOODPUT = 0.90


def layout_text(lay: dict) -> str:
    return (
        f"TP{lay['tp']} {f'CP{cp} ' if (cp := lay.get('cp', 1)) > 1 else ''}PP{lay['pp']} "
        f"DP{lay['dp']} {f'EP{ep} ' if (ep := lay.get('ep', 1)) > 1 else ''}v{lay['interleave']} "
        f"mb{lay['micro_batch']} Z{lay['zero']} {lay['recompute']}"
    )


def job_of(row: dict) -> Job:
    plan = {}
    if row.get("grad_bytes"):
        plan["grad_bytes"] = int(row["grad_bytes"])
    if row.get("tp_comm_overlap"):
        plan["tp_comm_overlap"] = row["tp_comm_overlap"] == "1"
    if row.get("fp8_params"):  # weights held only in FP8 (MLPerf FP8_PARAMS / FP8_PARAM_GATHER)
        plan["fp8_params"] = row["fp8_params"] == "1"
    if row.get("moe_balance"):  # a benchmark that force-balances its experts (moe_throughput.csv)
        plan["moe_balance"] = row["moe_balance"]
    # one layer fewer on the first and last pipeline stages only where the source says so
    plan["pp_ends_trimmed"] = row.get("pp_ends_trimmed") == "1"
    gpu = get_gpu(row["gpu"])
    if row.get(
        "scaleout_gbit_per_s_per_gpu"
    ):  # the run's cluster had a different inter-node fabric
        gpu = gpu.model_copy(
            update={"scaleout_bandwidth_gbit_per_s": float(row["scaleout_gbit_per_s_per_gpu"])}
        )
    return Job(
        shape_of(row["model"]),
        gpu,
        int(row["seq_len"]),
        int(row["global_batch_seqs"]),
        row["precision"],
        flash_attention=AttentionKernel(int(row["flash_attention"] or AttentionKernel.FLASH2)),
        **plan,
    )


def layouts_for(row: dict, job: Job) -> Layouts:
    """The published layout, or every valid layout that matches the published fields."""
    gpus = int(row["gpus"])
    given = {k: int_cell(row, k) for k in ("tp", "pp", "dp", "interleave", "micro_batch", "zero")}
    cp = int_cell(row, "cp") or 1  # context parallelism as published (empty: none)
    rec = row.get("recompute") or None
    if "_table5" in row:
        return job_and_layout(row["_table5"])[1]
    if None not in (given["tp"], given["pp"], given["dp"], given["micro_batch"]):
        # the published layout (each recompute mode when the source does not say which)
        singles = [
            Layouts.single(
                job.global_batch_seqs,
                tp=given["tp"],
                pp=given["pp"],
                dp=given["dp"],
                ep=int_cell(row, "ep") or 1,  # expert parallelism as published (empty: none)
                micro_batch=given["micro_batch"],
                interleave=given["interleave"] or 1,
                zero=given["zero"] or 0,
                cp=cp,
                recompute=mode,
                sequence_parallel=int_cell(row, "sequence_parallel")
                if row.get("sequence_parallel")
                else int(given["tp"] > 1),
            )
            for mode in ([rec] if rec else SEARCH_RECOMPUTE_MODES)
        ]
        return Layouts(
            **{
                f.name: np.concatenate([getattr(x, f.name) for x in singles])
                for f in dataclasses.fields(Layouts)
            }
        )
    lay = all_layouts(job, gpus, cp=(cp,))
    keep = np.ones(len(lay), dtype=bool)
    for k, v in given.items():
        if v is not None:
            keep &= getattr(lay, k) == v
    if rec in SEARCH_RECOMPUTE_MODES:
        keep &= lay.recompute == RECOMPUTE_MODES.index(rec)
    elif rec:  # a mode the search leaves out (op_sac): the searched layouts, with that mode
        keep &= lay.recompute == 0
    lay = lay.take(np.nonzero(keep)[0])
    if rec and rec not in SEARCH_RECOMPUTE_MODES:
        lay = dataclasses.replace(
            lay, recompute=np.full(len(lay), RECOMPUTE_MODES.index(rec), dtype=np.int64)
        )
    if row.get("sequence_parallel") not in ("", None):
        lay = dataclasses.replace(
            lay, sequence_parallel=np.full(len(lay), int(row["sequence_parallel"]))
        )
    return lay


def _megatron_flops_per_step(job: Job, batch_seqs: int) -> float:
    """Narayanan et al. 2021 eq. (3): 96·B·s·l·h²·(1 + s/6h + V/16lh), recompute forward included."""
    s, seq = job.shape, job.seq_len
    h, n = s.hidden, s.layers
    return 96 * batch_seqs * seq * n * h * h * (1 + seq / (6 * h) + s.vocab / (16 * n * h))


def _in_unit(unit: str, job: Job, gpus: int, batch_seqs: int, step_s: float) -> float:
    """A step time expressed in the row's unit."""
    tokens = batch_seqs * job.seq_len
    if unit == "s_per_step":
        return step_s
    if unit == "tokens_per_s_per_gpu":
        return tokens / step_s / gpus
    if unit == "tflops_per_gpu_megatron":
        return _megatron_flops_per_step(job, batch_seqs) / step_s / gpus / 1e12
    if unit == "mfu_pct":
        return (
            100
            * model_flops_per_token(job)
            * tokens
            / step_s
            / gpus
            / (job.gpu.peak_tflops(job.precision) * 1e12)
        )
    raise ValueError(f"unknown unit {unit!r}")


def predict_step(row: dict) -> dict:
    job = job_of(row)
    gpus = int(row["gpus"])
    lay = layouts_for(row, job)
    if len(lay) == 0:
        raise ValueError(f"{row['id']}: no valid layout matches the published fields")
    mem, step = memory_breakdown(job, lay), step_breakdown(job, lay)
    ok = fits(job, mem["total"])
    cand = np.nonzero(ok)[0] if ok.any() else np.arange(len(lay))
    i = int(cand[np.argmin(step["total"][cand] / lay.batch_seqs[cand])])
    batch, step_s = int(lay.batch_seqs[i]), float(step["total"][i])
    # the rule of thumb: 6·N per token at a constant MFU (filled in by validate)
    six_nd_s = (
        6
        * job.shape.params_active
        * batch
        * job.seq_len
        / (gpus * job.gpu.peak_tflops(job.precision) * 1e12)
    )
    return {
        "predicted": _in_unit(row["unit"], job, gpus, batch, step_s),
        "layout": layout_text(lay.row(i)),
        "fits": bool(ok[i]),
        "memory_share": float(mem["total"][i]) / (job.gpu.memory_gib * GIB),
        "rule": lambda mfu: _in_unit(row["unit"], job, gpus, batch, six_nd_s / mfu),
    }


def predict_run(row: dict) -> dict:
    shape = shape_of(row["model"])
    gpus, seq = int(row["gpus"]), int(row["seq_len"])
    workload = {
        "tokens": float(row["tokens"]),
        "seq_len": seq,
        "precision": row["precision"],
        "global_batch_tokens": int(row["global_batch_seqs"]) * seq,
    }
    cluster = Cluster(gpu=row["gpu"], gpus=gpus)
    if (
        row["model"] in load_presets()
        and int_cell(row, "tp") is None
        and row["flash_attention"] in ("", "2")
    ):
        plan = plan_training(
            Scenario(workload=Workload(model=row["model"], **workload), cluster=cluster)
        )
        ideal_days, wall_days, layout = plan.ideal_days, plan.steady_days, plan.layout
        layout_fits = True
    else:  # a custom shape, a published layout or execution plan, or older attention kernels: the
        # same planner, choosing only among the layouts the row allows, with the row's Job
        planner_gpu = get_gpu(row["gpu"])
        job = job_of(row)
        lay = layouts_for(row, job)
        mem, step = evaluate(job, lay)
        ok = np.nonzero(fits(job, mem["total"]))[0]
        layout_fits = ok.size > 0
        if not layout_fits:  # the source ran it; the memory model disagrees, which the table shows
            ok = np.arange(len(lay))
        i = int(ok[np.argmin(step["total"][ok] / lay.batch_seqs[ok])])
        choice = describe(job, gpus, lay, mem, step, i, len(lay), ok.size, 0.0)
        steps = math.ceil(float(row["tokens"]) / (int(lay.batch_seqs[i]) * seq))
        ideal_days = steps * choice.step_time_s / SECONDS_PER_DAY
        rel = plan_reliability(
            gpus,
            shape.params_total,
            ideal_days * SECONDS_PER_DAY,
            failures_per_gpu_day=planner_gpu.failures_per_gpu_day,
        )
        wall_days = rel.wall_clock_s / SECONDS_PER_DAY
        layout = choice.layout
    no_failures = row["unit"] == "gpu_hours_no_failures"
    days = ideal_days if no_failures else wall_days
    peak = get_gpu(row["gpu"]).peak_tflops(row["precision"]) * 1e12
    rule_hours = (
        6 * shape.params_active * float(row["tokens"]) / (gpus * peak) / SECONDS_PER_HOUR * gpus
    )
    goodput = 1.0 if no_failures else RULE_GOODPUT
    return {
        "predicted": days * 24 * gpus,
        "layout": layout_text(layout),
        "fits": layout_fits,
        "memory_share": None,
        "rule": lambda mfu: rule_hours / mfu / goodput,
    }


def heldout_scenario(row: dict, execution: dict | None = None) -> Scenario:
    """What a buyer knows of the run: model, tokens, GPU, GPU count (empty: sized by
    plan_heldout_run), sequence length, batch (empty: the planner's default) and precision (fp16 runs as
    bf16: the same tensor-core rate)."""
    seq = int(row["seq_len"])
    batch = int_cell(row, "global_batch_seqs")
    workload = Workload(
        model=row["model"],
        tokens=float(row["tokens"]),
        seq_len=seq,
        precision="fp8" if row["precision"] == "fp8" else "bf16",
        global_batch_tokens=batch * seq if batch else None,
    )
    return Scenario(
        workload=workload,
        cluster=Cluster(gpu=row["gpu"], gpus=int_cell(row, "gpus")),
        **({"execution": execution} if execution is not None else {}),
    )


def gpu_of(row: dict):
    """The catalogue GPU with the row's published links where they differ (H800 NVLink, P4d EFA)."""
    gpu = get_gpu(row["gpu"])
    update = {}
    if row.get("scaleup_gbyte_per_s_per_gpu"):
        update["scaleup_bandwidth_gbyte_per_s"] = float(row["scaleup_gbyte_per_s_per_gpu"])
    if row.get("scaleout_gbit_per_s_per_gpu"):
        update["scaleout_bandwidth_gbit_per_s"] = float(row["scaleout_gbit_per_s_per_gpu"])
    return gpu.model_copy(update=update) if update else gpu


def plan_heldout_run(row: dict, execution: dict | None = None) -> dict:
    """GPU-hours of one held-out run as plan_training plans it: the planner takes the published GPU
    count, or where none is published sizes the cluster as it advises a buyer who gives no count and
    no deadline (Planner.efficient: the largest count keeping EFFICIENT_SCALING of the cheapest
    run's GPU-hours), chooses the layout and stretches the days by goodput."""
    from models.training.plan import Planner  # models.training.plan imports this module's constants

    planner = Planner(heldout_scenario(row, execution), whole_run=False)
    planner.gpu = gpu_of(row)
    gpus = int_cell(row, "gpus")
    choice = planner.fixed(gpus) if gpus else planner.efficient()
    days, _ = planner.wall_days(choice.gpus)
    return {
        "gpus": choice.gpus,
        "gpus_chosen": gpus is None,
        "layout": layout_text(choice.layout),
        "mfu": choice.mfu,
        "global_batch_seqs": choice.layout["global_batch_seqs"],
        "train_days": days,
        "predicted": days * 24 * choice.gpus,
    }


#: Layout fields a held-out row may carry from its source's training config (empty: not published).
SOURCE_LAYOUT_FIELDS = ("tp", "pp", "micro_batch", "zero", "recompute")
#: Of those, the ones a source may leave out (DeepSeek-V3 publishes no micro-batch): the diagnostic
#: then takes the fastest fitting value, marked `*`; `ep` (expert parallelism) is 1 when empty.
SOURCE_LAYOUT_OPTIONAL = ("micro_batch",)


def plan_heldout_source_layout(row: dict, execution: dict | None = None) -> dict | None:
    """GPU-hours of a held-out run at its source's own layout (the row's tp, pp, micro_batch, zero,
    recompute and attention, from its config file) instead of the planner's choice, stretched by the
    same goodput; None where the source gives no layout. A diagnostic: it separates the planner's
    choice of layout from the model's speed at the layout the team ran."""
    from models.training.plan import Planner

    gpus = int_cell(row, "gpus")
    required = [k for k in SOURCE_LAYOUT_FIELDS if k not in SOURCE_LAYOUT_OPTIONAL]
    if not gpus or any(not row.get(k) for k in required):
        return None
    ex = dict(execution or {})
    if row.get("attention"):
        ex["attention"] = row["attention"]
    planner = Planner(heldout_scenario(row, ex), whole_run=False)
    planner.gpu = gpu_of(row)
    job = planner.job(gpus)
    tp, pp = int(row["tp"]), int(row["pp"])
    dp = gpus // (tp * pp)
    given_mb = int_cell(row, "micro_batch")
    best = None
    for mb in (
        [given_mb]
        if given_mb
        else [b for b in (1, 2, 4, 8, 16) if (dp * b) <= job.global_batch_seqs]
    ):
        lay = Layouts.single(
            job.global_batch_seqs,
            tp=tp,
            pp=pp,
            dp=dp,
            ep=int_cell(row, "ep") or 1,
            micro_batch=mb,
            zero=int(row["zero"]),
            recompute=row["recompute"],
            sequence_parallel=0,
        )
        mem, step = evaluate(job, lay)
        fit = bool(fits(job, mem["total"])[0])
        cand = (not fit, float(step["total"][0]) / int(lay.batch_seqs[0]), lay, mem, step, fit)
        if best is None or cand[:2] < best[:2]:
            best = cand
    _, _, lay, mem, step, fit = best
    choice = describe(job, gpus, lay, mem, step, 0, 1, int(fit), 0.0)
    days = planner.reliability(choice).wall_clock_s / SECONDS_PER_DAY
    return {
        "layout": layout_text(choice.layout) + ("" if given_mb else "*"),
        "fits": fit,
        "mfu": choice.mfu,
        "predicted": days * 24 * gpus,
    }

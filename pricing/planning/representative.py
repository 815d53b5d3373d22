"""The representative run: the one the costs size storage, checkpoints and the summary for
(package docstring, last paragraph)."""

from __future__ import annotations

import functools

from models.errors import InputError
from models.portfolio.demand import Demand, TrainingSettings
from models.portfolio.workloads import Finetune, Pretrain, Serve
from models.scenario import Cluster, Scenario, Workload
from models.shapes import get_preset
from models.training.plan import TrainingPlan, plan_training
from models.units import (
    BYTES_PER_GB,
    BYTES_PER_PARAM,
)
from pricing.planning.records import Representative

#: the dataset tokens of a representative workload that is not a training one (serve, steady)
SERVE_DATASET_TOKENS = 1e9
#: the model a steady-only portfolio's storage and fabric are sized for
STEADY_MODEL = "llama3-8b"


def representative_run(scenario: Scenario, demand: Demand) -> Representative:
    """The gang workload (pre-training, fine-tuning) with the most demanded GPU-hours, on the GPU
    count the demand gave one of its runs; else the largest serving model with
    SERVE_DATASET_TOKENS; else STEADY_MODEL, each on the smallest count that fits."""
    pairs = list(zip(scenario.workloads, demand.workloads, strict=True))
    gang = [(d, w) for w, d in pairs if isinstance(w, Pretrain | Finetune)]
    if gang:
        d, w = max(gang, key=lambda x: x[0].demanded_gpu_hours)
        tokens = w.tokens if isinstance(w, Pretrain) else w.tokens * w.epochs
        run = Workload(
            model=w.model,
            tokens=min(max(tokens, 1e6), 1e15),
            seq_len=w.seq_len,
            precision=w.precision,
        )
        return Representative(run, w.name, d.gpus_per_run, w.kind)
    serves = [w for w in scenario.workloads if isinstance(w, Serve)]
    if serves:
        w = max(serves, key=lambda s: get_preset(s.model).params_total)
        return Representative(Workload(model=w.model, tokens=SERVE_DATASET_TOKENS), None, None)
    return Representative(Workload(model=STEADY_MODEL, tokens=SERVE_DATASET_TOKENS), None, None)


def plan_representative(rep: Representative, gpu: str, training: TrainingSettings) -> TrainingPlan:
    """The representative run planned on its own GPU count: the plan the demand made for a
    pre-training workload, so the summary's days, layout and MFU are that run's. A fine-tune
    planned as a full-parameter run may not fit the count its method (LoRA, QLoRA) needed: it
    then takes the smallest count that fits. Cached, as the workloads' sizings are (a plan is
    immutable): a portal that prices one link again with other figures plans it once."""
    return _plan_cached(rep.workload.model_dump_json(), rep.gpus, gpu, training.key())


def plan_cache_clear() -> None:
    _plan_cached.cache_clear()


@functools.lru_cache(maxsize=64)
def _plan_cached(workload_json: str, gpus: int | None, gpu: str, training_key: str) -> TrainingPlan:
    workload = Workload.model_validate_json(workload_json)
    training = TrainingSettings.model_validate_json(training_key)
    try:
        if gpus is not None:
            try:
                return plan_training(
                    training.scenario(workload, Cluster(gpu=gpu, gpus=gpus)), curve=False
                )
            except InputError:
                pass
        return plan_training(
            training.scenario(workload, Cluster(gpu=gpu)), curve=False, unsized="smallest"
        )
    except InputError as exc:
        raise InputError("workloads", f"the representative workload: {exc}") from None


@functools.lru_cache(maxsize=256)
def weights_gb(model: str) -> float:
    """The model's bf16 weights, GB (cached: a plan weighs each of hundreds of workloads)."""
    return BYTES_PER_PARAM["bf16"] * get_preset(model).params_total / BYTES_PER_GB

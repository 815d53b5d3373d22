"""A portfolio of workloads: who needs GPUs, for what, from when, on what schedule.

One record per kind, registered in `WORKLOAD_KINDS` (adding a kind is a record here and its sizing
function in models/portfolio/demand.py `SIZERS`):

- `pretrain`: pre-training runs of a preset model, `runs_per_month` of them, each sized by the
  training core (models/training/plan.py plan_training) and needing its whole GPU count at once;
- `finetune`: fine-tuning jobs, `jobs_per_month`, each sized by models/finetune/plan.py plan_finetune,
  also all GPUs at once;
- `serve`: an inference service whose traffic starts at `rps` and grows by
  `growth_pct_per_month` (compounded), sized month by month by models/serving/plan.py plan_serving;
- `steady`: a team's research use, `gpus` busy `utilisation_pct` of the hours.

Each runs from `start_month` (0 = the first month of the term) for `duration_months`. Runs and
jobs are released evenly: the k-th at start_month + k / rate, for every k with k / rate < duration.

The records import nothing that imports the scenario schema, so a scenario can hold them.
"""

from __future__ import annotations

import functools
import math
from typing import Annotated, Literal

from pydantic import (
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationError,
    field_validator,
)

from models.checks import printable
from models.errors import InputError
from models.hardware import load_gpus
from models.record import Record, at_least
from models.serving import builds
from models.serving.engines import DEFAULT_ENGINE, Engine
from models.serving.plan import MIN_RPS, RPS_FLOOR, PrefillDecode, SloPercentile
from models.serving.precision import DEFAULT_PRECISION_TEXT, Precision
from models.shapes import known_model, unknown_model

#: the furthest month a workload may reach (start + duration): ten years
MAX_MONTHS = 120
#: the most pre-training runs and fine-tuning jobs a portfolio may release in its term: each is
#: queued one by one (models/portfolio/capacity.py), so this bounds the work one scenario can ask for
#: (bench/bench_heaviest.py prices the heaviest accepted scenario)
MAX_GANG_RUNS = 5_000
#: the most GPU-months a portfolio may ask for, as a multiple of what the largest cluster the
#: planner sizes (MAX_GPUS) delivers over the term: work past it can only wait, and a demand
#: thousands of times any cluster (a link's 50 teams × 65,536 GPUs × 30 runs a month) is a typo
#: or an attack, not a plan (models/portfolio/demand.py check_gpu_months)
MAX_DEMAND_TERM_MULTIPLE = 2
#: the field that scales each kind's demand, named when a portfolio asks for too much
DEMAND_FIELD = {
    "pretrain": "runs_per_month",
    "finetune": "jobs_per_month",
    "serve": "rps",
    "steady": "gpus",
}
#: the largest cluster the planner sizes, 2^18 GPUs, the one cap of every GPU count (a v1
#: cluster and its expansions in models/scenario.py, a workload's GPUs, the capacity plans):
#: the largest 2025-26 clusters are past 100,000 GPUs (xAI Colossus: 100,000 H100 online in
#: 2024, doubling to 200,000; https://www.tweaktown.com/news/101365/, 2024-10). Its fabric is
#: a 4-tier fat tree of 64-port switches past 65,536 GPUs (models/infrastructure.py
#: size_fat_tree, which serves up to 2,097,152), so the fabric does not set this cap.
MAX_GPUS = 262_144
#: the fewest runs (jobs) a month: one in ten years, the longest a workload runs (MAX_MONTHS);
#: a rate under it releases no run in any duration (1e-300 a month gave zero runs, silently)
MIN_RUNS_PER_MONTH = 1 / MAX_MONTHS
RUNS_FLOOR = f"one in ten years ({MIN_RUNS_PER_MONTH:g} a month), the longest a workload runs"


#: the longest wait a workload accepts by default, days, by kind (`max_wait_days`): a service
#: answers its traffic as it comes; a fine-tuning job or a research team's work can wait a few
#: days for a free slot; a pre-training run is planned weeks ahead, so a fortnight's slip is
#: the most a team plans around
MAX_WAIT_DAYS_DEFAULT = {"pretrain": 14.0, "finetune": 3.0, "serve": 0.0, "steady": 3.0}
#: the longest service level a workload may set: the longest a workload runs (ten years)
MAX_WAIT_DAYS = 3650.0
MAX_WAIT_TEXT = (
    "the longest wait this workload accepts, days (the service level every capacity plan is sized "
    "to meet): the longest wait of any of its runs or jobs (start less release) or of its served "
    "GPU-hours (how long they wait in the backlog), counted from the later of its release and the "
    "option's ready day (the wait for go-live is the ready day's, shown on its own), as the "
    "capacity simulation measures it; work still waiting at the term end counts its wait until "
    "then. Default by kind: "
)


def _max_wait(kind: str):
    """The `max_wait_days` field of `kind`, its default from MAX_WAIT_DAYS_DEFAULT."""
    defaults = ", ".join(f"{k} {v:g}" for k, v in MAX_WAIT_DAYS_DEFAULT.items())
    return Field(
        MAX_WAIT_DAYS_DEFAULT[kind], ge=0, le=MAX_WAIT_DAYS, description=MAX_WAIT_TEXT + defaults
    )


#: the most a day of earlier results may be worth, USD (`value_usd_per_day_earlier`): a planner
#: bound, not a sourced figure; $1B a day is $365B a year, past any buyer's whole budget, so a
#: larger value is a typo (an extra zero or three), not a valuation
MAX_VALUE_USD_PER_DAY = 1e9
VALUE_OF_TIME_TEXT = (
    "optional: what a day of earlier results is worth to the buyer, USD per day (empty: time has "
    "no value and options are ranked on NPV alone). With it, each option's delay against the "
    "earliest compared option is valued at this rate and added to its NPV in the ranking only "
    "(pricing/time_value.py): it is not a cash flow and no total includes it. "
)


def value_of_time_field(what: str):
    """The optional `value_usd_per_day_earlier` field of `what` ("workload", "training run"):
    at least 0, at most MAX_VALUE_USD_PER_DAY; None (left out of the JSON) without it."""
    return Field(
        None,
        ge=0,
        le=MAX_VALUE_USD_PER_DAY,
        description=VALUE_OF_TIME_TEXT + f"Counted per {what}.",
        exclude_if=lambda v: v is None,  # a scenario without it writes the JSON it did
    )


#: what a workload's `model` names
MODEL_TEXT = (
    "model preset id (models/data/model_presets.csv), or a model of one's own in the scenario's "
    "own_models (by its model_id or content id)"
)


def _known_model(v: str) -> str:
    """A preset, or a model of one's own registered now (a scenario's `own_models`, registered
    before its workloads are validated: models/scenario.py Scenario._own_models_first)."""
    if not known_model(v):
        raise ValueError(unknown_model(v))
    return v


class WorkloadBase(Record):
    """What every workload has: a name, the team it is charged to, when it runs."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1, max_length=60, description="unique within the portfolio")
    team: str = Field("default", min_length=1, max_length=40, description="who is charged")
    start_month: int = Field(0, ge=0, le=MAX_MONTHS - 1, description="first month, 0 = term start")
    duration_months: int = Field(12, ge=1, le=MAX_MONTHS, description="months it runs")
    value_usd_per_day_earlier: float | None = value_of_time_field(
        "workload: a day less of its mean wait (the mean delay of its runs or GPU-hours)"
    )

    @field_validator("name", "team")
    @classmethod
    def _printable(cls, v: str, info) -> str:
        """No control or bidi characters (models/checks.py `printable`, as scenario names): a
        name is printed in the CLI's tables, the reports and the charts."""
        return printable("a workload's name" if info.field_name == "name" else "a team", v)

    @property
    def end_month(self) -> int:
        """The month after its last one."""
        return self.start_month + self.duration_months


class Pretrain(WorkloadBase):
    """Pre-training runs of a preset model, each all its GPUs at once (a gang)."""

    kind: Literal["pretrain"] = "pretrain"
    max_wait_days: float = _max_wait("pretrain")
    model: str = Field("llama3-8b", description=MODEL_TEXT)
    tokens: float = Field(1e12, ge=1e6, le=1e15, description="training tokens per run")
    seq_len: int = Field(8192, ge=128, le=1_048_576, description="sequence length")
    precision: Literal["bf16", "fp8"] = "bf16"
    gpus: int | None = Field(
        None, ge=1, le=MAX_GPUS, description="GPUs per run; empty: the fewest that fit"
    )
    runs_per_month: float = Field(
        1.0,
        ge=MIN_RUNS_PER_MONTH,
        le=30,
        description="runs started per month (0.25: one every four months); at least 1/120, one "
        "run in ten years",
    )

    _model = field_validator("model")(_known_model)
    _runs_floor = field_validator("runs_per_month", mode="before")(
        at_least(MIN_RUNS_PER_MONTH, RUNS_FLOOR)
    )


class Finetune(WorkloadBase):
    """Fine-tuning jobs (full, LoRA, QLoRA), each all its GPUs at once (a gang)."""

    kind: Literal["finetune"] = "finetune"
    max_wait_days: float = _max_wait("finetune")
    model: str = Field("llama3-8b", description=MODEL_TEXT)
    method: Literal["full", "lora", "qlora"] = "lora"
    tokens: float = Field(1e8, gt=0, le=1e13, description="dataset tokens per epoch")
    epochs: float = Field(1.0, gt=0, le=1000)
    seq_len: int = Field(4096, ge=128, le=131_072)
    global_batch_seqs: int = Field(32, ge=1, le=65_536)
    lora_rank: int = Field(16, ge=1, le=4096)
    precision: Literal["bf16", "fp8"] = "bf16"
    gpus: int | None = Field(None, ge=1, le=4096, description="GPUs per job; empty: the fewest")
    jobs_per_month: float = Field(
        4.0,
        ge=MIN_RUNS_PER_MONTH,
        le=100,
        description="jobs started per month; at least 1/120, one job in ten years",
    )
    framework: Literal["fsdp", "megatron"] = Field(
        "fsdp", description="fsdp (FSDP / DeepSpeed) or megatron (NeMo / Megatron-Core)"
    )
    #: memory savings (models/finetune/savings.py): True on, False off, None the planner's choice
    optimizer_offload: bool | None = None
    param_offload: bool | None = None
    optimizer_8bit: bool | None = None
    paged_optimizer: bool | None = None
    activation_offload: bool | None = None
    pure_bf16: bool | None = None
    fp8_params: bool = Field(
        False, description="weights in FP8 only (NeMo fp8_params); megatron with precision fp8"
    )
    bf16_grads: bool = Field(
        False,
        description="gradient buffers in BF16, FP32 optimizer kept (Megatron-Core "
        "grad_reduce_in_fp32 False); megatron only",
    )

    _model = field_validator("model")(_known_model)
    _jobs_floor = field_validator("jobs_per_month", mode="before")(
        at_least(MIN_RUNS_PER_MONTH, RUNS_FLOOR)
    )


class Serve(WorkloadBase, builds.EngineInputs):
    """An inference service: GPUs held every hour of every month it runs, as many as the month's
    traffic needs within the latency objectives."""

    kind: Literal["serve"] = "serve"
    max_wait_days: float = _max_wait("serve")
    model: str = Field("llama3-70b", description=MODEL_TEXT)
    precision: Precision | None = Field(
        None,
        description=f"weights and GEMMs; default (empty) as `clusterplan serve` and the Serve "
        f"page: {DEFAULT_PRECISION_TEXT} (the cluster's GPU)",
    )
    input_tokens: int = Field(1000, ge=1, le=1_000_000, description="mean prompt tokens")
    output_tokens: int = Field(300, ge=1, le=1_000_000, description="mean output tokens")
    rps: float = Field(
        10.0,
        ge=MIN_RPS,
        le=1e6,
        description="requests per second in the first month; at least one request a day (1.16e-5)",
    )
    growth_pct_per_month: float = Field(
        0.0, ge=-50, le=100, description="traffic growth per month, compounded"
    )
    ttft_ms: float | None = Field(None, gt=0, le=3.6e6, description="time-to-first-token SLO")
    tpot_ms: float | None = Field(None, gt=0, le=3.6e6, description="time-per-output-token SLO")
    slo_percentile: SloPercentile = 50
    prefill_decode: PrefillDecode = "auto"
    engine: Engine = Field(
        DEFAULT_ENGINE,
        description="serving engine, NAME[:VERSION] (models/serving/engines.py, builds.py); left "
        "at its default on an AMD cluster: vLLM's ROCm build (TensorRT-LLM does not run there)",
    )
    engine_version: str | None = builds.version_field()

    _model = field_validator("model")(_known_model)
    _rps_floor = field_validator("rps", mode="before")(at_least(MIN_RPS, RPS_FLOOR))

    def engine_on(self, gpu: str) -> str:
        """The engine this service runs on the cluster's GPU: as given, or, left at its default,
        the GPU's default (vLLM's ROCm build on AMD); InputError naming `engine` where the GPU
        cannot run it (TensorRT-LLM set on an AMD cluster)."""
        if "engine" not in self.model_fields_set:
            return builds.default_engine(gpu)
        builds.check_engine_on(self.engine, gpu)
        return self.engine

    def rps_by_month(self) -> list[float]:
        """Traffic in each month of its duration: rps × (1 + growth)^k for k = 0 … duration − 1."""
        return list(_rps_by_month(self.rps, self.growth_pct_per_month, self.duration_months))


@functools.lru_cache(maxsize=4096)
def _rps_by_month(rps: float, growth_pct: float, months: int) -> tuple[float, ...]:
    """rps × (1 + growth)^k for k = 0 … months − 1 (`Serve.rps_by_month`), kept: a comparison
    reads each service's traffic once per option it prices."""
    g = 1 + growth_pct / 100
    return tuple(rps * g**k for k in range(months))


class Steady(WorkloadBase):
    """A team's steady research use: `gpus` GPUs busy `utilisation_pct` of the hours. Its
    GPU-hours are work that any free GPU can do (it needs no gang)."""

    kind: Literal["steady"] = "steady"
    max_wait_days: float = _max_wait("steady")
    gpus: int = Field(64, ge=1, le=MAX_GPUS, description="GPUs the team uses at its peak")
    utilisation_pct: float = Field(60.0, gt=0, le=100, description="share of hours they are busy")


#: The registry of workload kinds: one record each, keyed by `kind`.
WORKLOAD_KINDS: dict[str, type[WorkloadBase]] = {
    "pretrain": Pretrain,
    "finetune": Finetune,
    "serve": Serve,
    "steady": Steady,
}
#: kinds whose runs need their whole GPU count at once, and the field giving their rate
GANG_RATE_FIELD = {"pretrain": "runs_per_month", "finetune": "jobs_per_month"}

PortfolioWorkload = Annotated[Pretrain | Finetune | Serve | Steady, Field(discriminator="kind")]
_WORKLOADS = TypeAdapter(list[PortfolioWorkload])


def release_months(w: WorkloadBase) -> list[float]:
    """When each run or job of a gang workload is released: start + k / rate for every k ≥ 0 with
    k / rate < duration (so 1 a month for 12 months is 12 runs, at months 0 … 11). InputError
    naming the rate's field when that is no run at all (a rate under the record's floor)."""
    field = GANG_RATE_FIELD[w.kind]
    rate = getattr(w, field)
    count = math.ceil(w.duration_months * rate - 1e-9) if rate > 0 else 0
    if count < 1:
        raise InputError(
            field,
            f"{field}: {rate:g} a month releases no run in {w.duration_months} months (allowed: "
            f"at least {MIN_RUNS_PER_MONTH:g}, {RUNS_FLOOR})",
        )
    return [w.start_month + k / rate for k in range(count)]


def runs_in_term(w: WorkloadBase, months: int) -> int:
    """How many of `release_months(w)` fall inside a `months`-month term (start + k / rate <
    months), counted without listing them: the same float comparison at the two ends."""
    if w.kind not in GANG_RATE_FIELD:
        return 0
    rate = getattr(w, GANG_RATE_FIELD[w.kind])
    count = math.ceil(w.duration_months * rate - 1e-9)
    n = min(count, max(0, math.ceil((months - w.start_month) * rate - 1e-9)))
    while n > 0 and w.start_month + (n - 1) / rate >= months:
        n -= 1
    while n < count and w.start_month + n / rate < months:
        n += 1
    return n


def check_runs(workloads: list[WorkloadBase], months: int, *, field: str = "workloads") -> None:
    """The queue's work is bounded: a portfolio releases at most MAX_GANG_RUNS pre-training runs
    and fine-tuning jobs in its term (models/portfolio/capacity.py queues each one). Too many raises
    InputError naming the workload that releases the most, and its rate field."""
    counts = [runs_in_term(w, months) for w in workloads]
    total = sum(counts)
    if total <= MAX_GANG_RUNS:
        return
    i = max(range(len(counts)), key=counts.__getitem__)
    rate = GANG_RATE_FIELD[workloads[i].kind]
    raise InputError(
        f"{field}[{i}].{rate}",
        f"{field}[{i}].{rate}: the portfolio releases {total:,} pre-training runs and fine-tuning"
        f" jobs in its {months}-month term; the planner queues at most {MAX_GANG_RUNS:,}"
        f" (allowed: {MAX_GANG_RUNS:,} in all). {workloads[i].name} releases the most"
        f" ({counts[i]:,}): lower its {rate} or duration_months, or shorten the term",
    )


def _range(model: type[WorkloadBase], name: str) -> str:
    """'allowed: more than 0 and at most 30' from a field's bounds, or ''."""
    info = model.model_fields.get(name)
    words = {"ge": "at least", "gt": "more than", "le": "at most", "lt": "less than"}
    parts = [
        f"{words[key]} {getattr(meta, key):g}"
        for meta in (info.metadata if info else ())
        for key in words
        if getattr(meta, key, None) is not None
    ]
    return "allowed: " + " and ".join(parts) if parts else ""


def parse_workloads(items: list[dict], *, field: str = "workloads") -> list[WorkloadBase]:
    """Validated workload records from plain dicts (a scenario file, the portal's table). The
    first problem raises InputError naming the field as `workloads[2].rps` and its allowed range;
    names must be unique."""
    try:
        workloads = _WORKLOADS.validate_python(items)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = [p for p in err["loc"] if p not in WORKLOAD_KINDS]
        path = field + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in loc)
        msg = err["msg"].removeprefix("Value error, ")
        if err["type"] in ("union_tag_invalid", "union_tag_not_found"):  # the kind itself
            given = str(err.get("ctx", {}).get("tag", ""))[:40]
            what = f"'{given}' is not a workload kind" if given else "missing"
            path, msg = f"{path}.kind", f"{what}; allowed: {', '.join(WORKLOAD_KINDS)}"
        kind = items[loc[0]].get("kind") if loc and isinstance(items[loc[0]], dict) else None
        rng = (
            _range(WORKLOAD_KINDS[kind], str(loc[1]))
            if isinstance(kind, str) and kind in WORKLOAD_KINDS and len(loc) > 1
            else ""
        )
        raise InputError(path, f"{path}: {msg}" + (f" ({rng})" if rng else "")) from None
    seen: set[str] = set()
    for i, w in enumerate(workloads):
        if w.name in seen:
            raise InputError(f"{field}[{i}].name", f"{field}[{i}].name: '{w.name}' is used twice")
        seen.add(w.name)
    return workloads


def check_gpu(gpu: str) -> str:
    if gpu not in load_gpus():
        raise InputError("gpu", f"unknown GPU '{gpu}'; choose one of: {', '.join(load_gpus())}")
    return gpu


__all__ = [
    "DEMAND_FIELD",
    "MAX_DEMAND_TERM_MULTIPLE",
    "MAX_GANG_RUNS",
    "MAX_WAIT_DAYS",
    "MAX_VALUE_USD_PER_DAY",
    "MAX_WAIT_DAYS_DEFAULT",
    "WORKLOAD_KINDS",
    "GANG_RATE_FIELD",
    "PortfolioWorkload",
    "Pretrain",
    "Finetune",
    "Serve",
    "Steady",
    "WorkloadBase",
    "check_runs",
    "parse_workloads",
    "release_months",
    "runs_in_term",
]

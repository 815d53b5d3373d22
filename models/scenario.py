"""The scenario schema (pydantic v2): the one description of a workload that the CLI, the portal,
the share link and the PDF all read. Hardware, workload and execution knobs are separate inputs.

`version` lets older share links and files be migrated when the schema changes.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    Strict,
    ValidationInfo,
    field_serializer,
    field_validator,
    model_validator,
)

from models.constants import DEFAULT_SOFTWARE_STACK, SOFTWARE_STACKS
from models.constraints import Constraints, excluded
from models.errors import InputError
from models.hardware import load_gpus
from models.model_file import MAX_SCENARIO_MODELS, scenario_models
from models.options import DEFAULT_COMPARE, OPTION_IDS, OptionId
from models.portfolio.workloads import (
    MAX_GPUS,
    MAX_MONTHS,
    PortfolioWorkload,
    check_runs,
    parse_workloads,
    value_of_time_field,
)
from models.shapes import (
    ModelShape,
    get_preset,
    known_model,
    shape_from_params,
    unknown_model,
)
from models.training.job import AttentionKernel
from models.units import BYTES_PER_PARAM

SCHEMA_VERSION = 1
#: version 2: a portfolio of workloads (models/portfolio/workloads.py) instead of one workload and its usage
PORTFOLIO_VERSION = 2
#: the two kinds of scenario (`Scenario.kind`)
ScenarioKind = Literal["run", "portfolio"]
#: the most workloads a v2 scenario holds
MAX_WORKLOADS = 200


class Workload(BaseModel):
    """What to train: a model (preset or parameter count), how many tokens, sequence and batch."""

    model_config = ConfigDict(extra="forbid")

    model: str | None = Field(
        default="llama3-70b",
        description="model preset id, or a model in own_models; leave empty to give params instead",
    )
    params: float | None = Field(
        default=None, ge=1e8, le=1e14, description="total parameters", examples=[7e9]
    )
    active_params: float | None = Field(
        default=None, ge=1e7, le=1e14, description="parameters active per token (MoE)"
    )
    tokens: float = Field(default=1e12, ge=1e6, le=1e15, description="training tokens")
    seq_len: int = Field(default=8192, ge=128, le=1_048_576, description="sequence length")
    global_batch_tokens: int | None = Field(
        default=None,
        ge=128,
        le=1_000_000_000,
        description="tokens per optimizer step; default: the compute-optimal batch of DeepSeek LLM's "
        "scaling law, 0.292·C^0.3271 tokens for C = 6·N_active·D FLOPs",
    )
    precision: Literal["bf16", "fp8"] = "bf16"

    @field_validator("model")
    @classmethod
    def _known_model(cls, v: str | None) -> str | None:
        if v is not None and not known_model(v):
            raise ValueError(unknown_model(v))
        return v

    @field_validator("active_params")
    @classmethod
    def _active_within_total(cls, v: float | None, info: ValidationInfo) -> float | None:
        if v is None:
            return v
        total = info.data.get("params")
        if total is None:
            raise ValueError("active_params needs params (the total parameter count)")
        if v > total:
            raise ValueError(f"must be at most params ({total:g})")
        return v

    @field_validator("global_batch_tokens")
    @classmethod
    def _batch_holds_a_sequence(cls, v: int | None, info: ValidationInfo) -> int | None:
        seq = info.data.get("seq_len")
        if v is not None and seq is not None and v < seq:
            raise ValueError(f"must hold at least one sequence (seq_len {seq:,})")
        return v

    @model_validator(mode="after")
    def _model_or_params(self) -> Workload:
        if self.params is not None:
            self.model = None
        if self.model is None and self.params is None:
            raise ValueError("give a model preset or params")
        return self

    def shape(self) -> ModelShape:
        if self.model is not None:
            return get_preset(self.model)
        return shape_from_params(self.params, self.active_params)

    def global_batch_seqs(self) -> int:
        """Sequences per step: the given batch, or the compute-optimal batch B = 0.292·C^0.3271 tokens
        (DeepSeek LLM, Bi et al. 2024, eq. 1, with C = 6·N_active·D), kept between 1M and 16M tokens (16M: Llama 3 405B's final batch).
        It gives ~5M tokens for a 7B model on 1T tokens and ~30M for 70B on 15T (Llama 2 used 4M;
        Llama 3 405B reached 16M; DeepSeek-V3 used 63M). It does not depend on the GPU count, so the
        scaling curve compares like with like."""
        if self.global_batch_tokens is not None:
            tokens = self.global_batch_tokens
        else:
            compute = 6 * self.shape().params_active * self.tokens
            tokens = min(max(0.292 * compute**0.3271, 2**20), 2**24)
        return max(1, int(tokens // self.seq_len))


class Cluster(BaseModel):
    """Which GPUs and how many: a fixed count, a deadline to meet, or neither (the efficient size,
    models/training/plan.py plan_training)."""

    model_config = ConfigDict(extra="forbid")

    gpu: str = Field(default="H100-SXM", description="GPU type id from the hardware catalogue")
    gpus: int | None = Field(
        default=None, ge=1, le=MAX_GPUS, description="GPU count", examples=[1024]
    )
    deadline_days: float | None = Field(
        default=None,
        gt=0,
        le=3650,
        description=(
            "days from the decision (day 0) to the end of the first run, provisioning included"
        ),
        examples=[30.0],
    )

    @field_validator("gpu")
    @classmethod
    def _known_gpu(cls, v: str) -> str:
        if v not in load_gpus():
            raise ValueError(f"unknown GPU; choose one of: {', '.join(load_gpus())}")
        return v

    @model_validator(mode="after")
    def _one_target(self) -> Cluster:
        if self.gpus is not None and self.deadline_days is not None:
            raise ValueError("give gpus or deadline_days, not both")
        return self


#: Attention kernels and the Job.flash_attention generation each stands for (models/constants.py).
ATTENTION_KERNELS = {
    "cudnn": AttentionKernel.CUDNN,
    "flash3": AttentionKernel.FLASH3,
    "flash2": AttentionKernel.FLASH2,
    "flash1": AttentionKernel.FLASH1,
    "none": AttentionKernel.NONE,
}
#: Bytes per gradient element held and reduced across data parallelism.
GRADIENT_BYTES = {p: BYTES_PER_PARAM[p] for p in ("fp32", "bf16")}


class Execution(BaseModel):
    """How the training software runs the job: the execution plan, kept apart from the workload and
    the hardware (as Calculon splits its configs). The defaults are Megatron-LM's for BF16 training;
    `software_stack` sets what its class does differently (constants.SOFTWARE_STACKS), and its
    attention kernel unless `attention` is given."""

    model_config = ConfigDict(extra="forbid")

    software_stack: Literal[
        "megatron-core-tuned",
        "megatron-3d-classic",
        "fsdp-zero",
        "in-house",
        "moe-zero-bubble",
        "moe-dualpipe",
    ] = Field(
        default=DEFAULT_SOFTWARE_STACK,
        description="software stack class (docs/reference/software-stacks.md): tuned "
        "Megatron-Core / NeMo (default: what a competent team gets today); classic Megatron-LM / "
        "Megatron-DeepSpeed / GPT-NeoX 3D (FlashAttention-1, no data-parallel overlap, no sequence "
        "parallelism); PyTorch FSDP / DeepSpeed ZeRO (data parallel only, sharded); a team's own "
        "tuned framework (as tuned Megatron-Core); an MoE trainer with zero-bubble pipelining and "
        "the expert all-to-all beside the shared experts (DeepSeek-V2's HAI-LLM); an MoE trainer "
        "with DualPipe, the all-to-all hidden behind a paired chunk (DeepSeek-V3's HAI-LLM)",
    )

    attention: Literal["cudnn", "flash3", "flash2", "flash1", "none"] = Field(
        default="flash2",
        description="attention kernel: cuDNN fused attention through Transformer Engine "
        "(FlashAttention-2 on Ampere); FlashAttention-3 (Hopper only); FlashAttention-2; "
        "FlashAttention-1, xformers or Triton (2022-23, about half the speed); none (scores "
        "stored, 2022 Megatron). Rates by GPU generation: constants.ATTENTION_EFFICIENCY",
    )
    tp_comm_overlap: bool = Field(
        default=False,
        description="overlap tensor-parallel collectives with GEMMs (Transformer Engine "
        "userbuffers; NeMo ub_tp_comm_overlap); off by default in Megatron-LM",
    )
    gradient_precision: Literal["fp32", "bf16"] = Field(
        default="fp32",
        description="gradients kept and reduced in fp32 (Megatron's default for BF16) or bf16",
    )
    fp8_params: bool = Field(
        default=False,
        description="FP8 training only: weights held and all-gathered in FP8 (1 byte) instead of "
        "BF16 plus an FP8 copy; the FP32 master weights stay in the optimizer and the embedding "
        "stays BF16 (Transformer Engine quantized_model_init / fp8_model_init, Megatron-Core "
        "fp8_param_gather; NVIDIA's MLPerf configs set FP8_PARAMS=True)",
    )

    @model_validator(mode="after")
    def _stack_kernel(self) -> Execution:
        """The stack's attention kernel when none is given."""
        if "attention" not in self.model_fields_set:
            self.attention = SOFTWARE_STACKS[self.software_stack]["attention"]
        return self

    def job_options(self) -> dict:
        """The Job fields this plan sets (models/training/job.py)."""
        return {
            "stack": self.software_stack,
            "flash_attention": ATTENTION_KERNELS[self.attention],
            "tp_comm_overlap": self.tp_comm_overlap,
            "grad_bytes": GRADIENT_BYTES[self.gradient_precision],
            "fp8_params": self.fp8_params,
        }


class ReliabilityInputs(BaseModel):
    """Failure and checkpoint assumptions; empty means the GPU's catalogue default."""

    model_config = ConfigDict(extra="forbid")

    failures_per_gpu_day: float | None = Field(default=None, gt=0, le=0.1)
    restart_minutes: float = Field(default=10.0, ge=0, le=24 * 60)
    storage_write_gbyte_per_s: float | None = Field(default=None, gt=0, le=1e6)


class Usage(BaseModel):
    """How the cluster is used over the term: a number of training runs of the workload back to
    back, or steady use at a utilisation."""

    model_config = ConfigDict(extra="forbid")

    mode: Literal["runs", "utilisation"] = "runs"
    runs: float = Field(default=1.0, gt=0, le=1000, description="training runs over the term")
    utilisation_pct: float = Field(
        default=60.0, gt=0, le=100, description="share of hours the GPUs are busy (steady use)"
    )
    value_usd_per_day_earlier: float | None = value_of_time_field(
        "training run: a day earlier for each run's result (runs mode; steady use is bridged "
        "to the same hours, so it has no delay to value)"
    )


class Term(BaseModel):
    """The contract term and how money is valued and paid."""

    model_config = ConfigDict(extra="forbid")

    months: int = Field(
        default=36, ge=12, le=MAX_MONTHS, description="term of the comparison, months"
    )
    discount_rate_pct: float | None = Field(
        default=None,
        ge=0,
        le=50,
        description="yearly discount rate for NPV; empty: catalogue default",
    )
    financing: Literal["cash", "loan", "lease"] = Field(
        default="cash", description="how owned hardware is paid for"
    )
    loan_years: int = Field(default=3, ge=1, le=10, description="loan length, years")
    past_term: Literal["idle", "resold"] = Field(
        default="idle",
        exclude_if=lambda v: (
            v == "idle"
        ),  # a scenario that keeps the default writes its JSON as before
        description="how the months a rental or cloud commitment runs past the term are valued: "
        "paid and idle, or resold (or assigned) at term end for their price less "
        "commitment_resale_haircut_pct",
    )
    depreciation: Literal["straight_line", "bonus_2025"] = Field(
        default="straight_line",
        exclude_if=lambda v: v == "straight_line",  # the default writes its JSON as before
        description="how owned hardware is depreciated after tax: straight-line over the "
        "depreciation period, or the US bonus depreciation of 2025 (100 % in the month it is "
        "placed in service); a new facility is depreciated over 39 years either way",
    )


#: version 2: the workload kinds that must train in FP8 for `execution.fp8_params` (the gang
#: training kinds: pre-training is planned with the execution plan, and either can be the
#: representative plan, pricing/planning/representative.py representative_run)
FP8_PARAMS_KINDS = ("pretrain", "finetune")

#: expansion phases an owned cluster may have (Options.build_expansions)
MAX_EXPANSIONS = 8
#: the ages, months, at which an owned cluster may be refreshed (Options.build_refresh_after_months):
#: from a year to the last age residual_values.csv gives (10 years: the longest term)
REFRESH_MONTHS = (12, 120)


class Expansion(BaseModel):
    """One expansion phase of an owned cluster: `gpus` more GPUs ordered at the start of `month`
    (0 = the decision), ready on the build timeline of an order of that size
    (pricing/planning/)."""

    model_config = ConfigDict(extra="forbid")

    gpus: int = Field(ge=1, le=MAX_GPUS, description="GPUs the phase adds")
    month: int = Field(
        ge=0, le=MAX_MONTHS - 1, description="month the phase is ordered (0 = the decision)"
    )


#: what a dedicated bridge pays per GPU-hour (Options.bridge_price, pricing/inputs.py)
BridgePrice = Literal["committed_1y", "on_demand"]
BRIDGE_PRICE_DEFAULT = "committed_1y"


class Options(BaseModel):
    """Which options to compare, and which rental providers to price (empty: catalogue median)."""

    model_config = ConfigDict(extra="forbid")

    compare: list[OptionId] = Field(
        default_factory=lambda: list(DEFAULT_COMPARE),
        min_length=1,
        max_length=len(OPTION_IDS),
    )
    facility: Literal["colocation", "owned"] = Field(
        default="colocation",
        description="where owned hardware lives: rented colocation or a new facility",
    )
    rent_commitment: Literal["1y", "3y", "monthly", "whole_term"] = Field(
        default="1y",
        description="how a dedicated cluster is rented: in 1-year commitments (the usual 12-18 "
        "month reservation of a training cluster), 3-year ones, month to month at the on-demand "
        "rate, or held for the whole comparison term; it is held for as long as the work needs, "
        "rounded up to whole commitments",
    )
    software_licence: bool = Field(
        default=False,
        description="pay a per-GPU software licence (NVIDIA AI Enterprise, licence_usd_per_gpu_year) "
        "on every option alike; off for training on an open-source stack",
    )
    rent_provider: str | None = Field(default=None, max_length=60)
    cloud_provider: str | None = Field(default=None, max_length=60)
    build_expansions: list[Expansion] = Field(
        default_factory=list,
        max_length=MAX_EXPANSIONS,
        exclude_if=lambda v: not v,  # a scenario without expansions writes the JSON it did
        description="version 2 only: expansion phases of the owned cluster (build, managed on "
        "owned hardware), each `gpus` more GPUs ordered in `month`",
    )
    bridge: bool = Field(
        default=True,
        description="an option ready later than the first that can be hired by the "
        "hour (rent, managed or cloud on demand) runs the work on that capacity until its own "
        "go-live, priced as its own line, so every option delivers the same work from the same "
        "day (version 2: the work released before each go-live, a run started on the bridge "
        "finishing there); off: options are ranked on their own, delivering different work",
        exclude_if=lambda v: v,  # on (the default): a scenario's JSON is as it was
    )
    bridge_price: BridgePrice = Field(
        default=BRIDGE_PRICE_DEFAULT,
        description="what a dedicated bridge (rent or managed, hired for the months until a "
        "later option's go-live) pays per GPU-hour: `committed_1y`, a short reservation at the "
        "dedicated providers' 1-year rate (the planner's default: a bridge of a few months is "
        "reserved, not paid at list price, pricing/bridge.py), or `on_demand`, their on-demand "
        "rate; cloud on demand bridges at its own price either way",
        exclude_if=lambda v: v == BRIDGE_PRICE_DEFAULT,  # the default: the JSON is as it was
    )
    build_refresh_after_months: int | None = Field(
        default=None,
        exclude_if=lambda v: v is None,  # a scenario without a refresh writes the JSON it did
        description="version 2 only: replace the owned cluster's hardware (build, managed on "
        "owned hardware) when it reaches this age, months, and again at each multiple; "
        "None: no refresh",
    )

    @field_validator("compare")
    @classmethod
    def _unique(cls, v: list[str]) -> list[str]:
        if len(set(v)) != len(v):
            raise ValueError("each option at most once")
        return v


def _named_by_id(data: dict, ids: dict[str, str]) -> dict:
    """`data` with each workload's `model` that names one of `own_models` by its own id
    (a hand-written file's "my-moe") naming it by the id it is registered under."""
    out = dict(data)
    one = out.get("workload")
    if isinstance(one, dict) and one.get("model") in ids:
        out["workload"] = {**one, "model": ids[one["model"]]}
    many = out.get("workloads")
    if isinstance(many, list):
        out["workloads"] = [
            {**w, "model": ids[w["model"]]}
            if isinstance(w, dict) and isinstance(w.get("model"), str) and w["model"] in ids
            else w
            for w in many
        ]
    return out


class Scenario(BaseModel):
    """Version 1: one training workload (`workload`) used as `usage` says. Version 2: a portfolio
    of `workloads` (models/portfolio/workloads.py; `workload` and `usage` are not used and must stay at their
    defaults), each option serving its monthly demand on its own capacity plan
    (pricing/planning/); `cluster.gpus`, when given, fixes the size of the fixed-size
    options. In both, `execution` and `reliability` say how the training runs (version 2: every
    pre-training workload and the representative plan, models/portfolio/demand.py TrainingSettings)."""

    model_config = ConfigDict(extra="forbid")

    version: Literal[1, 2] = SCHEMA_VERSION
    own_models: list[ModelShape] | None = Field(
        default=None,
        max_length=MAX_SCENARIO_MODELS,
        exclude_if=lambda v: not v,  # a scenario of presets writes its JSON as before
        description="models of one's own the workloads name (each the fields of "
        "models/data/model_presets.csv, checked as a `--model` file is, models/model_file.py): "
        "a workload names one by its model_id or its content id (model_id@hash), so the file "
        f"reopens on any machine; at most {MAX_SCENARIO_MODELS}",
    )
    workload: Workload = Field(default_factory=Workload)
    workloads: list[PortfolioWorkload] | None = Field(
        default=None,
        max_length=MAX_WORKLOADS,
        exclude_if=lambda v: v is None,  # a v1 scenario's JSON stays as it was
        description="version 2 only: the portfolio of workloads (pretrain, finetune, serve, steady)",
    )
    cluster: Cluster = Field(default_factory=Cluster)
    execution: Execution = Field(default_factory=Execution)
    reliability: ReliabilityInputs = Field(default_factory=ReliabilityInputs)
    usage: Usage = Field(default_factory=Usage)
    term: Term = Field(default_factory=Term)
    options: Options = Field(default_factory=Options)
    constraints: Constraints = Field(
        default_factory=Constraints,
        exclude_if=lambda v: (
            v == Constraints()
        ),  # a scenario without constraints writes its JSON as before
        description="what the buyer rules out before any cost (models/constraints.py): "
        "public_cloud_allowed, the site's power and cooling, facility upgrades, a quoted "
        "hardware lead time",
    )
    #: User values that replace catalogue figures for this scenario only (the files never change),
    #: keyed by the cost engine's input names, e.g. {"server_usd_per_gpu": 30000}.
    overrides: dict[str, Annotated[float, Strict()]] = Field(default_factory=dict, max_length=64)

    @model_validator(mode="before")
    @classmethod
    def _own_models_first(cls, data):
        """The scenario's own models checked and registered (models/model_file.py
        scenario_models) before any workload that names one is validated; a workload naming
        one by its own model_id then names it by its content id, as the portal and links do."""
        if not isinstance(data, dict) or not data.get("own_models"):
            return data
        return _named_by_id(data, scenario_models(data["own_models"]))

    @field_validator("workloads", mode="before")
    @classmethod
    def _parse_workloads(cls, v):
        """The portfolio's own parser (models/portfolio/workloads.py parse_workloads), so every entry point
        refuses the same values, naming `workloads[i].field`."""
        if v is None or not isinstance(v, list) or len(v) > MAX_WORKLOADS:
            return v  # the type and length checks say what is wrong
        if all(not isinstance(w, dict) for w in v):
            return v  # already records
        return parse_workloads(  # a record is dumped back; anything else is refused by name
            [w.model_dump() if isinstance(w, BaseModel) else w for w in v]
        )

    @field_serializer("workloads", mode="wrap")
    def _keep_kind(self, v, handler):
        """Each workload's `kind` is written even where it is the default (exclude_defaults, as
        share links write), so the list reads back as the same records."""
        out = handler(v)
        if v is None or out is None:
            return out
        return [{"kind": w.kind, **d} for w, d in zip(v, out, strict=True)]

    @model_validator(mode="after")
    def _something_offered(self) -> Scenario:
        """The constraints leave at least one compared option to offer."""
        ruled_out = excluded(self.constraints)
        if ruled_out and all(o in ruled_out for o in self.options.compare):
            raise InputError(
                "constraints.public_cloud_allowed",
                "every option compared puts work on public cloud, which the constraints rule "
                "out; compare Build, Rent dedicated or Managed as well, or allow public cloud",
            )
        return self

    @model_validator(mode="after")
    def _portfolio_by_version(self) -> Scenario:
        if self.version == 1:
            if self.execution.fp8_params and self.workload.precision != "fp8":
                raise InputError(
                    "execution.fp8_params",
                    "weights held in FP8 need precision fp8 (this workload trains in "
                    f"{self.workload.precision}); allowed: on only with precision fp8, else off",
                )
            if self.workloads is not None:
                raise InputError(
                    "workloads", "workloads needs version 2 (a v1 scenario has one workload)"
                )
            if self.options.build_expansions:
                raise InputError(
                    "options.build_expansions",
                    "expansion phases need version 2 (a demand over time); a v1 scenario has "
                    "one cluster of fixed size",
                )
            if self.options.build_refresh_after_months is not None:
                raise InputError(
                    "options.build_refresh_after_months",
                    "a hardware refresh needs version 2 (a demand over time)",
                )
            return self
        refresh, (low, high) = self.options.build_refresh_after_months, REFRESH_MONTHS
        high = min(high, self.term.months - 1)
        if refresh is not None and high < low:  # no age fits: say so, not "from 12 to 11"
            raise InputError(
                "options.build_refresh_after_months",
                f"a {self.term.months}-month term is too short for a refresh (the earliest is "
                f"at {low} months of age, inside the term): leave it empty or make the term "
                f"{low + 1} months or longer",
            )
        if refresh is not None and not low <= refresh <= high:
            raise InputError(
                "options.build_refresh_after_months",
                f"must be from {low} to {high} months (an age the resale curve gives, inside the "
                f"{self.term.months}-month term), or empty for no refresh",
            )
        for i, phase in enumerate(self.options.build_expansions):
            if phase.month >= self.term.months:
                raise InputError(
                    f"options.build_expansions[{i}].month",
                    f"must be within the term: from 0 to {self.term.months - 1}",
                )
        if not self.workloads:
            raise InputError("workloads", "a version 2 scenario needs at least one workload")
        check_runs(self.workloads, self.term.months)
        if self.execution.fp8_params:
            for i, w in enumerate(self.workloads):
                if w.kind in FP8_PARAMS_KINDS and w.precision != "fp8":
                    raise InputError(
                        "execution.fp8_params",
                        "weights held in FP8 need every training workload in fp8 "
                        f"(workloads[{i}], {w.name}, trains in {w.precision}); allowed: on only "
                        "when every pre-training and fine-tuning workload trains in fp8, else off",
                    )
        for name, default in (("workload", Workload()), ("usage", Usage())):
            if getattr(self, name) != default:
                raise InputError(
                    name, f"{name} is not used by a version 2 scenario; describe it in workloads"
                )
        if self.cluster.deadline_days is not None:
            raise InputError(
                "cluster.deadline_days",
                "a version 2 scenario has no deadline; each workload's delay is reported",
            )
        return self

    @property
    def is_portfolio(self) -> bool:
        return self.version == PORTFOLIO_VERSION

    @property
    def kind(self) -> ScenarioKind:
        """The kind of scenario, "run" (version 1: one training run) or "portfolio" (version 2:
        workloads over time): the key of every per-kind table (pricing/delivery.py,
        pricing/engine.py, app/)."""
        return "portfolio" if self.is_portfolio else "run"

    @field_validator("overrides")
    @classmethod
    def _finite_non_negative(cls, v: dict[str, float]) -> dict[str, float]:
        for key, value in v.items():
            if not (value == value and 0 <= value <= 1e12):  # NaN fails the first test
                raise ValueError(f"override {key!r} must be a number from 0 to 1e12")
        return v


def field_bounds(model: type[BaseModel], name: str) -> dict[str, float]:
    """A field's numeric bounds as written in its Field(): e.g. {"gt": 0, "le": 1000}."""
    info = model.model_fields.get(name)
    bounds: dict[str, float] = {}
    for meta in info.metadata if info else ():
        for key in ("ge", "gt", "le", "lt"):
            if getattr(meta, key, None) is not None:
                bounds[key] = getattr(meta, key)
    return bounds


def range_text(model: type[BaseModel], name: str, scale: float = 1, unit: str = "") -> str:
    """'allowed: at least 1e+06 and at most 1e+15' from a field's numeric bounds, or '' when it has
    none. With `scale` the bounds are given in that unit: scale 1e9, unit 'billion' reads
    'allowed: at least 0.001 and at most 1,000,000 billion'."""
    bounds = field_bounds(model, name)
    if not bounds:
        return ""

    def fmt(x: float) -> str:
        if scale != 1:
            return f"{x / scale:,.12g}"
        return f"{x:,}" if isinstance(x, int) else f"{x:g}"

    low = (
        f"at least {fmt(bounds['ge'])}"
        if "ge" in bounds
        else (f"more than {fmt(bounds['gt'])}" if "gt" in bounds else "")
    )
    high = (
        f"at most {fmt(bounds['le'])}"
        if "le" in bounds
        else (f"less than {fmt(bounds['lt'])}" if "lt" in bounds else "")
    )
    text = "allowed: " + " and ".join(p for p in (low, high) if p)
    return f"{text} {unit}" if unit else text


SECTIONS: dict[str, type[BaseModel]] = {
    "workload": Workload,
    "cluster": Cluster,
    "execution": Execution,
    "reliability": ReliabilityInputs,
    "usage": Usage,
    "term": Term,
    "options": Options,
    "constraints": Constraints,
}


def explain_validation_error(exc) -> list[tuple[str, str]]:
    """(field path, message with the allowed range) for each problem in a pydantic ValidationError."""
    out = []
    for err in exc.errors():
        loc = [str(p) for p in err["loc"]]
        path = ".".join(loc) or "scenario"
        cause = (err.get("ctx") or {}).get("error")
        if isinstance(cause, InputError):  # a validator that names the field itself
            out.append((cause.field, str(cause).removeprefix(f"{cause.field}: ")))
            continue
        msg = err["msg"].removeprefix("Value error, ")
        section = SECTIONS.get(loc[0]) if loc else None
        rng = range_text(section, loc[1]) if section and len(loc) > 1 else ""
        out.append((path, f"{msg} ({rng})" if rng else msg))
    return out

"""What a service costs per million tokens on each option (issue 29, item 7).

The service is priced as the portfolio it is (pricing/one_workload.py): one serving workload at
its traffic, on the service's GPU, every option compared by the engine like any portfolio (each
option's capacity plan, every cost line the buyer pays on it, the hybrid too), from the first month
every option is ready. Its tokens are requests/s × seconds from that month to the term end ×
tokens per request; an option's cost per million tokens is its total (nominal) cost over the term
÷ those tokens, in millions: dollars per million output tokens, and per million tokens in and
out. An option that does not serve the whole traffic (its capacity plan leaves work queued) has
no figure, and says why.

The rate is the service's own: `rps`, or `tokens_per_day` as its day's mean rate
(models/serving/plan.py requests_per_s), or for `users` in flight the rate they make at the plan's
latencies (users ÷ (TTFT + output tokens × TPOT), Little's law). A service given without a traffic
has no rate, hence no economics. The portfolio's serving workload sizes its own layout and KV
cache (the planner's choice); a fixed replica or batch (`gpus`, `batch`) or a K/V precision given
to the plan are not carried over, and the result says so."""

from __future__ import annotations

from pydantic import Field

from models.hardware import get_gpu
from models.record import Record
from models.scenario import Scenario
from models.serving.plan import ServeInputs, ServePlan, precision_of, requests_per_s
from models.units import DAYS_PER_MONTH, SECONDS_PER_DAY
from pricing.catalogue.loader import Catalogue
from pricing.one_workload import portfolio_of, priced_alone

#: the term a service is priced over when none is given (months)
DEFAULT_TERM_MONTHS = 36
#: the ServeInputs fields a portfolio's serving workload does not take (its planner chooses them)
NOT_CARRIED = ("gpus", "batch", "kv_precision")


class OptionTokenCost(Record):
    """One option's cost of the service over the term, and per million tokens."""

    option: str
    label: str
    available: bool
    #: why the option has no figure (not offered, or it leaves traffic unserved); "" when it has
    note: str = ""
    total_usd: float | None = None
    npv_usd: float | None = None
    #: the most GPUs its capacity plan holds in a month
    peak_gpus: float | None = None
    usd_per_million_output_tokens: float | None = None
    usd_per_million_tokens: float | None = Field(None, description="per million tokens in and out")


class ServingEconomics(Record):
    """The service's cost per million tokens on each option, over `term_months`."""

    term_months: int
    #: the month the service starts in: the first in which every option is ready
    start_month: int
    gpu: str
    requests_per_s: float
    output_tokens_millions: float = Field(description="over the term")
    tokens_millions: float = Field(description="input and output, over the term")
    options: list[OptionTokenCost]
    #: the option with the lowest cost per million output tokens (None: none serves it all)
    cheapest: str | None
    #: what the portfolio's serving workload did not carry over from the inputs ("" if nothing)
    note: str = ""
    #: the GPUs the service's own plan needs, and the node size the options hold capacity in
    #: (Compare sizes every option in whole nodes, so an option's peak can exceed the plan's)
    plan_gpus: int | None = None
    gpus_per_node: int | None = None


def service_rate(inp: ServeInputs, plan: ServePlan) -> float | None:
    """Requests/s the service makes (module docstring); None without a traffic."""
    rate = requests_per_s(inp)
    if rate is None and inp.users is not None:
        cycle_s = (plan.ttft_ms + inp.output_tokens * plan.tpot_ms) / 1e3
        rate = inp.users / cycle_s
    return rate


def service_workload(inp: ServeInputs, rate: float) -> dict:
    """The service as a portfolio's serving workload at `rate` requests/s."""
    return {
        "kind": "serve",
        "name": "service",
        "model": inp.model,
        "precision": precision_of(inp),
        "input_tokens": inp.input_tokens,
        "output_tokens": inp.output_tokens,
        "rps": rate,
        "ttft_ms": inp.ttft_ms,
        "tpot_ms": inp.tpot_ms,
        "slo_percentile": inp.slo_percentile,
        "prefill_decode": inp.prefill_decode,
        "engine": inp.engine,
    }


def scenario_of(inp: ServeInputs, rate: float, term_months: int, start_month: int = 0) -> Scenario:
    """The service as a one-workload portfolio from `start_month` to the term end."""
    return portfolio_of(service_workload(inp, rate), inp.gpu, term_months, start_month)


def economics(
    inp: ServeInputs,
    plan: ServePlan,
    catalogue: Catalogue | None = None,
    term_months: int = DEFAULT_TERM_MONTHS,
) -> ServingEconomics | None:
    """The service's cost per million tokens on every option (module docstring); None when the
    service has no traffic to price."""
    rate = service_rate(inp, plan)
    if rate is None:
        return None
    c, start = priced_alone(service_workload(inp, rate), inp.gpu, term_months, catalogue)
    seconds = (term_months - start) * DAYS_PER_MONTH * SECONDS_PER_DAY
    output_m = rate * seconds * inp.output_tokens / 1e6
    tokens_m = rate * seconds * (inp.input_tokens + inp.output_tokens) / 1e6
    options = []
    for o in c.options:
        serves = o.available and o.completes_workload
        note = o.note if not serves else ""
        if o.available and not o.completes_workload and not note:
            note = "its capacity plan leaves traffic unserved"
        options.append(
            OptionTokenCost(
                option=o.option,
                label=o.label,
                available=o.available,
                note=note,
                total_usd=o.total_usd if o.available else None,
                npv_usd=o.npv_usd if o.available else None,
                peak_gpus=max(o.capacity_gpus, default=None) if o.available else None,
                usd_per_million_output_tokens=o.total_usd / output_m if serves else None,
                usd_per_million_tokens=o.total_usd / tokens_m if serves else None,
            )
        )
    priced = [o for o in options if o.usd_per_million_output_tokens is not None]
    cheapest = min(priced, key=lambda o: o.usd_per_million_output_tokens, default=None)
    left_out = [f for f in NOT_CARRIED if getattr(inp, f) is not None]
    note = (
        f"priced on the planner's own layout: {', '.join(left_out)} not carried over"
        if left_out
        else ""
    )
    return ServingEconomics(
        term_months=term_months,
        start_month=start,
        gpu=inp.gpu,
        requests_per_s=rate,
        output_tokens_millions=output_m,
        tokens_millions=tokens_m,
        options=options,
        cheapest=cheapest.option if cheapest else None,
        note=note,
        plan_gpus=plan.gpus,
        gpus_per_node=get_gpu(inp.gpu).gpus_per_node,
    )


class GpuChoice(Record):
    """The service on one GPU: its plan's size and latencies, and its cheapest option per million
    tokens; or why it cannot be served there."""

    gpu: str
    #: the engine build the plan runs on this GPU, with its version ("vLLM (ROCm) 0.7.3")
    engine: str | None = None
    gpus: int | None = None
    ttft_ms: float | None = None
    tpot_ms: float | None = None
    precision: str | None = None
    cheapest: str | None = None
    cheapest_label: str | None = None
    usd_per_million_output_tokens: float | None = None
    usd_per_million_tokens: float | None = None
    #: why the service has no plan or no price on this GPU ("" when it has both)
    note: str = ""


def compare_gpus(
    inp: ServeInputs,
    gpus: list[str],
    catalogue: Catalogue | None = None,
    term_months: int = DEFAULT_TERM_MONTHS,
) -> list[GpuChoice]:
    """The service on each of `gpus` at its own default precision (unless one is given and the
    GPU has it): GPUs needed, TTFT and TPOT at the objective, and the cheapest option's cost per
    million tokens (`economics`). An engine left unset runs each GPU's own default build
    (TensorRT-LLM on NVIDIA, vLLM's ROCm build on AMD: builds.default_engine); one chosen
    explicitly is kept, and refused, with the reason, on a GPU it does not run on. Each GPU's
    inputs are validated afresh (a copy would skip the GPU's own checks)."""
    from models.errors import InputError  # the core's refusals, named per GPU
    from models.serving import builds
    from models.serving.plan import plan_serving

    out = []
    for gpu in gpus:
        try:
            data = inp.model_dump() | {"gpu": gpu}
            if "engine" not in inp.model_fields_set:
                data.pop("engine", None)  # unset: the GPU's own default
            on = type(inp).model_validate(data)
            plan = plan_serving(on)
            e = economics(on, plan, catalogue, term_months)
        except (InputError, ValueError) as exc:  # a refusal, or the GPU's own validation
            out.append(GpuChoice(gpu=gpu, note=str(exc)))
            continue
        best = next((o for o in e.options if o.option == e.cheapest), None) if e else None
        out.append(
            GpuChoice(
                gpu=gpu,
                engine=" ".join(x for x in (builds.build_of(on).label, plan.engine_version) if x),
                gpus=plan.gpus,
                ttft_ms=plan.ttft_ms,
                tpot_ms=plan.tpot_ms,
                precision=plan.precision,
                cheapest=best.option if best else None,
                cheapest_label=best.label if best else None,
                usd_per_million_output_tokens=best.usd_per_million_output_tokens if best else None,
                usd_per_million_tokens=best.usd_per_million_tokens if best else None,
                note="" if best else "no option serves it all" if e else "no traffic to price",
            )
        )
    return out

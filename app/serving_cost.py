"""A service's cost per million tokens (pricing/serving_economics.py) and a fine-tune's cost per
job (pricing/finetune_economics.py) on each option as rows and captions, the same for
`clusterplan serve` / `finetune` and the Serve / Fine-tune pages: every figure read from the
engine's result, none recomputed."""

from __future__ import annotations

from app.formatting import usd, usd_rate
from models.numbers import on_day
from models.units import DAYS_PER_MONTH
from pricing.finetune_economics import FinetuneEconomics
from pricing.serving_economics import GpuChoice, ServingEconomics

HEADER = ["Option", "$ per M output tokens", "$ per M tokens in+out", "Total", "Peak GPUs"]


def rows(e: ServingEconomics) -> list[list[str]]:
    """HEADER, then one row per option in the comparison's order; the cheapest marked."""
    out = [list(HEADER)]
    for o in e.options:
        mark = " (cheapest)" if o.option == e.cheapest else ""
        if o.usd_per_million_output_tokens is None:
            out.append([o.label + mark, "-", "-", usd(o.total_usd), _gpus(o.peak_gpus)])
            continue
        out.append(
            [
                o.label + mark,
                usd_rate(o.usd_per_million_output_tokens),
                usd_rate(o.usd_per_million_tokens),
                usd(o.total_usd),
                _gpus(o.peak_gpus),
            ]
        )
    return out


def _gpus(n: float | None) -> str:
    return "-" if n is None else f"{n:,.0f}"


def caption(e: ServingEconomics) -> str:
    """What the figures are: the term, when the service starts, its rate and tokens."""
    start = (
        f"from month {e.start_month} ({on_day(e.start_month * DAYS_PER_MONTH)}: the first month "
        "every option is ready)"
        if e.start_month
        else "from the first month"
    )
    text = (
        f"The service at {e.requests_per_s:,.3g} requests/s {start} to the end of a "
        f"{e.term_months}-month term on {e.gpu}: {e.output_tokens_millions:,.0f} M output tokens, "
        f"{e.tokens_millions:,.0f} M in and out. Each option's total is every cost it pays over "
        "the term (its capacity plan, as on Compare), divided by those tokens."
    )
    peaks = {round(o.peak_gpus) for o in e.options if o.usd_per_million_output_tokens is not None}
    if e.plan_gpus and peaks - {e.plan_gpus}:
        text += (
            f" Peak GPUs is what each option holds at its busiest, sized as on Compare in whole "
            f"{e.gpus_per_node}-GPU nodes; the plan above needs {e.plan_gpus:,}."
        )
    return text + (f" Note: {e.note}." if e.note else "")


def notes(e: ServingEconomics | FinetuneEconomics) -> list[str]:
    """Why an option has no figure (or what to know of its figure): one line per distinct note,
    naming every option it applies to, in the comparison's order ("Cloud on-demand, Cloud spot:
    no hyperscaler price for L40S ...")."""
    labels: dict[str, list[str]] = {}
    for o in e.options:
        if o.note:
            labels.setdefault(o.note, []).append(o.label)
    return [f"{', '.join(names)}: {note}" for note, names in labels.items()]


GPU_HEADER = [
    "GPU",
    "Engine",
    "GPUs",
    "Weights",
    "TTFT ms",
    "TPOT ms",
    "Cheapest option",
    "$ per M output tokens",
    "$ per M tokens in+out",
]


def gpu_rows(choices: list[GpuChoice]) -> list[list[str]]:
    """GPU_HEADER, then one row per GPU: the service's size, latencies and cheapest option there,
    or why it has none (in the option column)."""
    out = [list(GPU_HEADER)]
    for g in choices:
        if g.gpus is None:
            out.append([g.gpu, g.engine or "-", "-", "-", "-", "-", g.note, "-", "-"])
            continue
        out.append(
            [
                g.gpu,
                g.engine or "-",
                f"{g.gpus:,}",
                (g.precision or "").upper(),
                f"{g.ttft_ms:,.0f}",
                f"{g.tpot_ms:,.1f}",
                g.cheapest_label or g.note,
                usd_rate(g.usd_per_million_output_tokens),
                usd_rate(g.usd_per_million_tokens),
            ]
        )
    return out


JOB_HEADER = ["Option", "$ per job", "Jobs finished", "Total", "Largest cost line"]


def job_rows(e: FinetuneEconomics) -> list[list[str]]:
    """JOB_HEADER, then one row per option: its cost per job, or "-" where it has none."""
    out = [list(JOB_HEADER)]
    for o in e.options:
        mark = " (cheapest)" if o.option == e.cheapest else ""
        largest = f"{o.largest_line} ({o.largest_share:.0%})" if o.largest_line else "-"
        jobs = "-" if o.jobs_finished is None else f"{o.jobs_finished:,.0f}"
        out.append([o.label + mark, usd(o.usd_per_job), jobs, usd(o.total_usd), largest])
    return out


def job_caption(e: FinetuneEconomics) -> str:
    start = f"from month {e.start_month} (the first month every option is ready)"
    return (
        f"{e.jobs_per_month:g} jobs a month of {e.gpus_per_job:,} × {e.gpu} {start} to the end "
        f"of a {e.term_months}-month term: {e.jobs_released:,.0f} jobs. Each option's total is "
        "every cost it pays over the term, its fixed lines included (a platform team, storage, "
        "a cluster held between jobs), divided by the jobs it finishes; more jobs a month spread "
        "them thinner." + (f" Note: {e.note}." if e.note else "")
    )


#: a class whose held-out rows are this much faster or slower than measured (median) gets a warning
WARN_BEYOND = 0.25


#: what is known of a replica of pipeline stages (docs/reference/serving-evidence.md, twenty-eighth
#: amendment): no measured row; users' reports of vLLM pipelines (GitHub issues, 2024)
PIPELINE_CAVEAT = (
    "No measured serving row has pipeline stages, so this layout is not validated: it assumes its "
    "{n} stages stay evenly busy with a batch on each. Users report vLLM pipelines from no gain at "
    "all (Llama 3.1 8B over 8 stages, vllm-project/vllm issue 11500, 2024) to about 6x the "
    "throughput for 8x the GPUs (Llama 3 70B at TP 8 x PP 8, issue 6938, 2024), so its tokens per "
    "GPU may be optimistic"
)


def accuracy_warning(
    moe: bool,
    engine: str | None = None,
    gpu: str | None = None,
    data_parallel: bool = False,
    pipeline_stages: int | None = None,
) -> str:
    """What the measured serving rows say of plans of this model class on this engine and GPU
    (models/validation/silicon.py held_out_bias: their own held-out rows where there are enough,
    else the class's; a plan with attention data parallelism, the rows that have it), when the
    model's TPOT is off by more than WARN_BEYOND either way; "" otherwise. A plan with pipeline
    stages (ServePlan.pp) says that no row has them (PIPELINE_CAVEAT)."""
    if pipeline_stages:
        return PIPELINE_CAVEAT.format(n=pipeline_stages)
    from models.validation.silicon import held_out_bias

    bias, rows, scope = held_out_bias(moe, engine, gpu, data_parallel)
    if abs(bias) < WARN_BEYOND or not rows:
        return ""
    kind = "mixture-of-experts" if moe else "dense"
    where = f" on {scope}" if scope else ""
    if bias < 0:
        return (
            f"On {rows} held-out measured serving rows of {kind} models{where} (docs/validation.md) "
            f"the model's time per output token is {-bias:.0%} shorter than measured (median): GPU "
            f"counts and costs per token for this model are likely optimistic, by about "
            f"{1 / (1 + bias):.1f}x"
        )
    return (
        f"On {rows} held-out measured serving rows of {kind} models{where} (docs/validation.md) "
        f"the model's time per output token is {bias:.0%} longer than measured (median): GPU "
        f"counts and costs per token for this model are likely pessimistic, by about "
        f"{1 + bias:.1f}x"
    )

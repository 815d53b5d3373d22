"""What a fine-tuning job costs on each option (issue 29, item 7: the Fine-tune page's dollars per
job).

The job, repeated `jobs_per_month` times a month, is priced as the one-workload portfolio it is
(pricing/one_workload.py): a portfolio fine-tuning workload of the plan's model, method, dataset,
epochs, batch, rank, precision and GPU count, every option planned and costed by the engine like
any portfolio, from the first month every option is ready to the term end. An option's cost per
job is its total (nominal) cost over the term ÷ the jobs it finishes in it (`runs_completed`); one
that does not finish every job released has no figure, and says why. An owned cluster bought for
a few jobs a month is paid for whether it trains or idles, so its cost per job falls as the jobs
per month rise; a cloud's per-use price does not."""

from __future__ import annotations

from pydantic import Field

from models.finetune.plan import FinetuneInputs, FinetunePlan
from models.finetune.savings import SAVINGS
from models.record import Record
from pricing.catalogue.loader import Catalogue
from pricing.one_workload import priced_alone

DEFAULT_TERM_MONTHS = 36
DEFAULT_JOBS_PER_MONTH = 4.0
#: FinetuneInputs fields a portfolio's fine-tuning workload does not take (its defaults apply)
NOT_CARRIED = ("lora_targets", "fp8_activation_input_store")


class OptionJobCost(Record):
    option: str
    label: str
    available: bool
    note: str = ""
    total_usd: float | None = None
    jobs_finished: float | None = None
    usd_per_job: float | None = None
    #: the option's largest cost line and its share of the total (the fixed lines, a team or a
    #: cluster held, outweigh the compute of a few small jobs)
    largest_line: str = ""
    largest_share: float | None = None


class FinetuneEconomics(Record):
    """The job's cost on each option over `term_months`."""

    term_months: int
    #: the month the jobs start in: the first in which every option is ready
    start_month: int
    gpu: str
    gpus_per_job: int
    jobs_per_month: float
    jobs_released: float = Field(description="from the start month to the term end")
    options: list[OptionJobCost]
    cheapest: str | None
    note: str = ""


def finetune_workload(inp: FinetuneInputs, plan: FinetunePlan, jobs_per_month: float) -> dict:
    """The job as a portfolio's fine-tuning workload on the plan's GPU count."""
    return {
        "kind": "finetune",
        "name": "fine-tune",
        "model": inp.model,
        "method": inp.method,
        "tokens": plan.dataset_tokens,
        "epochs": inp.epochs,
        "seq_len": inp.seq_len,
        "global_batch_seqs": inp.global_batch_seqs,
        "lora_rank": inp.lora_rank,
        "precision": inp.precision,
        "gpus": plan.gpus,
        "jobs_per_month": jobs_per_month,
        "framework": inp.framework,
        "fp8_params": inp.fp8_params,
        "bf16_grads": inp.bf16_grads,
        **{k: getattr(inp, k) for k in SAVINGS},
    }


def economics(
    inp: FinetuneInputs,
    plan: FinetunePlan,
    catalogue: Catalogue | None = None,
    term_months: int = DEFAULT_TERM_MONTHS,
    jobs_per_month: float = DEFAULT_JOBS_PER_MONTH,
) -> FinetuneEconomics:
    """The job's cost on every option (module docstring)."""
    work = finetune_workload(inp, plan, jobs_per_month)
    c, start = priced_alone(work, inp.gpu, term_months, catalogue)
    released = jobs_per_month * (term_months - start)
    options = []
    for o in c.options:
        done = o.available and o.completes_workload and o.runs_completed > 0
        note = "" if done else (o.note or "it does not finish every job released in the term")
        line, amount = max(o.breakdown_usd.items(), key=lambda x: x[1], default=("", 0.0))
        options.append(
            OptionJobCost(
                option=o.option,
                label=o.label,
                available=o.available,
                note=note,
                total_usd=o.total_usd if o.available else None,
                jobs_finished=o.runs_completed if o.available else None,
                usd_per_job=o.total_usd / o.runs_completed if done else None,
                largest_line=line if o.total_usd > 0 else "",
                largest_share=amount / o.total_usd if o.total_usd > 0 else None,
            )
        )
    priced = [o for o in options if o.usd_per_job is not None]
    cheapest = min(priced, key=lambda o: o.usd_per_job, default=None)
    left_out = [f for f in NOT_CARRIED if f in inp.model_fields_set]
    return FinetuneEconomics(
        term_months=term_months,
        start_month=start,
        gpu=inp.gpu,
        gpus_per_job=plan.gpus,
        jobs_per_month=jobs_per_month,
        jobs_released=released,
        options=options,
        cheapest=cheapest.option if cheapest else None,
        note=f"priced with the workload's defaults for {', '.join(left_out)}" if left_out else "",
    )

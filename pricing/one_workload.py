"""One workload priced alone on every option, as the one-workload portfolio it is: the basis of
a service's cost per million tokens (pricing/serving_economics.py) and a fine-tune's cost per job
(pricing/finetune_economics.py).

The workload starts in the first month in which every option is ready (the latest ready day of a
first pricing from month 0), so that every option does the same work and none is sized to catch
up work made before it existed: a portfolio's work waits for capacity, and a buyer would not send
a service or a job to a cluster still being built. Each option's total is every cost it pays over
the whole term, the months before the start included (an owned cluster is bought and built then).
"""

from __future__ import annotations

import math

from pydantic import ValidationError

from models.errors import InputError
from models.options import OPTION_IDS
from models.scenario import Scenario, explain_validation_error
from models.units import DAYS_PER_MONTH
from pricing.catalogue.loader import Catalogue
from pricing.engine import Comparison, compare


def portfolio_of(workload: dict, gpu: str, term_months: int, start_month: int = 0) -> Scenario:
    """`workload` (a portfolio workload's fields, None left out) alone from `start_month` to the
    term end on `gpu`, every option compared."""
    fields = {k: v for k, v in workload.items() if v is not None}
    fields |= {"start_month": start_month, "duration_months": term_months - start_month}
    data = {
        "version": 2,
        "workloads": [fields],
        "cluster": {"gpu": gpu},
        "term": {"months": term_months},
        "options": {"compare": list(OPTION_IDS)},
    }
    try:
        return Scenario.model_validate(data)
    except ValidationError as exc:  # e.g. a rate past what a portfolio's workload carries
        field, message = explain_validation_error(exc)[0]
        raise InputError(field, f"priced as a portfolio workload, {field}: {message}") from None


def priced_alone(
    workload: dict, gpu: str, term_months: int, catalogue: Catalogue | None = None
) -> tuple[Comparison, int]:
    """(the comparison of `workload` alone from the first month every option is ready, that
    month): two comparisons without decision support."""
    first = compare(portfolio_of(workload, gpu, term_months), catalogue, decision=False)
    ready = max((o.ready_day for o in first.options if o.available), default=0.0)
    start = min(math.ceil(ready / DAYS_PER_MONTH - 1e-9), term_months - 1)
    return compare(
        portfolio_of(workload, gpu, term_months, start), catalogue, decision=False
    ), start

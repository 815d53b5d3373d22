"""Bridging to go-live (issue 30, "the same work, or the difference priced"): in a one-run scenario
every compared option is put on the same delivered work. The work starts on the day the
option hired by the hour is ready (the *bridge*: a dedicated rental or a managed
cluster at the bridge's dedicated rate, or public cloud on demand; of those compared,
the one with the lowest hourly rate); an option ready later runs the work on the bridge's capacity, the same GPUs, from that day to its own go-live, as
buyers do while a cluster is built. The bridge is that option's own cash-flow function (its
GPU-hours, setup, support, storage) on the window [start, go-live), priced as one line, `bridge`;
the option's own operations or platform team is already paid from its hiring lead, so the
bridge's staff line is left out, and the bridge ships no weights (its egress is the option's).

Steady use is bridged always: its GPU-hours count from the start, at the utilisation. Runs are
bridged only for an option that would not finish them within the term alone (runs it finishes
deliver the same work, later; what that time is worth is the deadline's and the buyer's): they
run back to back from the start, each at the option's own days per run, the option's own GPUs
working from its go-live (pricing/delivery.py decides which options are bridged).
The bridge's dedicated rate (`options.bridge_price`, the figure BRIDGE_RENT_KEY; a managed bridge
adds the managed premium): `committed_1y` (the default), the dedicated providers' 1-year rate, or
`on_demand`, their on-demand rate. The default is the planner's (2026-12-02): a bridge of a few
months is reserved, not paid at list price. Short reservations are sold by the week or month, and
for an H100 they cost about the 1-year rate or less, against the neocloud on-demand median of $3.90
(rental_prices.csv): SF Compute's market average for reserved H100 capacity, from one node-hour to
years, $2.11 a GPU-hour (sfcompute.com, read 2026-09-20); Hyperstack's reserved H100 SXM from
$2.72 against $3.20 on demand (hyperstack.cloud/gpu-pricing, read 2026-08-26); Lambda bills its
1-Click Clusters in weekly increments of a reservation (docs.lambda.ai/public-cloud/billing); the
1-year market index is $2.35 (SemiAnalysis, 2026-03). No catalogue of 3-6-month rates by GPU
exists, so the 1-year rate stands for them; `on_demand` is the dearer reading. Cloud on demand
bridges at its own price either way.

`options.bridge` off: no bridge; options are then ranked on their own, delivering different
work, and the recommendation says so (pricing/decision.py)."""

from __future__ import annotations

import dataclasses

import numpy as np

from models.options import OPTIONS, Billing, spec
from pricing.inputs import BRIDGE_KEY, CostInputs
from pricing.rows import window

#: options a buyer can hire by the hour for a few months while another is built (the registry's
#: dedicated rentals, managed or not, and public cloud paid per use that cannot be taken back)
BRIDGES = tuple(
    o.id
    for o in OPTIONS
    if o.billing in (Billing.RENT, Billing.MANAGED_RENT)
    or (o.billing is Billing.PER_USE and not o.interruptible)
)
#: the figure a dedicated bridge pays per GPU-hour (pricing/inputs.py, `options.bridge_price`)
BRIDGE_RENT_KEY = BRIDGE_KEY
#: the flows' staff line (the option's own team runs the bridge) and what bridging leaves out
LEFT_OUT = frozenset({"staff"})


def hourly_rate(option: str, P: dict) -> np.ndarray:
    """What a bridge on `option` pays per GPU-hour: a dedicated rental at the providers' on-demand
    rate (a managed one with the managed premium), cloud at its on-demand price."""
    s = spec(option)
    if s.billing is Billing.RENT:
        return P[BRIDGE_RENT_KEY]
    if s.billing is Billing.MANAGED_RENT:
        return P[BRIDGE_RENT_KEY] * (1 + P["managed_premium_pct"] / 100)
    return P[s.price_key]


def bridge_rate(b, P: dict, bridge_price: str) -> tuple[float, str]:
    """(what a bridge on `b` (its spec) pays per GPU-hour at the figures `P`, which price that
    is): `bridge_price` (options.bridge_price) for a dedicated bridge, "cloud_on_demand" for
    cloud."""
    rate = float(np.asarray(hourly_rate(b.id, P)).flat[0])
    if b.billing in (Billing.RENT, Billing.MANAGED_RENT):
        return rate, bridge_price
    return rate, "cloud_on_demand"


def bridge_option(inp: CostInputs, ready_days: dict[str, float], P: dict) -> str | None:
    """The compared option that bridges: of BRIDGES offered in this scenario, the one with the
    lowest hourly rate (`hourly_rate` at the base figures of `P`), the earliest ready of equals
    (`ready_days`: base-case ready day by option); None when bridging is off, for a portfolio
    (bridged slot by slot in its capacity plans, pricing/planning/bridging.py), or when none is
    compared."""
    if not inp.scenario.options.bridge or inp.scenario.is_portfolio:
        return None
    offered = [o for o in BRIDGES if o in ready_days and o not in inp.unavailable]
    return min(
        offered,
        key=lambda o: (float(np.asarray(hourly_rate(o, P)).flat[0]), ready_days[o]),
        default=None,
    )


def bridged(inp: CostInputs, ready_days: dict[str, float], P: dict) -> dict[str, str]:
    """option -> the option that bridges it: every compared, offered option ready later than the
    bridge (at the base case)."""
    b = bridge_option(inp, ready_days, P)
    if b is None:
        return {}
    return {
        o: b
        for o, day in ready_days.items()
        if o != b and o not in inp.unavailable and day > ready_days[b]
    }


def bridge_part(
    inp: CostInputs, P: dict, bridge: str, start: np.ndarray, own_ctx, util: np.ndarray | None
) -> tuple:
    """(spec, inputs, P, Context) of the bridge for an option whose own Context is `own_ctx`:
    the bridge's GPUs held from `start` to the option's go-live (a dedicated bridge) or busy
    there (cloud on demand), busy as the work is (runs back to back: until the last ends; steady
    use: at the utilisation `util`), at BRIDGE_RENT_KEY's rate for a dedicated bridge."""
    b = spec(bridge)
    go_live = own_ctx.ready_day
    months = own_ctx.months
    held = window(months, start, go_live)
    if util is None:  # runs back to back from the start
        busy = window(months, start, np.minimum(go_live, own_ctx.busy_end))
    else:
        busy = held * util
    ctx = dataclasses.replace(
        own_ctx,
        ready_day=start,
        runs_done=np.zeros_like(own_ctx.runs_done),
        busy=busy,
        busy_end=np.minimum(go_live, own_ctx.busy_end),
        held=held if b.dedicated else busy,
        beyond_months=None,
        bridge=(),
        parts=(),
    )
    if b.billing in (Billing.RENT, Billing.MANAGED_RENT):
        P = P | {b.price_key: P[BRIDGE_RENT_KEY]}
    return b, inp, P, ctx


def bridge_flows(part: tuple, flows_of) -> np.ndarray:
    """The bridge's one line: every line of its option's flows (`flows_of(spec, inputs, P, ctx)`)
    but LEFT_OUT, summed."""
    b, inp, P, ctx = part
    total = 0.0
    for key, value in flows_of(b, inp, P, ctx).items():
        if key not in LEFT_OUT:
            total = total + value
    return total


#: options delivering work within this share of each other deliver the same work
SAME_WORK_TOLERANCE = 1e-6
#: the unit each kind of use is ranked per when bridging is off (OptionResult's delivered field)
PER_UNIT = {"utilisation": ("GPU-hour", "delivered_gpu_hours"), "runs": ("run", "runs_completed")}


def per_delivered_unit(inp: CostInputs, pool: list) -> str | None:
    """The unit the options are ranked per: with bridging off (options.bridge) in a one-run
    scenario whose options deliver different work (GPU-hours of steady use, runs done), "GPU-hour"
    or "run"; None otherwise (they are ranked by NPV)."""
    sc = inp.scenario
    if sc.is_portfolio or sc.options.bridge or len(pool) < 2:
        return None
    unit, field = PER_UNIT[sc.usage.mode]
    work = [getattr(r, field) for r in pool]
    if min(work) <= 0 or max(work) <= min(work) * (1 + SAME_WORK_TOLERANCE):
        return None
    return unit

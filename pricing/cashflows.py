"""Monthly cash flows of each option, vectorized over parameter sets.

Every function takes `P` (figure key -> array of shape (n, 1), one row per parameter set: the base
case, tornado variants or Monte Carlo draws) and a `Context` (per-option ready day and training
time, shape (n, 1)) and returns {category: array (n, months)} in USD. Months are 365.25/12 days;
a month's share of a window [start, end) is the overlap in days over the month's length.

Build: hardware (and, with an owned facility, its construction at $/kW of IT load, valued
straight-line over its life at term end, plus upkeep, instead of colocation) paid on acceptance (cash), by an annuity loan (balance settled at term end) or an
operating lease that leaves the residual value with the lessor; a bought cluster pays a deposit
with the order (day 0); sales tax on the equipment is paid and financed with it; power = max node
power × (idle + (1 − idle) × busy share) × PUE × $/kWh; colocation on provisioned kW from the
space's hand-over (the facility phase's end); staff max(minimum team, FTE per 1,000 GPUs) from a
hiring lead before acceptance; support % of servers and fabric a year (it replaces failed parts);
insurance % of the equipment a year from delivery; property tax % of its straight-line book value
a year; licences per GPU-year; resale at term end: the GPU share of the servers at the GPU curve,
host and fabric at their own yearly decline, less a whole-cluster haircut (docs/reference/tco.md
section 3).
Rent: committed $/GPU-hour for every held hour, take-or-pay to the minimum term (months committed
past the term are their own line, paid in its last month, and credited at a haircut where the
buyer resells or assigns them: `past_term`), support tier %,
setup fee per node, storage $/GB-month, egress of the trained weights, and the buyer's own platform
team (rented_ops_* FTE at the same loaded salary) while the cluster is held. Managed: the rent plus
the managed premium, no staff; on owned hardware, build without staff plus a yearly fee.
Cloud: on-demand and spot pay busy hours only; committed pays whole 1- or 3-year blocks; each pays
its support plan, a share of the compute bill (as Rent pays its support tier on the rent), and the
platform team while the work runs.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from models.hardware import get_gpu
from models.options import OPTIONS, Billing, OptionSpec, Staffing
from models.options import spec as spec_of
from pricing import site_power
from pricing.bridge import bridge_flows
from pricing.inputs import DAYS_PER_MONTH, HOURS_PER_MONTH, CostInputs
from pricing.rows import MonthColumns, Rows, add_line, per_distinct_row, window
from pricing.timeline import build_milestones

Flows = dict[str, np.ndarray]


@dataclass(frozen=True)
class Context:
    """Per option and parameter set: when the cluster is ready and how long one run takes."""

    months: int
    ready_day: np.ndarray  # (n, 1)
    train_days: np.ndarray  # (n, 1), wall clock of one run on this option
    runs_done: np.ndarray  # (n, 1)
    busy: np.ndarray  # (n, M) share of each month the GPUs work
    busy_end: np.ndarray  # (n, 1) day the last run ends (term end for steady use)
    held: np.ndarray  # (n, M) share of each month the cluster (or its storage) is held
    #: (n, 1) months of a commitment that run past the term, paid in its last month (take-or-pay)
    beyond_months: np.ndarray | None = None
    #: (n, 1) whether the option completes the work (a portfolio's capacity plan); None: by usage
    completes: np.ndarray | None = None
    #: a composite option's parts (OptionSpec.composed_of): (spec, inputs, P, Context) of each,
    #: from its capacity plan (pricing/planning/); empty for any other option
    parts: tuple = ()
    #: day an owned expansion phase is ordered (its timeline starts there); 0 for any other
    order_day: float = 0.0
    #: an expansion phase: the GPUs installed before it (it buys no file system of its own and
    #: only the management servers the larger cluster adds); 0 for a cluster of its own
    expansion_of_gpus: int = 0
    #: day owned hardware is replaced by a refresh and sold (None: held to the term end)
    retire_day: float | None = None
    #: a refresh: new hardware in the space, file system and management of the cluster it replaces
    refresh: bool = False
    #: `at_month` gives a MonthColumns where one month is every row's (`option_flows` over many
    #: parameter sets, which adds the parts' lines and gives each line as an array)
    month_columns: bool = False
    #: a one-run option ready after the bridge (pricing/bridge.py): (spec, inputs, P, Context) of
    #: the bridge's capacity from the work's start to the go-live; empty for any other
    bridge: tuple = ()

    @functools.cached_property
    def ready_month(self) -> np.ndarray:
        """The month the cluster is ready in (n, 1); computed once per Context (read only)."""
        month = np.minimum(np.floor(self.ready_day / DAYS_PER_MONTH), self.months - 1).astype(int)
        month.flags.writeable = False
        return month

    @property
    def order_month(self) -> np.ndarray:
        return np.full_like(
            self.ready_month, min(int(self.order_day // DAYS_PER_MONTH), self.months - 1)
        )

    def at_month(self, month_index: np.ndarray, amount: np.ndarray) -> np.ndarray:
        """(n, M) array with `amount` in month `month_index` of each row."""
        m = np.arange(self.months)[None, :]
        idx, amt = np.asarray(month_index), np.asarray(amount, dtype=float)
        if idx.ndim == 2 and idx.shape[1] == 1 and amt.ndim <= 2 and amt.shape[1:] in ((), (1,)):
            # the same numbers as np.where, placed instead of selected (thousands of rows)
            i, column = idx[:, 0], amt.reshape(-1)
            n = max(len(i), len(column))
            if len(i) != n:
                i = np.broadcast_to(i, (n,))
            if len(column) != n:
                column = np.broadcast_to(column, (n,))
            if 0 <= i[0] < self.months and (i == i[0]).all():  # one month for every row
                if self.month_columns:
                    return MonthColumns((n, self.months), {int(i[0]): column})
                out = np.zeros((n, self.months))
                out[:, i[0]] = column
                return out
            out = np.zeros((n, self.months))
            ok = (i >= 0) & (i < self.months)
            out[np.flatnonzero(ok), i[ok]] = column[ok]
            return out
        return np.where(m == month_index, amount, 0.0)

    def at_end(self, amount: np.ndarray) -> np.ndarray:
        return self.at_month(np.full_like(self.ready_month, self.months - 1), amount)

    @property
    def sold_month(self) -> np.ndarray:
        """The month owned hardware is sold: its retire day's (a refresh), else the last."""
        if self.retire_day is None:
            return np.full_like(self.ready_month, self.months - 1)
        last = min(int(self.retire_day // DAYS_PER_MONTH), self.months - 1)
        return np.full_like(self.ready_month, last)


#: length of one rental commitment, days (`Options.rent_commitment`); "whole_term" holds to the end
RENTAL_BLOCK_DAYS = {
    "monthly": DAYS_PER_MONTH,
    "1y": 12 * DAYS_PER_MONTH,
    "3y": 36 * DAYS_PER_MONTH,
}


def rental_end(inp: CostInputs, P: dict, ready_day: np.ndarray, busy_end: np.ndarray):
    """Day a rented cluster is given back: the work's end rounded up to whole commitment blocks
    (at least one) and never before the provider's minimum term (rent_min_term_months) for a
    1- or 3-year commitment; "whole_term" holds to the term's end, or to the minimum term if that
    is later."""
    commitment = inp.scenario.options.rent_commitment
    minimum = ready_day + P["rent_min_term_months"] * DAYS_PER_MONTH
    if commitment == "whole_term":
        return np.maximum(inp.term_days, minimum)
    block = RENTAL_BLOCK_DAYS[commitment]
    blocks = np.maximum(np.ceil((busy_end - ready_day) / block - 1e-9), 1.0)
    end = ready_day + blocks * block
    return end if commitment == "monthly" else np.maximum(end, minimum)


def make_context(
    inp: CostInputs,
    P: dict,
    ready_day: np.ndarray,
    train_days: np.ndarray,
    hold: str = "term",
    start_day: np.ndarray | None = None,
) -> Context:
    """`hold` (OptionSpec.holds): "term" (owned: from the ready day to the term's end), "busy"
    (per use: while the work runs) or "rental" (rented: `rental_end`). `start_day`: the work
    starts then, on a bridge until the ready day (pricing/bridge.py): the runs done and their end
    count from it, the option's own GPUs work from the ready day."""
    months, term = inp.months, inp.term_days
    usage = inp.scenario.usage
    start = ready_day if start_day is None else start_day
    if usage.mode == "runs":
        runs_done = np.clip((term - start) / train_days, 0.0, P["runs"])
        busy_end = start + runs_done * train_days
        busy = window(months, ready_day, np.maximum(busy_end, ready_day))
    else:
        util = np.clip(P["utilisation_pct"] / 100.0, 0.0, 1.0)
        busy = window(months, ready_day, np.full_like(ready_day, term)) * util
        worked = window(months, start, np.full_like(ready_day, term)) * util
        runs_done = worked.sum(axis=1, keepdims=True) * DAYS_PER_MONTH / train_days
        busy_end = np.full_like(ready_day, term)
    held_end = {
        "term": lambda: np.full_like(ready_day, term),
        "busy": lambda: busy_end,
        "rental": lambda: rental_end(inp, P, ready_day, busy_end),
    }[hold]()
    beyond = np.maximum(held_end - term, 0.0) / DAYS_PER_MONTH
    held_end = np.minimum(held_end, term)
    return Context(
        months,
        ready_day,
        train_days,
        runs_done,
        busy,
        busy_end,
        window(months, ready_day, held_end),
        beyond,
    )


# --- owned hardware ----------------------------------------------------------------------------


#: what sizes the parallel file system, in the order `storage_system` compares them
STORAGE_SIZED_BY = ("capacity", "bandwidth", "minimum system")
#: the rack's cabinet comes with a rack-scale system (the GB200 NVL72 quote is a whole rack with
#: its power shelves) and is bought separately for air-cooled servers
CABINET_BOUGHT = {"air": 1.0, "liquid": 0.0}
#: cooling loop in the white space (CDUs, manifolds, secondary loop) per kW of IT load
LIQUID_LOOP = {"air": 0.0, "liquid": 1.0}


def storage_system(inp: CostInputs, P: dict) -> tuple[np.ndarray, list[str]]:
    """Usable TB of the parallel file system bought and what sized it: the largest of the
    capacity it holds (kept checkpoints + dataset copies, `storage_tb`), the TB whose write
    bandwidth the plan assumes (bandwidth / storage_write_gbyte_per_s_per_tb, all-flash
    Lustre: NERSC Perlmutter) and the smallest system sold (storage_min_system_tb)."""
    need = np.stack(np.broadcast_arrays(*_storage_needs(inp, P)))
    which = np.argmax(need, axis=0)[:, 0]
    return need.max(axis=0), [STORAGE_SIZED_BY[i] for i in which]


def _storage_needs(inp: CostInputs, P: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The TB each of STORAGE_SIZED_BY asks of the file system (`storage_system`)."""
    return (
        np.asarray(inp.storage_tb, dtype=float),
        inp.storage_write_gbyte_per_s / P["storage_write_gbyte_per_s_per_tb"],
        P["storage_min_system_tb"],
    )


def storage_tb(inp: CostInputs, P: dict) -> np.ndarray:
    """`storage_system`'s usable TB alone (the largest need, as its max), without what sized it."""
    capacity, bandwidth, smallest = _storage_needs(inp, P)
    return np.maximum(np.maximum(capacity, bandwidth), smallest)


def mgmt_servers(inp: CostInputs, P: dict) -> np.ndarray:
    """Head, login and management servers: max(minimum, servers per 1,000 GPUs × GPUs / 1,000)
    (NVIDIA DGX SuperPOD H100 reference: 5 management servers for 127 DGX nodes)."""
    return np.maximum(P["mgmt_min_servers"], P["mgmt_servers_per_1000_gpus"] * inp.gpus / 1000)


def hardware_capex(inp: CostInputs, P: dict) -> dict[str, np.ndarray]:
    """Owned hardware by line (USD): servers and spares; the compute fabric; the parallel file
    system (`storage_system` TB × raw $/TB × system uplift); the front-end/storage and
    out-of-band networks per node; the management servers; cabinets and PDUs per rack (racks
    from timeline.csv GPUs per rack); the liquid-cooling loop per kW where the GPU needs one;
    installation per node."""
    servers = inp.gpus * P["server_usd_per_gpu"]
    # the servers' own price includes their 400G NICs (hardware_prices.csv: the quotes are for
    # complete HGX/DGX systems), so the fabric is the switches and the optics between them
    fabric = (
        inp.switches * P["ib_switch_64port_ndr_usd_per_switch"]
        + inp.transceivers * P["optic_400g_usd_per_transceiver"]
    )
    system_tb = storage_tb(inp, P)
    return {
        "servers": servers,
        "spares": servers * P["spares_pct_of_nodes"] / 100,
        "fabric": fabric,
        "storage": system_tb * P["storage_buy_usd_per_tb"] * P["storage_system_uplift_ratio"],
        "networks": inp.nodes
        * (P["frontend_network_usd_per_node"] + P["oob_network_usd_per_node"]),
        "management servers": mgmt_servers(inp, P) * P["cpu_server_usd_per_server"],
        "racks and PDUs": inp.racks
        * (
            CABINET_BOUGHT[inp.cooling] * P["rack_cabinet_usd_per_rack"]
            + P["rack_pdu_usd_per_rack"]
        ),
        "liquid cooling": LIQUID_LOOP[inp.cooling]
        * inp.it_power_kw
        * P["liquid_cooling_usd_per_kw"],
        "installation": inp.nodes * P["installation_usd_per_node"],
    }


def compound_sum(i: np.ndarray, k) -> np.ndarray:
    """((1 + i)^k − 1) / i, the value after k periods of 1 paid each period at rate i; its
    zero-rate limit is k. Computed as expm1(k·log1p(i)) / i, exact for tiny rates too."""
    i, k = np.broadcast_arrays(np.asarray(i, dtype=float), np.asarray(k, dtype=float))
    safe = np.where(i == 0, 1.0, i)
    return np.where(i == 0, k, np.expm1(k * np.log1p(i)) / safe)


def annuity_factor(i: np.ndarray, n) -> np.ndarray:
    """Level payment per unit borrowed over n periods at rate i: i / (1 − (1 + i)^−n); its
    zero-rate limit is 1/n (a 0 % loan or lease repays in equal instalments)."""
    return 1.0 / (
        compound_sum(i, n) * (1 + np.asarray(i, dtype=float)) ** -np.asarray(n, dtype=float)
    )


def _financing(
    inp: CostInputs,
    P: dict,
    ctx: Context,
    capex: np.ndarray,
    resale: np.ndarray,
    deposit: np.ndarray | float = 0.0,
) -> Flows:
    """Hardware payments by the scenario's financing, with the residual value at term end. A
    bought cluster pays `deposit` (part of `capex`) with the order, in month 0, and the rest on
    acceptance or by the loan; a lessor buys the hardware, so a lease pays no deposit."""
    how = inp.scenario.term.financing
    if how != "lease":
        upfront = ctx.at_month(ctx.order_month, deposit)
        capex = capex - deposit
    if how == "cash":
        return {
            "hardware": upfront + ctx.at_month(ctx.ready_month, capex),
            "residual value": ctx.at_month(ctx.sold_month, -resale),
        }
    m = np.arange(ctx.months)[None, :]
    k = m - ctx.ready_month  # months since acceptance (a loan's or a lease's schedule)
    if how == "loan":
        i = P["loan_rate_pct_per_year"] / 100 / 12
        n = inp.scenario.term.loan_years * 12
        payment = capex * annuity_factor(i, n)
        balance_before = capex * (1 + i) ** (k - 1) - payment * compound_sum(i, k - 1)
        paying = (k >= 1) & (k <= n)
        interest = np.where(paying, balance_before * i, 0.0)
        principal = np.where(paying, payment - interest, 0.0)
        sold = ctx.sold_month  # the balance left is repaid when the hardware is sold
        paying = paying & (m <= sold)
        interest = np.where(paying, interest, 0.0)
        principal = np.where(paying, principal, 0.0)
        last_k = np.minimum(sold - ctx.ready_month, n)
        left = capex * (1 + i) ** last_k - payment * compound_sum(i, last_k)
        return {
            "hardware": upfront + principal + ctx.at_month(sold, np.maximum(left, 0.0)),
            "financing": interest,
            "residual value": ctx.at_month(sold, -resale),
        }
    i = P["lease_rate_pct_per_year"] / 100 / 12
    n = np.maximum(ctx.sold_month + 1 - ctx.ready_month, 1)  # leased until sold (a refresh)
    lease = (capex - resale * (1 + i) ** -n) * annuity_factor(i, n)
    return {"lease": np.where((k >= 0) & (k < n), lease, 0.0)}


#: the (FTE per 1,000 GPUs, minimum team) figures of each kind of staffing (OptionSpec.staffing)
STAFF_KEYS: dict[Staffing, tuple[str, str]] = {
    Staffing.OWNED: ("ops_fte_per_1000_gpus", "ops_min_team_fte"),
    Staffing.RENTED: ("rented_ops_fte_per_1000_gpus", "rented_ops_min_team_fte"),
}


def staff_fte(inp: CostInputs, P: dict, staffing: Staffing = Staffing.OWNED) -> np.ndarray:
    """The buyer's team: max(minimum team, FTE per 1,000 GPUs × GPUs / 1,000), with the figures
    of its kind of staffing (owned hardware's operations team, or rented capacity's platform team)."""
    per_1000, minimum = STAFF_KEYS[staffing]
    return np.maximum(P[minimum], P[per_1000] * inp.gpus / 1000)


def staff_cost(
    spec: OptionSpec, inp: CostInputs, P: dict, ctx: Context, employed: np.ndarray | None = None
) -> Flows:
    """The buyer's own engineers: team × salary × loaded-cost ratio (salary + benefits) a year,
    for the share of each month they are employed (default: while the cluster is held); nothing
    where a provider operates it (Staffing.NONE)."""
    if spec.staffing not in STAFF_KEYS:
        return {}
    yearly = P["ops_salary_usd_per_year"] * P["ops_loaded_cost_ratio"]
    share = ctx.held if employed is None else employed
    return {"staff": staff_fte(inp, P, spec.staffing) * yearly / 12 * share}


def spare_nodes(inp: CostInputs, P: dict) -> np.ndarray:
    """Spare servers bought with the cluster: nodes × spares % (the `spares` line's share)."""
    return inp.nodes * P["spares_pct_of_nodes"] / 100


def equipment_value(capex: dict[str, np.ndarray]) -> np.ndarray:
    """The owned equipment (every `hardware_capex` line but the installation labour): what sales
    tax, insurance and property tax are levied on."""
    return sum(v for k, v in capex.items() if k != "installation")


def resale_value(inp: CostInputs, P: dict, capex: dict[str, np.ndarray]) -> np.ndarray:
    """What the hardware fetches at term end, at its age then (`inp.resale_age_years`): the GPU
    share of the servers (and spares) at the GPU resale curve (residual_values.csv), the host
    share and the fabric each at their own yearly decline, all less the haircut of selling a
    whole cluster at once."""
    servers = capex["servers"] + capex["spares"]
    share = P["gpu_share_of_server_cost_pct"] / 100
    age = inp.resale_age_years
    host = np.clip(1 - P["host_value_decline_pct_per_year"] / 100, 0.0, 1.0) ** age
    fabric = np.clip(1 - P["fabric_value_decline_pct_per_year"] / 100, 0.0, 1.0) ** age
    value = (
        P["residual_value_pct"] / 100 * share * servers
        + host * (1 - share) * servers
        + fabric * capex["fabric"]
    )
    return value * np.clip(1 - P["resale_bulk_haircut_pct"] / 100, 0.0, 1.0)


def book_value_share(P: dict, ctx: Context) -> np.ndarray:
    """Share of the equipment's cost still on the books in each month (n, M): 1 before acceptance,
    then straight-line to 0 over depreciation_years (the basis of personal-property tax)."""
    life = np.maximum(P["depreciation_years"] * 12, 1.0)

    def share(ready_month: np.ndarray, life: np.ndarray) -> np.ndarray:
        k = np.arange(ctx.months)[None, :] - ready_month
        return np.clip(1 - np.maximum(k, 0) / life, 0.0, 1.0)

    return per_distinct_row(share, ctx.ready_month, life)


def _owned(spec: OptionSpec, inp: CostInputs, P: dict, ctx: Context, team: bool = True) -> Flows:
    """One owned cluster's lines (`owned`); `team=False`: its staff line is left in its place at
    0, for a caller that prices one team for all its parts."""
    capex = hardware_capex(inp, P)
    if ctx.expansion_of_gpus:  # the base's file system serves it; the management servers it adds
        before = ctx.expansion_of_gpus
        per_1000, least = P["mgmt_servers_per_1000_gpus"] / 1000, P["mgmt_min_servers"]
        added = np.maximum(least, per_1000 * (before + inp.gpus)) - np.maximum(
            least, per_1000 * before
        )
        capex["storage"] = 0.0 * capex["storage"]
        capex["management servers"] = added * P["cpu_server_usd_per_server"]
    if ctx.refresh:  # new hardware in the space, file system and management it replaces
        capex["storage"] = 0.0 * capex["storage"]
        capex["management servers"] = 0.0 * capex["management servers"]
    total = sum(capex.values())
    servers, fabric = capex["servers"], capex["fabric"]
    equipment = equipment_value(capex)
    resale = resale_value(inp, P, capex)
    held = ctx.held
    kw = inp.it_power_kw
    own_site = inp.scenario.options.facility == "owned"
    # before acceptance: the space is paid from its hand-over, the team from its hiring lead, the
    # hardware deposit with the order (pricing/timeline.py build_milestones)
    days = build_milestones(
        spec.id, inp.site, lead_time_multiplier=np.asarray(P["lead_time_multiplier"])
    )
    days = {k: v + ctx.order_day for k, v in days.items()}  # an expansion's, from its order
    term = np.full_like(ctx.ready_day, inp.term_days)
    site_from = np.minimum(days["facility"], ctx.ready_day)
    site_held = window(ctx.months, site_from, term)
    deposit = equipment * P["hardware_deposit_pct"] / 100
    site_value = 0.0
    if own_site and not ctx.refresh:  # built with the hardware, financed the same way, valued
        site = kw * P["facility_capex_usd_per_kw"]  # straight-line at term end
        total = total + site
        age_months = inp.months - ctx.order_day / DAYS_PER_MONTH
        site_value = site * np.maximum(1 - age_months / 12 / P["facility_life_years"], 0.0)
        if ctx.retire_day is None:
            resale = resale + site_value
    flows = _financing(inp, P, ctx, total, resale, deposit)
    if own_site and not ctx.refresh and ctx.retire_day is not None:  # hardware sold, site kept
        flows["residual value"] = flows.get("residual value", 0.0) + ctx.at_end(-site_value)
    # sales tax is paid with the hardware and financed the same way (a second, proportional
    # schedule of the same financing); it is part of the asset's cost (pricing/tax.py CAPITAL)
    taxed = _financing(inp, P, ctx, equipment * P["sales_tax_pct"] / 100, 0.0 * resale)
    for key, value in taxed.items():
        name = "sales tax" if key == "hardware" else key
        flows[name] = flows.get(name, 0.0) + value
    if own_site and not ctx.refresh:
        flows["facility upkeep"] = (
            site * P["facility_maintenance_pct_of_capex_per_year"] / 100 / 12 * site_held
        )
    idle = P["idle_power_pct"] / 100
    draw_kw = kw * (idle * held + (1 - idle) * ctx.busy)
    flows["power"] = draw_kw * HOURS_PER_MONTH * P["pue"] * P["electricity_usd_per_kwh"]
    if not own_site and not ctx.refresh:
        flows["colocation"] = kw * P["colocation_usd_per_kw_month"] * site_held
    if spec.staffed:  # hired ops_hiring_lead_months before acceptance
        flows |= _hired_team(spec, inp, P, ctx, term) if team else {"staff": 0.0}
    else:
        flows["managed service"] = (
            P["managed_owned_fee_pct_of_capex_per_year"] / 100 / 12 * total * held
        )
    # the vendor support contract replaces failed parts, so no separate parts line; the spare pool
    # bought with the cluster is what support does not give: servers on site to swap at once
    flows["support"] = P["support_pct_of_capex_per_year"] / 100 / 12 * (servers + fabric) * held
    # insured at replacement cost from delivery; personal-property tax on the book value
    sold = term if ctx.retire_day is None else np.minimum(term, ctx.retire_day)
    on_site = window(ctx.months, np.minimum(days["delivered"], ctx.ready_day), sold)
    flows["insurance"] = P["insurance_pct_per_year"] / 100 / 12 * equipment * on_site
    flows["property tax"] = (
        P["property_tax_pct_per_year"] / 100 / 12 * equipment * book_value_share(P, ctx) * held
    )
    return flows


def _hired_team(spec: OptionSpec, inp: CostInputs, P: dict, ctx: Context, term) -> Flows:
    """An owned cluster's operations team (`staff_cost`), employed from its hiring lead
    (ops_hiring_lead_months) before acceptance to the term end."""
    hired = np.maximum(ctx.ready_day - P["ops_hiring_lead_months"] * DAYS_PER_MONTH, 0.0)
    return staff_cost(spec, inp, P, ctx, window(ctx.months, hired, term))


def software_licences(inp: CostInputs, P: dict, ctx: Context, dedicated: bool) -> np.ndarray:
    """The per-GPU software licence (NVIDIA AI Enterprise) when the scenario takes one, on every
    option alike: per GPU-year on the GPUs held (dedicated options) or in use (per-use cloud)."""
    share = ctx.held if dedicated else ctx.busy
    return P["licence_usd_per_gpu_year"] / 12 * inp.gpus * share


def owned(spec: OptionSpec, inp: CostInputs, P: dict, ctx: Context) -> Flows:
    """Build (staffed by the buyer) or managed on owned hardware (a provider's fee instead). With
    expansion phases (ctx.parts: the base, then each phase as its own owned cluster ordered in its
    month, pricing/planning/), every line is each part's own, summed, except the staff:
    one operations team, max(minimum team × employed, FTE per 1,000 GPUs × GPUs installed / 1,000),
    each part's GPUs counted from its hiring lead before its acceptance."""
    if not ctx.parts:  # a facility upgrade where the buyer's site needs one (site_power.py)
        flows = _owned(spec, inp, P, ctx)
        return site_power.with_upgrade(spec.id, flows, inp.site, P, ctx, build_milestones)
    flows: Flows = {}
    summed: set[str] = set()
    for part, part_inp, part_P, part_ctx in ctx.parts:  # the team is priced once, below
        own = _owned(part, part_inp, part_P, part_ctx, team=False)
        for key, value in site_power.with_upgrade(
            part.id, own, part_inp.site, part_P, part_ctx, build_milestones
        ).items():
            add_line(flows, summed, key, value)
    if spec.staffed:
        per_1000, minimum = STAFF_KEYS[spec.staffing]
        employed, installed = 0.0, 0.0
        for _, part_inp, part_P, part_ctx in ctx.parts:
            lead = part_P["ops_hiring_lead_months"] * DAYS_PER_MONTH
            hired = np.maximum(part_ctx.ready_day - lead, 0.0)
            if part_ctx.refresh:  # the team is there already: it counts the new GPUs from then
                hired = part_ctx.ready_day
            end = inp.term_days if part_ctx.retire_day is None else part_ctx.retire_day
            share = window(ctx.months, hired, np.full_like(hired, min(end, inp.term_days)))
            employed = np.maximum(employed, share)
            installed = installed + part_inp.gpus * share
        fte = np.maximum(P[minimum] * employed, P[per_1000] * installed / 1000)
        flows["staff"] = fte * P["ops_salary_usd_per_year"] * P["ops_loaded_cost_ratio"] / 12
    return flows


# --- rented -------------------------------------------------------------------------------------


def _storage_and_egress(inp: CostInputs, P: dict, ctx: Context) -> Flows:
    return {
        "storage": inp.storage_tb * 1000 * P["storage_rent_usd_per_gb_month"] * ctx.held,
        "egress": ctx.at_end(ctx.runs_done * inp.weights_gb * P["egress_usd_per_gb"]),
    }


def _dedicated(inp: CostInputs, P: dict, ctx: Context, rate: np.ndarray, label: str) -> Flows:
    """Every GPU-hour of the rental window (ctx.held, from `rental_end`) at the rate; months
    committed past the term are paid in its last month (take-or-pay)."""
    hours = inp.gpus * HOURS_PER_MONTH
    beyond = ctx.beyond_months if ctx.beyond_months is not None else 0.0
    flows = {label: rate * hours * ctx.held}
    flows |= past_term(inp, P, ctx, beyond * rate * hours)
    flows["setup"] = ctx.at_month(ctx.ready_month, inp.nodes * P["rent_setup_fee_usd_per_node"])
    return flows | _storage_and_egress(inp, P, ctx)


#: the line of a commitment's months past the term, and its credit where they are resold
PAST_TERM, PAST_TERM_RESALE = "past the term", "past-term resale"


def past_term(inp: CostInputs, P: dict, ctx: Context, owed) -> Flows:
    """A commitment's months past the term (`owed`, USD, (n, 1) or 0), paid in the term's last
    month (take-or-pay), as their own line where any are owed; valued as the buyer says
    (`Term.past_term`): "idle", paid and unused; "resold", sold or assigned at term end, so a
    credit of the owed amount less commitment_resale_haircut_pct (as owned hardware is credited
    its resale value at term end)."""
    owed = np.asarray(owed, dtype=float)
    if not np.any(owed > 0):
        return {}
    flows = {PAST_TERM: ctx.at_end(owed)}
    if inp.scenario.term.past_term == "resold":
        kept = np.clip(1 - P["commitment_resale_haircut_pct"] / 100, 0.0, 1.0)
        flows[PAST_TERM_RESALE] = ctx.at_end(-owed * kept)
    return flows


def rent(spec: OptionSpec, inp: CostInputs, P: dict, ctx: Context) -> Flows:
    flows = _dedicated(inp, P, ctx, P[spec.price_key], "rent")
    flows["support"] = (flows["rent"] + flows.get(PAST_TERM, 0.0)) * P["rent_support_pct"] / 100
    return flows | staff_cost(spec, inp, P, ctx)


def managed_rent(spec: OptionSpec, inp: CostInputs, P: dict, ctx: Context) -> Flows:
    rate = P[spec.price_key] * (1 + P["managed_premium_pct"] / 100)
    # the registry says who runs it (a managed option: the provider, so no staff of the buyer's)
    return _dedicated(inp, P, ctx, rate, "managed service") | staff_cost(spec, inp, P, ctx)


def _cloud_support(compute: np.ndarray, P: dict) -> Flows:
    """The cloud account's support plan, a share of the compute bill (as a rental's on its rent)."""
    return {"support": compute * P["cloud_support_pct"] / 100}


def instance_gpus(inp: CostInputs) -> int:
    """The GPUs a cloud bills for `inp.gpus`: whole instances of a node's GPUs (the catalogue's
    cloud rates are 8-GPU instances', p5.48xlarge and the like, and capacity blocks sell only
    whole instances), so a fraction of one pays for the instance."""
    node = get_gpu(inp.gpu_id).gpus_per_node
    return math.ceil(inp.gpus / node - 1e-9) * node


def per_use(spec: OptionSpec, inp: CostInputs, P: dict, ctx: Context) -> Flows:
    """Busy GPU-hours only, at the option's price, in whole instances (`instance_gpus`; a
    portfolio's busy share is already its GPUs in use in whole instances), and the support plan
    on that bill."""
    compute = P[spec.price_key] * instance_gpus(inp) * HOURS_PER_MONTH * ctx.busy
    return (
        {"compute": compute}
        | _cloud_support(compute, P)
        | _storage_and_egress(inp, P, ctx)
        | staff_cost(spec, inp, P, ctx)
    )


def committed(spec: OptionSpec, inp: CostInputs, P: dict, ctx: Context) -> Flows:
    """Whole blocks of `commit_years` from the ready day; blocks running past the term are paid
    in its last month (take-or-pay)."""
    block = 12 * spec.commit_years * DAYS_PER_MONTH
    blocks = np.maximum(np.ceil((ctx.busy_end - ctx.ready_day) / block - 1e-9), 1.0)
    end = ctx.ready_day + blocks * block
    hours = instance_gpus(inp) * HOURS_PER_MONTH * P[spec.price_key]
    beyond = np.maximum(end - inp.term_days, 0.0) / DAYS_PER_MONTH
    compute = hours * window(ctx.months, ctx.ready_day, end)
    past = past_term(inp, P, ctx, beyond * hours)
    return (
        {"compute": compute}
        | past
        | _cloud_support(compute + past.get(PAST_TERM, 0.0), P)
        | _storage_and_egress(inp, P, ctx)
        | staff_cost(spec, inp, P, ctx)
    )


def composed(spec: OptionSpec, inp: CostInputs, P: dict, ctx: Context) -> Flows:
    """A composite option (hybrid): every line of each part's own flows (ctx.parts: the owned base
    on its GPUs, the per-use burst on the GPU-hours it serves), summed line by line. Each part
    bills only its own capacity, so nothing is counted twice."""
    flows: Flows = {}
    summed: set[str] = set()
    for part, part_inp, part_P, part_ctx in ctx.parts:
        for key, value in BILLING_FLOWS[part.billing](part, part_inp, part_P, part_ctx).items():
            add_line(flows, summed, key, value)
    return flows


def in_contracts(
    fn: Callable[[OptionSpec, CostInputs, dict, Context], Flows],
) -> Callable[[OptionSpec, CostInputs, dict, Context], Flows]:
    """A rented, managed or committed option that steps down to a smaller second contract
    (ctx.parts, pricing/planning/): each contract's own flows (its rent, setup, support,
    storage, egress and platform team while it is held), summed line by line; the contracts
    follow one another, so nothing is counted twice. One contract: `fn` itself."""

    @functools.wraps(fn)
    def flows(spec: OptionSpec, inp: CostInputs, P: dict, ctx: Context) -> Flows:
        return composed(spec, inp, P, ctx) if ctx.parts else fn(spec, inp, P, ctx)

    return flows


FlowFunction = Callable[[CostInputs, dict, Context], Flows]
#: one cash-flow function per way of billing (models/options.py says which option bills how)
BILLING_FLOWS: dict[Billing, Callable[[OptionSpec, CostInputs, dict, Context], Flows]] = {
    Billing.OWNED: owned,
    Billing.RENT: in_contracts(rent),
    Billing.MANAGED_RENT: in_contracts(managed_rent),
    Billing.PER_USE: per_use,
    Billing.COMMITTED: in_contracts(committed),
    Billing.HYBRID: composed,
}
#: option id -> its cash-flow function, from the registry
OPTION_FLOWS: dict[str, FlowFunction] = {
    s.id: functools.partial(BILLING_FLOWS[s.billing], s) for s in OPTIONS
}


def option_flows(option: str, own: CostInputs, P: dict, ctx: Context) -> Flows:
    """The option's flows on its own inputs, with software licences where the scenario pays them:
    charged alike to every option, an option of parts on each part's own GPUs. Over many
    parameter sets, every figure and timing that no set moves is taken as one row (pricing/rows.py Rows):
    each line is computed as it is on n rows (the same operations on the same numbers), each
    product by a figure no set moves on one row instead of n (the lines as (n, M) views)."""
    n = len(ctx.ready_day)
    if n == 1:
        return _option_flows(option, own, P, ctx)
    one = Rows(n)
    return one.spread(_option_flows(option, own, one.params(P), one.context(ctx)), ctx.months)


def _option_flows(option: str, own: CostInputs, P: dict, ctx: Context) -> Flows:
    flows = OPTION_FLOWS[option](own, P, ctx)
    if ctx.bridge:  # the work on the bridge's capacity until the go-live (pricing/bridge.py)
        flows["bridge"] = bridge_flows(
            ctx.bridge, lambda s, i, p, c: BILLING_FLOWS[s.billing](s, i, p, c)
        )
    if own.scenario.options.software_licence and ctx.parts:
        flows["software licences"] = sum(
            software_licences(i, p, c, s.dedicated) for s, i, p, c in ctx.parts
        )
    elif own.scenario.options.software_licence:
        flows["software licences"] = software_licences(own, P, ctx, spec_of(option).dedicated)
    return flows

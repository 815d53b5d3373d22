"""Everything the cost engine reads for one scenario, gathered once.

Each price or assumption becomes a `Figure` with its unit, source and date (catalogue rows, the
user's overrides, or values derived from them, which say how). Structural facts come from the
sizing core: GPU count, nodes, fabric, storage, training days and how failures stretch them.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from models.errors import InputError
from models.hardware import get_gpu
from models.numbers import on_day
from models.options import OPTIONS
from models.scenario import Scenario
from models.training.plan import TrainingPlan, plan_training
from models.training.reliability import daly_interval_s, goodput_fraction, job_mtbf_s
from models.units import (  # noqa: F401  (DAYS_PER_MONTH, HOURS_PER_MONTH: the engine's months)
    BYTES_PER_GB,
    BYTES_PER_GIB,
    BYTES_PER_PARAM,
    BYTES_PER_TB,
    DAYS_PER_MONTH,
    DAYS_PER_YEAR,
    HOURS_PER_MONTH,
)
from pricing.availability import unavailable_options
from pricing.catalogue.loader import (
    PLANNER_DEFAULT_SOURCE,
    Catalogue,
    MissingFigureError,
    TimelineRow,
)
from pricing.site_power import LIQUID_RETROFIT_KEY, site_limits
from pricing.timeline import Site, ready_day
from pricing.timeline import racks as rack_count
from pricing.usage import USAGE_KEYS, UsageInputs

#: the owned option whose provisioning sets when owned hardware starts to age
OWNED_TIMELINE_OPTION = next(o.id for o in OPTIONS if o.builds and o.timeline_rows_of is None)

#: Checkpoints kept on the file system (the latest plus two to roll back to after a loss spike).
CHECKPOINTS_KEPT = 3
#: The tokenized dataset is stored twice (a working copy and a backup).
DATASET_COPIES = 2

#: Catalogue assumption keys read as they are.
CATALOGUE_KEYS = (
    "spares_pct_of_nodes",
    "ib_switch_64port_ndr_usd_per_switch",
    "optic_400g_usd_per_transceiver",
    "storage_buy_usd_per_tb",
    "storage_system_uplift_ratio",
    "installation_usd_per_node",
    "electricity_usd_per_kwh",
    "pue",
    "idle_power_pct",
    "colocation_usd_per_kw_month",
    "ops_fte_per_1000_gpus",
    "ops_min_team_fte",
    "ops_salary_usd_per_year",
    "ops_loaded_cost_ratio",
    "rented_ops_fte_per_1000_gpus",
    "rented_ops_min_team_fte",
    "tax_rate_pct",
    "depreciation_years",
    "support_pct_of_capex_per_year",
    "licence_usd_per_gpu_year",
    "discount_rate_pct_per_year",
    "loan_rate_pct_per_year",
    "lease_rate_pct_per_year",
    "rent_support_pct",
    "cloud_support_pct",
    "rent_setup_fee_usd_per_node",
    "rent_min_term_months",
    "storage_rent_usd_per_gb_month",
    "egress_usd_per_gb",
    "managed_premium_pct",
    "managed_owned_fee_pct_of_capex_per_year",
    "managed_restart_ratio",
    "spot_interruption_overhead_pct",
    "committed_1y_discount_pct",
    "committed_3y_discount_pct",
    "facility_capex_usd_per_kw",
    "facility_life_years",
    "facility_maintenance_pct_of_capex_per_year",
    "insurance_pct_per_year",
    "sales_tax_pct",
    "property_tax_pct_per_year",
    "hardware_deposit_pct",
    "ops_hiring_lead_months",
    "resale_bulk_haircut_pct",
    "commitment_resale_haircut_pct",
    "gpu_share_of_server_cost_pct",
    "host_value_decline_pct_per_year",
    "fabric_value_decline_pct_per_year",
    "storage_write_gbyte_per_s_per_tb",
    "storage_min_system_tb",
    "frontend_network_usd_per_node",
    "oob_network_usd_per_node",
    "mgmt_servers_per_1000_gpus",
    "mgmt_min_servers",
    "cpu_server_usd_per_server",
    "rack_cabinet_usd_per_rack",
    "rack_pdu_usd_per_rack",
    "liquid_cooling_usd_per_kw",
    "cloud_spot_max_gpus",
)


#: Allowed range of an override, where it is narrower than 0 to 1e12; keys set by the scenario's own
#: fields (runs, utilisation) are changed there, not here.
OVERRIDE_RANGES: dict[str, tuple[float, float]] = {
    "pue": (1.0, 3.0),
    "managed_premium_pct": (0.0, 500.0),
    "spot_interruption_overhead_pct": (0.0, 500.0),
    "managed_restart_ratio": (0.0, 10.0),
    "storage_system_uplift_ratio": (0.1, 10.0),
    "failure_rate_multiplier": (0.01, 100.0),
    "lead_time_multiplier": (0.01, 10.0),
    "facility_life_years": (1.0, 100.0),
    "rent_min_term_months": (0.0, 120.0),
    "ops_hiring_lead_months": (0.0, 36.0),
    # a 100 % discount would make the 3-year rent (1-year rate × (1 − d3) / (1 − d1)) divide by 0
    "committed_1y_discount_pct": (0.0, 95.0),
    "committed_3y_discount_pct": (0.0, 95.0),
    # the file system's TB for a bandwidth is bandwidth / this: 0 would ask for infinite storage
    "storage_write_gbyte_per_s_per_tb": (0.001, 100.0),
}
DISCOUNT_KEYS = frozenset({"committed_1y_discount_pct", "committed_3y_discount_pct"})


def base_params(inp: CostInputs, n: int = 1) -> dict[str, np.ndarray]:
    """Each figure's and each usage input's value as an (n, 1) array: the base case, n times."""
    values = {k: f.value for k, f in inp.figures.items()} | inp.usage.values()
    return {k: np.full((n, 1), v, dtype=float) for k, v in values.items()}


def override_range(key: str) -> tuple[float, float]:
    if key in OVERRIDE_RANGES:
        return OVERRIDE_RANGES[key]
    return (
        (0.0, 100.0)
        if key.endswith(("_pct", "_pct_per_year", "_pct_of_capex_per_year", "_pct_of_nodes"))
        else (0.0, 1e12)
    )


@dataclass(frozen=True)
class Figure:
    key: str
    value: float
    unit: str
    source: str
    as_of: str
    overridden: bool = False
    note: str = ""


@dataclass(frozen=True)
class CostInputs:
    scenario: Scenario
    catalogue: Catalogue
    plan: TrainingPlan
    figures: dict[str, Figure]
    #: the scenario's usage numbers (not figures: UsageInputs)
    usage: UsageInputs
    gpu_id: str
    gpus: int
    nodes: int
    months: int
    node_power_kw: float
    storage_tb: float
    weights_gb: float
    switches: int
    transceivers: int
    unavailable: dict[str, str] = field(default_factory=dict)
    #: the owned hardware's age when the term ends, years (resale is priced at it)
    resale_age_years: float = 0.0
    #: "air" or "liquid" (pricing/timeline.py racks), and the racks the GPUs fill
    cooling: str = "air"
    racks: int = 0
    #: write bandwidth the file system must sustain: the one the plan's goodput assumes
    #: (models/training/reliability.py: the scenario's, else max(5, 0.125 x GPUs) GB/s)
    storage_write_gbyte_per_s: float = 0.0
    #: a version 2 scenario: its demand and every compared option's capacity plan
    #: (pricing/planning/records.py Portfolio); None for version 1
    portfolio: Any = None
    #: option -> its value of time, USD (pricing/time_value.py): added to its NPV in the
    #: ranking (pricing/valuation.py npv_columns), never to a cash flow; empty without one
    time_value_usd: dict[str, float] = field(default_factory=dict)

    def with_portfolio(self, portfolio: Any, unavailable: dict[str, str]) -> CostInputs:
        """These inputs with a portfolio's plans and the options its plans cannot offer."""
        return dataclasses.replace(self, portfolio=portfolio, unavailable=unavailable)

    def value(self, key: str) -> float:
        """A figure's value, or a usage input's (`UsageInputs`)."""
        if key in USAGE_KEYS:
            return self.usage.values()[key]
        return self.figures[key].value

    def unit(self, key: str) -> str:
        """A figure's unit, or a usage input's."""
        return UsageInputs.UNITS[key] if key in USAGE_KEYS else self.figures[key].unit

    @property
    def term_days(self) -> float:
        return self.months * DAYS_PER_MONTH

    @property
    def own_facility(self) -> bool:
        return self.scenario.options.facility == "owned"

    @property
    def it_power_kw(self) -> float:
        return self.nodes * self.node_power_kw

    @property
    def site(self) -> Site:
        """The cluster as the provisioning timelines take it (pricing/timeline.py)."""
        return Site(
            self.gpu_id, self.gpus, self.nodes, self.it_power_kw, self.catalogue, self.own_facility,
            **site_limits(self.scenario.constraints),
        )  # fmt: skip

    def goodput(self, failure_multiplier: np.ndarray, restart_ratio: float = 1.0) -> np.ndarray:
        """Goodput for failure-rate multipliers (vectorized): the core's Daly interval and exact
        goodput at 49 log-spaced multipliers from 1/20 to 20, interpolated in log space."""
        rel = self.plan.reliability
        grid = np.geomspace(0.05, 20, 49)
        curve = []
        for g in grid:
            mtbf = job_mtbf_s(self.gpus, rel.failures_per_gpu_day * g)
            tau = daly_interval_s(rel.checkpoint_write_s, mtbf)
            curve.append(
                goodput_fraction(mtbf, rel.checkpoint_write_s, tau, rel.restart_s * restart_ratio)
            )
        mult = np.clip(np.asarray(failure_multiplier, dtype=float), grid[0], grid[-1])
        return np.interp(np.log(mult), np.log(grid), np.array(curve))


#: what a planner default shows where a sourced figure shows its date: the row's `as_of` is only
#: the day the default was set, not the date of any public figure
PLANNER_DEFAULT_AS_OF = "planner default"


def _catalogue_figure(cat: Catalogue, key: str) -> Figure:
    row = cat.assumption(key)
    as_of = PLANNER_DEFAULT_AS_OF if row.source == PLANNER_DEFAULT_SOURCE else str(row.as_of)
    return Figure(key, row.value, row.unit, row.source, as_of, note=row.notes)


def _derived(key: str, value: float, unit: str, how: str, as_of: str = "") -> Figure:
    return Figure(key, value, unit, f"derived: {how}", as_of)


def _rental(
    cat: Catalogue, gpu_id: str, offer: str, provider: str | None, kinds: tuple[str | None, ...]
) -> tuple[float, str, str]:
    """The named provider's price when one is given, else the median over the first provider kind
    (hyperscaler, neocloud, ...; None = any) that has one; where it came from; and the newest
    `as_of` of the rows it was taken from (a price derived from it carries none of its own:
    pricing/catalogue/freshness.py dates that by the oldest of its parts)."""
    choices = [(provider, None)] if provider else [(None, kind) for kind in kinds]
    for who, kind in choices:
        try:
            price = cat.rental_price(gpu_id, offer, provider=who, provider_kind=kind)
        except MissingFigureError:
            continue
        label = who or (f"{kind} median" if kind else "median of all providers")
        as_of = cat.rental_as_of(gpu_id, offer, provider=who, provider_kind=kind)
        return price, f"rental_prices.csv: {gpu_id} {offer}, {label}", as_of
    raise MissingFigureError(
        f"no {offer} rental price for {gpu_id}" + (f" from {provider}" if provider else "")
    )


def _price_figures(
    cat: Catalogue,
    sc: Scenario,
    gpu_id: str,
    figures: dict[str, Figure],
    used: set[str],
) -> None:
    """The price figures of `gpu_id`; adds to `used` each discount a derived price was read from."""
    d1 = figures["committed_1y_discount_pct"].value / 100
    d3 = figures["committed_3y_discount_pct"].value / 100
    unit = "USD/GPU-hour"
    server = cat.server_price_usd_per_gpu(gpu_id)
    figures["server_usd_per_gpu"] = Figure(
        "server_usd_per_gpu",
        server,
        "USD/GPU",
        f"hardware_prices.csv: median of {gpu_id} server quotes",
        max(str(r.as_of) for r in cat.server_prices(gpu_id)),
    )

    # a named provider is priced from its on-demand rate (the rent and cloud figures derive from
    # it when the provider lists no commitment), so it must list one for this GPU
    known = sorted({row.provider for row in cat.rentals(gpu_id, "on_demand")})
    for field_name, provider in (
        ("rent_provider", sc.options.rent_provider),
        ("cloud_provider", sc.options.cloud_provider),
    ):
        if provider is not None and provider not in known:
            raise InputError(
                f"options.{field_name}",
                f"no on-demand price from {provider!r} for {gpu_id}; known: {', '.join(known)}",
            )
    neo = ("neocloud", "marketplace", None)
    prov = sc.options.rent_provider
    on_demand_neo, src, od_neo_as_of = _rental(cat, gpu_id, "on_demand", prov, neo)
    commitment = sc.options.rent_commitment
    if commitment == "monthly":  # month to month: the dedicated providers' on-demand rate
        rent, rent_src, rent_as_of = on_demand_neo, src, od_neo_as_of
    else:
        c1, src1, c1_as_of = _one_year_rate(cat, gpu_id, prov, (on_demand_neo, src, d1), used)
        rent, rent_src, rent_as_of = c1, src1, c1_as_of
        if commitment == "3y" or (commitment == "whole_term" and sc.term.months >= 36):
            # the dedicated providers' own 3-year rate; derived from the 1-year one only where
            # the catalogue lists none for this GPU (or the named provider)
            try:
                rent, rent_src, rent_as_of = _rental(cat, gpu_id, "committed_3y", prov, neo[:2])
            except MissingFigureError:
                used.update(("committed_1y_discount_pct", "committed_3y_discount_pct"))
                rent, rent_as_of = c1 * (1 - d3) / (1 - d1), ""
                rent_src = (
                    f"derived (no committed_3y row for {gpu_id}"
                    + (f" from {prov}" if prov else "")
                    + f"): 3-year rate = 1-year rate ({src1}) x (1 - 3y discount) / "
                    "(1 - 1y discount)"
                )
    figures["rent_usd_per_gpu_hour"] = Figure(
        "rent_usd_per_gpu_hour", rent, unit, rent_src, rent_as_of
    )
    # the dedicated providers' on-demand rate, and what a bridge to go-live pays on dedicated
    # capacity (pricing/bridge.py): that rate or a short reservation at the 1-year one
    figures["rent_on_demand_usd_per_gpu_hour"] = Figure(
        "rent_on_demand_usd_per_gpu_hour", on_demand_neo, unit, src, od_neo_as_of
    )
    if sc.options.bridge_price == "on_demand":
        bridge = (on_demand_neo, f"{src} (options.bridge_price: on demand)", od_neo_as_of)
    else:
        c1, src1, c1_as_of = _one_year_rate(cat, gpu_id, prov, (on_demand_neo, src, d1), used)
        bridge = (c1, f"{src1} ({BRIDGE_RESERVED_SOURCE})", c1_as_of)
    figures[BRIDGE_KEY] = Figure(BRIDGE_KEY, bridge[0], unit, bridge[1], bridge[2])


#: the bridge's rate per GPU-hour (pricing/bridge.py BRIDGE_RENT_KEY)
BRIDGE_KEY = "bridge_rent_usd_per_gpu_hour"
#: why a bridge of a few months is priced at the 1-year rate by default (pricing/bridge.py)
BRIDGE_RESERVED_SOURCE = (
    "options.bridge_price: a short reservation at the 1-year rate, a planner default "
    "(short reservations, sourced in pricing/bridge.py, cost about that)"
)


def _one_year_rate(
    cat: Catalogue, gpu_id: str, prov: str | None, on_demand: tuple, used: set[str]
) -> tuple[float, str, str]:
    """The dedicated providers' (or `prov`'s) 1-year rate of `gpu_id`, its source and `as_of`:
    the catalogue's committed_1y row, else `on_demand` (rate, source, 1-year discount as a share)
    × (1 − the discount), adding the discount to `used`."""
    neo = ("neocloud", "marketplace")
    try:
        return _rental(cat, gpu_id, "committed_1y", prov, neo)
    except MissingFigureError:
        rate, src, d1 = on_demand
        used.add("committed_1y_discount_pct")
        # derived: freshness dates its parts
        return rate * (1 - d1), f"derived: {src} x (1 - committed_1y_discount_pct)", ""


#: What cloud:on_demand can buy in each of its capacity_reservation bands (timeline.csv, by GPU
#: count, in size order): one instance at the on-demand rate; a cluster as capacity blocks at their
#: own rate; beyond the capacity-block quota only a negotiated reservation, which the committed
#: options price, so nothing on demand (None).
ON_DEMAND_TIERS: tuple[str | None, ...] = ("on_demand", "capacity_block", None)
#: cloud options are priced from hyperscaler rows only (neocloud and marketplace rows price Rent)
CLOUD_KINDS: tuple[str, ...] = ("hyperscaler",)
#: the options whose availability follows the cluster's size
ON_DEMAND = next(o for o in OPTIONS if o.price_key == "cloud_on_demand_usd_per_gpu_hour")
SPOT = next(o for o in OPTIONS if o.interruptible)


def on_demand_tier(cat: Catalogue, gpus: int) -> tuple[str | None, TimelineRow]:
    """What cloud:on_demand buys for `gpus` (ON_DEMAND_TIERS) and the timeline band that says so:
    price and provisioning time follow the same sizes."""
    row = cat.timeline_row(ON_DEMAND.id, "capacity_reservation", size=gpus)
    bands = sorted(
        (r for r in cat.timeline_rows if r.key == row.key), key=lambda r: r.size_min or 0.0
    )
    return ON_DEMAND_TIERS[min(bands.index(row), len(ON_DEMAND_TIERS) - 1)], row


def _cloud_on_demand_rate(
    cat: Catalogue, gpu_id: str, cprov: str | None, no_price: dict[str, str]
) -> tuple[float, str, str]:
    """The hyperscaler (or named cloud provider's) on-demand rate of `gpu_id`, where it came from
    and its `as_of`; NaN where the catalogue lists none, and then every cloud option gets a note
    in `no_price` saying so (neocloud prices are not used for cloud options)."""
    try:
        od, od_src, od_as_of = _rental(cat, gpu_id, "on_demand", cprov, CLOUD_KINDS)
    except MissingFigureError:
        od, od_as_of = math.nan, ""
        od_src = (
            f"no hyperscaler price for {gpu_id} in the catalogue; neocloud prices are not used "
            "for cloud options (they price Rent)"
        )
        for option in OPTIONS:
            if option.price_key and option.price_key.startswith("cloud_"):
                no_price[option.id] = od_src
    return od, od_src, od_as_of


def _on_demand_price(
    cat: Catalogue,
    gpu_id: str,
    cprov: str | None,
    gpus: int,
    on_demand: tuple[float, str, str],
    no_price: dict[str, str],
) -> tuple[float, str, str]:
    """What cloud:on_demand costs for `gpus` (on_demand_tier), where it came from and its `as_of`:
    the `on_demand` rate (rate, source, as_of) for one instance, the capacity-block rate for a
    cluster (the on-demand rate, so labelled, where none is listed), NaN beyond the capacity-block
    quota (then a note in `no_price`)."""
    od, od_src, od_as_of = on_demand
    tier, band = on_demand_tier(cat, gpus)
    size = f"{gpus:,} GPUs"
    as_of = od_as_of
    if tier == "on_demand":
        price, src = od, f"{od_src} (on-demand: {size} launch without a reservation)"
    elif tier == "capacity_block":
        try:
            price, cb_src, as_of = _rental(cat, gpu_id, "capacity_block", cprov, CLOUD_KINDS)
            src = f"{cb_src} (capacity blocks: {size} is above the on-demand size)"
        except MissingFigureError:
            price = od
            src = (
                f"{od_src} (on-demand rate: {size} is bought as capacity blocks, and the catalogue "
                f"lists no capacity-block price for {gpu_id})"
            )
    else:
        price, as_of = math.nan, ""
        src = (
            f"none on demand: above {band.size_min:,.0f} GPUs (the capacity-block quota) a "
            "hyperscaler cluster is a negotiated reservation; see the committed cloud options"
        )
        no_price.setdefault(ON_DEMAND.id, src)
    return price, src, as_of


def _cloud_committed_figures(
    cat: Catalogue,
    gpu_id: str,
    cprov: str | None,
    on_demand: tuple[float, str],
    figures: dict[str, Figure],
    used: set[str],
) -> None:
    """The 1- and 3-year committed cloud prices of `gpu_id`: the catalogue's, else the `on_demand`
    rate (rate, source) less the committed discount (then added to `used` when the rate is
    known)."""
    od, od_src = on_demand
    d1 = figures["committed_1y_discount_pct"].value / 100
    d3 = figures["committed_3y_discount_pct"].value / 100
    for years, disc in (("1y", d1), ("3y", d3)):
        key = f"cloud_committed_{years}_usd_per_gpu_hour"
        try:
            price, psrc, pas_of = _rental(cat, gpu_id, f"committed_{years}", cprov, CLOUD_KINDS)
        except MissingFigureError:
            price, psrc, pas_of = (
                od * (1 - disc),
                f"derived: {od_src} x (1 - committed_{years}_discount_pct)",
                "",  # derived: pricing/catalogue/freshness.py dates it by the oldest of its parts
            )
            if math.isfinite(od):
                used.add(f"committed_{years}_discount_pct")
        figures[key] = Figure(key, price, "USD/GPU-hour", psrc, pas_of)


def _cloud_price_figures(
    cat: Catalogue,
    sc: Scenario,
    gpu_id: str,
    gpus: int,
    figures: dict[str, Figure],
    used: set[str],
) -> tuple[dict[str, str], dict[str, str]]:
    """The cloud price figures of `gpus` x `gpu_id`, from hyperscaler rows only (or the named cloud
    provider's). On-demand follows on_demand_tier: the on-demand rate for one instance, the
    capacity-block rate for a cluster (the on-demand rate, so labelled, where none is listed),
    unavailable beyond the capacity-block quota. Returns (notes for options without a price,
    notes for options unavailable whatever their price: spot above cloud_spot_max_gpus)."""
    unit = "USD/GPU-hour"
    cprov = sc.options.cloud_provider
    no_price: dict[str, str] = {}
    od, od_src, od_as_of = _cloud_on_demand_rate(cat, gpu_id, cprov, no_price)
    price, src, as_of = _on_demand_price(cat, gpu_id, cprov, gpus, (od, od_src, od_as_of), no_price)
    figures["cloud_on_demand_usd_per_gpu_hour"] = Figure(
        "cloud_on_demand_usd_per_gpu_hour", price, unit, src, as_of
    )

    try:
        spot, spot_src, spot_as_of = _rental(cat, gpu_id, "spot", cprov, CLOUD_KINDS)
    except MissingFigureError:
        spot, spot_src = math.nan, f"no hyperscaler spot price for {gpu_id} in the catalogue"
        spot_as_of = ""
    figures["cloud_spot_usd_per_gpu_hour"] = Figure(
        "cloud_spot_usd_per_gpu_hour", spot, unit, spot_src, spot_as_of
    )
    by_size: dict[str, str] = {}
    size = f"{gpus:,} GPUs"
    spot_max = figures["cloud_spot_max_gpus"].value
    if gpus > spot_max:
        by_size[SPOT.id] = (
            f"spot is not offered for {size}: a multi-node job needs every node at once and spot "
            f"capacity is not guaranteed; above cloud_spot_max_gpus ({spot_max:,.0f} GPUs)"
        )
    _cloud_committed_figures(cat, gpu_id, cprov, (od, od_src), figures, used)
    return no_price, by_size


def _apply_overrides(figures: dict[str, Figure], overrides: dict[str, float]) -> None:
    """Replaces figures by the user's values, each checked against its allowed range."""
    for key, value in overrides.items():
        if key not in figures:
            raise InputError(
                f"overrides.{key}",
                "set it in usage, not in overrides"
                if key in USAGE_KEYS
                else "unknown input; overridable: " + ", ".join(sorted(figures)),
            )
        lo, hi = override_range(key)
        if not lo <= value <= hi:
            raise InputError(
                f"overrides.{key}", f"{value:g} is out of range (allowed: {lo:g} to {hi:g})"
            )
        old = figures[key]
        figures[key] = Figure(
            key,
            float(value),
            old.unit,
            "user override",
            "",
            True,
            note=f"catalogue: {old.value:g} {old.unit} ({old.source})",
        )


def _reliability_figures(plan: TrainingPlan, figures: dict[str, Figure]) -> None:
    """The failure-rate and lead-time multipliers (1 = the models' and the catalogue's own)."""
    figures["failure_rate_multiplier"] = Figure(
        "failure_rate_multiplier",
        1.0,
        "ratio",
        f"1 = {plan.reliability.failures_per_gpu_day:.2g} failures per GPU-day (models/data/gpus.csv)",
        "",
    )
    figures["lead_time_multiplier"] = Figure(
        "lead_time_multiplier",
        1.0,
        "ratio",
        "1 = catalogue lead times (pricing/data/lead_times.csv)",
        "",
    )


def _residual_figure(
    cat: Catalogue, scenario: Scenario, site: Site, figures: dict[str, Figure]
) -> float:
    """The residual value at term end, read at the owned hardware's age then: the term less the
    days before the owned cluster on `site` is accepted (its provisioning), not the term's length.
    Returns that age in years."""
    accepted_day = ready_day(OWNED_TIMELINE_OPTION, site)
    age_years = max(scenario.term.months * DAYS_PER_MONTH - accepted_day, 0.0) / DAYS_PER_YEAR
    figures["residual_value_pct"] = Figure(
        "residual_value_pct",
        cat.residual_value_pct(min(age_years, cat.residual_last_age_years)),
        "%",
        f"residual_values.csv at {age_years:.1f} years (the hardware's age at term end: "
        f"accepted on {on_day(accepted_day)})",
        "",
    )
    return age_years


def _discount_rate_figure(scenario: Scenario, figures: dict[str, Figure]) -> None:
    """The scenario's term.discount_rate_pct as the discount rate figure, where it is set (and not
    also overridden)."""
    if (
        scenario.term.discount_rate_pct is not None
        and "discount_rate_pct_per_year" in scenario.overrides
    ):
        raise InputError(
            "overrides.discount_rate_pct_per_year",
            "the discount rate is also set in term.discount_rate_pct; set it in one place",
        )
    if scenario.term.discount_rate_pct is not None:
        figures["discount_rate_pct_per_year"] = Figure(
            "discount_rate_pct_per_year",
            scenario.term.discount_rate_pct,
            "%/year",
            "scenario",
            "",
            True,
        )


def _figures(
    scenario: Scenario, cat: Catalogue, plan: TrainingPlan, gpu_id: str, site: Site
) -> tuple[dict[str, Figure], dict[str, str], float]:
    """Every figure of the scenario: the catalogue's, the prices of `gpu_id`, the reliability and
    residual value figures and the discount rate, overrides applied (catalogue figures first: the
    prices derived from them follow them). Returns (figures, option id -> why unavailable, the
    owned hardware's age in years at term end)."""
    figures = {key: _catalogue_figure(cat, key) for key in CATALOGUE_KEYS}
    if scenario.constraints.site_cooling == "air":  # prices a liquid retrofit (site_power.py)
        figures[LIQUID_RETROFIT_KEY] = _catalogue_figure(cat, LIQUID_RETROFIT_KEY)
    # catalogue figures first: the prices derived from them (committed discounts) follow overrides
    overrides_left = dict(scenario.overrides)
    _apply_overrides(
        figures, {k: overrides_left.pop(k) for k in CATALOGUE_KEYS if k in overrides_left}
    )
    used: set[str] = set()
    _price_figures(cat, scenario, gpu_id, figures, used)
    no_price, by_size = _cloud_price_figures(cat, scenario, gpu_id, plan.gpus, figures, used)
    _reliability_figures(plan, figures)
    age_years = _residual_figure(cat, scenario, site, figures)
    _discount_rate_figure(scenario, figures)
    _apply_overrides(figures, overrides_left)
    if scenario.options.bridge_price == "on_demand" and BRIDGE_KEY not in scenario.overrides:
        on_demand = figures["rent_on_demand_usd_per_gpu_hour"]  # the bridge follows its override
        figures[BRIDGE_KEY] = dataclasses.replace(on_demand, key=BRIDGE_KEY)
    for key in sorted(DISCOUNT_KEYS & scenario.overrides.keys() - used):
        raise InputError(
            f"overrides.{key}",
            f"not used for {gpu_id}: the catalogue lists the prices it would discount; "
            "override rent_usd_per_gpu_hour or cloud_committed_*_usd_per_gpu_hour instead",
        )
    unavailable = unavailable_options(scenario, gpu_id, figures, no_price, by_size, site)
    return figures, unavailable, age_years


def build_inputs(
    scenario: Scenario, catalogue: Catalogue, plan: TrainingPlan | None = None
) -> CostInputs:
    """Sizes the workload once with the core, then gathers every figure from `catalogue` (always
    given: only the entry point, `compare`, picks the bundled one); overrides win."""
    cat = catalogue
    plan = plan or plan_training(scenario, curve=True)
    gpu = get_gpu(scenario.cluster.gpu)
    # resale depends on the hardware's age when the term ends: the term less the months before the
    # owned cluster is accepted (its provisioning), not the term's length
    nodes = plan.fabric.nodes
    site = Site(
        gpu.gpu_id,
        plan.gpus,
        nodes,
        nodes * gpu.node_power_kw,
        cat,
        own_facility=scenario.options.facility == "owned",
        **site_limits(scenario.constraints),
    )
    figures, unavailable, age_years = _figures(scenario, cat, plan, gpu.gpu_id, site)
    storage_tb = (
        CHECKPOINTS_KEPT * plan.checkpoint.size_gib * BYTES_PER_GIB / BYTES_PER_TB
        + DATASET_COPIES * plan.storage.dataset_tb
    )
    cooling, racks = rack_count(cat, OWNED_TIMELINE_OPTION, gpu.gpu_id, plan.gpus)
    return CostInputs(
        scenario=scenario,
        catalogue=cat,
        plan=plan,
        figures=figures,
        usage=UsageInputs(runs=scenario.usage.runs, utilisation_pct=scenario.usage.utilisation_pct),
        gpu_id=gpu.gpu_id,
        gpus=plan.gpus,
        nodes=nodes,
        months=scenario.term.months,
        node_power_kw=gpu.node_power_kw,
        storage_tb=storage_tb,
        weights_gb=BYTES_PER_PARAM["bf16"] * plan.model.params / BYTES_PER_GB,
        switches=plan.fabric.switches,
        transceivers=plan.fabric.transceivers,
        unavailable=unavailable,
        resale_age_years=min(age_years, cat.residual_last_age_years),
        cooling=cooling,
        racks=racks,
        storage_write_gbyte_per_s=plan.checkpoint.write_bandwidth_gbyte_per_s,
    )

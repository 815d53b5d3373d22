"""The registry of options: every way of getting the cluster that the planner compares.

One record per option says what it is (owned, dedicated, managed, interruptible), how it is
billed (`Billing`: the cash-flow function that prices it in pricing/cashflows.py), which price
figure it pays, how its provisioning timeline runs, and how it is labelled and coloured. The
scenario schema, the catalogue checks, the engine, the decision support, the timelines and the
charts all read this table; adding an option is one record here (and, for a new way of billing,
one cash-flow function registered under its `Billing`).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Literal


class Billing(StrEnum):
    """How an option's cash flows are made (each has one function in pricing/cashflows.py)."""

    OWNED = "owned"  # hardware bought (cash, loan or lease), run on site or in colocation
    RENT = "rent"  # a dedicated cluster at $/GPU-hour for every held hour, take-or-pay
    MANAGED_RENT = "managed_rent"  # the rent plus a managed-service premium
    PER_USE = "per_use"  # busy GPU-hours only (on-demand, spot)
    COMMITTED = "committed"  # whole 1- or 3-year blocks of reserved capacity
    HYBRID = "hybrid"  # the sum of its parts' flows (`OptionSpec.composed_of`): a base and a burst


class Staffing(StrEnum):
    """Whose engineers run the cluster, and so which staff ratio the buyer pays
    (pricing/cashflows.py STAFF_KEYS)."""

    OWNED = "owned"  # the buyer's operations team for owned hardware (ops_fte_per_1000_gpus)
    RENTED = "rented"  # the buyer's platform engineers on rented capacity (rented_ops_*)
    NONE = "none"  # a provider operates it (managed)


#: A provisioning phase: (catalogue phase key, name shown, what sizes it: "gpus" or "none").
Step = tuple[str, str, str]
_RESERVATION: tuple[Step, ...] = (("capacity_reservation", "capacity reservation", "gpus"),)


@dataclass(frozen=True)
class OptionSpec:
    id: str
    label: str
    billing: Billing
    #: Okabe-Ito colour (colour-blind safe), the same on screen and in the PDF
    colour: str
    #: the buyer owns the hardware (pays servers, power, colocation; gets the residual value)
    owned: bool = False
    #: the cluster is held, and paid for, from the ready day to the end of the term
    dedicated: bool = False
    #: a provider operates it: no operations staff, faster restarts (managed_restart_ratio)
    managed: bool = False
    #: capacity can be taken back: training pays spot_interruption_overhead_pct more time
    interruptible: bool = False
    #: the $/GPU-hour figure it pays (None for owned hardware)
    price_key: str | None = None
    #: length of a commitment block, years (committed cloud)
    commit_years: int = 0
    #: timeline rows: "build" runs the build critical path; otherwise this chain of phases
    timeline_steps: tuple[Step, ...] = _RESERVATION
    #: the option whose catalogue timeline rows it uses, when it has none of its own
    timeline_rows_of: str | None = None
    #: compared by default in a new scenario
    default: bool = False
    #: a composite option: (the option that holds the base, the one that serves the burst); its
    #: cash flows are each part's own flows on its share of the capacity (pricing/planning/)
    composed_of: tuple[str, ...] = ()
    #: it needs a portfolio's demand over time (scenario version 2) to be planned
    needs_demand: bool = False
    #: its GPUs are a public cloud's (shared tenancy in the provider's regions), which a buyer's
    #: constraints may rule out (models/constraints.py)
    public_cloud: bool = False

    @property
    def staffing(self) -> Staffing:
        """Who runs it: a managed option's provider; otherwise the buyer's own engineers, a full
        operations team for owned hardware and a smaller platform team (scheduler, storage,
        software stack, job debugging) on rented or cloud capacity."""
        if self.managed:
            return Staffing.NONE
        return Staffing.OWNED if self.owned else Staffing.RENTED

    @property
    def uses_public_cloud(self) -> bool:
        """It puts work on public cloud: its own GPUs, or a part's (a hybrid's cloud burst)."""
        return self.public_cloud or any(REGISTRY[p].public_cloud for p in self.composed_of)

    @property
    def staffed(self) -> bool:
        """The buyer pays engineers of its own to run it."""
        return self.staffing is not Staffing.NONE

    @property
    def holds(self) -> str:
        """How long the option is paid for (pricing/cashflows.py make_context): owned hardware to
        the term's end, a rented cluster for its rental commitment, per-use capacity while busy."""
        if self.owned:
            return "term"
        return "rental" if self.billing in (Billing.RENT, Billing.MANAGED_RENT) else "busy"

    @property
    def builds(self) -> bool:
        """Provisioned through the build critical path (procure, deliver, rack, burn in)."""
        return self.owned


OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec(
        "build", "Build", Billing.OWNED, "#0072B2", owned=True, dedicated=True, default=True
    ),
    OptionSpec(
        "rent",
        "Rent dedicated",
        Billing.RENT,
        "#E69F00",
        dedicated=True,
        price_key="rent_usd_per_gpu_hour",
        timeline_steps=(
            ("contract", "contract", "gpus"),
            ("capacity", "capacity", "gpus"),
            ("validation", "validation", "none"),
        ),
        default=True,
    ),
    OptionSpec(
        "managed",
        "Managed",
        Billing.MANAGED_RENT,
        "#009E73",
        dedicated=True,
        managed=True,
        price_key="rent_usd_per_gpu_hour",
        timeline_steps=(
            ("onboarding", "onboarding", "none"),
            ("provisioning", "provisioning", "gpus"),
            ("validation", "validation", "none"),
        ),
        default=True,
    ),
    OptionSpec(
        "managed:owned",
        "Managed (owned)",
        Billing.OWNED,
        "#56B4E9",
        owned=True,
        dedicated=True,
        managed=True,
        timeline_rows_of="build",
    ),
    OptionSpec(
        "cloud:on_demand",
        "Cloud on-demand",
        Billing.PER_USE,
        "#D55E00",
        price_key="cloud_on_demand_usd_per_gpu_hour",
        default=True,
        public_cloud=True,
    ),
    OptionSpec(
        "cloud:spot",
        "Cloud spot",
        Billing.PER_USE,
        "#CC79A7",
        interruptible=True,
        price_key="cloud_spot_usd_per_gpu_hour",
        public_cloud=True,
    ),
    OptionSpec(
        "cloud:committed_1y",
        "Cloud 1-yr commit",
        Billing.COMMITTED,
        "#999999",
        price_key="cloud_committed_1y_usd_per_gpu_hour",
        commit_years=1,
        public_cloud=True,
    ),
    OptionSpec(
        "cloud:committed_3y",
        "Cloud 3-yr commit",
        Billing.COMMITTED,
        "#F0E442",  # the pale yellow goes to the option least often compared
        price_key="cloud_committed_3y_usd_per_gpu_hour",
        commit_years=3,
        public_cloud=True,
    ),
    OptionSpec(
        "hybrid",
        "Own base + cloud burst",
        Billing.HYBRID,
        "#000000",  # the last Okabe-Ito colour
        owned=True,
        dedicated=True,
        price_key="cloud_on_demand_usd_per_gpu_hour",
        timeline_rows_of="build",
        composed_of=("build", "cloud:on_demand"),
        needs_demand=True,
    ),
)

REGISTRY: dict[str, OptionSpec] = {spec.id: spec for spec in OPTIONS}
OPTION_IDS: tuple[str, ...] = tuple(REGISTRY)
OptionId = Literal[OPTION_IDS]  # type: ignore[valid-type]
DEFAULT_COMPARE: tuple[str, ...] = tuple(s.id for s in OPTIONS if s.default)
#: the options whose provisioning rows the timeline catalogue holds
TIMELINE_ROW_OPTIONS: tuple[str, ...] = tuple(s.id for s in OPTIONS if s.timeline_rows_of is None)


def spec(option_id: str) -> OptionSpec:
    """The record of an option id; a KeyError names the known ids."""
    try:
        return REGISTRY[option_id]
    except KeyError:
        raise KeyError(f"unknown option {option_id!r}; known: {', '.join(OPTION_IDS)}") from None


def ids_where(**flags: bool) -> frozenset[str]:
    """Option ids whose properties match, e.g. ids_where(owned=True)."""
    return frozenset(s.id for s in OPTIONS if all(getattr(s, k) == v for k, v in flags.items()))


def label(option_id: str) -> str:
    return spec(option_id).label

"""The buyer's constraints (issue 30): what rules an option out before any price is looked at.

A regulated buyer (data residency, a customer contract, a sector rule) may not put work on public
cloud at all: with `public_cloud_allowed` off, every option whose GPUs are a public cloud's
(on-demand, spot, committed) is not offered, and neither is a hybrid whose burst runs there
(models/options.py `OptionSpec.uses_public_cloud`). They are shown as not offered, with the reason,
and never ranked, priced, planned or recommended. One table of reasons, read by the cost inputs
(pricing/inputs.py), the portfolio planner and every page that names a cloud price."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from models.options import OPTIONS

#: the largest site power the planner takes, kW: 10 GW, above the largest AI campuses announced
#: (a planner bound on input, not a figure the costs use)
MAX_SITE_POWER_KW = 10_000_000.0
#: the longest delivery lead time the planner takes, weeks (three years)
MAX_LEAD_TIME_WEEKS = 156.0

NO_PUBLIC_CLOUD = "ruled out by the buyer's constraints: no public cloud"
NO_CLOUD_BURST = (
    "ruled out by the buyer's constraints: its burst runs on public cloud (Build or a dedicated "
    "option serves the peaks instead)"
)


class Constraints(BaseModel):
    """What the buyer rules out before any cost is compared."""

    model_config = ConfigDict(extra="forbid")

    public_cloud_allowed: bool = Field(
        default=True,
        description="work may run on public cloud (on-demand, spot, committed, a hybrid's burst); "
        "off for data residency or a regulated industry: those options are not offered, and the "
        "Guide quotes no cloud price",
    )
    site_power_kw: float | None = Field(
        default=None,
        gt=0,
        le=MAX_SITE_POWER_KW,
        description="IT power, kW, that the buyer's site (its own hall or contracted colocation "
        "space) can give owned hardware (Build, Managed (owned), a hybrid's base); an owned "
        "cluster that draws more needs a facility upgrade (pricing/site_power.py) or is not "
        "offered; empty: no site limit",
    )
    site_cooling: Literal["air", "liquid"] | None = Field(
        default=None,
        description="how the buyer's site cools racks: air, or liquid-ready (facility water to "
        "the racks); rack-scale GPUs such as GB200 NVL72 need liquid; empty: not stated",
    )
    facility_upgrade_allowed: bool = Field(
        default=True,
        description="an owned cluster beyond the site's power or cooling may get a facility "
        "upgrade (its own lead time and cost); off: such an option is not offered",
    )
    hardware_lead_time_weeks: float | None = Field(
        default=None,
        ge=0,
        le=MAX_LEAD_TIME_WEEKS,
        description="a delivery lead time the buyer has been quoted for owned hardware, weeks "
        "from the order to shipment; it replaces the catalogue's lead time (lead_times.csv) "
        "and so moves the ready day; empty: the catalogue's, by GPU and order size",
    )

    @property
    def states_site(self) -> bool:
        """The buyer has said what the site can take (power or cooling)."""
        return self.site_power_kw is not None or self.site_cooling is not None


def describe(constraints: Constraints) -> str | None:
    """The constraints in words, for every report (None when the buyer stated none)."""
    c = constraints
    parts = [] if c.public_cloud_allowed else ["no public cloud (data residency)"]
    if c.states_site:
        power = f"{c.site_power_kw:,.0f} kW of IT power" if c.site_power_kw is not None else ""
        cooling = f"{c.site_cooling}-cooled" if c.site_cooling is not None else ""
        site = " ".join(p for p in (cooling, "site") if p) + (f" with {power}" if power else "")
        upgrade = "facility upgrades allowed" if c.facility_upgrade_allowed else "no upgrades"
        parts.append(f"{site} ({upgrade})")
    if c.hardware_lead_time_weeks is not None:
        parts.append(f"quoted hardware lead time {c.hardware_lead_time_weeks:g} weeks")
    return "; ".join(parts) or None


def excluded(constraints: Constraints) -> dict[str, str]:
    """option id -> why the constraints rule it out (empty when they rule nothing out)."""
    if constraints.public_cloud_allowed:
        return {}
    return {
        o.id: NO_PUBLIC_CLOUD if o.public_cloud else NO_CLOUD_BURST
        for o in OPTIONS
        if o.uses_public_cloud
    }


__all__ = [
    "Constraints",
    "describe",
    "excluded",
    "NO_PUBLIC_CLOUD",
    "NO_CLOUD_BURST",
    "MAX_SITE_POWER_KW",
    "MAX_LEAD_TIME_WEEKS",
]

"""The buyer's site (issue 30, "the buyer's constraints first"): whether an owned cluster fits
the power and cooling the buyer states (models/constraints.py), what a facility upgrade takes
when it does not, and the power every option draws.

- IT power, kW = nodes × node power (gpus.csv node_power_kw: DGX H100 10.2 kW; DGX B200 14.3 kW
  max, NVIDIA DGX B200 user guide, read 2026-12; a GB200 NVL72 compute tray = 120 kW rack / 18).
  Facility power, kW = IT × PUE (assumptions.csv `pue`: 1.54, Uptime Institute survey 2025).
- Cooling needed: liquid for rack-scale NVL72 systems (a `rack_nvl72` price row): "there is no
  air-cooled option for NVIDIA GB200 or GB300 NVL72 systems. Each rack draws approximately
  120 kW" (https://www.leviathansystems.co/blog/liquid-cooling-requirements-blackwell, read
  2026-12; NVIDIA's DGX GB200 user guide lists the rack's liquid cooling manifolds). Air for
  8-GPU servers: the DGX B200 is a 10U air-cooled system of 14.3 kW (NVIDIA DGX B200 user guide,
  https://docs.nvidia.com/dgx/dgxb200-user-guide/introduction-to-dgxb200.html), so B200 HGX
  servers stay on air.
- Only options whose hardware the buyer owns sit on the buyer's site (`OptionSpec.owned`: Build,
  Managed (owned), a hybrid's owned base); rented, managed and cloud GPUs draw their power at the
  provider's.
- An upgrade is needed when IT power > `site_power_kw` (extra kW = the difference) or the GPU
  needs liquid and the site is air-cooled (a liquid retrofit of the whole IT load).
  - Lead time: the facility band of timeline.csv for the extra kW, at least the build-out and
    retrofit band (500 kW-10 MW: 4-6 months, coolnetpower, "modular, colocation or retrofit");
    a liquid retrofit alone takes that band. It runs from day 0 with procurement and ends the
    facility phase (pricing/timeline.py).
  - Cost: extra kW × facility_capex_usd_per_kw (Cushman & Wakefield 2025: 11.7 M USD per MW of
    critical load) + retrofitted kW × liquid_retrofit_usd_per_kw (STL Partners, 2026-05-28:
    about 2 M USD per MW), paid in the month the upgraded space is handed over (its `facility
    upgrade` line; not credited at the term's end, the site being the buyer's to keep).
- With `facility_upgrade_allowed` off, an owned option that needs one is not offered.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from models.constraints import Constraints
from models.options import spec
from models.units import DAYS_PER_MONTH
from pricing.catalogue.loader import Catalogue

#: the figure that prices a liquid retrofit of an air-cooled site (assumptions.csv); it is among
#: a scenario's figures only when the buyer states an air-cooled site (pricing/inputs.py)
LIQUID_RETROFIT_KEY = "liquid_retrofit_usd_per_kw"


def cooling(cat: Catalogue, gpu_id: str) -> str:
    """'liquid' for rack-scale NVL72 systems (a rack_nvl72 price row), else 'air' (see above)."""
    return "liquid" if any(r.item == "rack_nvl72" for r in cat.server_prices(gpu_id)) else "air"


def site_limits(constraints: Constraints) -> dict:
    """The constraints a provisioning timeline's Site carries (pricing/timeline.py Site)."""
    return {
        "site_power_kw": constraints.site_power_kw,
        "site_cooling": constraints.site_cooling,
        "lead_time_weeks": constraints.hardware_lead_time_weeks,
        "upgrade_allowed": constraints.facility_upgrade_allowed,
    }


@dataclass(frozen=True)
class Need:
    """What an owned cluster needs beyond the stated site: extra IT power (kW) and whether the
    site must be retrofitted for liquid cooling."""

    cooling: str
    extra_kw: float = 0.0
    liquid_retrofit: bool = False

    @property
    def upgrade(self) -> bool:
        return self.extra_kw > 0 or self.liquid_retrofit

    def words(self, it_power_kw: float) -> str:
        """The upgrade in words, e.g. '+306 kW of power and a liquid-cooling retrofit'."""
        parts = [f"+{self.extra_kw:,.0f} kW of power"] if self.extra_kw > 0 else []
        if self.liquid_retrofit:
            parts.append(f"a liquid-cooling retrofit for {it_power_kw:,.0f} kW")
        return " and ".join(parts)


def need(site) -> Need:
    """The upgrade `site` (pricing/timeline.py Site) needs for its cluster (none when the buyer
    states no site)."""
    needed = cooling(site.catalogue, site.gpu_id)
    extra = 0.0
    if site.site_power_kw is not None:
        extra = max(site.it_power_kw - site.site_power_kw, 0.0)
    retrofit = needed == "liquid" and site.site_cooling == "air"
    return Need(needed, extra, retrofit)


def upgrade_band(bands: list, n: Need):
    """The timeline.csv facility row (bands sorted by IT load) that times the upgrade: the band of
    the extra kW, at least the build-out and retrofit band (the second)."""
    by_load = next(
        (i for i, r in enumerate(bands) if r.size_max is None or n.extra_kw <= r.size_max),
        len(bands) - 1,
    )
    return bands[max(by_load, min(1, len(bands) - 1))]


def not_offered(option: str, site) -> str | None:
    """Why an owned option is not offered on the buyer's site (an upgrade is needed and the
    buyer allows none), else None. `site` carries `upgrade_allowed`."""
    if not spec(option).owned:
        return None
    n = need(site)
    if not n.upgrade or site.upgrade_allowed:
        return None
    return (
        f"ruled out by the buyer's constraints: needs {n.words(site.it_power_kw)} beyond the "
        "site (constraints.site_power_kw, constraints.site_cooling), and facility upgrades are "
        "not allowed (constraints.facility_upgrade_allowed)"
    )


def upgrade_usd(site, P: dict) -> np.ndarray | None:
    """The upgrade's cost per parameter set, USD (module docstring); None when none is needed."""
    n = need(site)
    if not n.upgrade:
        return None
    cost = n.extra_kw * np.asarray(P["facility_capex_usd_per_kw"], dtype=float)
    if n.liquid_retrofit:
        cost = cost + site.it_power_kw * np.asarray(P[LIQUID_RETROFIT_KEY], dtype=float)
    return cost


def upgrade_flow(site, P: dict, ctx, facility_day: np.ndarray) -> np.ndarray | None:
    """The `facility upgrade` line: its cost in the month the facility phase ends."""
    cost = upgrade_usd(site, P)
    if cost is None:
        return None
    month = np.floor(np.asarray(facility_day, dtype=float) / DAYS_PER_MONTH).astype(int)
    return ctx.at_month(np.minimum(month, ctx.months - 1), cost)


def with_upgrade(option: str, flows: dict, site, P: dict, ctx, milestones) -> dict:
    """An owned cluster's flows with its `facility upgrade` line where it needs one, paid in the
    month its facility phase ends (`milestones`: pricing/timeline.py build_milestones, which
    reads this module; from the cluster's order day); not for an expansion or a refresh, which
    go into the space the first cluster's upgrade made."""
    if ctx.refresh or ctx.expansion_of_gpus or not need(site).upgrade:
        return flows
    m = np.asarray(P["lead_time_multiplier"])
    day = milestones(option, site, lead_time_multiplier=m)["facility"] + ctx.order_day
    return {**flows, "facility upgrade": upgrade_flow(site, P, ctx, day)}


def power_of(option: str, site, P: dict, upgrade_days: float | None) -> dict:
    """The fields of an option's power (pricing/results.py SitePower) at the base case."""
    owned = spec(option).owned
    pue = float(np.asarray(P["pue"]).flat[0])
    n = need(site)
    cost = upgrade_usd(site, P) if owned else None
    return {
        "it_power_kw": site.it_power_kw,
        "facility_power_kw": site.it_power_kw * pue,
        "pue": pue,
        "cooling": n.cooling,
        "on_buyer_site": owned,
        "upgrade": n.words(site.it_power_kw) if owned and n.upgrade else "",
        "upgrade_days": upgrade_days if owned and n.upgrade else None,
        "upgrade_usd": None if cost is None else float(np.asarray(cost).flat[0]),
    }


__all__ = [
    "LIQUID_RETROFIT_KEY",
    "Need",
    "with_upgrade",
    "cooling",
    "need",
    "not_offered",
    "power_of",
    "site_limits",
    "upgrade_band",
    "upgrade_flow",
    "upgrade_usd",
]

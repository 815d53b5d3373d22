"""Provisioning timelines: the phases between deciding and the first training step, per option.

Figures come from `pricing/data/timeline.csv` (one row per phase figure, each with as_of, grade,
source and notes; planner defaults say so) and, for procurement, the GPU's newest row in
`lead_times.csv`. A phase lasts the midpoint of its row's low-high range. Day 0 is the decision.

build, and managed:owned (a provider runs hardware the buyer owns; no public figure shows a
provider racking or burning in faster, so it reuses the build rows):

- procurement [0, P·m]: P = 7 × lead-time weeks, the midpoint of the newest lead_times.csv range for
  orders of up to L GPUs, its high end from H GPUs on, and log-linear in GPU count between
  (L, H = the order_size_ramp row); m = lead_time_multiplier (Monte Carlo draws scale this alone).
- delivery [P·m, P·m + D]: freight and receiving.
- facility readiness [0, F], in parallel from day 0, by IT load: existing colocation space (up to
  500 kW), a colocation build-out (to 10 MW), new construction (above; 18-24 months); a facility
  of the buyer's own (own_facility) is always new construction.
- rack and cable [S, S + R] with S = max(P·m + D, F): racks = ceil(GPUs / GPUs per rack) (32 for
  air-cooled 8-GPU servers, 72 for liquid-cooled NVL72 racks), teams = clip(racks / racks_per_crew,
  1, max_crews) (a continuous count), R = racks / (rate × teams), rate per team in racks/day.
- fabric bring-up [.., + B] by the tiers of a radix-64 non-blocking fat tree for the GPU count.
- burn-in and acceptance [.., + A].

ready = max(P·m + D, F) + R + B + A. Every other option is a back-to-back chain from day 0:
rent = contract → capacity → validation; managed = onboarding → provisioning → validation;
cloud:* = capacity reservation (by GPU count; spot needs none). The multiplier moves build and
managed:owned only.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from models.infrastructure import fat_tree_tiers
from models.options import spec
from pricing import site_power as sp
from pricing.catalogue.loader import GPU_IDS, TIMELINE_OPTIONS, Catalogue, TimelineRow

SWITCH_RADIX = 64  # Quantum-2 NDR, as the core sizes the fabric
_FACILITY_KINDS = ("existing colocation space", "colocation build-out", "new construction")


@dataclass(frozen=True)
class Phase:
    name: str
    start_day: float
    end_day: float
    note: str  # what drives it, e.g. "H100-SXM lead time 8–12 weeks (2024-04)"


@dataclass(frozen=True)
class Timeline:
    option: str  # an option id of the registry (models/options.py)
    phases: tuple[Phase, ...]
    ready_day: float


@dataclass(frozen=True)
class Site:
    """The cluster a provisioning timeline is for: its GPU (a row of gpus.csv), GPU and node
    counts, IT load (kW: the facility band), the catalogue whose rows time it, and whether the
    buyer builds a facility of its own (always new construction)."""

    gpu_id: str
    gpus: int
    nodes: int
    it_power_kw: float
    catalogue: Catalogue
    own_facility: bool = False
    #: the buyer's constraints on the site (models/constraints.py; pricing/site_power.py): its IT
    #: power (kW) and cooling, whether it may be upgraded, and a quoted hardware lead time (weeks)
    site_power_kw: float | None = None
    site_cooling: str | None = None
    upgrade_allowed: bool = True
    lead_time_weeks: float | None = None


@dataclass(frozen=True)
class _BuildParts:
    """Build durations in days; procurement at multiplier 1 (it alone scales)."""

    procurement: float
    delivery: float
    facility: float
    rack: float
    fabric: float
    burn_in: float
    notes: dict[str, str]


def _check(option: str, site: Site) -> None:
    gpu_id, gpus, nodes, it_power_kw = site.gpu_id, site.gpus, site.nodes, site.it_power_kw
    if option not in TIMELINE_OPTIONS:
        raise ValueError(f"unknown option {option!r}; known: {', '.join(TIMELINE_OPTIONS)}")
    if gpu_id not in GPU_IDS:
        raise ValueError(f"unknown gpu_id {gpu_id!r}; known: {', '.join(GPU_IDS)}")
    for name, value in (("gpus", gpus), ("nodes", nodes)):
        if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 1:
            raise ValueError(f"{name} must be a whole number of at least 1, got {value!r}")
    if isinstance(it_power_kw, bool) or not math.isfinite(it_power_kw) or it_power_kw < 0:
        raise ValueError(f"it_power_kw must be a finite number >= 0, got {it_power_kw!r}")


def _multiplier(value) -> np.ndarray:
    m = np.asarray(value, dtype=float)
    if not np.all(np.isfinite(m)) or np.any(m < 0):
        raise ValueError("lead_time_multiplier must be finite and >= 0")
    return m


def _range(row: TimelineRow) -> str:
    low, high = f"{row.low:g}", f"{row.high:g}"
    return f"{low} {row.unit}" if low == high else f"{low}–{high} {row.unit}"


def _days(row: TimelineRow) -> float:
    low, high = row.days
    return (low + high) / 2


_cooling = sp.cooling  # 'liquid' for rack-scale NVL72 systems, else 'air' (pricing/site_power.py)


def racks(cat: Catalogue, option: str, gpu_id: str, gpus: int) -> tuple[str, int]:
    """(cooling, racks) of a build: 'air' or 'liquid' (`_cooling`) and ceil(GPUs / GPUs per rack)
    from the rack_and_cable gpus_per_rack row for that cooling, the figure the timeline uses."""
    cooling = _cooling(cat, gpu_id)
    per_rack = cat.timeline_row(option, "rack_and_cable", "gpus_per_rack", applies_to=cooling).mid
    return cooling, math.ceil(gpus / per_rack)


def _procurement(
    cat: Catalogue, option: str, gpu_id: str, gpus: int, quoted: float | None = None
) -> tuple[float, str]:
    """Procurement days at multiplier 1: 7 × the buyer's quoted weeks when it has one
    (constraints.hardware_lead_time_weeks), else the catalogue's by GPU and order size."""
    if quoted is not None:
        note = (
            f"{gpu_id} lead time {quoted:g} weeks as quoted to the buyer "
            f"(constraints.hardware_lead_time_weeks) for an order of {gpus:,} GPUs"
        )
        return 7.0 * quoted, note
    lead = cat.lead_time(gpu_id)
    low, weeks, high = order_weeks(cat, option, gpu_id, gpus)
    note = (
        f"{gpu_id} lead time {low:g}–{high:g} weeks ({lead.as_of:%Y-%m}); "
        f"{weeks:.1f} weeks for an order of {gpus:,} GPUs (the order-size thresholds are planner "
        f"defaults, so the uncertainty carries {low:g}–{high:g} weeks)"
    )
    return 7.0 * weeks, note


def order_weeks(cat: Catalogue, option: str, gpu_id: str, gpus: int) -> tuple[float, float, float]:
    """(low, weeks, high): the GPU's newest lead_times.csv range and the weeks the order-size ramp
    reads in it for `gpus` (the module docstring): the midpoint up to L GPUs, the high end from H
    on, log-linear between. L and H are planner defaults (timeline.csv says so), so the answer
    carries any order's weeks over the whole low-high range (`order_range`)."""
    lead = cat.lead_time(gpu_id)
    ramp = cat.timeline_row(option, "procurement", "order_size_ramp")
    low, high = lead.lead_time_weeks_low, lead.lead_time_weeks_high
    share = 0.0
    if ramp.high > ramp.low:
        share = math.log(gpus / ramp.low) / math.log(ramp.high / ramp.low)
    mid = (low + high) / 2
    return low, mid + (high - mid) * min(max(share, 0.0), 1.0), high


def order_range(site: Site, option: str = "build") -> tuple[float, float] | None:
    """The lead-time multiplier's range the order-size ramp's unsourced thresholds leave:
    (low / weeks, high / weeks) of `order_weeks` (an order of any size may wait from the low to
    the high end of its GPU's range: B200 deliveries run 4-10 months 'depending on account and
    deal size', and 1,000+ GPU commitments with deposits get the fastest queues, both
    gpuleaseindex.com 2026); None when the buyer quoted a lead time
    (constraints.hardware_lead_time_weeks)."""
    if site.lead_time_weeks is not None:
        return None
    low, weeks, high = order_weeks(site.catalogue, option, site.gpu_id, site.gpus)
    return (low / weeks, high / weeks) if weeks > 0 else None


#: the most build durations `_build_parts` keeps (a comparison asks for a few dozen sites)
_PARTS_KEPT = 512
_parts_kept: dict[tuple, tuple[Catalogue, _BuildParts]] = {}


def _build_parts(option: str, site: Site) -> _BuildParts:
    """The build phases' durations of `option` on `site` (`_make_build_parts`), kept by the
    option, the site's figures and its catalogue (the same object: a catalogue is not changed in
    place), since every cash-flow evaluation of an owned cluster asks for them again."""
    key = (option, site.gpu_id, site.gpus, site.nodes, site.it_power_kw, site.own_facility,
           site.site_power_kw, site.site_cooling, site.lead_time_weeks, id(site.catalogue))  # fmt: skip
    hit = _parts_kept.get(key)
    if hit is not None and hit[0] is site.catalogue:
        return hit[1]
    parts = _make_build_parts(option, site)
    if len(_parts_kept) >= _PARTS_KEPT:
        _parts_kept.clear()
    _parts_kept[key] = (site.catalogue, parts)
    return parts


def _make_build_parts(option: str, site: Site) -> _BuildParts:
    cat, gpu_id, gpus, nodes = site.catalogue, site.gpu_id, site.gpus, site.nodes
    it_power_kw, own_facility = site.it_power_kw, site.own_facility
    procurement, proc_note = _procurement(cat, option, gpu_id, gpus, site.lead_time_weeks)
    delivery = cat.timeline_row(option, "delivery")
    facility = cat.timeline_row(option, "facility", size=it_power_kw)
    bands = sorted(
        (r for r in cat.timeline_rows if r.key == facility.key), key=lambda r: r.size_min or 0.0
    )
    if own_facility:  # a facility of one's own is new construction, whatever the load
        facility = bands[-1]
    elif site.site_power_kw is not None or site.site_cooling is not None:
        facility = bands[0]  # the buyer's stated site stands: the fit-out of existing space
    kind = bands.index(facility)
    kind_name = _FACILITY_KINDS[kind] if kind < len(_FACILITY_KINDS) else "facility"
    facility_days, facility_note = _days(facility), _range(facility)
    need = sp.need(site)
    if need.upgrade:  # beyond the stated site: an upgrade ends the facility phase
        up = sp.upgrade_band(bands, need)
        facility_days = max(facility_days, _days(up))
        facility_note += f"; facility upgrade ({need.words(it_power_kw)}): {_range(up)}"

    cooling = _cooling(cat, gpu_id)
    per_rack = cat.timeline_row(option, "rack_and_cable", "gpus_per_rack", applies_to=cooling).mid
    rate = cat.timeline_row(option, "rack_and_cable", "rate", applies_to=cooling).mid
    per_crew = cat.timeline_row(option, "rack_and_cable", "racks_per_crew").mid
    max_crews = cat.timeline_row(option, "rack_and_cable", "max_crews").mid
    racks = math.ceil(gpus / per_rack)
    teams = min(max(racks / per_crew, 1.0), max_crews)
    rack_days = racks / (rate * teams)

    tiers = fat_tree_tiers(gpus, SWITCH_RADIX)  # 1 to 4; the row for 3 serves 4 too
    fabric = cat.timeline_row(option, "fabric_bring_up", size=tiers)
    burn_in = cat.timeline_row(option, "burn_in_acceptance")
    notes = {
        "procurement": proc_note,
        "delivery": f"freight, customs and receiving: {_range(delivery)}",
        "facility": f"{kind_name} for {it_power_kw:,.0f} kW of IT load: {facility_note}",
        "rack and cable": (
            f"{nodes:,} nodes in {racks:,} {cooling}-cooled racks of {per_rack:g} GPUs at "
            f"{rate:g} racks/day per team, {teams:.2g} team(s)"
        ),
        "fabric bring-up": f"{tiers}-tier fat tree (radix {SWITCH_RADIX}): {_range(fabric)}",
        "burn-in and acceptance": f"burn-in soak and acceptance suite: {_range(burn_in)}",
    }
    return _BuildParts(
        procurement, _days(delivery), facility_days, rack_days, _days(fabric), _days(burn_in),
        notes,
    )  # fmt: skip


def _band(row: TimelineRow) -> str:
    low, high = row.size_min, row.size_max
    if low is None:
        return "any number of GPUs" if high is None else f"up to {high:,.0f} GPUs"
    return f"over {low:,.0f} GPUs" if high is None else f"{low:,.0f}–{high:,.0f} GPUs"


def _chain(cat: Catalogue, option: str, gpus: int) -> list[tuple[str, float, str]]:
    steps = spec(option).timeline_steps
    out = []
    for phase, name, metric in steps:
        row = cat.timeline_row(option, phase, size=gpus if metric == "gpus" else 0.0)
        band = f" ({gpus:,} GPUs: band {_band(row)})" if row.size_metric == "gpus" else ""
        out.append((name, _days(row), f"{_range(row)}{band}"))
    return out


def _milestones(p: _BuildParts, m):
    """Days on which the build phases end: procurement (× the lead-time multiplier m, a number or an
    array), delivery after it, racking once both delivery and the facility are done, then fabric
    bring-up and burn-in: (procured, delivered, rack start, racked, fabric up, ready)."""
    procured = p.procurement * m
    delivered = procured + p.delivery
    start = np.maximum(delivered, p.facility)
    racked = start + p.rack
    fabric = racked + p.fabric
    return procured, delivered, start, racked, fabric, fabric + p.burn_in


def provisioning_timeline(
    option: str, site: Site, *, lead_time_multiplier: float = 1.0
) -> Timeline:
    """The phases of `option` for a cluster (see the module docstring for the formulas)."""
    _check(option, site)
    m = _multiplier(lead_time_multiplier)
    if m.ndim:
        raise ValueError("provisioning_timeline takes one lead_time_multiplier; use ready_day")
    m = float(m)
    cat = site.catalogue
    if not spec(option).builds:
        phases, day = [], 0.0
        for name, days, note in _chain(cat, option, site.gpus):
            phases.append(Phase(name, day, day + days, note))
            day += days
        return Timeline(option, tuple(phases), day)

    parts = _build_parts(option, site)
    notes = dict(parts.notes)
    if m != 1.0:
        notes["procurement"] += f", × {m:g} lead-time multiplier"
    procured, delivered, start, racked, fabric, ready = map(float, _milestones(parts, m))
    spans = (
        ("procurement", 0.0, procured),
        ("delivery", procured, delivered),
        ("facility", 0.0, parts.facility),
        ("rack and cable", start, racked),
        ("fabric bring-up", racked, fabric),
        ("burn-in and acceptance", fabric, ready),
    )
    phases = tuple(Phase(name, s, e, notes[name]) for name, s, e in spans)
    return Timeline(option, phases, ready)


def ready_day(option: str, site: Site, *, lead_time_multiplier=1.0):
    """Same ready day, vectorized: lead_time_multiplier may be a numpy array (Monte Carlo draws) and the
    result is then an array of the same shape; it must equal provisioning_timeline(...).ready_day elementwise."""
    _check(option, site)
    m = _multiplier(lead_time_multiplier)
    cat = site.catalogue
    if spec(option).builds:
        ready = _milestones(_build_parts(option, site), m)[-1]
    else:
        total = 0.0
        for _, days, _ in _chain(cat, option, site.gpus):
            total += days
        ready = np.full(m.shape, total)
    return ready if isinstance(lead_time_multiplier, np.ndarray) or m.ndim else float(ready)


def refresh_lead_days(option: str, site: Site) -> float:
    """Days from ordering replacement hardware for a cluster in use to its acceptance: the build
    timeline (`ready_day`: procurement from lead_times.csv, delivery, racking, fabric bring-up,
    burn-in) with no facility phase, the space being in use already."""
    _check(option, site)
    parts = _build_parts(option, site)
    return float(_milestones(replace(parts, facility=0.0), 1.0)[-1])


def build_milestones(option: str, site: Site, *, lead_time_multiplier=1.0) -> dict[str, np.ndarray]:
    """Days on which an owned option's build phases end (vectorized like `ready_day`):
    "delivered" (hardware on site), "facility" (space handed over), "ready" (accepted). The cost
    engine starts the lines that run before acceptance on them (pricing/cashflows.py)."""
    _check(option, site)
    if not spec(option).builds:
        raise ValueError(f"{option!r} does not build; it has no build milestones")
    m = _multiplier(lead_time_multiplier)
    parts = _build_parts(option, site)
    _, delivered, _, _, _, ready = _milestones(parts, m)
    return {
        "delivered": np.asarray(delivered, dtype=float),
        "facility": np.full(np.shape(ready), parts.facility),
        "ready": np.asarray(ready, dtype=float),
    }

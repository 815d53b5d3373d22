"""Provisioning timelines: hand-computed ready days (on the made-up fixture catalogue), phase layout,
vectorization and properties (on the shipped catalogue, whose size bands are checked here too)."""

from __future__ import annotations

import dataclasses
import math
from itertools import pairwise

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from models.hardware import get_gpu
from models.options import spec
from pricing.catalogue.loader import (
    DATA_DIR,
    DAYS_PER_UNIT,
    GPU_IDS,
    TIMELINE_OPTIONS,
    load_catalogue,
)
from pricing.timeline import Phase, Site, Timeline, provisioning_timeline, ready_day

MONTH = DAYS_PER_UNIT["months"]
CHAINED = [o for o in TIMELINE_OPTIONS if not spec(o).builds]
FAST = settings(max_examples=60)
SHIPPED = load_catalogue(DATA_DIR)


def cluster(gpu_id: str, gpus: int, catalogue=None) -> Site:
    """The site the engine passes: whole nodes and their nameplate power, and the catalogue (the
    shipped one unless another is given)."""
    gpu = get_gpu(gpu_id)
    nodes = math.ceil(gpus / gpu.gpus_per_node)
    return Site(
        gpu_id, gpus, nodes, nodes * gpu.node_power_kw, catalogue or load_catalogue(DATA_DIR)
    )


def timeline(
    option: str,
    gpu_id: str = "H100-SXM",
    gpus: int = 1024,
    catalogue=None,
    own_facility: bool = False,
    **kw,
) -> Timeline:
    site = dataclasses.replace(cluster(gpu_id, gpus, catalogue), own_facility=own_facility)
    return provisioning_timeline(option, site, **kw)


def phase(t: Timeline, name: str) -> Phase:
    return next(p for p in t.phases if p.name == name)


# --- hand-computed cases (tests/fixtures/catalogue: made-up round figures) --------------------


@pytest.fixture
def fx(fixture_catalogue):
    """timeline(...) on the fixture catalogue."""
    return lambda option, gpu_id="H100-SXM", gpus=1024, **kw: timeline(
        option, gpu_id, gpus, catalogue=fixture_catalogue, **kw
    )


def test_h100_build_of_1024_gpus_by_hand(fx):
    t = fx("build")
    # 128 nodes x 10.2 kW = 1,305.6 kW: a colocation build-out, 4-6 months -> 5 months.
    procurement = 7 * (10 + 20) / 2  # lead time 10-20 weeks (2024-01); 1,024 GPUs -> midpoint
    delivery = 7 * 2  # 1-3 weeks
    facility = 5 * MONTH  # longer than procurement + delivery (119 days): it sets the start
    racking = 32 / 2  # 1,024 / 32 GPUs per rack = 32 racks at 2 racks/day, one team
    fabric = 6  # 2-tier fat tree: 4-8 days
    burn_in = 5  # 4-6 days
    ready = max(procurement + delivery, facility) + racking + fabric + burn_in
    assert ready == pytest.approx(179.1875)
    assert t.ready_day == pytest.approx(ready)
    expected = {
        "procurement": (0, 105),
        "delivery": (105, 119),
        "facility": (0, facility),
        "rack and cable": (facility, facility + 16),
        "fabric bring-up": (facility + 16, facility + 22),
        "burn-in and acceptance": (facility + 22, ready),
    }
    assert [p.name for p in t.phases] == list(expected)
    for p in t.phases:
        assert (p.start_day, p.end_day) == pytest.approx(expected[p.name]), p.name
    assert "H100-SXM lead time 10–20 weeks (2024-01)" in phase(t, "procurement").note
    assert "colocation build-out" in phase(t, "facility").note


def test_small_build_waits_for_delivery_not_the_facility(fx):
    # 64 GPUs: 8 nodes x 10.2 kW = 81.6 kW, existing colocation space, 4-8 weeks = 42 days, ready
    # before delivery (105 + 14 = 119 days); 2 racks at 2 racks/day; one switch: 2-4 days; burn-in 5.
    t = fx("build", gpus=64)
    assert phase(t, "rack and cable").start_day == pytest.approx(119)
    assert t.ready_day == pytest.approx(119 + 2 / 2 + 3 + 5)


def test_rent_and_cloud_by_hand(fx):
    rent = fx("rent")  # 1,024 GPUs: the self-serve band (up to 1,536)
    assert [(p.name, p.start_day, p.end_day) for p in rent.phases] == [
        ("contract", 0, 7),  # 0-2 weeks
        ("capacity", 7, 14),  # 0-2 weeks
        ("validation", 14, 17),  # 2-4 days
    ]
    assert rent.ready_day == 17
    assert fx("rent", gpus=4096).ready_day == pytest.approx(21 + 42 + 3)  # 2-4 wk, 4-8 wk, 2-4 d
    assert fx("managed").ready_day == pytest.approx(14 + 7 + 2)  # 1-3 wk, 0-2 wk, 1-3 d
    assert fx("cloud:on_demand").ready_day == 3  # 2-4 days
    assert fx("cloud:committed_1y", gpus=4096).ready_day == 42  # 4-8 weeks
    assert fx("cloud:on_demand", gpus=8).ready_day == 0
    assert fx("cloud:spot", gpus=65536).ready_day == 0


def test_large_orders_wait_longer_and_the_multiplier_scales_procurement(fx):
    # order-size ramp 1,024 -> 16,384 GPUs: the midpoint (15 weeks) up to 1,024, the high end (20)
    # from 16,384, log-linear between: 4,096 is halfway (log 4 / log 16) -> 17.5 weeks
    weeks = {g: phase(fx("build", gpus=g), "procurement").end_day / 7 for g in (512, 4096)}
    assert weeks == pytest.approx({512: 15, 4096: 17.5})
    assert phase(fx("build", gpus=16384), "procurement").end_day == 7 * 20
    slow = fx("build", gpus=16384, lead_time_multiplier=3)
    assert phase(slow, "procurement").end_day == pytest.approx(3 * 140)
    assert "× 3 lead-time multiplier" in phase(slow, "procurement").note


def test_facility_follows_it_load(fx):
    assert phase(fx("build", gpus=64), "facility").end_day == pytest.approx(42)  # 4-8 weeks
    big = fx("build", gpus=16384)  # 2,048 nodes x 10.2 kW = 20.9 MW: new construction
    assert phase(big, "facility").end_day == pytest.approx((12 + 24) / 2 * MONTH)
    assert "new construction" in phase(big, "facility").note
    owned = fx("build", gpus=64, own_facility=True)  # one's own site is always built new
    assert phase(owned, "facility").end_day == pytest.approx(18 * MONTH)


def test_shipped_new_construction_matches_the_construction_assumptions():
    cat = load_catalogue()
    low = cat.assumption("dc_construction_low_months").value
    high = cat.assumption("dc_construction_high_months").value
    row = cat.timeline_row("build", "facility", size=1e9)
    assert (row.low, row.high, row.unit) == (low, high, "months")


def test_gb200_racks_slower_than_h100_for_the_same_gpus(fx):
    # 1,024 GPUs: GB200 15 liquid-cooled racks of 72 at 0.5 racks/day = 30 days; H100 16 days
    gb200 = phase(fx("build", "GB200", 1024), "rack and cable")
    assert gb200.end_day - gb200.start_day == pytest.approx(30)
    for gpus in (72, 1024, 16384, 100_000):
        gb200 = phase(fx("build", "GB200", gpus), "rack and cable")
        h100 = phase(fx("build", "H100-SXM", gpus), "rack and cable")
        assert gb200.end_day - gb200.start_day > h100.end_day - h100.start_day, gpus
        assert "liquid-cooled" in gb200.note and "air-cooled" in h100.note


def test_racking_teams_grow_with_the_racks_up_to_the_cap(fx):
    # one team per 32 racks (at least one, at most 16), each racking 2 air-cooled racks a day
    def racking_days(gpus):
        p = phase(fx("build", gpus=gpus), "rack and cable")
        return p.end_day - p.start_day

    assert racking_days(512) == pytest.approx(16 / 2)  # 16 racks, one team
    assert racking_days(2048) == pytest.approx(64 / (2 * 2))  # 64 racks, 2 teams
    assert racking_days(16384) == pytest.approx(512 / (2 * 16))  # 512 racks, 16 teams
    assert racking_days(100_000) == pytest.approx(3125 / (2 * 16))  # 3,125 racks, capped at 16


def test_managed_owned_reuses_the_build_phases(fx):
    assert fx("managed:owned").phases == fx("build").phases


# --- layout -------------------------------------------------------------------------------------


def check_layout(t: Timeline) -> None:
    for p in t.phases:
        assert 0 <= p.start_day <= p.end_day, p
        assert p.note, p
    ends = [p.end_day for p in t.phases]
    if spec(t.option).builds:  # build, managed on owned hardware, a hybrid's owned base
        names = ["procurement", "delivery", "facility", "rack and cable", "fabric bring-up",
                 "burn-in and acceptance"]  # fmt: skip
        assert [p.name for p in t.phases] == names
        proc, delivery, facility, *chain = t.phases
        assert proc.start_day == 0 and facility.start_day == 0  # both run from day 0
        assert delivery.start_day == proc.end_day
        assert chain[0].start_day == max(delivery.end_day, facility.end_day)
        assert all(a.end_day == b.start_day for a, b in pairwise(chain))
    else:
        assert t.phases[0].start_day == 0
        assert all(a.end_day == b.start_day for a, b in pairwise(t.phases))
    assert t.ready_day == max(ends) == t.phases[-1].end_day


@FAST
@given(
    option=st.sampled_from(TIMELINE_OPTIONS),
    gpu_id=st.sampled_from(GPU_IDS),
    gpus=st.integers(1, 200_000),
    m=st.floats(0, 5),
)
def test_phases_are_ordered_and_contiguous(option, gpu_id, gpus, m):
    check_layout(timeline(option, gpu_id, gpus, lead_time_multiplier=m))


# --- vectorized equals scalar; monotone; build never first --------------------------------------


@FAST
@given(
    option=st.sampled_from(TIMELINE_OPTIONS),
    gpu_id=st.sampled_from(GPU_IDS),
    gpus=st.integers(1, 200_000),
    draws=st.lists(st.floats(0, 10), min_size=1, max_size=12),
)
def test_vectorized_ready_day_equals_the_scalar_one(option, gpu_id, gpus, draws):
    m = np.array(draws).reshape(-1, 1)  # the engine's (draws, 1) shape
    got = ready_day(option, cluster(gpu_id, gpus), lead_time_multiplier=m)
    assert isinstance(got, np.ndarray) and got.shape == m.shape
    want = [timeline(option, gpu_id, gpus, lead_time_multiplier=x).ready_day for x in draws]
    np.testing.assert_array_equal(got[:, 0], want)
    scalar = ready_day(option, cluster(gpu_id, gpus), lead_time_multiplier=draws[0])
    assert isinstance(scalar, float) and scalar == want[0]


@FAST
@given(
    option=st.sampled_from(TIMELINE_OPTIONS),
    gpu_id=st.sampled_from(GPU_IDS),
    gpus=st.integers(1, 100_000),
    extra=st.integers(0, 100_000),
    m=st.floats(0, 5),
    more=st.floats(0, 5),
)
def test_more_gpus_or_longer_lead_times_are_never_earlier(option, gpu_id, gpus, extra, m, more):
    base = timeline(option, gpu_id, gpus, lead_time_multiplier=m).ready_day
    assert timeline(option, gpu_id, gpus + extra, lead_time_multiplier=m).ready_day >= base
    assert timeline(option, gpu_id, gpus, lead_time_multiplier=m + more).ready_day >= base


@FAST
@given(gpu_id=st.sampled_from(GPU_IDS), gpus=st.integers(1, 200_000), m=st.floats(0.75, 5))
def test_build_is_never_ready_before_rent_or_cloud(gpu_id, gpus, m):
    """Over the lead times the uncertainty draws (0.75× and up, pricing/ranges.py). Not below:
    hardware quoted in stock (a lead time near 0) lets a small owned site be ready before a
    rental provider's large-order capacity phase: 1,537 MI250X (a 42-day small-site facility,
    by power) on day 70.5 against rent's 73.5 (its 42-day capacity phase, by GPU count)."""
    build = timeline("build", gpu_id, gpus, lead_time_multiplier=m).ready_day
    for option in CHAINED:
        assert build >= timeline(option, gpu_id, gpus).ready_day, option


# --- inputs and data ----------------------------------------------------------------------------


def test_unknown_option_gpu_or_bad_inputs_fail_clearly():
    with pytest.raises(ValueError, match="'lease'"):
        provisioning_timeline("lease", cluster("H100-SXM", 8))
    with pytest.raises(ValueError, match="'H300'"):
        ready_day("build", Site("H300", 8, 1, 10, SHIPPED))
    site = cluster("H100-SXM", 8)
    for bad in ({"gpus": 0}, {"nodes": 1.5}, {"it_power_kw": -1.0}, {"it_power_kw": math.nan}):
        with pytest.raises(ValueError):
            provisioning_timeline("build", dataclasses.replace(site, **bad))
    with pytest.raises(ValueError, match="lead_time_multiplier"):
        ready_day("build", site, lead_time_multiplier=np.array([1.0, -0.5]))
    with pytest.raises(ValueError, match="use ready_day"):
        provisioning_timeline("build", site, lead_time_multiplier=np.array([1.0, 2.0]))


def test_the_catalogue_is_always_passed_and_is_the_one_read(fixture_catalogue):
    args = dataclasses.asdict(cluster("H100-SXM", 1024))
    del args["catalogue"]
    with pytest.raises(TypeError, match="catalogue"):  # no silent fallback to the bundled one
        Site(**args)
    # a catalogue that is passed is the one read (its lead times differ from the shipped ones)
    assert timeline("build", catalogue=fixture_catalogue) != timeline("build")
    got = ready_day("build", cluster("H100-SXM", 1024, fixture_catalogue))
    assert got == pytest.approx(179.1875)


def test_size_bands_cover_every_size_once():
    cat = load_catalogue()
    groups: dict[tuple, list] = {}
    for row in cat.timeline_rows:
        groups.setdefault((*row.key, row.size_metric), []).append(row)
    for key, rows in groups.items():
        rows.sort(key=lambda r: r.size_min or 0.0)
        assert rows[0].size_min is None and rows[-1].size_max is None, key
        for a, b in pairwise(rows):
            assert a.size_max == b.size_min, key
    for option in CHAINED:  # every chained option has its phases for any size
        for gpus in (1, 1536, 1537, 2048, 2049, 16384, 16385, 10**6):
            check_layout(timeline(option, gpus=gpus))

"""Provisioning timelines: hand-computed ready days, phase layout, vectorization and properties."""

from __future__ import annotations

import math
from itertools import pairwise

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from models.hardware import get_gpu
from pricing.catalogue import DAYS_PER_UNIT, GPU_IDS, TIMELINE_OPTIONS, load_catalogue
from pricing.timeline import Phase, Timeline, provisioning_timeline, ready_day

MONTH = DAYS_PER_UNIT["months"]
CHAINED = [o for o in TIMELINE_OPTIONS if o not in ("build", "managed:owned")]
FAST = settings(max_examples=60, deadline=None)


def cluster(gpu_id: str, gpus: int) -> dict:
    """The arguments the engine passes: whole nodes and their nameplate power."""
    gpu = get_gpu(gpu_id)
    nodes = math.ceil(gpus / gpu.gpus_per_node)
    return {
        "gpu_id": gpu_id,
        "gpus": gpus,
        "nodes": nodes,
        "it_power_kw": nodes * gpu.node_power_kw,
    }


def timeline(option: str, gpu_id: str = "H100-SXM", gpus: int = 1024, **kw) -> Timeline:
    return provisioning_timeline(option, **cluster(gpu_id, gpus), **kw)


def phase(t: Timeline, name: str) -> Phase:
    return next(p for p in t.phases if p.name == name)


# --- hand-computed cases ------------------------------------------------------------------------


def test_h100_build_of_1024_gpus_by_hand():
    t = timeline("build")
    # 128 nodes x 10.2 kW = 1,305.6 kW: a colocation build-out, 4-6 months -> 5 months.
    procurement = 7 * (8 + 12) / 2  # H100 lead time 8-12 weeks (2024-04); 1,024 GPUs -> midpoint
    delivery = 7 * 2  # 1-3 weeks
    facility = 5 * MONTH
    racking = 32 / 2  # 1,024 / 32 GPUs per rack = 32 racks at 2 racks/day, one team
    fabric = 7.5  # 2-tier fat tree: 5-10 days
    burn_in = 5  # 3-7 days
    ready = max(procurement + delivery, facility) + racking + fabric + burn_in
    assert ready == pytest.approx(180.6875)
    assert t.ready_day == pytest.approx(ready)
    expected = {
        "procurement": (0, 70),
        "delivery": (70, 84),
        "facility": (0, facility),
        "rack and cable": (facility, facility + 16),
        "fabric bring-up": (facility + 16, facility + 23.5),
        "burn-in and acceptance": (facility + 23.5, ready),
    }
    assert [p.name for p in t.phases] == list(expected)
    for p in t.phases:
        assert (p.start_day, p.end_day) == pytest.approx(expected[p.name]), p.name
    assert "H100-SXM lead time 8–12 weeks (2024-04)" in phase(t, "procurement").note
    assert "colocation build-out" in phase(t, "facility").note


def test_rent_and_cloud_by_hand():
    rent = timeline("rent")  # 1,024 GPUs: self-serve size
    assert [(p.name, p.start_day, p.end_day) for p in rent.phases] == [
        ("contract", 0, 3.5),  # 0-1 weeks
        ("capacity", 3.5, 7),  # 0-1 weeks
        ("validation", 7, 10.5),  # 2-5 days
    ]
    assert rent.ready_day == 10.5
    assert timeline("rent", gpus=4096).ready_day == pytest.approx(28 + 42 + 3.5)
    assert timeline("managed").ready_day == pytest.approx(14 + 3.5 + 2)
    assert timeline("cloud:on_demand").ready_day == 7.5  # capacity block, 1-14 days
    assert timeline("cloud:committed_1y", gpus=4096).ready_day == 56  # 4-12 weeks
    assert timeline("cloud:on_demand", gpus=8).ready_day == 0
    assert timeline("cloud:spot", gpus=65536).ready_day == 0


def test_large_orders_wait_longer_and_the_multiplier_scales_procurement():
    weeks = {g: phase(timeline("build", gpus=g), "procurement").end_day / 7 for g in (512, 4096)}
    assert weeks == pytest.approx({512: 10, 4096: 11})  # midpoint, then halfway to the high end
    assert phase(timeline("build", gpus=16384), "procurement").end_day == 7 * 12
    slow = timeline("build", gpus=16384, lead_time_multiplier=3)
    assert phase(slow, "procurement").end_day == pytest.approx(3 * 84)
    assert "× 3 lead-time multiplier" in phase(slow, "procurement").note


def test_facility_follows_it_load_and_new_construction_matches_the_assumptions():
    cat = load_catalogue()
    assert phase(timeline("build", gpus=64), "facility").end_day == pytest.approx(42)
    low = cat.assumption("dc_construction_low_months").value
    high = cat.assumption("dc_construction_high_months").value
    big = timeline("build", gpus=16384)  # 2,048 nodes x 10.2 kW = 20.9 MW
    assert phase(big, "facility").end_day == pytest.approx((low + high) / 2 * MONTH)
    assert "new construction" in phase(big, "facility").note


def test_gb200_racks_slower_than_h100_for_the_same_gpus():
    for gpus in (72, 1024, 16384, 100_000):
        gb200 = phase(timeline("build", "GB200", gpus), "rack and cable")
        h100 = phase(timeline("build", "H100-SXM", gpus), "rack and cable")
        assert gb200.end_day - gb200.start_day > h100.end_day - h100.start_day, gpus
        assert "liquid-cooled" in gb200.note and "air-cooled" in h100.note


def test_managed_owned_reuses_the_build_phases():
    assert timeline("managed:owned").phases == timeline("build").phases


# --- layout -------------------------------------------------------------------------------------


def check_layout(t: Timeline) -> None:
    for p in t.phases:
        assert 0 <= p.start_day <= p.end_day, p
        assert p.note, p
    ends = [p.end_day for p in t.phases]
    if t.option in ("build", "managed:owned"):
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
    got = ready_day(option, **cluster(gpu_id, gpus), lead_time_multiplier=m)
    assert isinstance(got, np.ndarray) and got.shape == m.shape
    want = [timeline(option, gpu_id, gpus, lead_time_multiplier=x).ready_day for x in draws]
    np.testing.assert_array_equal(got[:, 0], want)
    scalar = ready_day(option, **cluster(gpu_id, gpus), lead_time_multiplier=draws[0])
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
@given(gpu_id=st.sampled_from(GPU_IDS), gpus=st.integers(1, 200_000), m=st.floats(0, 5))
def test_build_is_never_ready_before_rent_or_cloud(gpu_id, gpus, m):
    build = timeline("build", gpu_id, gpus, lead_time_multiplier=m).ready_day
    for option in CHAINED:
        assert build >= timeline(option, gpu_id, gpus).ready_day, option


# --- inputs and data ----------------------------------------------------------------------------


def test_unknown_option_gpu_or_bad_inputs_fail_clearly():
    with pytest.raises(ValueError, match="'lease'"):
        provisioning_timeline("lease", **cluster("H100-SXM", 8))
    with pytest.raises(ValueError, match="'H300'"):
        ready_day("build", gpu_id="H300", gpus=8, nodes=1, it_power_kw=10)
    args = cluster("H100-SXM", 8)
    for bad in ({"gpus": 0}, {"nodes": 1.5}, {"it_power_kw": -1.0}, {"it_power_kw": math.nan}):
        with pytest.raises(ValueError):
            provisioning_timeline("build", **{**args, **bad})
    with pytest.raises(ValueError, match="lead_time_multiplier"):
        ready_day("build", **args, lead_time_multiplier=np.array([1.0, -0.5]))
    with pytest.raises(ValueError, match="use ready_day"):
        provisioning_timeline("build", **args, lead_time_multiplier=np.array([1.0, 2.0]))


def test_default_catalogue_is_the_shipped_one():
    cat = load_catalogue()
    assert timeline("build", catalogue=cat) == timeline("build")


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

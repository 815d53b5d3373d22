"""Public cloud at scale: what can actually be bought for a cluster of a given size, and from whom.

cloud:on_demand follows the capacity_reservation bands of timeline.csv (one instance on demand, a
cluster as capacity blocks, beyond the capacity-block quota nothing on demand); cloud:spot stops at
cloud_spot_max_gpus; every cloud price comes from hyperscaler rows, never from neocloud ones.
"""

from __future__ import annotations

import math

import pytest

from pricing import engine
from pricing.catalogue.loader import GPU_IDS, load_catalogue
from pricing.inputs import ON_DEMAND_TIERS, build_inputs
from pricing.timeline import ready_day
from tests.builders import RUNS, scenario

CLOUD_KEYS = {
    "cloud:on_demand": "cloud_on_demand_usd_per_gpu_hour",
    "cloud:spot": "cloud_spot_usd_per_gpu_hour",
    "cloud:committed_1y": "cloud_committed_1y_usd_per_gpu_hour",
    "cloud:committed_3y": "cloud_committed_3y_usd_per_gpu_hour",
}


#: two runs on H100s (tests/builders.py RUNS), renting and the cloud options only; each test sets
#: the GPU count
CLOUD = RUNS | {"options": {"compare": ["rent", *CLOUD_KEYS]}}


def test_on_demand_above_one_instance_is_priced_and_timed_as_capacity_blocks(fixture_catalogue):
    """Fixture: H100-SXM hyperscaler on-demand median = median(median(8, 10), 6) = 7.5; HyperA's
    capacity block 5.0; the capacity_reservation band takes 0 days up to 8 GPUs, 2-4 above."""
    cat = fixture_catalogue
    small = build_inputs(scenario(CLOUD, cluster__gpus=8), cat)
    assert small.gpus == 8
    price = small.figures["cloud_on_demand_usd_per_gpu_hour"]
    assert price.value == pytest.approx(7.5)
    assert "on_demand, hyperscaler median" in price.source and "capacity" not in price.source
    cluster = build_inputs(scenario(CLOUD, cluster__gpus=64), cat)
    price = cluster.figures["cloud_on_demand_usd_per_gpu_hour"]
    assert price.value == pytest.approx(5.0)
    assert "H100-SXM capacity_block, hyperscaler median (capacity blocks" in price.source

    def ready(inp):
        return ready_day("cloud:on_demand", inp.site)

    assert (ready(small), ready(cluster)) == (0.0, 3.0)


def test_without_a_capacity_block_row_a_cluster_pays_the_on_demand_rate_and_says_so(
    fixture_catalogue,
):
    inp = build_inputs(scenario(CLOUD, cluster={"gpu": "A100-80GB", "gpus": 64}), fixture_catalogue)
    price = inp.figures["cloud_on_demand_usd_per_gpu_hour"]
    assert price.value == pytest.approx(4.0)  # HyperA's A100-80GB on-demand row
    assert "lists no capacity-block price for A100-80GB" in price.source


def test_beyond_the_capacity_block_quota_nothing_is_bought_on_demand(fixture_catalogue):
    inp = build_inputs(scenario(CLOUD, cluster__gpus=4096), fixture_catalogue)
    assert inp.gpus > 2048
    assert math.isnan(inp.value("cloud_on_demand_usd_per_gpu_hour"))
    note = inp.unavailable["cloud:on_demand"]
    assert "above 2,048 GPUs" in note and "committed" in note
    # the committed options are what a cluster this size buys: still priced
    assert "cloud:committed_1y" not in inp.unavailable
    c = engine.compare(scenario(CLOUD, cluster__gpus=4096), fixture_catalogue, decision=False)
    row = next(o for o in c.options if o.option == "cloud:on_demand")
    assert not row.available and row.note == note


def test_spot_is_not_offered_above_its_size_and_the_size_can_be_overridden(fixture_catalogue):
    cat = fixture_catalogue
    assert "cloud:spot" not in build_inputs(scenario(CLOUD, cluster__gpus=64), cat).unavailable
    big = build_inputs(scenario(CLOUD, cluster__gpus=128), cat)
    assert "cloud_spot_max_gpus (64 GPUs)" in big.unavailable["cloud:spot"]
    assert math.isfinite(big.value("cloud_spot_usd_per_gpu_hour"))  # a price, but no capacity
    # a spot price override gives a price, not capacity
    priced = build_inputs(
        scenario(CLOUD, cluster__gpus=128, overrides={"cloud_spot_usd_per_gpu_hour": 1.0}), cat
    )
    assert "cloud:spot" in priced.unavailable
    allowed = build_inputs(
        scenario(CLOUD, cluster__gpus=128, overrides={"cloud_spot_max_gpus": 128.0}), cat
    )
    assert "cloud:spot" not in allowed.unavailable


@pytest.mark.parametrize("gpus", [8, 64, 4096])
@pytest.mark.parametrize("gpu", GPU_IDS)
def test_cloud_prices_come_from_hyperscaler_rows_or_the_option_is_unavailable(gpu, gpus):
    """Shipped catalogue: a cloud figure is a hyperscaler row (or derived from one), or its option
    is unavailable with a note; neocloud and marketplace rows never price a cloud option."""
    cat = load_catalogue()
    inp = build_inputs(scenario(CLOUD, cluster={"gpu": gpu, "gpus": gpus}), cat)
    for option, key in CLOUD_KEYS.items():
        figure = inp.figures[key]
        if math.isfinite(figure.value):
            assert "hyperscaler" in figure.source, (option, figure.source)
            assert "neocloud" not in figure.source and "marketplace" not in figure.source
            assert "median of all providers" not in figure.source
        else:
            assert option in inp.unavailable and inp.unavailable[option]


def test_a_gpu_without_hyperscaler_rows_has_no_cloud_option():
    """MI300X has neocloud rows only: the cloud options say so instead of borrowing them."""
    cat = load_catalogue()
    assert not cat.rentals("MI300X", provider_kind="hyperscaler") and cat.rentals("MI300X")
    inp = build_inputs(scenario(CLOUD, cluster={"gpu": "MI300X", "gpus": 64}), cat)
    for option in CLOUD_KEYS:
        assert "no hyperscaler price for MI300X" in inp.unavailable[option]
    assert "rent" not in inp.unavailable


def test_the_shipped_capacity_bands_are_the_on_demand_tiers():
    """One timeline band per tier, the capacity-block one ending at AWS's 256-instance quota."""
    cat = load_catalogue()
    bands = sorted(
        (
            r
            for r in cat.timeline_rows
            if (r.option, r.phase) == ("cloud:on_demand", "capacity_reservation")
        ),
        key=lambda r: r.size_min or 0.0,
    )
    assert len(bands) == len(ON_DEMAND_TIERS)
    assert bands[1].size_max == 256 * 8

"""Dataset read rate and fat-tree sizing: hand-counted trees plus properties."""

from __future__ import annotations

import math

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from models.infrastructure import (
    dataset_read_gbyte_per_s,
    fat_tree_max_endpoints,
    size_fat_tree,
)


def test_dataset_read_rate():
    # 1e6 tokens/s · 4 B (uint32 ids) = 4e6 B/s = 0.004 GB/s.
    assert dataset_read_gbyte_per_s(1e6) == pytest.approx(0.004)
    assert dataset_read_gbyte_per_s(1e6, bytes_per_token=2.0) == pytest.approx(0.002)


def test_max_endpoints_of_k_ary_fat_tree():
    assert [fat_tree_max_endpoints(t, 64) for t in (1, 2, 3)] == [64, 2048, 65_536]


def test_16384_gpus_three_tiers():
    # Radix 64, h = 32. 2,048 nodes · 8 = 16,384 endpoints > 64²/2 = 2,048, ≤ 64³/4 = 65,536: 3 tiers.
    # leaves = 16,384/32 = 512; pods = 512/32 = 16 (all full); spines = 16·32 = 512;
    # cores = 512 spines · 32 uplinks / 64 ports = 256; switches = 512 + 512 + 256 = 1,280.
    # links: leaf-spine 512·32 = 16,384, spine-core 512·32 = 16,384 → 32,768; node links 16,384;
    # transceivers = 2·(32,768 + 16,384) = 98,304; bisection = 8,192 · 400 Gb/s = 3,276.8 Tb/s.
    plan = size_fat_tree(16_384, 8)
    assert (plan.nodes, plan.endpoints, plan.tiers, plan.pods) == (2048, 16_384, 3, 16)
    assert (plan.leaf_switches, plan.spine_switches, plan.core_switches) == (512, 512, 256)
    assert plan.switches == 1280
    assert (plan.node_links, plan.switch_links) == (16_384, 32_768)
    assert plan.transceivers == 98_304
    assert plan.bisection_tbit_per_s == pytest.approx(3276.8)


def test_1024_gpus_two_tiers():
    # 1,024 endpoints ≤ 2,048: leaves = 1,024/32 = 32; spines = 32·32/64 = 16; links 32·32 = 1,024.
    plan = size_fat_tree(1024, 8)
    assert plan.tiers == 2
    assert (plan.leaf_switches, plan.spine_switches, plan.core_switches) == (32, 16, 0)
    assert plan.switches == 48
    assert plan.switch_links == 1024
    assert plan.transceivers == 2 * (1024 + 1024)


def test_8_gpus_one_switch():
    plan = size_fat_tree(8, 8)
    assert (plan.tiers, plan.switches, plan.leaf_switches, plan.spine_switches) == (1, 1, 1, 0)
    assert (plan.switch_links, plan.node_links, plan.transceivers) == (0, 8, 16)
    assert plan.bisection_tbit_per_s == pytest.approx(1.6)  # 4 · 400 Gb/s


def test_partial_nodes_round_up():
    # 10 GPUs at 8 per node: 2 nodes, 16 NIC ports.
    plan = size_fat_tree(10, 8)
    assert (plan.nodes, plan.endpoints, plan.node_links) == (2, 16, 16)


def test_gb200_trays_of_four_gpus():
    # NVL72 rack = 18 trays of 4 GPUs, one NIC per GPU: 72 endpoints > 64 → 2 tiers;
    # leaves = ceil(72/32) = 3; spines = ceil(3·32/64) = 2.
    plan = size_fat_tree(72, 4)
    assert (plan.nodes, plan.endpoints, plan.tiers) == (18, 72, 2)
    assert (plan.leaf_switches, plan.spine_switches) == (3, 2)


def test_partial_pod_in_three_tiers():
    # Radix 8, h = 4: 2 tiers serve 32, 3 tiers 128. 40 endpoints → 3 tiers;
    # leaves = 40/4 = 10 → pods of 4, 4, 2; spines = 4 + 4 + 2 = 10; cores = ceil(10·4/8) = 5;
    # links = 10·4 + 10·4 = 80.
    plan = size_fat_tree(40, 8, switch_radix=8)
    assert (plan.tiers, plan.pods) == (3, 3)
    assert (plan.leaf_switches, plan.spine_switches, plan.core_switches) == (10, 10, 5)
    assert plan.switch_links == 80


def test_tier_boundaries():
    assert size_fat_tree(64, 8).tiers == 1
    assert size_fat_tree(72, 8).tiers == 2
    assert size_fat_tree(2048, 8).tiers == 2
    assert size_fat_tree(2056, 8).tiers == 3
    assert size_fat_tree(65_536, 8).tiers == 3


def test_too_many_gpus_names_the_count():
    with pytest.raises(ValueError, match="gpus=65544"):
        size_fat_tree(65_544, 8)


@pytest.mark.parametrize(
    ("args", "kwargs", "name"),
    [
        ((0, 8), {}, "gpus"),
        ((8.0, 8), {}, "gpus"),
        ((8, 0), {}, "gpus_per_node"),
        ((8, 8), {"switch_radix": 63}, "switch_radix"),
        ((8, 8), {"switch_radix": 2}, "switch_radix"),
        ((8, 8), {"nic_gbit_per_s": 0.0}, "nic_gbit_per_s"),
        ((8, 8), {"nic_gbit_per_s": math.nan}, "nic_gbit_per_s"),
    ],
)
def test_bad_fabric_inputs(args, kwargs, name):
    with pytest.raises(ValueError, match=name):
        size_fat_tree(*args, **kwargs)


@pytest.mark.parametrize(
    ("tokens", "per_token"), [(0.0, 4.0), (-1.0, 4.0), (1e6, 0.0), (math.inf, 4.0)]
)
def test_bad_dataset_inputs(tokens, per_token):
    with pytest.raises(ValueError):
        dataset_read_gbyte_per_s(tokens, per_token)


# --- properties ------------------------------------------------------------------------------

radixes = st.sampled_from([8, 16, 32, 48, 64, 128])
per_node = st.sampled_from([1, 2, 4, 8, 16])


@given(gpus=st.integers(1, 60_000), extra=st.integers(0, 5_000), per=per_node, radix=radixes)
def test_switch_counts_grow_with_gpus(gpus, extra, per, radix):
    assume(math.ceil((gpus + extra) / per) * per <= fat_tree_max_endpoints(3, radix))
    small, large = (
        size_fat_tree(gpus, per, switch_radix=radix),
        size_fat_tree(gpus + extra, per, switch_radix=radix),
    )
    assert large.tiers >= small.tiers
    assert large.switches >= small.switches
    assert large.leaf_switches >= small.leaf_switches
    assert large.transceivers >= small.transceivers


@given(gpus=st.integers(1, 60_000), per=per_node, radix=radixes)
def test_fabric_is_consistent_and_non_blocking(gpus, per, radix):
    if math.ceil(gpus / per) * per > fat_tree_max_endpoints(3, radix):
        with pytest.raises(ValueError, match="gpus"):
            size_fat_tree(gpus, per, switch_radix=radix)
        return
    plan = size_fat_tree(gpus, per, switch_radix=radix)
    half = radix // 2
    assert plan.endpoints >= gpus and plan.node_links == plan.endpoints
    assert plan.switches >= 1
    assert plan.switches == plan.leaf_switches + plan.spine_switches + plan.core_switches
    assert plan.transceivers == 2 * (plan.node_links + plan.switch_links)
    if plan.tiers == 1:
        assert plan.endpoints <= radix and plan.switch_links == 0
    else:
        assert plan.switch_links > 0
        assert plan.leaf_switches * half >= plan.endpoints  # down-ports on leaves
        spine_down = radix if plan.tiers == 2 else half
        assert plan.spine_switches * spine_down >= plan.leaf_switches * half
    if plan.tiers == 3:
        assert plan.core_switches * radix >= plan.spine_switches * half
        assert plan.core_switches <= radix * radix // 4


@given(
    gpus=st.one_of(st.integers(max_value=0), st.floats(allow_nan=True), st.booleans(), st.text())
)
def test_bad_gpu_counts_raise_value_error_only(gpus):
    with pytest.raises(ValueError, match="gpus"):
        size_fat_tree(gpus, 8)

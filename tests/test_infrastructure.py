"""Dataset read rate and fat-tree sizing: hand-counted trees, trees enumerated switch by switch,
plus properties."""

from __future__ import annotations

import itertools
import math

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from models.infrastructure import (
    MAX_FABRIC_TIERS,
    dataset_read_gbyte_per_s,
    fat_tree_max_endpoints,
    fat_tree_tiers,
    size_fat_tree,
)


def test_dataset_read_rate():
    # 1e6 tokens/s · 4 B (uint32 ids) = 4e6 B/s = 0.004 GB/s.
    assert dataset_read_gbyte_per_s(1e6) == pytest.approx(0.004)
    assert dataset_read_gbyte_per_s(1e6, bytes_per_token=2.0) == pytest.approx(0.002)


def test_max_endpoints_of_k_ary_fat_tree():
    # 2·(k/2)^t: k, k²/2, k³/4, k⁴/8
    assert [fat_tree_max_endpoints(t, 64) for t in (1, 2, 3, 4)] == [64, 2048, 65_536, 2_097_152]
    assert [fat_tree_max_endpoints(t, 8) for t in (1, 2, 3, 4)] == [8, 32, 128, 512]
    assert [fat_tree_max_endpoints(t, 4) for t in (1, 2, 3, 4)] == [4, 8, 16, 32]
    for bad in (0, 5, 3.0):
        with pytest.raises(ValueError, match="tiers"):
            fat_tree_max_endpoints(bad, 64)


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
    assert size_fat_tree(65_544, 8).tiers == 4
    assert size_fat_tree(2_097_152, 8).tiers == 4
    assert [fat_tree_tiers(e, 64) for e in (1, 64, 65, 2048, 2049, 65_536, 65_537)] == [
        1, 1, 2, 2, 3, 3, 4,
    ]  # fmt: skip


def test_too_many_gpus_names_the_count():
    with pytest.raises(ValueError, match="gpus=2097160 .*4-tier fat tree of radix 64"):
        size_fat_tree(2_097_160, 8)
    with pytest.raises(ValueError, match="gpus=513 "):
        size_fat_tree(513, 1, switch_radix=8)  # 4 tiers of radix 8 serve 512
    with pytest.raises(ValueError, match="more than the 2097152"):
        fat_tree_tiers(2_097_153, 64)


def test_131072_gpus_four_tiers():
    # Radix 64, h = 32. 16,384 nodes · 8 = 131,072 endpoints > 64³/4 = 65,536, ≤ 64⁴/8: 4 tiers.
    # leaves = 131,072/32 = 4,096; pods = 4,096/32 = 128; spines = 4,096 per middle tier, two
    # tiers = 8,192; cores = 4,096·32/64 = 2,048; switches = 4,096 + 8,192 + 2,048 = 14,336.
    # links: 3 tiers of uplinks · 4,096 · 32 = 393,216; transceivers = 2·(393,216 + 131,072)
    # = 1,048,576; bisection = 65,536 · 400 Gb/s = 26,214.4 Tb/s.
    plan = size_fat_tree(131_072, 8)
    assert (plan.nodes, plan.endpoints, plan.tiers, plan.pods) == (16_384, 131_072, 4, 128)
    assert (plan.leaf_switches, plan.spine_switches, plan.core_switches) == (4096, 8192, 2048)
    assert plan.switches_by_tier == (4096, 4096, 4096, 2048)
    assert plan.switches == 14_336
    assert (plan.node_links, plan.switch_links) == (131_072, 393_216)
    assert plan.transceivers == 1_048_576
    assert plan.bisection_tbit_per_s == pytest.approx(26_214.4)


def test_262144_gpus_four_tiers():
    # leaves = 262,144/32 = 8,192; pods 256; two middle tiers of 8,192; cores 8,192·32/64 = 4,096;
    # switches 3·8,192 + 4,096 = 28,672; links 3·8,192·32 = 786,432; transceivers
    # 2·(786,432 + 262,144) = 2,097,152: 8 a GPU (6 in 3 tiers).
    plan = size_fat_tree(262_144, 8)
    assert (plan.tiers, plan.pods, plan.switches) == (4, 256, 28_672)
    assert plan.switches_by_tier == (8192, 8192, 8192, 4096)
    assert (plan.switch_links, plan.transceivers) == (786_432, 2_097_152)


def test_partial_zone_in_four_tiers():
    # Radix 8, h = 4: 3 tiers serve 128, 4 tiers 512. 200 endpoints → 4 tiers;
    # leaves = 200/4 = 50 → pods of 4 leaves: 13 (12 full, one of 2); zones of 16 leaves: 16, 16,
    # 16, 2; spines = 50 and super-spines = 50 (as many as the leaves, tier by tier); cores =
    # ceil(50·4/8) = 25; switches = 50 + 100 + 25 = 175; links = 3 · 50 · 4 = 600.
    plan = size_fat_tree(200, 1, switch_radix=8)
    assert (plan.tiers, plan.pods) == (4, 13)
    assert plan.switches_by_tier == (50, 50, 50, 25)
    assert (plan.switches, plan.switch_links, plan.transceivers) == (175, 600, 1600)


# --- trees built switch by switch ------------------------------------------------------------


def enumerate_fat_tree(radix: int, tiers: int) -> tuple[list[list[int]], list[tuple], int]:
    """A full non-blocking fat tree wired cable by cable: (switch ids by tier, leaf first; cables
    as (lower end, upper end), a host end as ("host", i); hosts). A block of level 1 is one leaf
    with h = radix/2 hosts below and h ports up; a block of level j is h blocks of level j−1
    under h^(j−1) switches of tier j, switch q taking the q-th up port of every block below (h
    down, h up); the top tier takes the up ports of 2h blocks of level t−1, all its radix ports
    down. One tier is one switch with radix hosts."""
    h, ids, hosts = radix // 2, itertools.count(), itertools.count()
    cables: list[tuple] = []
    if tiers == 1:
        switch = next(ids)
        cables += [(("host", next(hosts)), switch) for _ in range(radix)]
        return [[switch]], cables, radix

    def block(level: int) -> tuple[list[list[int]], list[int]]:
        """(switch ids by tier, the block's free up ports as the switch each belongs to)"""
        if level == 1:
            leaf = next(ids)
            cables.extend((("host", next(hosts)), leaf) for _ in range(h))
            return [[leaf]], [leaf] * h
        below = [block(level - 1) for _ in range(h)]
        top = [next(ids) for _ in range(h ** (level - 1))]
        for _, ups in below:
            cables.extend((up, switch) for up, switch in zip(ups, top, strict=True))
        layers = [sum((b[0][i] for b in below), []) for i in range(level - 1)]
        return [*layers, top], [s for s in top for _ in range(h)]

    below = [block(tiers - 1) for _ in range(2 * h)]
    cores = [next(ids) for _ in range(h ** (tiers - 1))]
    for _, ups in below:
        cables.extend((up, core) for up, core in zip(ups, cores, strict=True))
    layers = [sum((b[0][i] for b in below), []) for i in range(tiers - 1)]
    return [*layers, cores], cables, next(hosts)


@pytest.mark.parametrize(("radix", "tiers"), [(r, t) for r in (4, 8) for t in (1, 2, 3, 4)])
def test_formula_matches_a_tree_built_switch_by_switch(radix, tiers):
    """Radix 4 and 8, 1 to 4 tiers: the full tree is wired cable by cable, every switch's ports
    counted (h down and h up below the top, radix down at the top), every host shown to reach
    every top switch going up (the full path diversity that makes it non-blocking), and its
    counts are the formula's for as many endpoints."""
    layers, cables, hosts = enumerate_fat_tree(radix, tiers)
    h = radix // 2
    assert hosts == fat_tree_max_endpoints(tiers, radix) == 2 * h**tiers
    down, up = {}, {}
    for low, high in cables:
        down[high] = down.get(high, 0) + 1
        if not isinstance(low, tuple):  # a switch's up port, not a host's NIC
            up[low] = up.get(low, 0) + 1
    tier_of = {s: i for i, layer in enumerate(layers) for s in layer}
    for s, i in tier_of.items():
        top = i == tiers - 1
        assert (down.get(s, 0), up.get(s, 0)) == ((radix, 0) if top else (h, h)), (s, i)
    parents: dict = {}
    for low, high in cables:
        parents.setdefault(low, set()).add(high)
    for host in range(hosts):
        reach = {("host", host)}
        for _ in range(tiers):
            reach = set().union(*(parents.get(x, set()) for x in reach))
        assert reach == set(layers[-1]), host

    plan = size_fat_tree(hosts, 1, switch_radix=radix)
    assert plan.tiers == tiers
    assert plan.switches_by_tier == tuple(len(layer) for layer in layers)
    assert plan.switches == len(tier_of) == (2 * tiers - 1) * h ** (tiers - 1)
    assert plan.node_links == sum(1 for low, _ in cables if isinstance(low, tuple))
    assert plan.switch_links == sum(1 for low, _ in cables if not isinstance(low, tuple))
    assert plan.transceivers == 2 * len(cables)
    if tiers >= 3:
        assert plan.pods == len(layers[0]) // h


@pytest.mark.parametrize("radix", [4, 8])
def test_a_partial_tree_needs_no_more_than_the_full_tree_pruned(radix):
    """Every endpoint count of 4 tiers (past what 3 serve): the formula's tiers are never larger
    than the full tree's with the switches that serve none of the first E hosts removed, and
    every tier below the top has the h up ports per switch that the tier below sends up."""
    layers, cables, _ = enumerate_fat_tree(radix, 4)
    h = radix // 2
    hosts_under: dict = {}
    for low, high in cables:  # cables come bottom-up, so a switch's hosts are known when used
        below = {low[1]} if isinstance(low, tuple) else hosts_under[low]
        hosts_under.setdefault(high, set()).update(below)
    for endpoints in range(fat_tree_max_endpoints(3, radix) + 1, 2 * h**4 + 1):
        kept = tuple(sum(1 for s in layer if min(hosts_under[s]) < endpoints) for layer in layers)
        plan = size_fat_tree(endpoints, 1, switch_radix=radix)
        assert plan.tiers == 4
        assert all(a <= b for a, b in zip(plan.switches_by_tier, kept, strict=True)), endpoints
        assert plan.leaf_switches == kept[0] == math.ceil(endpoints / h)
        ports_down = [n * h for n in plan.switches_by_tier[1:-1]] + [plan.core_switches * radix]
        ports_up = [n * h for n in plan.switches_by_tier[:-1]]  # each tier's, to the one above
        assert all(d >= u for d, u in zip(ports_down, ports_up, strict=True)), endpoints


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


@given(gpus=st.integers(1, 300_000), extra=st.integers(0, 5_000), per=per_node, radix=radixes)
def test_switch_counts_grow_with_gpus(gpus, extra, per, radix):
    most = fat_tree_max_endpoints(MAX_FABRIC_TIERS, radix)
    assume(math.ceil((gpus + extra) / per) * per <= most)
    small, large = (
        size_fat_tree(gpus, per, switch_radix=radix),
        size_fat_tree(gpus + extra, per, switch_radix=radix),
    )
    assert large.tiers >= small.tiers
    assert large.switches >= small.switches
    assert large.leaf_switches >= small.leaf_switches
    assert large.transceivers >= small.transceivers


@given(gpus=st.integers(1, 300_000), per=per_node, radix=radixes)
def test_fabric_is_consistent_and_non_blocking(gpus, per, radix):
    if math.ceil(gpus / per) * per > fat_tree_max_endpoints(MAX_FABRIC_TIERS, radix):
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
    if plan.tiers >= 3:
        top_spines = plan.switches_by_tier[-2]  # the tier below the cores
        assert plan.core_switches * radix >= top_spines * half
        assert plan.core_switches <= fat_tree_max_endpoints(plan.tiers, radix) // radix
    assert plan.tiers == 1 or plan.endpoints > fat_tree_max_endpoints(plan.tiers - 1, radix)
    assert sum(plan.switches_by_tier) == plan.switches and len(plan.switches_by_tier) == plan.tiers


@given(
    gpus=st.one_of(st.integers(max_value=0), st.floats(allow_nan=True), st.booleans(), st.text())
)
def test_bad_gpu_counts_raise_value_error_only(gpus):
    with pytest.raises(ValueError, match="gpus"):
        size_fat_tree(gpus, 8)

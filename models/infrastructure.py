"""Storage read rate and scale-out fabric size that fall out of the training numbers.

The fabric is a non-blocking (1:1) folded-Clos fat tree built from identical switches of radix k,
rail-agnostic, with one scale-out NIC port per GPU. Scale-up domains (NVLink inside an 8-GPU HGX
node, or inside an NVL72 rack whose compute trays hold 4 GPUs each) do not change this: each GPU
still has its own NIC, so pass the node's GPU count as `gpus_per_node` (8, 4, or anything else).
"""

from __future__ import annotations

import math

from pydantic import ConfigDict

from models.checks import count, positive
from models.record import Record
from models.units import BYTES_PER_GB, BYTES_PER_TOKEN

# Tokenized training data stored as uint32 token ids: 4 bytes per token (vocabularies above
# 65,536 entries do not fit uint16). Raw UTF-8 text is also about 4 bytes per token for English
# with modern BPE tokenizers, so the default serves either storage format.
DEFAULT_BYTES_PER_TOKEN = BYTES_PER_TOKEN


def dataset_read_gbyte_per_s(
    tokens_per_s: float, bytes_per_token: float = DEFAULT_BYTES_PER_TOKEN
) -> float:
    """Sustained dataset read rate: tokens_per_s · bytes_per_token / 1e9 GB/s (uint32 ids: 4 B)."""
    tokens = positive("tokens_per_s", tokens_per_s)
    per_token = positive("bytes_per_token", bytes_per_token)
    return tokens * per_token / BYTES_PER_GB


class FabricPlan(Record):
    """Switch, link and optics counts for a non-blocking fat tree."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    gpus: int
    gpus_per_node: int
    switch_radix: int
    nic_gbit_per_s: float
    nodes: int
    endpoints: int  # NIC ports = nodes · gpus_per_node
    tiers: int  # 1, 2 or 3
    pods: int  # 3-tier pods (radix/2 leaves each, last one may be partial); 0 below 3 tiers
    leaf_switches: int
    spine_switches: int  # 0 for 1 tier
    core_switches: int  # 0 below 3 tiers
    switches: int
    node_links: int  # NIC-to-leaf cables, one per endpoint
    switch_links: int  # leaf-spine plus spine-core cables
    transceivers: int  # optics everywhere: 2 per cable, both kinds
    bisection_tbit_per_s: float  # one direction, across the worst-case halving of endpoints


def fat_tree_max_endpoints(tiers: int, switch_radix: int) -> int:
    """Hosts a non-blocking k-ary fat tree serves: k (1 tier), k²/2 (2 tiers), k³/4 (3 tiers)."""
    k = switch_radix
    return {1: k, 2: k * k // 2, 3: k**3 // 4}[tiers]


def size_fat_tree(
    gpus: int,
    gpus_per_node: int,
    *,
    switch_radix: int = 64,
    nic_gbit_per_s: float = 400.0,
) -> FabricPlan:
    """Size a non-blocking folded-Clos (k-ary) fat tree for `gpus` GPUs, one NIC port per GPU.

    With k = switch_radix, h = k/2 and E = endpoints = ceil(gpus/gpus_per_node)·gpus_per_node:

    - 1 tier (E ≤ k): a single switch; no switch-to-switch links.
    - 2 tiers (E ≤ k²/2): every leaf has h ports down and h up;
      leaves = ceil(E/h), spines = ceil(leaves·h/k) (spines use all k ports down),
      leaf-spine links = leaves·h.
    - 3 tiers (E ≤ k³/4): pods of h leaves; a spine has h ports down and h up. A full pod has h
      spines; a partial pod with L leaves needs only L spines (its L·h leaf uplinks over h-port
      spine downlinks), so spines = leaves in total. pods = ceil(leaves/h),
      cores = ceil(spines·h/k), links = leaves·h (leaf-spine) + spines·h (spine-core).
    - Larger: ValueError.

    Every cable is assumed optical (no copper DACs), so transceivers = 2·(node + switch links).
    Bisection (one direction) = floor(E/2)·NIC rate, which a non-blocking tree carries in full.
    """
    gpu_count = count("gpus", gpus)
    per_node = count("gpus_per_node", gpus_per_node)
    radix = count("switch_radix", switch_radix, minimum=4)
    if radix % 2:
        raise ValueError(f"switch_radix must be even (half down, half up), got {switch_radix!r}")
    nic = positive("nic_gbit_per_s", nic_gbit_per_s)

    nodes = math.ceil(gpu_count / per_node)
    endpoints = nodes * per_node
    half = radix // 2

    if endpoints <= fat_tree_max_endpoints(1, radix):
        tiers, pods, leaves, spines, cores = 1, 0, 1, 0, 0
        switch_links = 0
    elif endpoints <= fat_tree_max_endpoints(2, radix):
        tiers, pods, cores = 2, 0, 0
        leaves = math.ceil(endpoints / half)
        spines = math.ceil(leaves * half / radix)
        switch_links = leaves * half
    elif endpoints <= fat_tree_max_endpoints(3, radix):
        tiers = 3
        leaves = math.ceil(endpoints / half)
        pods = math.ceil(leaves / half)
        spines = leaves  # h per full pod, L for a partial pod of L leaves
        cores = math.ceil(spines * half / radix)
        switch_links = leaves * half + spines * half
    else:
        raise ValueError(
            f"gpus={gpu_count} needs {endpoints} NIC ports, more than the "
            f"{fat_tree_max_endpoints(3, radix)} a 3-tier fat tree of radix {radix} serves"
        )

    node_links = endpoints
    return FabricPlan(
        gpus=gpu_count,
        gpus_per_node=per_node,
        switch_radix=radix,
        nic_gbit_per_s=nic,
        nodes=nodes,
        endpoints=endpoints,
        tiers=tiers,
        pods=pods,
        leaf_switches=leaves,
        spine_switches=spines,
        core_switches=cores,
        switches=leaves + spines + cores,
        node_links=node_links,
        switch_links=switch_links,
        transceivers=2 * (switch_links + node_links),
        bisection_tbit_per_s=(endpoints // 2) * nic / 1000.0,
    )

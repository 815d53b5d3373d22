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
    tiers: int  # 1 to MAX_FABRIC_TIERS (4)
    pods: int  # leaf-spine pods (radix/2 leaves each, last one may be partial); 0 below 3 tiers
    leaf_switches: int
    spine_switches: int  # every tier between leaf and core (2 of them in 4 tiers); 0 for 1 tier
    core_switches: int  # the top tier above the spines; 0 below 3 tiers
    switches: int
    node_links: int  # NIC-to-leaf cables, one per endpoint
    switch_links: int  # cables between switch tiers (leaf-spine, spine-spine, spine-core)
    transceivers: int  # optics everywhere: 2 per cable, both kinds
    bisection_tbit_per_s: float  # one direction, across the worst-case halving of endpoints

    @property
    def switches_by_tier(self) -> tuple[int, ...]:
        """Switches in each tier, leaf first: (leaf,), (leaf, spine), (leaf, spine, core) or,
        in 4 tiers, (leaf, spine, super-spine, core); the two middle tiers are the same size."""
        if self.tiers == 1:
            return (self.leaf_switches,)
        if self.tiers == 2:
            return (self.leaf_switches, self.spine_switches)
        middle = [self.spine_switches // (self.tiers - 2)] * (self.tiers - 2)
        return (self.leaf_switches, *middle, self.core_switches)


#: The most tiers the planner builds. Past 3 tiers of 64-port switches (65,536 NIC ports) it adds
#: a 4th tier of the same switches (2·32⁴ = 2,097,152 ports), not a higher-radix switch: see
#: size_fat_tree.
MAX_FABRIC_TIERS = 4


def fat_tree_max_endpoints(tiers: int, switch_radix: int) -> int:
    """Hosts a non-blocking k-ary fat tree of t tiers serves: 2·(k/2)^t, i.e. k (1 tier), k²/2
    (2 tiers), k³/4 (3 tiers, Al-Fares et al. 2008), k⁴/8 (4 tiers)."""
    if not (isinstance(tiers, int) and 1 <= tiers <= MAX_FABRIC_TIERS):
        raise ValueError(f"tiers must be 1 to {MAX_FABRIC_TIERS}, got {tiers!r}")
    return 2 * (switch_radix // 2) ** tiers


def fat_tree_tiers(endpoints: int, switch_radix: int) -> int:
    """The fewest tiers whose non-blocking fat tree of radix `switch_radix` serves `endpoints`
    NIC ports; ValueError past MAX_FABRIC_TIERS tiers."""
    for tiers in range(1, MAX_FABRIC_TIERS + 1):
        if endpoints <= fat_tree_max_endpoints(tiers, switch_radix):
            return tiers
    raise ValueError(
        f"{endpoints} NIC ports: more than the "
        f"{fat_tree_max_endpoints(MAX_FABRIC_TIERS, switch_radix)} a {MAX_FABRIC_TIERS}-tier "
        f"fat tree of radix {switch_radix} serves"
    )


def _fabric_inputs(
    gpus: int, gpus_per_node: int, switch_radix: int, nic_gbit_per_s: float
) -> tuple[int, int, int, float]:
    """size_fat_tree's inputs checked: (gpus, gpus_per_node, radix, NIC Gbit/s); the radix even
    (half its ports down, half up) and at least 4."""
    gpu_count = count("gpus", gpus)
    per_node = count("gpus_per_node", gpus_per_node)
    radix = count("switch_radix", switch_radix, minimum=4)
    if radix % 2:
        raise ValueError(f"switch_radix must be even (half down, half up), got {switch_radix!r}")
    nic = positive("nic_gbit_per_s", nic_gbit_per_s)
    return gpu_count, per_node, radix, nic


def _fabric_tiers(gpu_count: int, endpoints: int, radix: int) -> int:
    """The fewest tiers serving `endpoints` NIC ports (fat_tree_tiers); ValueError, naming the GPU
    count, past the 2·(k/2)^MAX_FABRIC_TIERS a MAX_FABRIC_TIERS-tier tree serves."""
    most = fat_tree_max_endpoints(MAX_FABRIC_TIERS, radix)
    if endpoints > most:
        raise ValueError(
            f"gpus={gpu_count} needs {endpoints} NIC ports, more than the {most} a "
            f"{MAX_FABRIC_TIERS}-tier fat tree of radix {radix} serves"
        )
    return fat_tree_tiers(endpoints, radix)


def _switch_counts(tiers: int, endpoints: int, radix: int) -> tuple[int, int, int, int, int]:
    """(pods, leaves, spines, cores, switch links) of a `tiers`-tier tree with h = radix/2: one
    switch for 1 tier; leaves = ceil(E/h), spines = ceil(leaves·h/k) and leaves·h links for 2;
    for 3 or 4, pods = ceil(leaves/h), (tiers−2)·leaves spines, cores = ceil(leaves·h/k) and
    (tiers−1)·leaves·h links (size_fat_tree gives the reasoning)."""
    half = radix // 2
    if tiers == 1:
        pods, leaves, spines, cores = 0, 1, 0, 0
        switch_links = 0
    elif tiers == 2:
        pods, cores = 0, 0
        leaves = math.ceil(endpoints / half)
        spines = math.ceil(leaves * half / radix)
        switch_links = leaves * half
    else:  # 3 or 4 tiers: every tier below the core as many switches as the leaves
        leaves = math.ceil(endpoints / half)
        pods = math.ceil(leaves / half)
        spines = (tiers - 2) * leaves  # h per full pod, L for a partial pod of L leaves, per tier
        cores = math.ceil(leaves * half / radix)
        switch_links = (tiers - 1) * leaves * half
    return pods, leaves, spines, cores, switch_links


def size_fat_tree(
    gpus: int,
    gpus_per_node: int,
    *,
    switch_radix: int = 64,
    nic_gbit_per_s: float = 400.0,
) -> FabricPlan:
    """Size a non-blocking folded-Clos (k-ary) fat tree for `gpus` GPUs, one NIC port per GPU.

    With k = switch_radix, h = k/2 and E = endpoints = ceil(gpus/gpus_per_node)·gpus_per_node,
    t tiers serve up to 2·h^t endpoints (fat_tree_max_endpoints) and the fewest that do are built:

    - 1 tier (E ≤ k): a single switch; no switch-to-switch links.
    - 2 tiers (E ≤ k²/2): every leaf has h ports down and h up;
      leaves = ceil(E/h), spines = ceil(leaves·h/k) (spines use all k ports down),
      leaf-spine links = leaves·h.
    - 3 tiers (E ≤ k³/4): pods of h leaves; a spine has h ports down and h up. A full pod has h
      spines; a partial pod with L leaves needs only L spines (its L·h leaf uplinks over h-port
      spine downlinks), so spines = leaves in total. pods = ceil(leaves/h),
      cores = ceil(spines·h/k), links = leaves·h (leaf-spine) + spines·h (spine-core).
    - 4 tiers (E ≤ k⁴/8): the same rule one tier up. h pods and their h² spines form a zone (a
      3-tier tree whose top tier, the super-spines, keeps h ports up); every tier below the core
      has h ports down and h up, so each has as many switches as the leaves (a partial zone as
      a partial pod), and cores = ceil(leaves·h/k) take all k ports down. spine_switches counts
      both middle tiers (2·leaves); links = 3·leaves·h.
    - Larger: ValueError.

    In general tiers 1 to t−1 hold leaves switches each, the top tier ceil(leaves·h/k), and
    (t−1)·leaves·h cables join the tiers: a full tree of 2·h^t endpoints has (2t−1)·h^(t−1)
    switches (k-ary n-trees, Petrini & Vanneschi, IPPS 1997, with the top tier folded to use
    all k ports; 3 tiers: Al-Fares, Loukissas & Vahdat, SIGCOMM 2008).

    Why a 4th tier of the same 64-port switches rather than 3 tiers of a higher-radix switch (a
    51.2 Tb/s switch split to 128 × 400G, or Quantum-X800's 144 × 800G): the fabric stays priced
    by the catalogue's sourced switch and 400G optics rows (pricing/data/assumptions.csv) with no
    new price that lacks a public figure, every cluster of up to 65,536 GPUs keeps its 1-3 tier
    tree, and the 4th tier adds cost as the tree grows past 65,536 rather than switching
    hardware at one size. It errs high for a buyer of more than 65,536 GPUs, who would more
    likely buy the bigger switch: a full tree of t tiers uses 2t−1 switch ports and t cables per
    endpoint, so 4 tiers of radix 64 need 7 ports and 8 transceivers per GPU where 3 tiers of
    radix 128 need 5 and 6 (40 % more switch ports, a third more optics): past 65,536 GPUs the
    fabric's counts are an upper bound. A 4th tier also adds a switch hop each way between the
    farthest GPUs (7 switches on the longest path instead of 5); the step time takes one
    scale-out latency per collective step (constants.SCALEOUT_LATENCY_S, NCCL's measured
    small-message latency, in models/training/collectives.py), not one per switch, so it reads no tiers.

    Every cable is assumed optical (no copper DACs), so transceivers = 2·(node + switch links).
    Bisection (one direction) = floor(E/2)·NIC rate, which a non-blocking tree carries in full.
    """
    gpu_count, per_node, radix, nic = _fabric_inputs(
        gpus, gpus_per_node, switch_radix, nic_gbit_per_s
    )
    nodes = math.ceil(gpu_count / per_node)
    endpoints = nodes * per_node
    tiers = _fabric_tiers(gpu_count, endpoints, radix)
    pods, leaves, spines, cores, switch_links = _switch_counts(tiers, endpoints, radix)

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

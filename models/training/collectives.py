"""Collective and point-to-point transfer times (vectorized over layouts).

Bandwidth term of a ring, latency term of a tree, which is what NCCL's choice between them gives
for large and small messages: a reduce-scatter or all-gather over n ranks moves (n−1)/n·S bytes
per rank; an all-reduce is the two in sequence, 2·(n−1)/n·S (Patarasuk & Yuan 2009). Latency is
α·2·⌈log2 n⌉ (double binary tree, Sanders et al. 2009).
"""

from __future__ import annotations

import numpy as np


def _hops(n: np.ndarray) -> np.ndarray:
    return 2 * np.ceil(np.log2(np.maximum(n, 1)))


def reduce_scatter_s(size_bytes, ranks, bandwidth_bytes_per_s, latency_s) -> np.ndarray:
    """Also the all-gather time: (n−1)/n·S/B + α·2⌈log2 n⌉; zero for a single rank."""
    n = np.asarray(ranks, dtype=float)
    t = (n - 1) / np.maximum(n, 1) * size_bytes / bandwidth_bytes_per_s + latency_s * _hops(n)
    return np.where(n > 1, t, 0.0)


all_gather_s = reduce_scatter_s


def all_reduce_s(size_bytes, ranks, bandwidth_bytes_per_s, latency_s) -> np.ndarray:
    """Reduce-scatter then all-gather: 2·(n−1)/n·S/B plus latency."""
    return 2 * reduce_scatter_s(size_bytes, ranks, bandwidth_bytes_per_s, latency_s)


def all_to_all_s(size_bytes, ranks, bandwidth_bytes_per_s, latency_s) -> np.ndarray:
    """Each rank keeps 1/n of its S bytes and sends the rest: (n−1)/n·S/B + α·(n−1) (direct sends)."""
    n = np.asarray(ranks, dtype=float)
    t = (n - 1) / np.maximum(n, 1) * size_bytes / bandwidth_bytes_per_s + latency_s * (n - 1)
    return np.where(n > 1, t, 0.0)


def p2p_s(size_bytes, bandwidth_bytes_per_s, latency_s) -> np.ndarray:
    return size_bytes / bandwidth_bytes_per_s + latency_s

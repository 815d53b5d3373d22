"""Failures, checkpoints and goodput: how much longer training takes on a real cluster.

Chain: failure rate per GPU-day -> job MTBF -> checkpoint size and write time -> Young/Daly
checkpoint interval -> goodput (useful fraction of wall-clock) -> wall-clock seconds.
Sources and anchors: `docs/reference/training.md` section 2 (Llama 3, Young 1974, Daly 2006).
"""

from __future__ import annotations

import math
import sys

from pydantic import BaseModel, ConfigDict

from models.checks import count, non_negative, positive, positive_or_inf
from models.units import BYTES_PER_GB, BYTES_PER_GIB, SECONDS_PER_DAY, SECONDS_PER_HOUR

# Llama 3 report (Table 5): 419 unexpected interruptions on 16,384 H100 over a 54-day snapshot.
# 419 / (16,384 GPUs * 54 days) = 4.7e-4 failures per GPU-day (an all-cause MTBF of ~5.8 years per GPU).
DEFAULT_FAILURES_PER_GPU_DAY = 4.7e-4

# Mixed-precision Adam state per parameter: bf16 weights (2) + fp32 master weights (4)
# + fp32 Adam first moment m (4) + fp32 second moment v (4) = 14 bytes.
DEFAULT_CHECKPOINT_BYTES_PER_PARAM = 14.0

# Default storage write bandwidth scales with the cluster. Llama 3's Tectonic store sustained
# 2 TB/s for 16,384 GPUs, i.e. 2000 GB/s / 16,384 ~= 0.125 GB/s per GPU; small clusters still get
# a modest parallel file system of at least 5 GB/s.
DEFAULT_WRITE_GBYTE_PER_S_PER_GPU = 0.125
MIN_DEFAULT_WRITE_GBYTE_PER_S = 5.0

# Target for `required_write_bandwidth_gbyte_per_s`: checkpoint writes take <= 1 % of time.
CHECKPOINT_OVERHEAD_TARGET = 0.01


class ReliabilityPlan(BaseModel):
    """Failure, checkpoint and goodput figures for one training run on one cluster."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    gpus: int
    failures_per_gpu_day: float
    expected_failures: float  # over the whole wall-clock run
    mtbf_hours: float  # of the job (the whole cluster), not of one GPU
    checkpoint_size_gib: float
    write_bandwidth_gbyte_per_s: float
    checkpoint_write_s: float
    checkpoint_interval_s: float  # compute time between checkpoints (Daly)
    restart_s: float
    goodput: float  # useful fraction of wall-clock, in (0, 1]
    wall_clock_s: float
    required_write_bandwidth_gbyte_per_s: float  # for checkpoint overhead <= 1 %


def checkpoint_size_bytes(
    params_total: float, bytes_per_param: float = DEFAULT_CHECKPOINT_BYTES_PER_PARAM
) -> float:
    """Full training-state checkpoint: params_total * bytes_per_param (14 B = bf16 + fp32 + Adam m, v)."""
    return positive("params_total", params_total) * positive("bytes_per_param", bytes_per_param)


def checkpoint_write_s(size_bytes: float, write_bandwidth_gbyte_per_s: float) -> float:
    """Write time δ = size_bytes / (bandwidth_GB/s * 1e9), with GB = 1e9 bytes."""
    size = positive("size_bytes", size_bytes)
    bandwidth = positive("write_bandwidth_gbyte_per_s", write_bandwidth_gbyte_per_s)
    return size / (bandwidth * BYTES_PER_GB)


def young_interval_s(write_s: float, mtbf_s: float) -> float:
    """Young (1974) optimal compute time between checkpoints: τ = sqrt(2·δ·M)."""
    delta = positive("write_s", write_s)
    mtbf = positive("mtbf_s", mtbf_s)
    return math.sqrt(2.0 * delta * mtbf)


def daly_interval_s(write_s: float, mtbf_s: float) -> float:
    """Daly (2006, FGCS 22:303) higher-order optimum between checkpoints.

    τ = sqrt(2δM)·[1 + (1/3)·sqrt(δ/(2M)) + (1/9)·(δ/(2M))] − δ  for δ < 2M, else τ = M.
    """
    delta = positive("write_s", write_s)
    mtbf = positive("mtbf_s", mtbf_s)
    if delta >= 2.0 * mtbf:
        return mtbf
    ratio = delta / (2.0 * mtbf)
    return math.sqrt(2.0 * delta * mtbf) * (1.0 + math.sqrt(ratio) / 3.0 + ratio / 9.0) - delta


def _log_mtbf_expm1(segment_s: float, mtbf_s: float) -> float:
    """log(M·(e^{s/M} − 1)) without overflow (large s/M) or loss of precision (small s/M)."""
    x = segment_s / mtbf_s
    if x < 1e-8:  # M·(e^x − 1) = s·(1 + x/2 + ...)
        return math.log(segment_s) + math.log1p(0.5 * x)
    if x > 30.0:  # log(e^x − 1) = x + log(1 − e^−x)
        return math.log(mtbf_s) + x + math.log1p(-math.exp(-x))
    return math.log(mtbf_s) + math.log(math.expm1(x))


def goodput_fraction(mtbf_s: float, write_s: float, interval_s: float, restart_s: float) -> float:
    """Useful fraction of wall-clock with periodic checkpoints and exponential (Poisson) failures.

    Each segment is τ of training followed by a δ checkpoint write; a failure anywhere in the
    segment costs a restart R (which may itself fail) and a redo of the segment. The exact expected
    wall-clock to finish one segment is (Daly 2006, eq. for exponential failures):

        E[T] = M · e^{R/M} · (e^{(τ+δ)/M} − 1),   goodput = τ / E[T].

    To first order in (τ+δ)/M and R/M this is E[T] ≈ (τ+δ) + (τ+δ)/M·(R + (τ+δ)/2), i.e. the
    waste model δ/τ + (τ/2 + R)/M of docs/reference/training.md 2.3. Limits: goodput ∈ (0, 1]; it equals
    τ/(τ+δ) when M = ∞ (pass math.inf), so it is 1 only with free checkpoints and no failures; it
    falls as δ, R or 1/M grow. Computed in log space so it never overflows; a result below the
    smallest normal float is floored there to keep it strictly positive.
    """
    mtbf = positive_or_inf("mtbf_s", mtbf_s)
    delta = non_negative("write_s", write_s)
    tau = positive("interval_s", interval_s)
    restart = non_negative("restart_s", restart_s)
    segment_s = tau + delta
    if mtbf == math.inf:
        return tau / segment_s
    log_expected_s = restart / mtbf + _log_mtbf_expm1(segment_s, mtbf)
    goodput = math.exp(math.log(tau) - log_expected_s)
    return min(1.0, max(goodput, sys.float_info.min))


def default_write_bandwidth_gbyte_per_s(gpus: int) -> float:
    """Storage write bandwidth assumed when none is given: max(5, 0.125·gpus) GB/s (Llama 3 Tectonic)."""
    return max(
        MIN_DEFAULT_WRITE_GBYTE_PER_S, DEFAULT_WRITE_GBYTE_PER_S_PER_GPU * count("gpus", gpus)
    )


def job_mtbf_s(gpus: int, failures_per_gpu_day: float) -> float:
    """Job mean time between failures: M = 86400 / (gpus · failures_per_gpu_day) seconds."""
    rate = positive("failures_per_gpu_day", failures_per_gpu_day)
    return SECONDS_PER_DAY / (count("gpus", gpus) * rate)


def required_write_bandwidth_gbyte_per_s(
    size_bytes: float, mtbf_s: float, overhead: float = CHECKPOINT_OVERHEAD_TARGET
) -> float:
    """Bandwidth at which checkpoint overhead δ/τ at the Young interval is at most `overhead`.

    δ/τ = δ/sqrt(2δM) = sqrt(δ/(2M)) ≤ f  ⇔  δ ≤ 2f²·M  ⇔  bandwidth ≥ size / (2f²·M).
    With f = 1 %: bandwidth ≥ size / (0.0002·M), in GB/s (1e9 bytes).
    """
    size = positive("size_bytes", size_bytes)
    mtbf = positive("mtbf_s", mtbf_s)
    fraction = positive("overhead", overhead)
    return size / (2.0 * fraction**2 * mtbf) / BYTES_PER_GB


def _span(seconds: float) -> str:
    """A time span in the unit that reads best: '13.2 s', '4.5 min', '3.1 h', '2.3e+295 years'."""
    for unit, size in (("years", 365.25 * 86400), ("days", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            return f"{seconds / size:.3g} {unit}"
    return f"{seconds:.3g} s"


def plan_reliability(
    gpus: int,
    params_total: float,
    ideal_train_s: float,
    *,
    failures_per_gpu_day: float = DEFAULT_FAILURES_PER_GPU_DAY,
    restart_s: float = 600.0,
    write_bandwidth_gbyte_per_s: float | None = None,
    checkpoint_bytes: float | None = None,
) -> ReliabilityPlan:
    """Goodput and wall-clock for a run that needs `ideal_train_s` of failure-free training.

    M = 86400/(gpus·rate); size = 14·params (or `checkpoint_bytes`); δ = size/bandwidth;
    τ = Daly(δ, M); goodput = τ/E[T] (see `goodput_fraction`); wall-clock = ideal/goodput;
    expected failures = wall-clock/M.
    """
    gpu_count = count("gpus", gpus)
    params = positive("params_total", params_total)
    ideal_s = positive("ideal_train_s", ideal_train_s)
    restart = non_negative("restart_s", restart_s)
    mtbf_s = job_mtbf_s(gpu_count, failures_per_gpu_day)

    if checkpoint_bytes is None:
        size_bytes = checkpoint_size_bytes(params)
    else:
        size_bytes = positive("checkpoint_bytes", checkpoint_bytes)
    if write_bandwidth_gbyte_per_s is None:
        bandwidth = default_write_bandwidth_gbyte_per_s(gpu_count)
    else:
        bandwidth = positive("write_bandwidth_gbyte_per_s", write_bandwidth_gbyte_per_s)

    write_s = checkpoint_write_s(size_bytes, bandwidth)
    interval_s = daly_interval_s(write_s, mtbf_s)
    goodput = goodput_fraction(mtbf_s, write_s, interval_s, restart)
    wall_clock_s = ideal_s / goodput
    if not math.isfinite(wall_clock_s):
        raise ValueError(
            f"a failure comes every {_span(mtbf_s)} on average, while a checkpoint takes "
            f"{_span(write_s)} to write at {bandwidth:.3g} GB/s and a restart {_span(restart)}, "
            "so no work survives between failures; raise the write bandwidth, shorten the "
            "restart or lower the failure rate"
        )

    return ReliabilityPlan(
        gpus=gpu_count,
        failures_per_gpu_day=float(failures_per_gpu_day),
        expected_failures=wall_clock_s / mtbf_s,
        mtbf_hours=mtbf_s / SECONDS_PER_HOUR,
        checkpoint_size_gib=size_bytes / BYTES_PER_GIB,
        write_bandwidth_gbyte_per_s=bandwidth,
        checkpoint_write_s=write_s,
        checkpoint_interval_s=interval_s,
        restart_s=restart,
        goodput=goodput,
        wall_clock_s=wall_clock_s,
        required_write_bandwidth_gbyte_per_s=required_write_bandwidth_gbyte_per_s(
            size_bytes, mtbf_s
        ),
    )

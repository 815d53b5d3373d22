"""Failures, checkpoints and goodput: hand-computed anchors plus properties."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from models.training.reliability import (
    DEFAULT_FAILURES_PER_GPU_DAY,
    checkpoint_size_bytes,
    checkpoint_write_s,
    daly_interval_s,
    goodput_fraction,
    plan_reliability,
    young_interval_s,
)

HOUR_S = 3600.0
DAY_S = 86_400.0


# --- hand-computed anchors -------------------------------------------------------------------


def test_default_failure_rate_matches_llama3_snapshot():
    # 419 unexpected interruptions / (16,384 GPUs * 54 days)
    snapshot_rate = 419 / (16_384 * 54)
    assert snapshot_rate == pytest.approx(DEFAULT_FAILURES_PER_GPU_DAY, rel=0.01)


def test_worked_example_young_and_daly():
    # docs/reference/training.md 2.3: M = 2.78 h, δ = 60 s.
    # Young: sqrt(2·60·10008) = sqrt(1,200,960) = 1095.9 s = 18.3 min.
    # Daly: r = 60/20016 = 0.0029976; bracket = 1 + 0.05475/3 + r/9 = 1.01858;
    #       1095.9·1.01858 − 60 = 1056.3 s = 17.6 min.
    mtbf_s = 2.78 * HOUR_S
    assert young_interval_s(60.0, mtbf_s) / 60.0 == pytest.approx(18.3, abs=0.05)
    assert daly_interval_s(60.0, mtbf_s) / 60.0 == pytest.approx(17.6, abs=0.05)


def test_daly_falls_back_to_mtbf_when_write_exceeds_twice_mtbf():
    assert daly_interval_s(200.0, 100.0) == 100.0
    assert daly_interval_s(199.0, 100.0) < 100.0


def test_worked_example_waste_matches_reference():
    # docs/reference/training.md 2.3: waste ~11 % before restart; R = 10 min adds ~6 % (first order).
    mtbf_s = 2.78 * HOUR_S
    tau = daly_interval_s(60.0, mtbf_s)
    no_restart = goodput_fraction(mtbf_s, 60.0, tau, 0.0)
    with_restart = goodput_fraction(mtbf_s, 60.0, tau, 600.0)
    assert 1.0 - no_restart == pytest.approx(0.11, abs=0.01)
    assert no_restart - with_restart == pytest.approx(0.06, abs=0.01)


def test_checkpoint_size_405b():
    # 405e9 params · 14 B = 5.67e12 bytes.
    assert checkpoint_size_bytes(405e9) == pytest.approx(5.67e12)
    assert checkpoint_size_bytes(1e9, bytes_per_param=16.0) == pytest.approx(16e9)


def test_checkpoint_write_time_uses_decimal_gigabytes():
    # 5.67e12 B at 2000 GB/s = 2.835 s.
    assert checkpoint_write_s(5.67e12, 2000.0) == pytest.approx(2.835)


def test_goodput_exact_values():
    # M = 1000 s, τ = 1000 s, δ = R = 0: E[T] = 1000·(e − 1) = 1718.28 s; goodput = 1/(e − 1).
    assert goodput_fraction(1000.0, 0.0, 1000.0, 0.0) == pytest.approx(1.0 / (math.e - 1.0))
    # No failures: only the checkpoint write is lost, τ/(τ+δ).
    assert goodput_fraction(math.inf, 60.0, 540.0, 600.0) == pytest.approx(0.9)
    assert goodput_fraction(math.inf, 0.0, 540.0, 600.0) == 1.0


def test_goodput_agrees_with_first_order_model_when_failures_are_rare():
    # E[T] ≈ (τ+δ) + (τ+δ)/M·(R + (τ+δ)/2) for τ+δ, R ≪ M.
    mtbf_s, write_s, tau, restart_s = 1e7, 10.0, 1000.0, 300.0
    segment = tau + write_s
    first_order = tau / (segment + segment / mtbf_s * (restart_s + segment / 2.0))
    assert goodput_fraction(mtbf_s, write_s, tau, restart_s) == pytest.approx(first_order, rel=1e-6)


def test_plan_llama3_scale():
    # 16,384 GPUs: M = 86400/(16384·4.7e-4) = 11,220 s = 3.12 h; bandwidth 0.125·16384 = 2048 GB/s;
    # δ = 5.67e12/2.048e12 = 2.77 s; required bandwidth = 5.67e12/(0.0002·11220)/1e9 = 2527 GB/s.
    plan = plan_reliability(16_384, 405e9, 54 * DAY_S)
    assert plan.mtbf_hours == pytest.approx(3.117, abs=0.001)
    assert plan.write_bandwidth_gbyte_per_s == pytest.approx(2048.0)
    assert plan.checkpoint_write_s == pytest.approx(2.7686, abs=1e-3)
    assert plan.checkpoint_size_gib == pytest.approx(5.67e12 / 2**30)
    assert plan.required_write_bandwidth_gbyte_per_s == pytest.approx(2526.7, abs=0.1)
    assert 0.85 <= plan.goodput <= 0.97  # the realistic band of docs/reference/training.md 2.3
    assert plan.wall_clock_s == pytest.approx(54 * DAY_S / plan.goodput)
    assert plan.expected_failures == pytest.approx(plan.wall_clock_s / (plan.mtbf_hours * HOUR_S))
    with pytest.raises(ValueError):  # frozen model: pydantic's ValidationError is a ValueError
        plan.goodput = 1.0  # type: ignore[misc]


def test_plan_defaults_and_overrides():
    small = plan_reliability(8, 7e9, DAY_S)
    assert small.write_bandwidth_gbyte_per_s == 5.0  # floor of the default
    custom = plan_reliability(
        8, 7e9, DAY_S, write_bandwidth_gbyte_per_s=1.0, checkpoint_bytes=2e9, restart_s=0.0
    )
    assert custom.checkpoint_write_s == pytest.approx(2.0)
    assert custom.restart_s == 0.0


def test_required_bandwidth_gives_one_percent_overhead_at_young_interval():
    plan = plan_reliability(4096, 70e9, DAY_S)
    mtbf_s = plan.mtbf_hours * HOUR_S
    size_bytes = plan.checkpoint_size_gib * 2**30
    write_s = checkpoint_write_s(size_bytes, plan.required_write_bandwidth_gbyte_per_s)
    assert write_s / young_interval_s(write_s, mtbf_s) == pytest.approx(0.01)


# --- input validation ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"gpus": 0}, "gpus"),
        ({"gpus": 2.5}, "gpus"),
        ({"gpus": True}, "gpus"),
        ({"params_total": 0.0}, "params_total"),
        ({"params_total": math.nan}, "params_total"),
        ({"ideal_train_s": -1.0}, "ideal_train_s"),
        ({"failures_per_gpu_day": 0.0}, "failures_per_gpu_day"),
        ({"failures_per_gpu_day": math.inf}, "failures_per_gpu_day"),
        ({"restart_s": -1.0}, "restart_s"),
        ({"write_bandwidth_gbyte_per_s": 0.0}, "write_bandwidth_gbyte_per_s"),
        ({"checkpoint_bytes": -5.0}, "checkpoint_bytes"),
        ({"checkpoint_bytes": "big"}, "checkpoint_bytes"),
    ],
)
def test_plan_rejects_bad_inputs_naming_them(kwargs, name):
    args = {"gpus": 64, "params_total": 1e9, "ideal_train_s": DAY_S} | kwargs
    with pytest.raises(ValueError, match=name):
        plan_reliability(**args)


def test_functions_reject_bad_inputs():
    for call in (
        lambda: checkpoint_size_bytes(-1.0),
        lambda: checkpoint_write_s(1e9, 0.0),
        lambda: young_interval_s(0.0, 100.0),
        lambda: daly_interval_s(10.0, math.inf),
        lambda: goodput_fraction(0.0, 1.0, 1.0, 1.0),
        lambda: goodput_fraction(100.0, 1.0, 0.0, 1.0),
    ):
        with pytest.raises(ValueError):
            call()


# --- properties ------------------------------------------------------------------------------

seconds = st.floats(min_value=1e-3, max_value=1e9)
# Up to 200x Llama 3's rate (x10 more in the monotonicity test): job MTBF stays >= ~4 s.
rates = st.floats(min_value=1e-7, max_value=1e-2)


@given(
    mtbf_s=seconds, write_s=st.floats(0.0, 1e9), interval_s=seconds, restart_s=st.floats(0.0, 1e9)
)
def test_goodput_is_a_fraction(mtbf_s, write_s, interval_s, restart_s):
    assert 0.0 < goodput_fraction(mtbf_s, write_s, interval_s, restart_s) <= 1.0


@given(
    mtbf_s=seconds,
    write_s=st.floats(0.0, 1e6),
    interval_s=seconds,
    restart_s=st.floats(0.0, 1e6),
    factor=st.floats(1.0, 1e3),
)
def test_goodput_falls_with_failures_write_time_and_restart(
    mtbf_s, write_s, interval_s, restart_s, factor
):
    base = goodput_fraction(mtbf_s, write_s, interval_s, restart_s)
    slack = 1e-12 * base
    assert goodput_fraction(mtbf_s / factor, write_s, interval_s, restart_s) <= base + slack
    assert goodput_fraction(mtbf_s, write_s * factor + 1.0, interval_s, restart_s) <= base + slack
    assert goodput_fraction(mtbf_s, write_s, interval_s, restart_s * factor + 1.0) <= base + slack


@settings(max_examples=60)
@given(
    gpus=st.integers(1, 200_000),
    params=st.floats(1e6, 2e12),
    rate=rates,
    factor=st.floats(1.0, 10.0),
    ideal_s=st.floats(1.0, 1e8),
)
def test_plan_goodput_falls_as_failure_rate_rises(gpus, params, rate, factor, ideal_s):
    low = plan_reliability(gpus, params, ideal_s, failures_per_gpu_day=rate)
    high = plan_reliability(gpus, params, ideal_s, failures_per_gpu_day=rate * factor)
    assert 0.0 < high.goodput <= low.goodput * (1 + 1e-12) <= 1.0 + 1e-12
    assert low.wall_clock_s >= ideal_s
    assert high.wall_clock_s >= low.wall_clock_s * (1 - 1e-12)


def test_plan_that_cannot_finish_raises_value_error():
    # 100 failures per GPU-day on 1,010 GPUs: M = 0.86 s against a 600 s restart.
    with pytest.raises(ValueError) as exc:
        plan_reliability(1010, 1e6, 4349.0, failures_per_gpu_day=1.0 * 100)
    # in words a buyer reads: the spans with their units, what to change; no variable names
    assert str(exc.value).startswith(
        "a failure comes every 0.855 s on average, while a checkpoint takes "
    ), exc.value
    assert "a restart 10 min, so no work survives" in str(exc.value)
    assert "_s=" not in str(exc.value)


def test_plan_goodput_tends_to_one_as_failures_vanish():
    goodputs = [
        plan_reliability(1024, 70e9, DAY_S, failures_per_gpu_day=rate, restart_s=600.0).goodput
        for rate in (1e-3, 1e-5, 1e-7, 1e-9, 1e-11)
    ]
    assert goodputs == sorted(goodputs)
    assert goodputs[-1] > 0.999


@settings(max_examples=60)
@given(
    bad=st.sampled_from([0.0, -1.0, math.nan, math.inf, -math.inf]),
    field=st.sampled_from(
        [
            "params_total",
            "ideal_train_s",
            "failures_per_gpu_day",
            "write_bandwidth_gbyte_per_s",
            "checkpoint_bytes",
        ]
    ),
)
def test_plan_bad_values_raise_value_error_only(bad, field):
    with pytest.raises(ValueError, match=field):
        plan_reliability(**({"gpus": 8, "params_total": 1e9, "ideal_train_s": 1e5} | {field: bad}))

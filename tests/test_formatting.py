"""The one formatting rule per kind of number (app/formatting.py), at its edges."""

from __future__ import annotations

import math

import pytest

from app import glossary
from app.formatting import (
    days,
    gib,
    gpus,
    on_day,
    pct,
    plural,
    ratio,
    si,
    usd,
    usd_rate,
)

NAN = float("nan")


@pytest.mark.parametrize(
    ("x", "text"),
    [
        (0, "$0"),
        (-0.4, "$0"),  # rounds to nothing: no "-$0"
        (36_687.5, "$36,688"),
        (99_999.4, "$99,999"),
        (99_999.5, "$0.10M"),  # decided on the rounded amount: never "$100,000"
        (269_151, "$0.27M"),
        (869_153, "$0.87M"),
        (999_999.5, "$1.00M"),  # never "$1,000,000"
        (1_690_000, "$1.69M"),
        (-1_200_000, "-$1.20M"),
        (-5_000, "-$5,000"),
        (NAN, "n/a"),
        (math.inf, "n/a"),
        (None, "-"),
    ],
)
def test_usd(x, text):
    assert usd(x) == text


def test_usd_rate_says_its_unit():
    assert usd_rate(11.339, "GPU-hour") == "$11.34 per GPU-hour"
    assert usd_rate(0) == "$0.00"
    assert usd_rate(-0.001) == "$0.00"
    assert usd_rate(-2.5) == "-$2.50"
    assert usd_rate(NAN, "GPU-hour") == "n/a"


@pytest.mark.parametrize(
    ("x", "text"),
    [(0, "0.0 days"), (7.5, "7.5 days"), (9.94, "9.9 days"), (10, "10 days"), (203.4, "203 days")],
)
def test_days_is_a_duration(x, text):
    assert days(x) == text


def test_on_day_is_the_day_a_moment_falls_in():
    assert [on_day(x) for x in (0, 8.5, 8, 202.51, 1234)] == [
        "day 0",
        "day 9",  # the ninth day, not "day 8" by rounding half to even
        "day 8",
        "day 203",
        "day 1,234",
    ]
    assert on_day(NAN) == days(NAN) == "n/a"


def test_counts_and_plurals():
    assert gpus(1) == "1 GPU" and gpus(16_384) == "16,384 GPUs"
    assert plural(1, "node") == "1 node" and plural(128, "node") == "128 nodes"
    assert plural(1, "switch") == "1 switch" and plural(48, "switch") == "48 switches"
    assert plural(0, "node") == "0 nodes"


def test_pct_and_ratio():
    assert pct(0.83) == "83 %" and pct(0.147, 1) == "14.7 %"
    assert pct(0) == "0 %" and pct(-0.001) == "0 %" and pct(-0.25) == "-25 %"
    assert pct(NAN) == "n/a" and pct(None) == "-"
    assert ratio(2.836) == "2.84×" and ratio(NAN) == "n/a"


def test_si_puts_a_prefix_on_a_unit_and_a_suffix_on_a_count():
    assert si(920 * 2**30, "B") == "988 GB"  # was "988 BB"
    assert si(405e9) == "405 B" and si(15e12) == "15 T"
    assert si(12) == "12" and si(NAN) == "n/a"


def test_gib():
    assert gib(919.9) == "920 GiB" and gib(2048) == "2.0 TiB" and gib(NAN) == "n/a"


def test_glossary_has_one_line_per_term():
    assert list(glossary.TERMS) == ["TP", "PP", "DP", "ZeRO", "MFU", "Goodput"]
    for term, line in glossary.TERMS.items():
        assert "\n" not in line and f"{term}" in line

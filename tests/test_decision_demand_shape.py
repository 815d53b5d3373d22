"""The recommendation explains a portfolio's demand shape (pricing/decision.py demand_shape): the
peak-to-mean ratio and the winner's idle share in its text are the demand's and the result's
own numbers; a version 1 recommendation says nothing of it."""

from __future__ import annotations

import re

import numpy as np
import pytest

from app.recommendation_text import recommendation_text
from models.numbers import pct
from models.scenario import Scenario
from models.units import HOURS_PER_MONTH
from pricing.engine import compare


def test_a_peaky_portfolios_recommendation_gives_its_peak_to_median_ratio(fixture_catalogue):
    """A service growing 10 % a month: the busiest month's GPUs at work over the average month with work's,
    from the demand; the winner (cloud on-demand, per use, billed in whole 8-GPU instances: at 4
    requests/s, since at 2 the part of an instance it leaves idle makes rent cheaper) idles least
    and build most of what it holds."""
    s = Scenario.model_validate(
        {
            "version": 2,
            "workloads": [
                {"kind": "serve", "name": "api", "model": "llama3-70b", "rps": 4,
                 "growth_pct_per_month": 10, "duration_months": 36, "tpot_ms": 50}
            ],
            "options": {"compare": ["build", "rent", "cloud:on_demand"]},
        }
    )  # fmt: skip
    c = compare(s, fixture_catalogue, decision=False)
    gpus = np.array(c.portfolio.gpu_hours) / HOURS_PER_MONTH
    busy = gpus[gpus > 0]
    ratio = busy.max() / np.mean(busy)
    rec = c.recommendation
    assert rec.option == "cloud:on_demand"
    assert rec.peak_to_mean_demand == pytest.approx(ratio, rel=1e-12)
    shown = re.search(
        r"Demand peaks at ([\d.,]+)× the average month with work", recommendation_text(rec)
    )
    assert shown and float(shown.group(1).replace(",", "")) == round(ratio, 1)
    assert ratio > 2  # the shape that makes paying per use win
    idle = {o.option: o.idle_gpu_hours / (o.idle_gpu_hours + o.served_gpu_hours) for o in c.options}
    worst = max(("build", "rent"), key=idle.get)
    assert rec.idle_share == pytest.approx(idle["cloud:on_demand"], abs=1e-12) and idle[worst] > 0.5
    shape = rec.demand_shape
    assert (shape.peak_gpus, shape.mean_gpus) == (busy.max(), np.mean(busy))
    assert shape.billing == "per_use" and shape.most_idle_label == c.option(worst).label
    assert shape.most_idle_share == pytest.approx(idle[worst], abs=1e-12)
    assert f"{c.option(worst).label} {pct(idle[worst])}" in recommendation_text(rec)
    assert "paying only for the GPU-hours used is cheapest" in recommendation_text(rec)


def test_a_version_1_recommendation_has_no_demand_shape(fixture_catalogue):
    s = Scenario.model_validate(
        {"workload": {"model": "llama3-8b", "tokens": 1e9}, "cluster": {"gpus": 64}}
    )
    rec = compare(s, fixture_catalogue, decision=False).recommendation
    assert rec.demand_shape is None
    assert rec.peak_to_mean_demand is None and "Demand peaks" not in recommendation_text(rec)
    assert "peak_to_mean_demand" not in rec.model_dump(mode="json")

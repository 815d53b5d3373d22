"""The rent as it is bought (a sourced 3-year rate, derived only where none is listed), the
buyer's own engineers under rent and cloud (none under managed), and the managed premium as the
median of its providers. Numbers come from the made-up fixture catalogue unless said otherwise."""

from __future__ import annotations

import re
import statistics

import numpy as np
import pytest

from models.options import OPTIONS, Staffing
from models.scenario import Scenario
from pricing import cashflows as cf
from pricing import engine
from pricing.catalogue.loader import load_catalogue
from pricing.inputs import HOURS_PER_MONTH, build_inputs

GPUS = 8


def inputs(cat, *, gpu="H100-SXM", months=48, commitment="3y", provider=None, overrides=None):
    sc = Scenario.model_validate(
        {
            "workload": {"model": "llama3-8b", "tokens": 1e10, "seq_len": 4096},
            "cluster": {"gpu": gpu, "gpus": GPUS},
            "usage": {"mode": "runs", "runs": 1},
            "term": {"months": months},
            "options": {"rent_commitment": commitment, "rent_provider": provider},
            "overrides": overrides or {},
        }
    )
    return build_inputs(sc, cat)


# --- the 3-year dedicated rate ----------------------------------------------------------------


@pytest.mark.parametrize(("commitment", "months"), [("3y", 24), ("whole_term", 36)])
def test_a_3_year_rental_pays_the_catalogues_3_year_rate(fixture_catalogue, commitment, months):
    # the fixture lists NeoA's H100 3-year rate at 2.5 (its 1-year rate is 3.0)
    fig = inputs(fixture_catalogue, commitment=commitment, months=months).figures[
        "rent_usd_per_gpu_hour"
    ]
    assert fig.value == pytest.approx(2.5)
    assert fig.source == "rental_prices.csv: H100-SXM committed_3y, neocloud median"


def test_a_shorter_hold_pays_the_1_year_rate(fixture_catalogue):
    fig = inputs(fixture_catalogue, commitment="whole_term", months=24).figures[
        "rent_usd_per_gpu_hour"
    ]
    assert fig.value == pytest.approx(3.0)
    assert "committed_1y" in fig.source


def test_without_a_3_year_row_the_rate_is_derived_and_says_so(fixture_catalogue):
    # A100-80GB lists neither commitment: on-demand 2.0 x (1 - d1), then x (1 - d3) / (1 - d1)
    inp = inputs(fixture_catalogue, gpu="A100-80GB")
    d3 = inp.value("committed_3y_discount_pct") / 100
    fig = inp.figures["rent_usd_per_gpu_hour"]
    assert fig.value == pytest.approx(2.0 * (1 - d3))
    assert fig.source.startswith("derived (no committed_3y row for A100-80GB):")


def test_a_named_provider_without_a_3_year_row_falls_back_and_is_named(fixture_catalogue):
    # NeoB lists only an on-demand H100 price (2.0), though NeoA lists a 3-year one
    inp = inputs(fixture_catalogue, provider="NeoB")
    d3 = inp.value("committed_3y_discount_pct") / 100
    fig = inp.figures["rent_usd_per_gpu_hour"]
    assert fig.value == pytest.approx(2.0 * (1 - d3))
    assert fig.source.startswith("derived (no committed_3y row for H100-SXM from NeoB):")


def test_the_bundled_3_year_h100_rent_is_above_the_capex_recovery_floor():
    """The issue's complaint: a hyperscaler's discount ratio put the 3-year rent below the price
    at which an H100 never recoups its capital cost; the sourced neocloud rows do not."""
    cat = load_catalogue()
    fig = inputs(cat).figures["rent_usd_per_gpu_hour"]
    assert "committed_3y" in fig.source and not fig.source.startswith("derived")
    assert fig.value > cat.assumption("capex_recoup_floor_h100_usd_per_gpu_hour").value


# --- the buyer's own engineers ------------------------------------------------------------------


def test_each_option_says_who_runs_it():
    assert {s.id: s.staffing for s in OPTIONS} == {
        "build": Staffing.OWNED,
        "rent": Staffing.RENTED,
        "managed": Staffing.NONE,
        "managed:owned": Staffing.NONE,
        "cloud:on_demand": Staffing.RENTED,
        "cloud:spot": Staffing.RENTED,
        "hybrid": Staffing.OWNED,  # its base; the burst's platform team comes with the burst
        "cloud:committed_1y": Staffing.RENTED,
        "cloud:committed_3y": Staffing.RENTED,
    }


def staff_row(option, inp, hold):
    P = engine.base_params(inp)
    ctx = cf.make_context(inp, P, np.array([[0.0]]), np.array([[40.0]]), hold=hold)
    flows = cf.OPTION_FLOWS[option](inp, P, ctx)
    return flows.get("staff"), ctx


@pytest.mark.parametrize(
    ("option", "hold"), [("rent", "rental"), ("cloud:on_demand", "busy"), ("build", "term")]
)
def test_rent_and_cloud_pay_their_platform_team_while_held(fixture_catalogue, option, hold):
    # fixture: rented 2 FTE per 1,000 GPUs, at least 1; owned 5 per 1,000, at least 4; salary
    # 120,000 x 1.5 loaded a year; on 8 GPUs each minimum binds
    inp = inputs(fixture_catalogue, overrides={"rent_min_term_months": 0})
    staff, ctx = staff_row(option, inp, hold)
    team = 4.0 if option == "build" else 1.0
    assert staff is not None
    assert staff[0] == pytest.approx(team * 120_000 * 1.5 / 12 * ctx.held[0])


def test_the_platform_team_grows_with_the_cluster_and_is_smaller_than_owning(fixture_catalogue):
    inp = inputs(fixture_catalogue, overrides={"rented_ops_min_team_fte": 0.0})
    P = engine.base_params(inp)
    rented = cf.staff_fte(inp, P, Staffing.RENTED)[0, 0]
    assert rented == pytest.approx(2.0 * GPUS / 1000)
    assert rented < cf.staff_fte(inp, P, Staffing.OWNED)[0, 0]


@pytest.mark.parametrize("option", ["managed", "managed:owned"])
def test_a_managed_service_pays_no_staff_of_the_buyers(fixture_catalogue, option):
    inp = inputs(fixture_catalogue, overrides={"rent_min_term_months": 0})
    hold = "term" if option == "managed:owned" else "rental"
    staff, _ = staff_row(option, inp, hold)
    assert staff is None


def test_rent_and_managed_differ_by_the_premium_less_the_staff_the_provider_takes_on(
    fixture_catalogue,
):
    """Same cluster, same rate: managed pays the premium on the rent and no staff; rent pays its
    support tier and its own platform team."""
    inp = inputs(fixture_catalogue, overrides={"rent_min_term_months": 0})
    P = engine.base_params(inp)
    ctx = cf.make_context(inp, P, np.array([[0.0]]), np.array([[40.0]]), hold="rental")
    rent = cf.OPTION_FLOWS["rent"](inp, P, ctx)
    managed = cf.OPTION_FLOWS["managed"](inp, P, ctx)
    held_hours = GPUS * HOURS_PER_MONTH * ctx.held.sum()
    rate = inp.value("rent_usd_per_gpu_hour")
    premium = rate * held_hours * inp.value("managed_premium_pct") / 100
    support = rate * held_hours * inp.value("rent_support_pct") / 100
    staff = rent["staff"].sum()
    total = {k: sum(v.sum() for v in f.values()) for k, f in (("r", rent), ("m", managed))}
    assert staff > 0
    assert total["m"] - total["r"] == pytest.approx(premium - support - staff)


def test_the_comparison_reports_the_platform_team():
    c = engine.compare(
        Scenario.model_validate(
            {
                "workload": {"model": "llama3-8b", "tokens": 1e10, "seq_len": 4096},
                "cluster": {"gpu": "H100-SXM", "gpus": 1024},
            }
        ),
        decision=False,
    )
    cat = load_catalogue()
    ratio = cat.assumption("rented_ops_fte_per_1000_gpus").value
    assert c.operations.rented_staff_fte == pytest.approx(ratio * 1024 / 1000)
    assert c.operations.rented_staff_fte < c.operations.staff_fte


# --- the managed premium ------------------------------------------------------------------------


def test_the_managed_premium_is_the_median_of_its_providers_figures():
    """assumptions.csv gives one figure per provider in the row's notes ("provider figures:
    Together 35.3; AWS SageMaker 15.0."); the value is their median."""
    row = load_catalogue().assumption("managed_premium_pct")
    listed = re.search(r"provider figures: ([^.]+(?:\.\d+[^.]*)*)\.", row.notes)
    assert listed, row.notes
    figures = {
        name.strip(): float(value)
        for name, value in re.findall(r"([A-Za-z][A-Za-z ]*?) (\d+(?:\.\d+)?)", listed.group(1))
    }
    assert len(figures) >= 2, figures
    assert row.value == pytest.approx(statistics.median(figures.values()))

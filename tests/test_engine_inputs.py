"""Issue 12's engine findings, each pinned by a test that failed before its fix: the catalogue a
comparison is given reaches every figure; zero rates, absurd-but-valid inputs and overrides give
finite, meaningful numbers; the engine refuses to rank what is not finite."""

from __future__ import annotations

import csv
import functools
import json
import math

import numpy as np
import pytest
from pydantic import ValidationError

from app import exports
from app.recommendation_text import recommendation_text
from models.errors import InputError
from pricing import cashflows as cf
from pricing import engine
from pricing import timeline as tl
from pricing.catalogue.loader import load_catalogue
from pricing.inputs import CATALOGUE_KEYS, build_inputs, override_range
from tests.builders import scenario


def by_option(c: engine.Comparison) -> dict[str, engine.OptionResult]:
    return {o.option: o for o in c.options}


# --- the catalogue passed in reaches the timelines, the flows and the exports -------------------


def test_a_changed_catalogue_row_changes_every_figure_that_depends_on_it(slow_delivery_catalogue):
    sc = scenario()
    bundled = engine.compare(sc, decision=False)
    slow = engine.compare(sc, slow_delivery_catalogue, decision=False)
    inp = build_inputs(sc, slow_delivery_catalogue)
    build_b, build_s = by_option(bundled)["build"], by_option(slow)["build"]

    expected_ready = tl.ready_day(
        "build",
        tl.Site(inp.gpu_id, inp.gpus, inp.nodes, inp.it_power_kw, slow_delivery_catalogue),
    )
    # 30 more weeks of procurement: the ready day moves by up to 210 days (the facility may overlap)
    assert build_s.ready_day == pytest.approx(expected_ready)
    assert build_s.ready_day > build_b.ready_day + 30
    procurement = {p.phase: p for p in build_s.timeline}["procurement"]
    procurement_b = {p.phase: p for p in build_b.timeline}["procurement"]
    assert procurement.end_day == pytest.approx(procurement_b.end_day + 210, abs=1e-6)
    # the cash flows follow: the hardware's balance is paid on acceptance, months later (the
    # deposit goes with the order, in month 0, in both)
    paid_b = np.nonzero(build_b.monthly_by_category_usd["hardware"])[0][-1]
    paid_s = np.nonzero(build_s.monthly_by_category_usd["hardware"])[0][-1]
    assert paid_s > paid_b
    # options that do not buy hardware keep their dates
    assert by_option(slow)["rent"].ready_day == by_option(bundled)["rent"].ready_day
    # and the CSV export carries the comparison's own flows, not a recomputation on the bundled one
    rows = list(csv.DictReader(exports.monthly_csv(slow).splitlines()))
    hardware = [
        float(r["usd"]) for r in rows if r["option"] == "build" and r["category"] == "hardware"
    ]
    assert np.nonzero(hardware)[0][-1] == paid_s


# --- zero rates: the formulas' limits, never 0/0 --------------------------------------------------


@pytest.mark.parametrize(
    ("financing", "key"), [("loan", "loan_rate_pct_per_year"), ("lease", "lease_rate_pct_per_year")]
)
def test_zero_rate_is_the_limit_of_small_rates_and_ranks_normally(financing, key):
    def build_at(rate):
        sc = scenario(term={"financing": financing}, overrides={key: rate})
        c = engine.compare(sc, draws=50)
        return c, by_option(c)["build"]

    c0, zero = build_at(0.0)
    _, tiny = build_at(1e-6)
    assert math.isfinite(zero.total_usd) and math.isfinite(zero.npv_usd)
    assert zero.total_usd == pytest.approx(tiny.total_usd, rel=1e-6)
    assert zero.npv_usd == pytest.approx(tiny.npv_usd, rel=1e-6)
    assert zero.breakdown_usd.get("financing", 0.0) == 0.0
    best = min((o for o in c0.options if o.completes_workload), key=lambda o: o.npv_usd)
    assert c0.recommendation.option == best.option
    assert "$nan" not in recommendation_text(c0.recommendation).lower()
    exported = json.loads(exports.comparison_json(c0))  # non-finite numbers would be null here
    assert all(o["npv_usd"] is not None for o in exported["options"])


def test_the_engine_refuses_to_rank_what_is_not_finite(monkeypatch):
    """A cost line that comes out NaN stops the comparison with an error that names the input."""
    broken = dict(cf.OPTION_FLOWS)
    rent = broken["rent"]

    def nan_rent(inp, P, ctx):
        flows = rent(inp, P, ctx)
        flows["support"] = flows["support"] * np.nan
        return flows

    broken["rent"] = nan_rent
    monkeypatch.setattr(cf, "OPTION_FLOWS", broken)
    with pytest.raises(InputError) as err:
        engine.compare(scenario(), decision=False)
    assert "support" in str(err.value) and "Rent" in str(err.value)


def test_npv_table_never_ranks_a_non_finite_option():
    inp = build_inputs(scenario(), load_catalogue())
    P = engine.base_params(inp, 3)
    P["rent_usd_per_gpu_hour"] = np.array([[np.nan], [1.0], [np.inf]])
    with np.errstate(invalid="ignore"):  # the NaN price is the point of the test
        table = engine.npv_table(inp, P, ["build", "rent"])
    assert np.isinf(table[0, 1]) and np.isinf(table[2, 1]) and np.isfinite(table[1, 1])


# --- absurd but valid ---------------------------------------------------------------------------


def test_tiny_utilisation_gives_no_absurd_rate():
    c = engine.compare(scenario(usage={"mode": "utilisation", "utilisation_pct": 1e-300}), draws=50)
    for o in c.options:
        assert o.usd_per_gpu_hour is None  # under one GPU-hour of work: no cost per GPU-hour
        assert math.isfinite(o.total_usd)
    busy = engine.compare(scenario(usage={"mode": "utilisation", "utilisation_pct": 50}), draws=50)
    assert all(o.usd_per_gpu_hour is not None for o in busy.options)


# --- every accepted override changes what it names ------------------------------------------------

#: scenario settings under which a figure is used at all (else it is priced but moves no total)
CONTEXT = {
    "loan_rate_pct_per_year": {"term": {"financing": "loan"}},
    "lease_rate_pct_per_year": {"term": {"financing": "lease"}},
    "facility_capex_usd_per_kw": {"options": {"facility": "owned"}},
    "facility_life_years": {"options": {"facility": "owned"}},
    "facility_maintenance_pct_of_capex_per_year": {"options": {"facility": "owned"}},
    "managed_owned_fee_pct_of_capex_per_year": {"options": {"compare": ["managed:owned", "rent"]}},
    "spot_interruption_overhead_pct": {"options": {"compare": ["cloud:spot", "rent"]}},
    "cloud_spot_usd_per_gpu_hour": {"options": {"compare": ["cloud:spot", "rent"]}},
    "cloud_spot_max_gpus": {
        "options": {"compare": ["cloud:spot", "rent"]},
        "cluster": {"gpus": 128},
    },
    "cloud_committed_1y_usd_per_gpu_hour": {"options": {"compare": ["cloud:committed_1y", "rent"]}},
    "cloud_committed_3y_usd_per_gpu_hour": {"options": {"compare": ["cloud:committed_3y", "rent"]}},
    "licence_usd_per_gpu_year": {"options": {"software_licence": True}},
    # a 3-year rental on an 18-month term, the months past it resold at its end (Term.past_term)
    "commitment_resale_haircut_pct": {
        "term": {"months": 18, "past_term": "resold"},
        "options": {"compare": ["rent", "build"], "rent_commitment": "3y"},
    },
    # what a bridge to go-live pays (pricing/bridge.py): steady use, Build bridged; the
    # on-demand rate is the bridge's with options.bridge_price "on_demand"
    "bridge_rent_usd_per_gpu_hour": {
        "usage": {"mode": "utilisation", "utilisation_pct": 80},
        "options": {"compare": ["build", "rent"]},
    },
    "rent_on_demand_usd_per_gpu_hour": {
        "usage": {"mode": "utilisation", "utilisation_pct": 80},
        "options": {"compare": ["build", "rent"], "bridge_price": "on_demand"},
    },
    # the liquid-cooling loop is bought only for liquid-cooled GPUs (a GB200 NVL72 rack)
    "liquid_cooling_usd_per_kw": {"cluster": {"gpu": "GB200", "gpus": 72}},
    "utilisation_pct": None,
    "runs": None,
}


#: values that take a figure past the point where it binds (a minimum team of 8 outweighs 4 FTE per
#: 1,000 GPUs on 64 GPUs; a 12-month minimum rental binds only on terms shorter than itself)
BINDING_VALUE = {
    "ops_fte_per_1000_gpus": 400.0,
    "ops_min_team_fte": 50.0,
    "rented_ops_min_team_fte": 50.0,
    "rent_min_term_months": 60.0,
    # on 64 GPUs the smallest file system and the minimum of 3 management servers bind
    "mgmt_servers_per_1000_gpus": 500.0,
    "storage_write_gbyte_per_s_per_tb": 0.001,
    "cloud_spot_max_gpus": 128.0,  # spot on 128 GPUs becomes available
}


@functools.cache
def _overridable() -> tuple[str, ...]:
    """Every figure is overridable (usage is set in `usage`); worked out once, for the two
    parametrized tests' collection and one test."""
    inp = build_inputs(scenario(), load_catalogue())
    return tuple(sorted(inp.figures))


def _other_value(key: str, value: float) -> float:
    lo, hi = override_range(key)
    new = value * 1.5 if value > 0 else (lo + hi) / 2 if hi < 1e6 else 10.0
    return min(new, hi) if new != value else lo


@pytest.mark.parametrize("key", _overridable())
def test_every_accepted_override_changes_what_it_names(key):
    extra = CONTEXT.get(key, {})
    sc = scenario(**extra)
    base = engine.compare(sc, decision=False)
    value = build_inputs(sc, load_catalogue()).value(key)
    new = BINDING_VALUE.get(key) or _other_value(key, value)
    overridden = sc.model_copy(update={"overrides": {key: new}})
    try:
        changed = engine.compare(overridden, decision=False)
    except InputError as exc:  # refused: it must say which override and why
        assert exc.field == f"overrides.{key}"
        return
    figure = {a.key: a for a in changed.assumptions}[key]
    assert figure.overridden and figure.value == pytest.approx(new)

    def seen(c):
        return {
            o.option: (o.npv_usd, o.npv_after_tax_usd, o.ready_day, o.train_days) for o in c.options
        }

    before, after = seen(base), seen(changed)
    assert before != after, f"override {key} = {new:g} (was {value:g}) changed nothing"


def test_committed_discount_overrides_move_the_prices_derived_from_them():
    """Where the catalogue lists no 3-year dedicated rate for the GPU (B200), the 3-year rent is
    derived from the 1-year one and the discounts move it."""
    cat = load_catalogue()
    assert not cat.rentals("B200", "committed_3y"), "pick a GPU without a committed_3y row"
    sc = scenario(cluster={"gpu": "B200"}, term={"months": 36}, options={"rent_commitment": "3y"})
    base = build_inputs(sc, cat)
    more = build_inputs(
        sc.model_copy(update={"overrides": {"committed_3y_discount_pct": 60.0}}), cat
    )
    # the 3-year rent is the 1-year rate x (1 - d3) / (1 - d1)
    d1 = base.value("committed_1y_discount_pct") / 100
    ratio = (1 - 0.60) / (1 - base.value("committed_3y_discount_pct") / 100)
    assert more.value("rent_usd_per_gpu_hour") == pytest.approx(
        base.value("rent_usd_per_gpu_hour") * ratio
    )
    assert d1 == more.value("committed_1y_discount_pct") / 100


def test_a_discount_no_price_is_derived_from_is_refused():
    """On a 12-month term the rent is the catalogue's 1-year price, and where the catalogue lists
    committed cloud prices no discount is applied: the override would change nothing."""
    sc = scenario(term={"months": 12})
    cat = load_catalogue()
    gpu = sc.cluster.gpu
    if not (cat.rentals(gpu, "committed_3y") and cat.rentals(gpu, "committed_1y")):
        pytest.skip("the catalogue derives a committed price for this GPU")
    with pytest.raises(InputError) as err:
        build_inputs(sc.model_copy(update={"overrides": {"committed_3y_discount_pct": 50.0}}), cat)
    assert err.value.field == "overrides.committed_3y_discount_pct"


def test_a_spot_price_override_makes_spot_available_where_the_catalogue_has_none():
    cat = load_catalogue()
    without = [g for g in ("L40S", "MI300X", "GB200", "A100-40GB") if not cat.rentals(g, "spot")]
    if not without:
        pytest.skip("every GPU has a spot offer in the catalogue")
    sc = scenario(
        cluster={"gpu": without[0]}, options={"compare": ["cloud:spot", "cloud:on_demand"]}
    )
    assert not by_option(engine.compare(sc, decision=False))["cloud:spot"].available
    priced = engine.compare(
        sc.model_copy(update={"overrides": {"cloud_spot_usd_per_gpu_hour": 1.0}}), decision=False
    )
    spot = by_option(priced)["cloud:spot"]
    assert spot.available and spot.breakdown_usd["compute"] > 0
    # the compute line is exactly the user's price on every busy GPU-hour
    assert spot.breakdown_usd["compute"] == pytest.approx(spot.delivered_gpu_hours * 1.0)


def test_overrides_of_catalogue_keys_are_all_in_the_walk():
    assert set(CATALOGUE_KEYS) <= set(_overridable())


def test_operations_are_the_figures_the_build_option_pays_for():
    """The Guide reads staff and spares from the engine; they must be what the cost lines use."""
    sc = scenario(cluster={"gpus": 4096})
    c = engine.compare(sc, decision=False)
    figures = {a.key: a.value for a in c.assumptions}
    build = c.option("build")
    # a full month of the staff line is the team times a month of salary
    monthly_staff = build.monthly_by_category_usd["staff"][-1]
    assert monthly_staff == pytest.approx(
        c.operations.staff_fte
        * figures["ops_salary_usd_per_year"]
        * figures["ops_loaded_cost_ratio"]
        / 12
    )
    # the spares bought are the spare nodes at the price of a node
    inp = build_inputs(sc, load_catalogue())
    spares_usd = cf.hardware_capex(inp, engine.base_params(inp))["spares"][0, 0]
    per_node = figures["server_usd_per_gpu"] * c.training.gpus / c.training.nodes
    assert c.operations.spare_nodes * per_node == pytest.approx(spares_usd)
    ops = c.operations
    assert ops.interruptions_per_week == pytest.approx(ops.failures_per_gpu_day * 4096 * 7)


@pytest.mark.parametrize("key", [k for k in _overridable() if override_range(k)[1] == 1e12])
def test_the_schema_and_the_engine_agree_on_an_overrides_upper_bound(key):
    """The engine said 'allowed: 0 to 1e12' and the schema refused 1e12 itself (< 1e12)."""
    sc = scenario(overrides={key: 1e12}, **CONTEXT.get(key, {}))
    assert build_inputs(sc, load_catalogue()).value(key) == 1e12
    with pytest.raises(ValidationError, match="must be a number from 0 to 1e12"):
        scenario(overrides={key: math.nextafter(1e12, math.inf)})

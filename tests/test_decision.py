"""Decision support, issue 13: the Monte Carlo's draws (medians at the base values, bounds kept,
the rental market and the owned hardware correlated) and the recommendation saying how sure it is.
On the made-up fixture catalogue (tests/fixtures/catalogue), so a price refresh moves nothing."""

import json

import numpy as np
import pytest

from app import scenario_files
from app.recommendation_text import recommendation_text
from models.numbers import days, on_day, pct, usd
from models.options import OPTION_IDS
from models.scenario import Scenario
from pricing import decision as ds
from pricing.engine import compare
from pricing.inputs import build_inputs
from pricing.planning.planner import plan_portfolio
from pricing.ranges import multiplier_range
from pricing.valuation import base_params, npv_table
from tests.builders import UTILISED, patient, sample, scenario

ALL = [
    "build",
    "managed:owned",
    "rent",
    "managed",
    "cloud:on_demand",
    "cloud:spot",
    "cloud:committed_1y",
]


@pytest.fixture(scope="module")
def cat(fixture_catalogue):
    return fixture_catalogue


# ------------------------------------------------------------------------------------ the draws


@pytest.mark.parametrize("utilisation", [100, 99.5, 50])
def test_monte_carlo_p50_of_on_demand_is_its_base_npv(cat, utilisation):
    # before issue 13 utilisation was drawn normal(1, 0.15) and capped at 100 %: at full use every
    # draw was at or below the base, and the P50 of on-demand was ~5 % under its base NPV
    c = compare(
        scenario(
            UTILISED,
            usage__utilisation_pct=utilisation,
            options__compare=["cloud:on_demand", "rent"],
        ),
        cat,
    )
    base = c.option("cloud:on_demand").npv_usd
    assert c.uncertainty.options["cloud:on_demand"].p50_usd == pytest.approx(base, rel=0.015)


@pytest.mark.parametrize(
    "overrides, utilisation",
    [
        ({}, 99.5),
        ({"residual_value_pct": 99.0, "pue": 1.01}, 0.5),
        ({"residual_value_pct": 1.0, "pue": 2.99}, 70),
    ],
)
def test_draws_keep_their_median_and_never_leave_their_range(cat, overrides, utilisation):
    sc = scenario(UTILISED, usage__utilisation_pct=utilisation, options__compare=ALL)
    inp = build_inputs(sc.model_copy(update={"overrides": overrides}), cat)
    keys = ds.relevant_inputs(inp, ALL, ds._DRAWABLE)
    mult = ds.draw_multipliers(inp, keys, 20_000, seed=7)
    assert set(mult) == set(keys)
    for key, m in mult.items():
        assert m.shape == (20_000,) and np.all(np.isfinite(m)) and np.all(m > 0), key
        assert np.median(m) == pytest.approx(1.0, abs=0.01), key
        if key in ds.BOUNDS:
            lo, hi = ds.BOUNDS[key]
            drawn = inp.value(key) * m
            assert drawn.min() >= lo and drawn.max() <= hi, (key, drawn.min(), drawn.max())
    # lead times: 0.75x-1.5x, widened to the GPU's whole lead-time range by the order-size ramp
    lo, hi = multiplier_range(inp, "lead_time_multiplier")
    assert lo <= 0.75 and hi >= 1.5
    lead = mult["lead_time_multiplier"]
    assert lead.min() >= lo - 1e-12 and lead.max() <= hi + 1e-12
    # a bounded input still spreads (it is not pinned where it has room)
    assert np.percentile(mult["utilisation_pct"], 90) > np.percentile(mult["utilisation_pct"], 10)


def test_utilisation_at_its_bound_stays_there(cat):
    inp = build_inputs(scenario(UTILISED, usage__utilisation_pct=100), cat)
    m = ds.draw_multipliers(inp, ["utilisation_pct"], 1000, seed=1)["utilisation_pct"]
    assert np.all(m == 1.0)


def _corr(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.corrcoef(np.log(a), np.log(b))[0, 1])


def test_market_prices_and_hardware_prices_are_correlated_and_the_rest_is_not(cat):
    inp = build_inputs(scenario(UTILISED, options__compare=ALL), cat)
    keys = ds.relevant_inputs(inp, ALL, ds._DRAWABLE)
    m = ds.draw_multipliers(inp, keys, 20_000, seed=3)
    rent, od = m["rent_usd_per_gpu_hour"], m["cloud_on_demand_usd_per_gpu_hour"]
    assert _corr(rent, od) == pytest.approx(ds.RHO_MARKET, abs=0.03)
    assert _corr(od, m["cloud_spot_usd_per_gpu_hour"]) == pytest.approx(ds.RHO_MARKET, abs=0.03)
    server, switch = m["server_usd_per_gpu"], m["ib_switch_64port_ndr_usd_per_switch"]
    assert _corr(server, switch) == pytest.approx(ds.RHO_HARDWARE, abs=0.03)
    assert _corr(server, m["storage_buy_usd_per_tb"]) == pytest.approx(ds.RHO_HARDWARE, abs=0.03)
    for a, b in [
        ("rent_usd_per_gpu_hour", "server_usd_per_gpu"),
        ("cloud_on_demand_usd_per_gpu_hour", "ib_switch_64port_ndr_usd_per_switch"),
        ("rent_usd_per_gpu_hour", "electricity_usd_per_kwh"),
        ("server_usd_per_gpu", "colocation_usd_per_kw_month"),
        ("cloud_on_demand_usd_per_gpu_hour", "utilisation_pct"),
    ]:
        assert abs(_corr(m[a], m[b])) < 0.03, (a, b)
    # each keeps its own spread: the common factor does not widen or narrow a price
    assert np.std(np.log(rent)) == pytest.approx(ds.SIGMA, rel=0.05)


def test_draws_are_seeded_and_do_not_depend_on_the_other_keys(cat):
    inp = build_inputs(scenario(UTILISED, options__compare=ALL), cat)
    keys = ds.relevant_inputs(inp, ALL, ds._DRAWABLE)
    a = ds.draw_multipliers(inp, keys, 500, seed=11)
    b = ds.draw_multipliers(inp, ["cloud_on_demand_usd_per_gpu_hour", "pue"], 500, seed=11)
    assert np.array_equal(
        a["cloud_on_demand_usd_per_gpu_hour"], b["cloud_on_demand_usd_per_gpu_hour"]
    )
    assert np.array_equal(a["pue"], b["pue"])
    c = ds.draw_multipliers(inp, keys, 500, seed=12)
    assert not np.array_equal(a["pue"], c["pue"])
    with pytest.raises(ValueError, match="bogus"):
        ds.draw_multipliers(inp, ["bogus"], 10, seed=0)


def test_monte_carlo_varies_owned_hardware_and_not_the_discount_rate(cat):
    c = compare(scenario(UTILISED, options__compare=["build", "rent"]), cat)
    varied = c.uncertainty.varied
    assert "discount_rate_pct_per_year" not in varied
    assert {"server_usd_per_gpu", "ib_switch_64port_ndr_usd_per_switch"} <= set(varied)
    assert c.uncertainty.cheapest == c.recommendation.option
    again = compare(scenario(UTILISED, options__compare=["build", "rent"]), cat)
    assert again.uncertainty == c.uncertainty  # seeded: the same comparison, the same draws


# ----------------------------------------------------------------------- the recommendation


def _close_scenario(cat, gap: float = 0.01):
    """Rent dedicated priced so its NPV is `gap` above cloud on-demand's (NPV is linear in it)."""
    sc = scenario(UTILISED, usage__utilisation_pct=70, options__compare=["rent", "cloud:on_demand"])

    def at(price):
        c = compare(
            sc.model_copy(update={"overrides": {"rent_usd_per_gpu_hour": price}}),
            cat,
            decision=False,
        )
        return c.option("rent").npv_usd, c.option("cloud:on_demand").npv_usd

    (r1, cloud), (r2, _) = at(1.0), at(2.0)
    price = 1.0 + ((1 + gap) * cloud - r1) / (r2 - r1)
    return sc.model_copy(update={"overrides": {"rent_usd_per_gpu_hour": price}})


@pytest.fixture(scope="module")
def close(cat):
    return compare(_close_scenario(cat), cat)


def test_a_one_percent_gap_is_too_close_to_call_and_names_both(close):
    rec = close.recommendation
    assert rec.option == "cloud:on_demand"
    assert close.option("rent").npv_usd / close.option("cloud:on_demand").npv_usd == pytest.approx(
        1.01
    )
    assert rec.close_call is True
    assert rec.contenders == ["cloud:on_demand", "rent"]
    assert rec.contender.label == "Rent dedicated" and rec.draws == 2000
    assert rec.npv_usd == close.option("cloud:on_demand").npv_usd and rec.months == 36
    assert (
        rec.probability_cheapest
        == close.uncertainty.options["cloud:on_demand"].probability_cheapest
    )
    assert 0.3 < rec.probability_cheapest < 0.7
    assert recommendation_text(rec).startswith(
        "Too close to call between Cloud on-demand and Rent dedicated: "
    )
    assert (
        f"Cloud on-demand is cheapest in {pct(rec.probability_cheapest)} of 2,000 draws"
        in recommendation_text(rec)
    )
    assert (
        "the NPV gap (1 %) is within the spread of that gap over the draws"
        in recommendation_text(rec)
    )
    assert (
        recommendation_text(rec).count("$") <= 1
    )  # two would make a KaTeX span on the portal's markdown


def test_a_clear_case_is_firm(cat):
    # at 10 % use cloud on-demand pays for a tenth of the hours every other option pays for
    c = compare(scenario(UTILISED, usage__utilisation_pct=10), cat)
    rec = c.recommendation
    assert rec.option == "cloud:on_demand"
    assert rec.close_call is False and rec.contenders == []
    assert rec.probability_cheapest >= 0.7
    assert "too close" not in recommendation_text(rec).lower()
    assert recommendation_text(rec).startswith(
        "Cloud on-demand has the lowest cost over 36 months (NPV $"
    )
    assert f"cheapest in {pct(rec.probability_cheapest)} of 2,000 draws)" in recommendation_text(
        rec
    )
    assert recommendation_text(rec).count("$") <= 1


def test_without_decision_support_the_answer_is_todays(cat):
    sc = _close_scenario(cat)
    c = compare(sc, cat, decision=False)
    rec = c.recommendation
    assert rec.probability_cheapest is None and rec.close_call is False and rec.contenders == []
    od, rent = c.option("cloud:on_demand"), c.option("rent")
    assert recommendation_text(rec) == (
        f"Cloud on-demand has the lowest cost over 36 months (NPV {usd(od.npv_usd)}, "
        f"{pct(1 - od.npv_usd / rent.npv_usd)} below Rent dedicated); it is ready on "
        f"{on_day(od.ready_day)}"
    )


def _with(close, *, p: float, spread_over_gap: float):
    """The close comparison's Monte Carlo with the winner's chance set, and the P10–P90 of the
    gap to rent set to the base gap ± spread_over_gap × the base gap."""
    gap = close.option("rent").npv_usd - close.option("cloud:on_demand").npv_usd
    u = close.uncertainty
    opts = dict(u.options)
    opts["cloud:on_demand"] = opts["cloud:on_demand"].model_copy(update={"probability_cheapest": p})
    opts["rent"] = opts["rent"].model_copy(
        update={
            "probability_cheapest": 1 - p,
            "gap_p10_usd": gap * (1 - spread_over_gap),
            "gap_p90_usd": gap * (1 + spread_over_gap),
        }
    )
    return u.model_copy(update={"options": opts})


@pytest.mark.parametrize(
    "p, spread_over_gap, close_call",
    [
        (0.95, 1.01, True),  # the gap is within the spread of the gap: close, however sure p looks
        (0.95, 0.99, False),  # the gap is beyond it and p ≥ 70 %: firm
        (0.69, 0.5, True),  # under 70 %: close, however narrow the spread
        (0.70, 0.5, False),  # 70 % is not under 70 %
    ],
)
def test_the_close_call_rule(cat, close, p, spread_over_gap, close_call):
    inp = build_inputs(_close_scenario(cat), cat)
    u = _with(close, p=p, spread_over_gap=spread_over_gap)
    rec = ds.recommend(inp, close.options, u)
    assert rec.close_call is close_call
    assert rec.probability_cheapest == p
    # the facts the words rest on: the gap against the spread of the gap over the draws
    gap = close.option("rent").npv_usd - close.option("cloud:on_demand").npv_usd
    assert rec.gap_spread_usd == pytest.approx(gap * spread_over_gap)
    assert rec.gap_within_spread is (spread_over_gap > 1)
    assert rec.contender.option == "rent" and rec.contender_probability_cheapest == 1 - p
    assert recommendation_text(rec).lower().startswith("too close to call") is close_call
    assert ("within the spread" in recommendation_text(rec)) is (close_call and spread_over_gap > 1)
    assert rec.contenders == (["cloud:on_demand", "rent"] if close_call else [])


def test_the_contender_is_the_option_cheapest_most_often(cat):
    c = compare(scenario(UTILISED, usage__utilisation_pct=70), cat)
    inp = build_inputs(scenario(UTILISED, usage__utilisation_pct=70), cat)
    best = c.recommendation.option
    by_npv = sorted((o for o in c.options if o.option != best), key=lambda o: o.npv_usd)
    far = by_npv[-1].option  # the dearest option, made the one that wins the other draws
    opts = {
        k: q.model_copy(update={"probability_cheapest": 0.0})
        for k, q in c.uncertainty.options.items()
    }
    opts[best] = opts[best].model_copy(update={"probability_cheapest": 0.6})
    opts[far] = opts[far].model_copy(update={"probability_cheapest": 0.4})
    rec = ds.recommend(inp, c.options, c.uncertainty.model_copy(update={"options": opts}))
    assert rec.close_call and rec.contenders == [best, far]


def test_no_close_call_without_a_second_option_that_completes(cat, close):
    # found by tests/test_engine_fuzz.py: a winner cheapest in few draws, and no other option
    # completing the workload to be close to
    inp = build_inputs(_close_scenario(cat), cat)
    results = [
        o.model_copy(update={"completes_workload": False}) if o.option == "rent" else o
        for o in close.options
    ]
    rec = ds.recommend(inp, results, _with(close, p=0.5, spread_over_gap=2.0))
    assert rec.option == "cloud:on_demand" and rec.close_call is False and rec.contenders == []
    assert (
        rec.probability_cheapest == 0.5
        and "cheapest in 50 % of 2,000 draws" in recommendation_text(rec)
    )


def test_the_fastest_option_is_named_only_when_it_is_sooner_in_whole_days(fixture_catalogue):
    """ "X gives the first result soonest (day 29 vs day 32)" only when X's day, as shown (on_day:
    the day in which it falls), is earlier than the recommended option's: two options both
    finishing in day 2 say nothing."""
    sc = Scenario.model_validate(
        {
            "workload": {"model": "llama3-8b", "tokens": 1e11},
            "cluster": {"gpu": "H100-SXM", "gpus": 64},
            "usage": {"mode": "runs", "runs": 2},
            "term": {"months": 12},
            "options": {"compare": ["rent", "cloud:on_demand"]},
        }
    )
    c = compare(sc, fixture_catalogue, decision=False)
    inp = build_inputs(sc, fixture_catalogue)
    cheap, dear = sorted(c.options, key=lambda o: o.npv_usd)

    def why(cheap_day: float, dear_day: float) -> str:
        results = [
            cheap.model_copy(update={"first_result_day": cheap_day}),
            dear.model_copy(update={"first_result_day": dear_day}),
        ]
        return recommendation_text(ds.recommend(inp, results))

    assert "soonest" not in why(1.9, 1.2)  # both "day 2"
    assert why(1.2, 0.9).endswith(f"{dear.label} gives the first result soonest (day 1 vs day 2)")
    assert why(32.0, 29.0).endswith(
        f"{dear.label} gives the first result soonest (day 29 vs day 32)"
    )
    assert "soonest" not in why(29.0, 32.0)  # the recommended option is also the fastest


# --------------------------------------------------------------- which inputs touch which options


def _grid_scenario(which: str) -> Scenario:
    if which == "v1, loan":
        return scenario(UTILISED, options__compare=ALL, term__financing="loan")
    return scenario(sample("enterprise"), options__compare=list(OPTION_IDS))


@pytest.mark.parametrize("which", ["v1, loan", "portfolio, every option"])
def test_flip_grid_evaluates_each_option_only_where_an_input_touches_it(cat, which):
    # flip_points evaluates each option only on the grids of the inputs that touch it (ONLY_FOR)
    # and keeps its base NPV on the others: the whole grid, every option on every row, must give
    # the same numbers
    sc = _grid_scenario(which)
    inp = plan_portfolio(sc, cat)[0] if sc.is_portfolio else build_inputs(sc, cat)
    options = [o for o in sc.options.compare if o not in inp.unavailable]
    keys = ds.relevant_inputs(inp, options)
    g = len(ds.FLIP_GRID)
    mult = {k: np.ones(len(keys) * g) for k in keys}
    for i, k in enumerate(keys):
        mult[k][i * g : (i + 1) * g] = ds.FLIP_GRID
    whole = npv_table(inp, ds._rows(inp, mult, len(keys) * g), options)
    base = npv_table(inp, base_params(inp), options)[0]
    assert np.array_equal(ds._grid_npv(inp, options, keys, base), whole, equal_nan=True)


def test_the_tornado_explains_the_close_call_the_recommendation_names():
    """University sample: Rent dedicated is recommended; Managed is second by NPV but never the
    cheapest in a draw (it pays the same rent plus a premium), Build is cheapest in some. The
    recommendation calls it close between Rent dedicated and Build, so the tornado measures that
    gap, not the one to Managed."""
    data = patient(sample("university"))  # the plans as sized without a service level
    data["options"]["bridge"] = False  # nor a bridge (Build then carries its start-up backlog)
    c = compare(Scenario.model_validate(data))
    r, t = c.recommendation, c.sensitivity
    by_npv = sorted((o for o in c.options if o.completes_workload), key=lambda o: o.npv_usd)
    assert r.close_call and r.contenders == ["rent", "build"]
    assert by_npv[1].option == "managed" != r.contenders[1]  # the case this guards
    assert c.uncertainty.options["managed"].probability_cheapest == 0
    assert (t.cheapest, t.runner_up) == ("rent", "build")
    gap = c.option("build").npv_usd - c.option("rent").npv_usd
    assert t.base_gap_usd == pytest.approx(gap, rel=1e-9)


def test_a_flip_point_keeps_an_acronym_in_its_sentence():
    """'Build becomes cheapest when GPU server price is below ...': a label is lowercased inside a
    sentence only where its first word is an ordinary word (it read 'gpu server price')."""
    from models.numbers import mid_sentence

    data = patient(sample("university"))  # Build ranked: no workload's wait rules it out
    c = compare(Scenario.model_validate(data))
    server = next(f for f in c.flip_points if f.key == "server_usd_per_gpu")
    assert " when GPU server price is " in server.text
    rent = next(f for f in c.flip_points if f.key == "rent_usd_per_gpu_hour")
    assert " when dedicated rental price is " in rent.text
    assert [mid_sentence(x) for x in ("PUE", "InfiniBand switch price", "Discount rate")] == [
        "PUE",
        "InfiniBand switch price",
        "discount rate",
    ]


def test_with_no_compared_option_available_the_answer_says_why(fixture_catalogue):
    """Spot alone at 65,536 GPUs: it is not offered at that size, and the answer said 'No option
    completes the workload within the term' of a run that takes a day."""
    data = json.loads(json.dumps(scenario_files.EXAMPLE))
    data["cluster"]["gpus"] = 65536
    data["options"] = {"compare": ["cloud:spot", "cloud:on_demand"]}
    c = compare(Scenario.model_validate(data), fixture_catalogue)
    assert c.recommendation.option is None
    notes = "; ".join(f"{o.label}: {o.note}" for o in c.options)
    assert recommendation_text(c.recommendation) == f"No compared option is available ({notes})"
    data["options"] = {"compare": ["cloud:spot", "rent"]}  # one available: no such sentence
    c = compare(Scenario.model_validate(data), fixture_catalogue)
    assert c.recommendation.option == "rent"


def test_a_recommended_plan_that_makes_work_wait_a_month_longer_says_so(fixture_catalogue):
    """A team of 16 GPUs at 80 % for 25 months: the size search gives Rent and Build 8 GPUs (all
    the work done by the term's end, the last of it 15 months late) and the answer said nothing
    of it. It now names the wait against the option where the team waits least."""
    data = {
        "version": 2,
        "term": {"months": 48},
        "options": {"compare": ["rent", "build", "cloud:on_demand"]},
        "workloads": [
            {"name": "research", "kind": "steady", "gpus": 16, "utilisation_pct": 80,
             "start_month": 4, "duration_months": 25}
        ],
    }  # fmt: skip
    data = patient(data)  # a plan sized for the term's end alone: the wait the note names
    c = compare(Scenario.model_validate(data), fixture_catalogue)
    best = c.option(c.recommendation.option)
    wait = {o.label: o.workload_delays[0].delay_days_max for o in c.options}
    least = min((w, label) for label, w in wait.items() if label != best.label)
    assert wait[best.label] - least[0] > ds.WAIT_NOTE_DAYS
    assert recommendation_text(c.recommendation).endswith(
        f". Its work waits longer: research up to {days(wait[best.label])} "
        f"({days(least[0])} on {least[1]})"
    )
    data["workloads"][0]["duration_months"] = 3  # a short burst: no long wait, no sentence
    c = compare(Scenario.model_validate(data), fixture_catalogue)
    assert "waits longer" not in recommendation_text(c.recommendation)


def test_a_figure_no_compared_option_has_gets_no_tornado_bar(fixture_catalogue):
    """Hybrid and rent at 24,533 GPUs: no on-demand price exists at any compared size (the burst
    is above the capacity-block quota), and the tornado kept a bar for it reading nan."""
    data = {
        "version": 2,
        "cluster": {"gpu": "H100-SXM", "gpus": 24533},
        "term": {"months": 12},
        "options": {"compare": ["hybrid", "rent"]},
        "workloads": [{"kind": "steady", "name": "w0", "start_month": 11, "duration_months": 1}],
    }
    c = compare(Scenario.model_validate(data), fixture_catalogue)
    figures = {a.key: a.value for a in c.assumptions}
    assert figures["cloud_on_demand_usd_per_gpu_hour"] is None  # not offered at this size
    keys = [b.key for b in c.sensitivity.bars]
    assert keys and "cloud_on_demand_usd_per_gpu_hour" not in keys
    assert all(np.isfinite(b.base_value) for b in c.sensitivity.bars)

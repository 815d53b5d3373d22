"""Time has a value (issue 30): with a value per day of earlier results (per training run, or per
portfolio workload) a later option pays for its delay in the ranking, its own "value of time"
adjustment, never a cash line; without one every figure is as before."""

from __future__ import annotations

import copy
import json

import pytest

from app.exports import comparison_json, monthly_csv
from app.formatting import usd
from app.recommendation_text import headline, recommendation_text
from app.report_text import comparison_report
from app.scenario_files import PORTFOLIOS
from models.errors import InputError
from models.portfolio.workloads import MAX_VALUE_USD_PER_DAY, parse_workloads
from models.scenario import Scenario, explain_validation_error
from pricing.engine import compare
from tests.builders import TIME_RUNS as RUNS

VALUE = 5000.0


def _runs(value: float | None = None) -> Scenario:
    data = copy.deepcopy(RUNS)
    if value is not None:
        data["usage"]["value_usd_per_day_earlier"] = value
    return Scenario.model_validate(data)


@pytest.fixture(scope="module")
def plain():
    return compare(_runs(), draws=200)


@pytest.fixture(scope="module")
def valued():
    return compare(_runs(VALUE), draws=200)


def test_without_a_value_build_wins_on_cash(plain):
    assert plain.recommendation.option == "build"
    assert all(o.value_of_time is None for o in plain.options)
    assert "value_of_time" not in comparison_json(plain)
    assert "Value of time" not in comparison_report(plain)


def test_the_value_is_per_run_times_the_days_after_the_earliest_first_result(valued):
    first = {o.option: o.first_result_day for o in valued.options}
    earliest = min(first.values())
    for o in valued.options:
        tv = o.value_of_time
        assert tv.delay_days == pytest.approx(first[o.option] - earliest)
        assert tv.value_usd == pytest.approx(VALUE * 30 * (first[o.option] - earliest))
        assert tv.ranked_npv_usd == pytest.approx(o.npv_usd + tv.value_usd)
    assert valued.option("rent").value_of_time.value_usd == 0.0
    assert valued.option("rent").value_of_time.earliest_label == "Rent dedicated"


def test_it_is_not_a_cash_line(plain, valued):
    for a, b in zip(plain.options, valued.options, strict=True):
        assert (a.total_usd, a.npv_usd, a.npv_after_tax_usd) == (
            b.total_usd,
            b.npv_usd,
            b.npv_after_tax_usd,
        )
        assert a.monthly_by_category_usd == b.monthly_by_category_usd
        assert a.chargeback_usd == b.chargeback_usd
    assert monthly_csv(plain) == monthly_csv(valued)


def test_the_later_option_pays_for_its_delay_in_the_ranking(plain, valued):
    rec = valued.recommendation
    assert rec.option == "rent"  # Build is cheaper in cash, 170 days later on each of 30 runs
    assert rec.ranked_npv_usd == pytest.approx(valued.option("rent").npv_usd)
    trade = rec.time_trade
    assert trade.option == "build"
    assert trade.npv_usd < rec.npv_usd
    assert trade.value_usd - trade.best_value_usd > rec.npv_usd - trade.npv_usd
    words = recommendation_text(rec)
    assert "with the value of time" in headline(rec)
    cash = usd(rec.npv_usd - trade.npv_usd)  # how much cheaper Build is in cash
    assert f"Build is {cash} cheaper; Rent dedicated's extra {cash} buys results 170 days" in words
    # the Monte Carlo and the tornado rank the same NPV + value of time
    assert valued.uncertainty.options["rent"].probability_cheapest > 0.5
    assert valued.sensitivity.cheapest == "rent"


def test_a_value_of_zero_ranks_as_without_one(plain):
    zero = compare(_runs(0.0), decision=False)
    assert zero.recommendation.option == plain.recommendation.option
    assert all(o.value_of_time.value_usd == 0 for o in zero.options)


def test_every_surface_shows_the_adjustment(valued):
    text = comparison_report(valued)
    assert "Value of time" in text and "$25.53M" in text and "in the ranking" in text
    data = json.loads(comparison_json(valued))
    build = next(o for o in data["options"] if o["option"] == "build")
    assert build["value_of_time"]["value_usd"] == pytest.approx(
        valued.option("build").value_of_time.value_usd
    )
    assert data["recommendation"]["time_trade"]["option"] == "build"


def test_steady_use_has_no_delay_to_value():
    data = copy.deepcopy(RUNS)
    data["usage"] = {"mode": "utilisation", "utilisation_pct": 80, "value_usd_per_day_earlier": 1e6}
    c = compare(Scenario.model_validate(data), decision=False)
    assert all(o.value_of_time is None for o in c.options)
    assert c.recommendation.ranked_npv_usd is None


@pytest.mark.parametrize("bad", [-1.0, MAX_VALUE_USD_PER_DAY * 10, "a lot"])
def test_a_bad_value_is_refused_naming_the_field_and_its_range(bad):
    data = copy.deepcopy(RUNS)
    data["usage"]["value_usd_per_day_earlier"] = bad
    with pytest.raises(ValueError) as exc:
        Scenario.model_validate(data)
    field, msg = explain_validation_error(exc.value)[0]
    assert field == "usage.value_usd_per_day_earlier"
    with pytest.raises(InputError) as exc:
        parse_workloads([{"kind": "steady", "name": "a", "value_usd_per_day_earlier": bad}])
    assert exc.value.field == "workloads[0].value_usd_per_day_earlier"
    if not isinstance(bad, str):
        assert "at least 0" in str(exc.value) and "at most 1e+09" in str(exc.value)


@pytest.fixture(scope="module")
def lab():
    data = json.loads(PORTFOLIOS["lab"].read_text())
    data["workloads"][0]["value_usd_per_day_earlier"] = 20_000.0  # base-8b
    data["options"]["bridge"] = False  # Build's run waits for its go-live: a delay to value
    return compare(Scenario.model_validate(data), decision=False)


def test_a_portfolio_values_each_workloads_mean_delay_against_the_least(lab):
    mean = {
        o.option: next(d.delay_days_mean for d in o.workload_delays if d.name == "base-8b")
        for o in lab.options
    }
    least = min(mean.values())
    assert mean["build"] - least > 150  # Build starts it on day 181, cloud on day 8
    for o in lab.options:
        (w,) = o.value_of_time.workloads
        assert w.name == "base-8b"
        assert w.value_usd == pytest.approx(20_000 * (mean[o.option] - least))
        assert o.value_of_time.value_usd == pytest.approx(w.value_usd)
    assert "base-8b" in comparison_report(lab)


def test_the_cli_reads_it_from_the_scenario_file_and_names_a_bad_one(tmp_path, capsys):
    from app.cli import main

    path = tmp_path / "s.json"
    path.write_text(json.dumps(_runs(VALUE).model_dump(mode="json")))
    assert main(["compare", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["recommendation"]["option"] == "rent"
    assert data["recommendation"]["time_trade"]["option"] == "build"
    bad = _runs(VALUE).model_dump(mode="json")
    bad["usage"]["value_usd_per_day_earlier"] = -1
    path.write_text(json.dumps(bad))
    assert main(["compare", str(path)]) != 0
    err = capsys.readouterr().err
    assert "usage.value_usd_per_day_earlier" in err and "at most 1e+09" in err
    assert "Traceback" not in err

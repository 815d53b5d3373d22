"""`clusterplan hourly --json`: the owned and rented figures of the hourly report, as data.

The JSON must hold the numbers the text report prints (the same computation, unrounded), its cost
lines must add up to the total, its rental rows must be the catalogue's, and it must be strict JSON
(a figure the catalogue lacks is null, never NaN).
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import re

import pytest

from app import report_hourly
from app.cli import main
from models.scenario import Scenario
from pricing.catalogue.loader import load_catalogue
from pricing.engine import compare

ARGS = ["--gpu", "H100-SXM", "--gpus", "256", "--months", "36", "--utilisation", "100", "60"]
RATE = re.compile(r"^  at (\S+) % utilisation: \$([\d,.]+) per GPU-hour \((.*)\)$", re.M)


def strict(text: str) -> dict:
    def refuse(name):
        raise AssertionError(f"{name} in the JSON")

    return json.loads(text, parse_constant=refuse)


def hourly(capsys, *args: str) -> str:
    rc = main(["hourly", *args])
    out, err = capsys.readouterr()
    assert rc == 0 and err == "", err
    return out


@pytest.fixture(scope="module")
def both():
    """(the JSON, the text report) for the same command line (computed once for the module)."""
    outs = []
    for extra in (["--json"], []):
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            assert main(["hourly", *ARGS, *extra]) == 0
        outs.append(buf.getvalue())
    return strict(outs[0]), outs[1]


def test_per_utilisation_rate_and_lines_are_what_the_text_prints(both):
    data, text = both
    printed = RATE.findall(text)
    assert [float(u) for u, _, _ in printed] == [o["utilisation_pct"] for o in data["owned"]]
    assert len(printed) == 2
    for (_, rate, lines), owned in zip(printed, data["owned"], strict=True):
        assert f"{owned['usd_per_gpu_hour']:,.2f}" == rate
        shown = dict(part.rsplit(" ", 1) for part in lines.split(", "))
        assert shown == {k: f"{v:,.2f}" for k, v in owned["lines_usd_per_gpu_hour"].items()}


def test_the_lines_add_up_to_the_total(both):
    data, _ = both
    for owned in data["owned"]:
        lines = owned["lines_usd_per_gpu_hour"]
        assert len(lines) >= 4
        assert sum(lines.values()) == pytest.approx(owned["usd_per_gpu_hour"], rel=1e-9)
        assert sum(owned["lines_usd"].values()) == pytest.approx(owned["total_usd"], rel=1e-9)
        assert owned["total_usd"] / owned["delivered_gpu_hours"] == pytest.approx(
            owned["usd_per_gpu_hour"], rel=1e-9
        )
    # idle hours still cost money: the rate at 60 % is above the rate at 100 %
    assert data["owned"][1]["usd_per_gpu_hour"] > data["owned"][0]["usd_per_gpu_hour"]


def test_rentals_are_the_catalogues_rows_for_the_gpu(both):
    data, text = both
    expected = [
        {
            "provider": r.provider,
            "provider_kind": r.provider_kind,
            "offer": r.offer,
            "region": r.region,
            "usd_per_gpu_hour": r.price_usd_per_gpu_hour,
            "source": r.source,
            "as_of": r.as_of.isoformat(),
            "grade": r.grade,
            "notes": r.notes,
        }
        for r in load_catalogue().rentals("H100-SXM")
    ]
    assert data["rentals"] == expected and len(expected) > 5
    # the engine's rental figures, as the text's second table prints them
    for figure in data["rental_figures"]:
        value = figure["usd_per_gpu_hour"]
        shown = "-" if value is None or figure["not_offered"] else f"${value:.2f}"
        assert re.search(rf"^  {re.escape(figure['label'])} +{re.escape(shown)}   ", text, re.M)


def test_a_figure_the_catalogue_lacks_is_null_not_nan(capsys):
    """From the command line (the engine gives None for GB200's missing spot price), and for a
    NaN figure handed to `hourly_data` directly."""
    # GB200 has no spot price in the catalogue: the engine's figure is NaN
    data = strict(hourly(capsys, "--gpu", "GB200", "--gpus", "72", "--utilisation", "80", "--json"))
    spot = next(f for f in data["rental_figures"] if f["key"] == "cloud_spot_usd_per_gpu_hour")
    assert spot["usd_per_gpu_hour"] is None
    assert data["owned"][0]["utilisation_pct"] == 80.0
    comparison = compare(
        Scenario.model_validate(
            {
                "workload": {"model": "llama3-70b", "tokens": 1e12},
                "cluster": {"gpu": "H100-SXM", "gpus": 64},
                "usage": {"mode": "utilisation", "utilisation_pct": 50},
                "options": {"compare": ["build"]},
            }
        ),
        decision=False,
    )
    nan = [
        a.model_copy(update={"value": math.nan}) if a.key.startswith("cloud_spot") else a
        for a in comparison.assumptions
    ]
    broken = comparison.model_copy(update={"assumptions": nan})
    data = report_hourly.hourly_data("H100-SXM", 64, 60, [(50.0, broken)], [])
    spot = next(f for f in data["rental_figures"] if f["key"] == "cloud_spot_usd_per_gpu_hour")
    assert spot["usd_per_gpu_hour"] is None
    json.dumps(data, allow_nan=False)


def test_an_offer_the_cluster_size_rules_out_is_shown_as_not_offered(capsys):
    """Spot above cloud_spot_max_gpus: the text shows no price and the engine's reason, the JSON
    says why; on a cluster small enough spot is priced and `not_offered` is null."""
    limit = int(load_catalogue().assumption("cloud_spot_max_gpus").value)
    big = ["--gpu", "H100-SXM", "--gpus", str(limit * 2), "--months", "36"]
    line = next(x for x in hourly(capsys, *big).splitlines() if x.startswith("  Cloud spot"))
    assert line.split()[2] == "-" and f"above cloud_spot_max_gpus ({limit:,} GPUs)" in line
    spot = {f["key"]: f for f in strict(hourly(capsys, *big, "--json"))["rental_figures"]}
    assert "spot is not offered" in spot["cloud_spot_usd_per_gpu_hour"]["not_offered"]
    small = ["--gpu", "H100-SXM", "--gpus", str(limit), "--months", "36"]
    line = next(x for x in hourly(capsys, *small).splitlines() if x.startswith("  Cloud spot"))
    assert line.split()[2].startswith("$")
    spot = {f["key"]: f for f in strict(hourly(capsys, *small, "--json"))["rental_figures"]}
    assert spot["cloud_spot_usd_per_gpu_hour"]["not_offered"] is None


def test_an_option_that_shares_a_price_does_not_withdraw_the_offer(capsys):
    """Hybrid (no demand shape in `hourly`) and managed pay the on-demand and rent prices too:
    their being unavailable said 'Cloud on-demand -' with hybrid's note; the offer is the cloud
    option's own."""
    args = ["--gpu", "H100-SXM", "--gpus", "1024", "--months", "60"]
    line = next(x for x in hourly(capsys, *args).splitlines() if x.startswith("  Cloud on-demand"))
    assert line.split()[2].startswith("$") and "demand shape" not in line
    figures = {f["key"]: f for f in strict(hourly(capsys, *args, "--json"))["rental_figures"]}
    assert figures["cloud_on_demand_usd_per_gpu_hour"]["not_offered"] is None
    assert figures["rent_usd_per_gpu_hour"]["not_offered"] is None


def test_a_utilisation_too_low_for_a_rate_says_so_in_the_text_and_is_null_in_the_json(capsys):
    """1e-6 % of 256 GPUs over 36 months delivers 0.09 GPU-hours: the engine gives no rate (it
    would be $1e9 per GPU-hour) and the report said so with a TypeError; now it says why."""
    args = ["--gpu", "H100-SXM", "--gpus", "256", "--months", "36", "--utilisation", "1e-6", "5"]
    text = hourly(capsys, *args)
    low, high = re.findall(r"^  at (\S+) % utilisation: (.*)$", text, re.M)
    assert low[1].startswith("no cost per GPU-hour (under 1 GPU-hour delivered"), low
    assert RATE.match(f"  at {high[0]} % utilisation: {high[1]}")
    data = strict(hourly(capsys, *args, "--json"))
    assert [o["usd_per_gpu_hour"] for o in data["owned"]][0] is None
    assert data["owned"][0]["lines_usd_per_gpu_hour"] == {}
    assert data["owned"][1]["usd_per_gpu_hour"] > 0

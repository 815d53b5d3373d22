"""The whole path, fuzzed: generated valid scenarios → `pricing.engine.compare` → the JSON and CSV
exports and the terminal report.

For any scenario the schema accepts, the engine either gives a comparison whose every number is
finite (None only where the result documents it: no cost per GPU-hour or per run when almost
nothing was delivered, no first result when no run finishes), or refuses it with the documented
input error (`InputError`) naming a field to change. The recommendation
names an option with a finite NPV, the JSON export is strict JSON with no number turned to null,
and the CSV holds finite numbers that add up to each option's total.

The generator reaches the edges on purpose: 0 % loan, lease and discount rates, utilisation and run
counts down to 5e-324, every override at both ends of its allowed range, one GPU to MAX_GPUS
(262,144), and the shortest and longest terms. `FUZZ_EXAMPLES=500 .venv/bin/python -m pytest
tests/test_engine_fuzz.py` is the longer run (default: 30 examples, derandomized).
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import re
import shutil
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from app.exports import comparison_json, monthly_csv
from app.recommendation_text import headline, reasons, recommendation_text
from app.report_text import comparison_report
from models.hardware import gpu_ids
from models.scenario import MAX_GPUS, OPTION_IDS, Scenario
from models.shapes import load_presets
from pricing.catalogue.loader import Catalogue, load_catalogue
from pricing.engine import compare
from pricing.inputs import CATALOGUE_KEYS, InputError, override_range

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "30"))
FUZZ = settings(max_examples=EXAMPLES, derandomize=EXAMPLES <= 30)
DRAWS = 16  # Monte Carlo draws per comparison: enough to exercise the path, quick

#: every input the engine lets a scenario override (the catalogue's scalars and the derived prices)
OVERRIDABLE = (
    *CATALOGUE_KEYS,
    "server_usd_per_gpu",
    "rent_usd_per_gpu_hour",
    "cloud_on_demand_usd_per_gpu_hour",
    "cloud_spot_usd_per_gpu_hour",
    "cloud_committed_1y_usd_per_gpu_hour",
    "cloud_committed_3y_usd_per_gpu_hour",
    "residual_value_pct",
    "failure_rate_multiplier",
    "lead_time_multiplier",
)
#: tiny positive values the schema's "> 0" lets through (5e-322 % of a month's hours is a few
#: 1e-319 GPU-hours: a cost per GPU-hour would overflow to infinity)
TINY = [5e-324, 5e-322, 1e-300, 1e-9]


def _override_values(key: str) -> st.SearchStrategy[float]:
    lo, hi = override_range(key)  # the schema takes every override up to 1e12, that bound too
    edges = [lo, hi] + ([0.0] if lo == 0 else [])
    return st.sampled_from(edges) | st.floats(lo, hi)


@st.composite
def scenarios(draw) -> dict:
    workload: dict[str, Any] = {
        "tokens": draw(st.sampled_from([1e6, 1e15]) | st.floats(1e6, 1e15)),
        "seq_len": draw(st.sampled_from([128, 2048, 8192, 131_072])),
        "precision": draw(st.sampled_from(["bf16", "bf16", "fp8"])),
    }
    if draw(st.booleans()):
        workload["model"] = draw(st.sampled_from(sorted(load_presets())))
    else:
        workload["params"] = draw(st.sampled_from([1e8, 1e14]) | st.floats(1e8, 1e14))
        if draw(st.booleans()):
            share = draw(st.sampled_from([1.0, 0.5, 0.05]) | st.floats(0.0, 1.0))
            workload["active_params"] = max(1e7, workload["params"] * share)
    gpu = draw(st.sampled_from(gpu_ids()))
    cluster: dict[str, Any] = {"gpu": gpu}
    target = draw(st.sampled_from(["gpus", "deadline_days", "smallest"]))
    if target == "gpus":
        cluster["gpus"] = draw(st.sampled_from([1, 8, MAX_GPUS]) | st.integers(1, MAX_GPUS))
    elif target == "deadline_days":
        cluster["deadline_days"] = draw(st.sampled_from([0.01, 3650.0]) | st.floats(0.01, 3650))
    usage = {
        "mode": draw(st.sampled_from(["runs", "utilisation"])),
        "runs": draw(st.sampled_from([*TINY, 1.0, 1000.0]) | st.floats(1e-3, 1000)),
        "utilisation_pct": draw(st.sampled_from([*TINY, 100.0]) | st.floats(1e-3, 100)),
    }
    term = {
        "months": draw(st.sampled_from([12, 60]) | st.integers(12, 60)),
        "discount_rate_pct": draw(st.sampled_from([None, 0.0, 50.0]) | st.floats(0, 50)),
        "financing": draw(st.sampled_from(["cash", "loan", "lease"])),
        "loan_years": draw(st.integers(1, 10)),
    }
    providers = load_catalogue().providers(gpu)
    options: dict[str, Any] = {
        "compare": draw(
            st.lists(st.sampled_from(OPTION_IDS), min_size=1, max_size=len(OPTION_IDS), unique=True)
        ),
        "facility": draw(st.sampled_from(["colocation", "owned"])),
    }
    for field in ("rent_provider", "cloud_provider"):
        if providers and draw(st.integers(0, 4)) == 0:
            options[field] = draw(st.sampled_from(providers))
    overrides = {}
    for key in draw(st.lists(st.sampled_from(OVERRIDABLE), max_size=6, unique=True)):
        overrides[key] = float(draw(_override_values(key)))
    if term["financing"] != "cash" and draw(st.booleans()):  # half the loans and leases at 0 %
        overrides[f"{term['financing']}_rate_pct_per_year"] = 0.0
    return {
        "workload": workload,
        "cluster": cluster,
        "usage": usage,
        "term": term,
        "options": options,
        "overrides": overrides,
    }


def _numbers(value: Any, path: str = ""):
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _numbers(v, f"{path}.{k}")
    elif isinstance(value, list | tuple):
        for i, v in enumerate(value):
            yield from _numbers(v, f"{path}[{i}]")
    elif isinstance(value, float):
        yield path, value


def _strict_json(text: str) -> Any:
    def refuse(constant: str) -> None:
        raise AssertionError(f"{constant} in the JSON export")

    return json.loads(text, parse_constant=refuse)


def check_whole_path(data: dict, catalogue: Catalogue | None = None) -> None:
    scenario = Scenario.model_validate(data)  # the generator only makes valid scenarios
    try:
        c = compare(scenario, catalogue, draws=DRAWS)
    except InputError as exc:
        # a documented refusal names something the user can change; the engine's own guard
        # against non-finite flows ("... is not a finite number for this scenario") is not one:
        # for a valid scenario, whose overrides are all finite, it means a formula broke
        assert exc.field and exc.field != "scenario", (exc.field, str(exc))
        assert "finite" not in str(exc), (exc.field, str(exc))
        return

    dump = c.model_dump(mode="python")
    bad = [(path, v) for path, v in _numbers(dump) if not math.isfinite(v)]
    assert not bad, bad[:10]
    for o in c.options:
        assert math.isfinite(o.total_usd) and math.isfinite(o.npv_usd), o.option
        for value in (o.usd_per_gpu_hour, o.usd_per_training_run):
            assert value is None or math.isfinite(value), o.option
    by_id = {o.option: o for o in c.options}
    chosen = c.recommendation.option
    ranked = [o for o in c.options if o.available and o.completes_workload]
    if chosen is None:
        assert ranked == []
    else:
        best = by_id[chosen]
        assert best.available and best.completes_workload and math.isfinite(best.npv_usd)
        assert best.npv_usd == min(o.npv_usd for o in ranked)
    assert "nan" not in recommendation_text(c.recommendation).lower()
    assert "nan" not in " ".join([headline(c.recommendation), *reasons(c.recommendation)]).lower()

    exported = _strict_json(comparison_json(c))
    exported["recommendation"].pop("why")  # the app's words (app/recommendation_text.py)
    assert exported == json.loads(json.dumps(c.model_dump(mode="json"))), "a number became null"
    rows = list(csv.DictReader(monthly_csv(c).splitlines()))
    for o in c.options:
        usd = [float(r["usd"]) for r in rows if r["option"] == o.option]
        assert all(math.isfinite(v) for v in usd), o.option
        if o.available:
            assert math.fsum(usd) == pytest.approx(o.total_usd, rel=1e-9, abs=1e-6), o.option
    assert not re.search(r"\b(nan|inf|infinity)\b", comparison_report(c), re.I)


ZERO_RATE_LOAN = {
    "workload": {"model": "llama3-8b", "tokens": 1e11},
    "cluster": {"gpu": "H100-SXM", "gpus": 64},
    "term": {"financing": "loan", "months": 60, "loan_years": 10},
    "options": {"compare": ["build", "managed:owned", "rent"]},
    "overrides": {"loan_rate_pct_per_year": 0.0, "discount_rate_pct_per_year": 0.0},
}
ZERO_RATE_LEASE_ALMOST_IDLE = {
    "workload": {"params": 1e9, "tokens": 1e9},
    "cluster": {"gpu": "A100-80GB", "gpus": 8},
    "usage": {"mode": "utilisation", "utilisation_pct": 5e-322},
    "term": {"financing": "lease", "months": 12},
    "options": {"compare": ["build", "cloud:committed_3y"], "facility": "owned"},
    "overrides": {"lease_rate_pct_per_year": 0.0},
}


@FUZZ
@given(scenarios())
@example(ZERO_RATE_LOAN)
@example(ZERO_RATE_LEASE_ALMOST_IDLE)
def test_every_valid_scenario_gives_finite_results_or_a_documented_refusal(data):
    check_whole_path(data)


@pytest.mark.parametrize("field", ["rent_provider", "cloud_provider"])
def test_a_provider_without_an_on_demand_price_gives_a_result_or_an_input_error(
    field, tmp_path, fixture_catalogue
):
    data_dir = shutil.copytree(fixture_catalogue.data_dir, tmp_path / "catalogue")
    with (data_dir / "rental_prices.csv").open("a", encoding="utf-8") as rows:
        rows.write(
            "H100-SXM,CommitOnly,neocloud,committed_1y,2.5,,2025-01-01,B,"
            "test fixture (made-up figure),TEST DATA: a provider with no on-demand price\n"
        )
    check_whole_path(
        {
            "workload": {"model": "llama3-8b", "tokens": 1e10},
            "cluster": {"gpu": "H100-SXM", "gpus": 8},
            "options": {"compare": ["build"], field: "CommitOnly"},
        },
        load_catalogue(data_dir),
    )


@settings(max_examples=6, derandomize=True)
@given(scenarios())
@example(ZERO_RATE_LOAN)
@example(ZERO_RATE_LEASE_ALMOST_IDLE)
def test_the_pdf_of_any_valid_scenario_reads_back_with_finite_numbers(data):
    """The last stage of the path: the PDF (tables only, so no browser per example), opened and
    its text read back: every page there, no NaN or infinity printed anywhere."""
    from unittest import mock

    import pypdf

    from app import report_pdf

    try:
        c = compare(Scenario.model_validate(data), draws=DRAWS)
    except InputError:
        return  # a documented refusal; check_whole_path holds its form
    with mock.patch.object(report_pdf, "charts_available", return_value=False):
        report = report_pdf.build_report(c, link="")
    pages = pypdf.PdfReader(io.BytesIO(report.data)).pages
    assert len(pages) == report.pages
    text = "\n".join(page.extract_text() for page in pages)
    assert headline(c.recommendation)[:40] in " ".join(text.split())
    assert not re.search(r"\b(nan|inf|infinity)\b", text, re.I)

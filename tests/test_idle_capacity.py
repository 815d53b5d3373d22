"""A fixed-size option held mostly idle by a rare, large run (issue 30 follow-up,
pricing/idle_capacity.py): a 13B pre-train run once every five months, planned at the efficient
size (2,048 H100 for 2 days) because it gives no GPU count, holds Build, Rent and Managed at
2,048 GPUs for 24 months. Every surface says so beside the answer, with the GPU count at which
one run takes its longest acceptable time and the option's cost there."""

from __future__ import annotations

import json

import pytest

from app import exports, report_pdf, report_text
from app.idle_text import IDLE_HEADING
from models.scenario import Scenario
from pricing.engine import compare
from pricing.idle_capacity import IDLE_SHARE_MIN, idle_share, longest_run_days
from tests.builders import GENERATED, app
from tests.readback import as_read, flat, pdf_text

RARE = {
    "version": 2,
    "workloads": [
        {
            "kind": "pretrain",
            "name": "p13",
            "team": "a",
            "model": "llama2-13b",
            "tokens": 1e12,
            "runs_per_month": 0.2,
            "start_month": 0,
            "duration_months": 24,
        }
    ],
    "term": {"months": 24},
    "cluster": {"gpu": "H100-SXM"},
    "constraints": {"public_cloud_allowed": False},
}


def _with(**changes) -> Scenario:
    data = json.loads(json.dumps(RARE))
    data["workloads"][0] |= changes
    return Scenario.model_validate(data)


@pytest.fixture(scope="module")
def rare():
    return compare(Scenario.model_validate(RARE))


def test_each_fixed_size_option_held_idle_by_the_rare_run_is_named(rare):
    notes = {n.option: n for n in rare.idle_gang}
    assert set(notes) == {"build", "rent", "managed"}  # cloud is ruled out; per use never held
    for n in notes.values():
        assert n.size_gpus == n.run_gpus == 2048 and n.idle_share > 0.95
        assert n.field == "workloads[0].gpus" and n.workload == "p13"


def test_the_remedy_is_the_same_comparison_rerun_on_the_smaller_count(rare):
    """The count fits one run in the 122 days from the last release (month 20) to the term end;
    the cost there is compare() of the scenario with that count, not a hand calculation."""
    n = next(n for n in rare.idle_gang if n.option == "rent")
    assert n.longest_by == "term" and n.longest_run_days == pytest.approx(4 * 30.4375)
    assert n.smaller_gpus < 2048 and n.smaller_run_days <= n.longest_run_days
    there = compare(_with(gpus=n.smaller_gpus), decision=False).option("rent")
    assert n.smaller_total_usd == there.total_usd and n.smaller_npv_usd == there.npv_usd
    assert n.smaller_size_gpus == there.capacity_size_gpus
    assert n.smaller_total_usd < n.total_usd / 10 and n.smaller_meets_service_level


def test_a_buyer_given_count_is_not_second_guessed():
    assert compare(_with(gpus=2048), decision=False).idle_gang == []


def test_a_busy_option_or_one_sized_past_the_run_is_not_flagged():
    """Nine runs a month keep Build's 2,048 GPUs busy about 70 % of the hours (under the
    threshold); Rent, at 10,240 GPUs for its waits, is mostly idle but the 2,048-GPU run is a
    fifth of it, so the run does not set its size. (Ten a month before amendment 3 of the
    whole-run factor, whose larger F at 2,048 GPUs now fills Build past 2,048 at ten.)"""
    c = compare(_with(runs_per_month=9.0), decision=False)
    build, rent = c.option("build"), c.option("rent")
    assert build.capacity_size_gpus == 2048 and idle_share(build) < IDLE_SHARE_MIN == 0.5
    assert rent.capacity_size_gpus >= 4 * 2048 and idle_share(rent) > IDLE_SHARE_MIN
    assert c.idle_gang == []


def test_the_longest_run_is_the_spacing_when_the_term_allows():
    w = _with(duration_months=12).workloads[0]  # runs at months 0, 5, 10; term 24
    assert longest_run_days(w, 24) == (pytest.approx(5 * 30.4375), "spacing")


def test_the_text_report_and_json_say_it_beside_the_answer(rare):
    text = report_text.comparison_report(rare)
    after = text.split("Recommendation:")[1]
    assert IDLE_HEADING in after.split("What moves the gap")[0]
    assert "Give it a GPU count (workloads[0].gpus)" in text and "2,048 GPUs" in text
    data = exports.comparison_data(rare)
    assert [n["option"] for n in data["idle_gang"]] == ["build", "rent", "managed"]


def test_the_pdf_says_it_on_page_one(rare, monkeypatch):
    monkeypatch.setattr(report_pdf, "charts_available", lambda *a, **k: False)
    text = flat(pdf_text(report_pdf.build_pdf(rare, link="", generated=GENERATED)))
    assert flat(IDLE_HEADING) in text and flat("(workloads[0].gpus)") in text
    n = rare.idle_gang[1]
    assert flat(f"Rent dedicated then holds {n.smaller_size_gpus:,} GPUs") in text


def test_compare_in_portfolio_mode_warns_with_the_remedy():
    at = app("compare", scenario=json.loads(json.dumps(RARE)))
    warned = [as_read(w.value) for w in at.warning]
    warned = [w for w in warned if "Give it a GPU count (workloads[0].gpus)" in w]
    assert [w.split(" holds")[0] for w in warned] == ["Build", "Rent dedicated", "Managed"]
    assert all("2,048 GPUs and leaves" in w for w in warned)

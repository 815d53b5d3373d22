"""A deadline counts from the decision (day 0) to the end of the first run, provisioning included:
the engine sizes the cluster to leave room for the provisioning of the option that can deliver
first, marks the options that miss it, and recommends only options that meet it. On the made-up
fixture catalogue (tests/fixtures/catalogue), where building is ready on day ~130 and renting on
day 17."""

import pathlib

import pytest

from app.formatting import deadline_miss, deadline_sizing, md_plain
from app.recommendation_text import recommendation_text
from app.report_text import comparison_report
from models.errors import InputError
from models.numbers import on_day
from models.scenario import MAX_GPUS
from models.training.sizing import gpu_ladder
from pricing import decision as ds
from pricing.engine import compare
from pricing.inputs import build_inputs
from tests.builders import scenario

DEADLINE = 100.0
HARNESS = str(pathlib.Path(__file__).with_name("portal_harness.py"))


#: twenty 10T-token runs on H100s sized for the DEADLINE, building against renting
DEADLINED = {
    "workload": {"model": "llama3-8b", "tokens": 1e13, "seq_len": 4096},
    "cluster": {"gpu": "H100-SXM", "deadline_days": DEADLINE},
    "usage": {"mode": "runs", "runs": 20},
    "term": {"months": 60},
    "options": {"compare": ["build", "rent"]},
}


@pytest.fixture(scope="module")
def late_build(fixture_catalogue):
    return compare(scenario(DEADLINED), fixture_catalogue, draws=200)


def test_build_that_cannot_provision_in_time_is_marked_and_not_recommended(late_build):
    c = late_build
    build, rent = c.option("build"), c.option("rent")
    assert build.npv_usd < rent.npv_usd  # building is cheaper: only the deadline rules it out
    assert build.meets_deadline is False and rent.meets_deadline is True
    assert build.days_past_deadline == pytest.approx(build.first_result_day - DEADLINE)
    assert build.days_past_deadline > 90 and rent.days_past_deadline == 0.0
    rec = c.recommendation
    assert (rec.option, rec.meets_deadline) == ("rent", True)
    assert rec.chosen_on_time and rec.deadline_days == DEADLINE and rec.closest_late is None
    assert [(m.option, m.days_past_deadline) for m in rec.cheaper_but_late] == [
        ("build", build.days_past_deadline)
    ]
    # the day in which the first run ends, by the number rule the engine writes with (ceil)
    assert recommendation_text(rec).endswith(
        f"Build is cheaper but delivers on {on_day(build.first_result_day)}, "
        f"{build.days_past_deadline:,.0f} days after the 100-day deadline"
    )
    assert "lowest cost over 60 months of the options that deliver by the 100-day deadline" in (
        recommendation_text(rec)
    )


def test_deadline_sizing_leaves_room_for_the_provisioning_of_the_option_ready_first(
    late_build, fixture_catalogue
):
    c = late_build
    t, rent = c.training, c.option("rent")
    assert t.deadline_sized_for == "rent"
    # renting neither restarts faster nor is interrupted: its run takes the core's days
    assert t.train_days_budget == pytest.approx(DEADLINE - rent.ready_day)
    assert t.train_days <= t.train_days_budget
    assert rent.first_result_day <= DEADLINE
    # the fewest GPUs that do it: one step down the ladder, renting would finish late
    ladder = gpu_ladder(8, MAX_GPUS)
    fewer = ladder[ladder.index(t.gpus) - 1]
    smaller = scenario(DEADLINED, cluster={"deadline_days": None, "gpus": fewer})
    assert compare(smaller, fixture_catalogue, decision=False).option("rent").first_result_day > (
        DEADLINE
    )


def test_no_deadline_leaves_the_deadline_fields_empty(fixture_catalogue):
    c = compare(
        # 15 runs: 20 whole runs of ~109 days no longer fit the 60-month term on 128 GPUs
        scenario(DEADLINED, cluster={"deadline_days": None, "gpus": 128}, usage={"runs": 15}),
        fixture_catalogue,
        decision=False,
    )
    assert [(o.meets_deadline, o.days_past_deadline) for o in c.options] == [(None, None)] * 2
    assert c.recommendation.meets_deadline is None
    assert (c.training.train_days_budget, c.training.deadline_sized_for) == (None, None)
    assert c.recommendation.option == "build"  # the cheapest, with nothing to rule it out


def test_a_deadline_before_any_option_is_ready_is_refused_naming_the_field(fixture_catalogue):
    with pytest.raises(InputError) as exc:
        compare(scenario(DEADLINED, cluster__deadline_days=15), fixture_catalogue)
    assert exc.value.field == "cluster.deadline_days"
    # sized for 15 days the run needs 1,024 GPUs (1,792 under amendment 3's steeper GPU-count term,
    # 1,280 before it; amendment 5 flattened it), which the fixture's rental delivers on day 17
    assert "Rent dedicated, is ready on day 17 for 1,024 H100-SXM, before any training" in str(
        exc.value
    )
    # ready in time, but no cluster trains in the few hours left
    with pytest.raises(InputError) as exc:
        compare(scenario(DEADLINED, cluster__deadline_days=17.1), fixture_catalogue)
    assert exc.value.field == "cluster.deadline_days"
    assert "Rent dedicated, the option that can deliver first, is ready around day 17" in str(
        exc.value
    )


def test_when_no_option_meets_the_deadline_the_cheapest_is_recommended_with_the_caveat(
    late_build, fixture_catalogue
):
    """Sizing makes one option meet the deadline; one that then cannot (e.g. it does not finish
    the workload) leaves only late ones: the answer says so first and names the closest."""
    inp = build_inputs(scenario(DEADLINED), fixture_catalogue)
    build, rent = late_build.option("build"), late_build.option("rent")
    rent_late = rent.model_copy(
        update={"meets_deadline": False, "days_past_deadline": 3.0, "first_result_day": 103.0}
    )
    rec = ds.recommend(inp, [build, rent_late])
    assert (rec.option, rec.meets_deadline) == ("build", False)
    assert rec.closest_late.option == "rent" and rec.closest_late.days_past_deadline == 3.0
    assert not rec.chosen_on_time and rec.cheaper_but_late == []
    assert recommendation_text(rec).startswith(
        "No option delivers by the 100-day deadline (Rent dedicated comes closest: it delivers "
        "on day 103, 3 days after the 100-day deadline). Build has the lowest cost over 60 months ("
    )


def test_the_text_report_marks_the_late_option_and_says_how_the_deadline_sized_the_cluster(
    late_build,
):
    c = late_build
    build, rent = c.option("build"), c.option("rent")
    lines = comparison_report(c).splitlines()
    assert deadline_miss("Build", DEADLINE, build.first_result_day, build.days_past_deadline) in (
        lines
    )
    assert not any(line.startswith("Rent dedicated misses") for line in lines)
    assert lines[1] == deadline_sizing(
        DEADLINE, "Rent dedicated", rent.ready_day, rent.first_result_day
    )


def test_the_compare_page_marks_the_options_that_miss_the_deadline():
    """The portal runs on the bundled catalogue: building (procurement lead times of weeks) is not
    ready within 60 days, renting is."""
    from streamlit.testing.v1 import AppTest

    sc = scenario(DEADLINED, cluster__deadline_days=60.0)
    at = AppTest.from_file(HARNESS, default_timeout=60)
    at.run()
    at.session_state["scenario"] = sc.model_dump(mode="json")
    at.session_state["_page"] = "compare"
    at.run()
    assert not at.exception, at.exception
    c = compare(sc)
    build = c.option("build")
    assert build.meets_deadline is False
    expected = deadline_miss("Build", 60.0, build.first_result_day, build.days_past_deadline)
    assert [w.value for w in at.warning if "deadline" in w.value] == [md_plain(expected) + "."]
    table = at.dataframe[0].value.set_index("Option")["Deadline"].to_dict()
    assert table == {
        "Build": f"{build.days_past_deadline:,.0f} days late",
        "Rent dedicated": "met",
    }


def test_the_pdf_marks_the_late_option_and_says_how_the_deadline_sized_the_cluster(
    late_build, monkeypatch
):
    import io
    import re

    from pypdf import PdfReader

    from app import report_pdf

    monkeypatch.setattr(report_pdf, "charts_available", lambda *args, **kwargs: False)
    c = late_build
    build, rent = c.option("build"), c.option("rent")
    data = report_pdf.build_pdf(c, title="deadline")
    text = re.sub(r"\s+", "", "".join(p.extract_text() for p in PdfReader(io.BytesIO(data)).pages))
    for line in (
        deadline_miss("Build", DEADLINE, build.first_result_day, build.days_past_deadline),
        deadline_sizing(DEADLINE, "Rent dedicated", rent.ready_day, rent.first_result_day),
    ):
        assert re.sub(r"\s+", "", line) + "." in text

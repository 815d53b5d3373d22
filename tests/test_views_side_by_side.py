"""The Side by side page (AppTest, the real script, no browser): save the scenario in force under
two names with a change between, pick both, and the table shows each one's own comparison."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from app import share_link
from app.formatting import days, on_day, usd, usd_rate
from app.scenario_files import EXAMPLE
from app.side_by_side import HEADER
from models.scenario import Scenario
from models.scenario_set import ScenarioSet
from pricing.engine import compare
from tests.builders import app


def save(at: AppTest, name: str) -> AppTest:
    at.text_input(key="sbs_name").set_value(name)
    at.button[0].click().run()  # the form's Save
    assert not at.exception, at.exception
    return at


@pytest.fixture(scope="module")
def saved_two():
    at = app("side_by_side")
    save(at, "H100")
    at.session_state["scenario"]["cluster"]["gpu"] = "B200"  # as the Workload page would
    save(at, "B200")
    return at


def test_save_two_and_compare_shows_each_ones_own_numbers(saved_two):
    at = saved_two
    assert not at.error, [e.value for e in at.error]
    assert at.multiselect(key="sbs_pick").value == ["H100", "B200"]  # both picked on save
    table = at.dataframe[0].value
    assert list(table.columns) == HEADER
    for name, gpu in (("H100", "H100-SXM"), ("B200", "B200")):
        data = {**EXAMPLE, "cluster": {**EXAMPLE["cluster"], "gpu": gpu}}
        c = compare(Scenario.model_validate(data))
        rows = table[table["Scenario"] == name]
        assert len(rows) == len(c.options)
        for (_, row), o in zip(rows.iterrows(), c.options, strict=True):
            assert row["Option"].startswith(o.label)
            assert row["Total (nominal)"] == usd(o.total_usd)
            assert row["NPV"] == usd(o.npv_usd)
            assert row["Ready"] == on_day(o.ready_day)
            assert row["Training days"] == days(o.train_days)
            assert row["$ per delivered GPU-hour"] == usd_rate(o.usd_per_gpu_hour)
    # the two differ: a B200 run is shorter
    assert set(table[table["Scenario"] == "H100"]["Training days"]) != set(
        table[table["Scenario"] == "B200"]["Training days"]
    )


def test_the_address_carries_the_set_and_a_fresh_session_opens_it(saved_two):
    token = (
        saved_two.query_params["s"][0]
        if isinstance(saved_two.query_params["s"], list)
        else saved_two.query_params["s"]
    )
    link = share_link.decode_link(token)
    got = ScenarioSet.model_validate(link.sections["side_by_side"])
    assert [s.name for s in got.scenarios] == ["H100", "B200"]
    assert got.named("B200").cluster.gpu == "B200" and got.picked == ["H100", "B200"]
    fresh = app("side_by_side", token)
    assert fresh.multiselect(key="sbs_pick").value == ["H100", "B200"]
    assert fresh.dataframe[0].value.equals(saved_two.dataframe[0].value)


def test_one_picked_asks_for_another_and_bad_names_are_refused():
    at = app("side_by_side")
    save(at, "only")
    assert not at.dataframe
    assert any("Pick 2 or 3" in i.value for i in at.info)
    save(at, "   ")
    assert any("Not saved" in e.value and "1 to 60" in e.value for e in at.error)

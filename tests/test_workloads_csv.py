"""A portfolio's workloads as CSV (app/workloads_csv.py): every field a column, the service level
(`max_wait_days`) and the value of time among them, written on export and optional on import; a
file round-trips to the same workloads; hostile input is refused naming the row and column."""

from __future__ import annotations

import json

import pytest

from app.scenario_files import PORTFOLIOS
from app.workloads_csv import COLUMNS, MAX_CSV_BYTES, read_workloads_csv, workloads_csv
from models.errors import InputError
from models.portfolio.workloads import MAX_WAIT_DAYS, parse_workloads
from models.scenario import MAX_WORKLOADS


def _records(name: str):
    return parse_workloads(json.loads(PORTFOLIOS[name].read_text())["workloads"])


@pytest.mark.parametrize("name", list(PORTFOLIOS))
def test_a_sample_round_trips_to_the_same_workloads(name):
    records = _records(name)
    text = workloads_csv(records)
    back = parse_workloads(read_workloads_csv(text))
    assert back == records
    assert workloads_csv(back) == text


def test_the_service_level_and_the_value_of_time_are_columns_written_on_export():
    assert {"max_wait_days", "value_usd_per_day_earlier"} <= set(COLUMNS)
    records = parse_workloads(
        [
            {"kind": "serve", "name": "api"},  # the kind's default service level, 0 days
            {
                "kind": "steady",
                "name": "lab",
                "max_wait_days": 7.5,
                "value_usd_per_day_earlier": 1e4,
            },
        ]
    )
    rows = workloads_csv(records).splitlines()
    at = COLUMNS.index("max_wait_days")
    assert rows[1].split(",")[at] == "0.0" and rows[2].split(",")[at] == "7.5"
    back = parse_workloads(read_workloads_csv("\n".join(rows)))
    assert back[1].max_wait_days == 7.5 and back[1].value_usd_per_day_earlier == 1e4


def test_the_service_level_is_optional_on_import():
    items = read_workloads_csv("kind,name,gpus\nsteady,a,8\nfinetune,b,\n")
    assert items == [{"kind": "steady", "name": "a", "gpus": 8}, {"kind": "finetune", "name": "b"}]
    a, b = parse_workloads(items)
    assert (a.max_wait_days, b.max_wait_days) == (3.0, 3.0)  # the kinds' defaults
    assert read_workloads_csv("name,kind,max_wait_days\nx,steady,\n") == [
        {"name": "x", "kind": "steady"}
    ]


def test_text_that_reads_as_a_formula_is_escaped_and_read_back():
    records = parse_workloads([{"kind": "steady", "name": "=HYPERLINK(1)", "team": "+team"}])
    text = workloads_csv(records)
    assert "'=HYPERLINK(1)" in text and "'+team" in text
    assert parse_workloads(read_workloads_csv(text)) == records


@pytest.mark.parametrize(
    ("cell", "says"),
    [
        ("-1", "at least 0"),
        ("1e9", f"at most {MAX_WAIT_DAYS:g}"),
        ("a fortnight", "'a fortnight' is not a number"),
        ("nan", "not a finite number"),
        ("inf", "not a finite number"),
    ],
)
def test_a_hostile_service_level_is_refused_naming_the_row_and_column(cell, says):
    text = f"kind,name,max_wait_days\nsteady,ok,1\nsteady,bad,{cell}\n"
    with pytest.raises(InputError) as exc:
        read_workloads_csv(text)
    message = str(exc.value)
    assert message.startswith("row 3 (workload 2), column max_wait_days: "), message
    assert says in message, message


def test_a_hostile_value_of_time_is_refused_naming_the_row_and_column():
    with pytest.raises(InputError) as exc:
        read_workloads_csv("kind,name,value_usd_per_day_earlier\nsteady,a,-5\n")
    assert str(exc.value).startswith("row 2 (workload 1), column value_usd_per_day_earlier: ")
    assert "at least 0" in str(exc.value)


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("", "the file is empty"),
        ("kind,name\n", "no workload rows"),
        ("kind,name,price\nsteady,a,1\n", "row 1, column 'price': not a workload field"),
        ("name,gpus\na,8\n", "row 1: no kind column"),
        ("kind,name,name\nsteady,a,b\n", "a column named twice"),
        ("kind,name\nsteady,a,extra\n", "row 2: 3 cells for 2 columns"),
        ("kind,name\nrobot,a\n", "row 2 (workload 1), column kind: 'robot' is not a workload kind"),
        ("kind,name,rps\nsteady,a,5\n", "row 2 (workload 1), column rps:"),
        ("kind,name\nsteady,a\nsteady,a\n", "row 3 (workload 2), column name: 'a' is used twice"),
        ("kind,name,gpus\nsteady,a,1e300\n", "row 2 (workload 1), column gpus:"),
    ],
)
def test_a_bad_file_is_refused_with_the_place_named(text, says):
    with pytest.raises(InputError) as exc:
        read_workloads_csv(text)
    assert says in str(exc.value), str(exc.value)


def test_a_file_too_large_or_too_long_is_refused_before_it_is_validated():
    with pytest.raises(InputError, match="larger than 256 KiB"):
        read_workloads_csv("kind,name\n" + "x" * MAX_CSV_BYTES)
    rows = "".join(f"steady,w{i}\n" for i in range(MAX_WORKLOADS + 1))
    with pytest.raises(InputError, match=f"more than {MAX_WORKLOADS} workloads"):
        read_workloads_csv("kind,name\n" + rows)


# ------------------------------------------------------------------------- the Workload page


def test_the_workload_page_downloads_and_uploads_the_workloads():
    from tests.builders import app, sample
    from tests.readback import errors

    at = app(scenario=sample("lab"))
    assert "Download workloads (CSV)" in [b.label for b in at.get("download_button")]
    text = workloads_csv(_records("enterprise")).replace(",3.0,", ",9.0,", 1)
    at.file_uploader(key="workloads_csv_file").upload("w.csv", text.encode(), "text/csv")
    at.run()
    assert not at.error, errors(at)
    rows = at.session_state["scenario"]["workloads"]
    assert [w["name"] for w in rows] == ["monthly-finetune", "assistant-api"]
    assert rows[0]["max_wait_days"] == 9.0
    assert [r["name"] for r in at.data_editor[0].value.to_dict("records")] == [
        "monthly-finetune",
        "assistant-api",
    ]
    bad = "kind,name,max_wait_days\nsteady,a,soon\n"
    at.file_uploader(key="workloads_csv_file").set_value(("bad.csv", bad.encode(), "text/csv"))
    at.run()
    message = errors(at)
    assert "row 2 (workload 1), column max_wait_days: 'soon' is not a number" in message, message
    assert [w["name"] for w in at.session_state["scenario"]["workloads"]][0] == "monthly-finetune"

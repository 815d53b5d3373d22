"""The Assumptions page (labels, formatted values, sources, the tornado's order, overrides typed in
range or refused) and the one line that says which overrides are in force, on every page that uses
the scenario's comparison and in the PDF (AppTest: the real script, no browser)."""

from __future__ import annotations

import copy
import re

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from app import report_pdf
from app.assumption_labels import BARE, LABELS, UNIT_FORMATS
from app.range_text import range_cell
from app.scenario_files import EXAMPLE
from app.views.assumptions import GAP, RANK, STATUS, YOURS
from models.scenario import Scenario
from pricing.engine import compare
from pricing.inputs import CATALOGUE_KEYS
from pricing.usage import USAGE_KEYS
from tests.builders import app
from tests.portal_app import goto


@pytest.fixture(scope="module")
def example():
    return compare(Scenario.model_validate(EXAMPLE))


def rows(at: AppTest) -> dict[str, dict]:
    frame = at.data_editor[0].value
    return {r["key"]: r for r in frame.to_dict("records")}


def edit(at: AppTest, key: str, value) -> AppTest:
    """Types `value` (None: clears the cell) into the row's Your value cell."""
    editor = at.data_editor[0]
    row = list(editor.value["key"]).index(key)
    at.session_state[editor.key] = {
        "edited_rows": {row: {YOURS: value}},
        "added_rows": [],
        "deleted_rows": [],
    }
    at.run()
    assert not at.exception, at.exception
    return at


# ------------------------------------------------------------------------ labels and formats


def test_every_catalogue_key_and_every_figure_used_has_a_label_and_a_format(example):
    used = {a.key for a in example.assumptions}
    assert set(CATALOGUE_KEYS) <= set(LABELS), sorted(set(CATALOGUE_KEYS) - set(LABELS))
    assert used <= set(LABELS), sorted(used - set(LABELS))
    for a in example.assumptions:
        assert a.key in BARE or a.unit in UNIT_FORMATS, (a.key, a.unit)


def test_the_table_shows_labels_formatted_values_and_full_sources(example):
    at = goto(app(), "assumptions")
    table = rows(at)
    used = {a.key: a for a in example.assumptions}
    assert set(table) == set(used)  # one table, every figure (each overridable)
    assert not set(used) & USAGE_KEYS  # the scenario's usage is no catalogue figure
    switch = table["ib_switch_64port_ndr_usd_per_switch"]
    assert switch["Figure"] == "InfiniBand switch, 64-port NDR (USD per switch)"
    price = used["ib_switch_64port_ndr_usd_per_switch"].value
    assert switch["In use"] == f"${price:,.0f} per switch"
    server = used["server_usd_per_gpu"].value
    assert server % 1 and table["server_usd_per_gpu"]["In use"] == f"${round(server):,} per GPU"
    spares = used["spares_pct_of_nodes"].value
    assert table["spares_pct_of_nodes"]["In use"] == f"{spares:g} %"
    assert table["pue"]["In use"] == f"{used['pue'].value:g}"
    for key, row in table.items():
        a = used[key]
        assert row["Source"] == range_cell(a) + a.source and row["As of"] == (a.as_of or "-")
        if "://" in a.source:
            assert row["Link"].startswith("http") and row["Link"] in a.source, key
        else:
            assert pd.isna(row["Link"]), key
        assert not re.search(r"\d\.\d{5}", row["In use"]), (key, row["In use"])  # 73.2119...
    # a figure carried over a range says so before its source (the resale's, sourced)
    assert table["residual_value_pct"]["Source"].startswith("Range ")
    assert "SpotWire" in table["residual_value_pct"]["Source"]


def test_rows_follow_the_tornado_most_influential_first(example):
    at = goto(app(), "assumptions")
    frame = at.data_editor[0].value
    bars = [b.key for b in example.sensitivity.bars]
    ranked = [(k, bars.index(k) + 1) for k in bars if k not in USAGE_KEYS]
    assert len(ranked) >= 3
    head = frame.head(len(ranked))
    assert list(zip(head["key"], head[RANK], strict=True)) == ranked
    assert frame[RANK].iloc[len(ranked) :].isna().all()
    gap = rows(at)[ranked[0][0]][GAP]
    bar = example.sensitivity.bars[ranked[0][1] - 1]
    assert gap == (
        f"${bar.gap_low_usd / 1e6:,.2f}M / ${bar.gap_high_usd / 1e6:,.2f}M".replace("$-", "-$")
    )


# ------------------------------------------------------------------------ overrides


def test_an_override_is_used_and_clearing_it_goes_back_to_the_catalogue(example):
    at = goto(app(), "assumptions")
    edit(at, "electricity_usd_per_kwh", 0.2)
    assert at.session_state["scenario"]["overrides"] == {"electricity_usd_per_kwh": 0.2}
    row = rows(at)["electricity_usd_per_kwh"]
    assert row["In use"] == "$0.20 per kWh" and row[YOURS] == 0.2
    assert row[STATUS] == "overridden; catalogue $0.0861 per kWh"
    edit(at, "electricity_usd_per_kwh", None)
    assert at.session_state["scenario"]["overrides"] == {}
    row = rows(at)["electricity_usd_per_kwh"]
    assert row["In use"] == "$0.0861 per kWh" and row[STATUS] == ""
    assert at.session_state[at.data_editor[0].key]["edited_rows"] == {}


def test_an_out_of_range_value_is_shown_as_rejected_and_the_default_stays_in_use():
    at = app()
    at.session_state["scenario"]["overrides"] = {"pue": 1.2}
    goto(at, "assumptions")
    assert rows(at)["pue"]["In use"] == "1.2"
    edit(at, "pue", 5.0)
    assert at.session_state["scenario"].get("overrides", {}) == {}  # never in the scenario
    row = rows(at)["pue"]
    assert row[YOURS] == 5.0  # what was typed stays
    assert row[STATUS] == "rejected: 5, allowed 1 to 3"
    assert row["In use"] == "1.54"  # the catalogue's, not the typed one nor the old override
    assert any("5 is out of range" in e.value and "not applied" in e.value for e in at.error)
    assert not [i.value for i in at.info if "overridden assumption" in i.value]
    edit(at, "pue", 1.4)  # a valid value replaces the rejected one
    assert at.session_state["scenario"]["overrides"] == {"pue": 1.4}
    assert not at.error and rows(at)["pue"][STATUS].startswith("overridden")


def test_reset_clears_overrides_and_rejected_values():
    at = app()
    at.session_state["scenario"]["overrides"] = {"electricity_usd_per_kwh": 0.2}
    goto(at, "assumptions")
    edit(at, "spares_pct_of_nodes", 150.0)
    at.button(key="reset_overrides").click().run()
    assert at.session_state["scenario"]["overrides"] == {}
    row = rows(at)["spares_pct_of_nodes"]
    assert pd.isna(row[YOURS]) and row[STATUS] == ""
    assert not at.error


# ------------------------------------------------------------------------ the overrides line

LINE = "2 overridden assumptions in use: Electricity price = $0.20 per kWh, Power usage"


@pytest.mark.parametrize("page", ["compare", "guide", "assumptions"])
def test_every_page_that_uses_the_scenario_says_which_overrides_are_in_use(page):
    lines = [i.value for i in goto(app(), page).info if "overridden" in i.value]
    assert lines == []
    at = app()
    at.session_state["scenario"]["overrides"] = {"pue": 1.2, "electricity_usd_per_kwh": 0.2}
    goto(at, page)
    lines = [
        i.value.replace("\\", "").replace("\u200b", "") for i in at.info if "overridden" in i.value
    ]
    assert len(lines) == 1 and lines[0].startswith(LINE), lines
    assert lines[0].endswith("PUE = 1.2"), lines


def test_the_pdf_header_says_which_overrides_are_in_use(monkeypatch, example):
    monkeypatch.setattr(report_pdf, "charts_available", lambda *args, **kwargs: False)

    def first_page(c) -> str:
        import io

        from pypdf import PdfReader

        data = report_pdf.build_report(c, link=None).data
        return " ".join(PdfReader(io.BytesIO(data)).pages[0].extract_text().split())

    assert "overridden" not in first_page(example)
    data = copy.deepcopy(EXAMPLE)
    data["overrides"] = {"pue": 1.2, "electricity_usd_per_kwh": 0.2}
    text = first_page(compare(Scenario.model_validate(data)))
    assert LINE in text and "PUE = 1.2" in text
    assert text.index(LINE) < text.index("Recommendation")  # in the header, above the answer

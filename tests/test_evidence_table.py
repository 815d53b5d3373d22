"""The Validation page's shared evidence-table builder (app/views/evidence_table.py) on a tiny fake
`as_json()`: label fields, counts, percent columns read by path, order kept."""

import math

from app.views.evidence_table import band_table, class_table, pct, percent_columns

FAKE = {
    "all": {"rows": 3, "refused": 1, "tpot_ms": {"median_abs": 0.25, "signed_median": -0.1,
                                                 "within_band": 0.5}},
    "classes": [
        {"engine": "vLLM", "gpu": "H200", "rows": 2, "refused": 0,
         "tpot_ms": {"median_abs": 0.125, "signed_median": 0.05, "within_band": 1.0}},
        {"engine": "SGLang", "gpu": "H100", "rows": 1, "refused": 1,
         "tpot_ms": {"median_abs": None, "signed_median": None, "within_band": None}},
    ],
}  # fmt: skip


def test_class_table_reads_each_column_by_path_in_percent_and_keeps_order():
    table = class_table(
        FAKE["classes"],
        ("engine", "gpu", "precision"),
        ("rows",),
        [("TPOT signed %", ("tpot_ms", "signed_median")), ("TPOT %", ("tpot_ms", "median_abs"))],
    )
    assert list(table.columns) == ["engine", "gpu", "precision", "rows", "TPOT signed %", "TPOT %"]
    assert list(table["engine"]) == ["vLLM", "SGLang"]
    assert list(table["precision"]) == ["", ""]  # a label a class lacks is blank
    assert table["TPOT %"][0] == 12.5 and table["TPOT signed %"][0] == 5.0
    assert math.isnan(table["TPOT %"][1])  # no scored row: empty, not 0
    assert pct(None) is None and pct(0.4) == 40.0


def test_band_table_puts_the_all_rows_line_first_with_three_columns_per_metric():
    table = band_table(FAKE, ("engine", "gpu"), "all rows", {"tpot_ms": "TPOT"})
    assert list(table.columns) == [
        "engine", "gpu", "rows", "refused", "TPOT median |error| %", "TPOT signed %",
        "TPOT within 40 % (share %)",
    ]  # fmt: skip
    assert list(table["engine"]) == ["all rows", "vLLM", "SGLang"]
    assert list(table["gpu"])[0] == ""
    assert list(table["TPOT median |error| %"])[:2] == [25.0, 12.5]
    assert list(table["TPOT within 40 % (share %)"])[:2] == [50.0, 100.0]
    assert list(table["refused"]) == [1, 0, 1]
    formats = {c: v["type_config"]["format"] for c, v in percent_columns(table).items()}
    # names ending in % and the shares ("(share %)") are whole percents; signed ones carry a sign
    assert formats == {
        "TPOT median |error| %": "%.0f",
        "TPOT signed %": "%+.0f",
        "TPOT within 40 % (share %)": "%.0f",
    }

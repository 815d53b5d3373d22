"""The third-party serving sets' registry (models/validation/thirdparty_sets.py) read by the CLI and
the Validation page: per set, `clusterplan validate` prints its block and `--json` carries it,
and the page's table reads its scores (the all-rows line first, then families and classes)."""

from __future__ import annotations

import pytest

from app.views.validation_inferencemax import METRICS as NAMES
from app.views.validation_thirdparty import SECTIONS, thirdparty_table
from models.validation import (
    thirdparty_moe,
    thirdparty_serving3,
    thirdparty_serving4,
    thirdparty_serving5,
)
from tests.builders import check_validate_block

#: per set: its module, the validate heading, a class line, the --json key and its rows, the page
#: table's length, the all-rows line's scored rows and the metric whose median is checked there
CASES = [
    (
        thirdparty_moe,
        "== Serving, third party: DeepSeek-R1",
        "inferencex sglang H200",
        "serving_thirdparty_moe",
        43,
        5,
        28,
        "tpot_ms",
    ),
    (
        thirdparty_serving3,
        "== Serving, third party: third set",
        "dense dstack 405B vllm MI300X",
        "serving_thirdparty_3",
        50,
        8,
        36,
        "output_tokens_per_s_per_gpu",
    ),
    (
        thirdparty_serving4,
        "== Serving, third party: fourth set",
        "NIM 70B tensorrt-llm H100-SXM",
        "serving_thirdparty_4",
        36,
        3,
        26,
        "ttft_ms",
    ),
    (
        thirdparty_serving5,
        "== Serving, third party: fifth set",
        "moe InferenceX 870 sglang B200",
        "serving_thirdparty_5",
        38,
        5,
        11,
        "output_tokens_per_s_per_gpu",
    ),
]
IDS = [c[0].__name__.rsplit(".", 1)[1] for c in CASES]


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_validate_prints_and_serialises_the_block(case):
    module, heading, label, key, rows = case[:5]
    check_validate_block(heading, label, key, rows)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_the_page_table_reads_the_scores(case):
    module, length, scored, metric = case[0], *case[5:]
    data = module.as_json()
    table = thirdparty_table(module.SET, data)
    assert len(table) == 1 + len(data.get("families", ())) + len(data["classes"]) == length
    first = table.iloc[0]
    assert first[module.CLASS_FIELDS[0]] == "all scored rows" and first["rows"] == scored
    assert first[f"{NAMES[metric]} median |error| %"] == pytest.approx(
        100 * data["all"][metric]["median_abs"]
    )


def test_the_page_has_one_section_per_set_in_validates_order():
    """The page's sections are the registry's sets, in the order validate prints them."""
    assert [s.serving_set for s in SECTIONS] == [
        thirdparty_moe.SET,
        thirdparty_serving3.SET,
        thirdparty_serving4.SET,
        thirdparty_serving5.SET,
    ]

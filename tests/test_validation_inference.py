"""Inference and fine-tuning evidence beside training's: the error levels the serving and fine-tuning
models hold on their published rows (models/data/validation/inference.csv, finetune.csv), the rows
beyond the worst-case target named so a new outlier fails the suite, each row's software generation,
and what `clusterplan validate` and the Validation page show of them.

Today the serving model misses the issue's targets (15 % median / 35 % worst on held-out output
tokens/s per GPU): 11.4 % / 80.0 % over 51 rows (7.9 % with each engine's all-reduce latency per
doubling of TP alone, 11.4 % with the MoE constant refitted beside it, 55.9 → 30.7 µs, which makes
the Qwen3-30B-A3B FP4 rows faster: docs/reference/serving-evidence.md tenth amendment; 8.9 % before
it; 8.0 % with the fixed cost per MoE layer before FP4
experts read at the HBM rate, docs/reference/serving-evidence.md fifth and seventh amendments; 8.3 %
before both; 8.6 % over 46 before the H200 launch blog's five rows,
heldout-scores.md step 26; 8.1 % before GB200 got its measured MAMF, step 25; 14.6 % / 80.0 % with 15 rows over 35 % before FP4 GEMMs
read their weights at the measured FP4_GEMM_WEIGHT_READ_SHARE_OF_HBM; 12.8 % / 133.7 % over 44 before
the pre-XQA decode attention of TensorRT-LLM ≤ 0.7 was modelled and the two XQA-blog rows were added).
`TODAY` holds that level so it cannot quietly get worse, and BEYOND names the 7 throughput and 4 TTFT
rows over 35 % (docs/validation.md, "Inference serving and fine-tuning", shows the same 4).
"""

import contextlib
import io
import json
import pathlib

import pytest
from streamlit.testing.v1 import AppTest

from app.cli import main
from models.validation import finetune as FV
from models.validation import serving as SV
from models.validation import training_scores as VS

HARNESS = str(pathlib.Path(__file__).with_name("portal_harness.py"))
#: today's held-out (median, worst) absolute error per kind, with a little slack; not the targets
TODAY = {"throughput": (0.115, 0.81), "ttft": (0.27, 0.65)}
#: the held-out rows beyond the 35 % worst-case target today: Qwen3-30B-A3B FP4 on B200 at 8k/1k, the
#: two TensorRT-LLM XQA-blog rows on H200 (published at an unstated latency budget, predicted at max
#: load), and 128-token TTFTs. Examined 2026-12-01 after these errors were seen (models/constants.py,
#: "a record of what was examined"); twelve more Blackwell FP4 rows left the set when FP4 GEMMs were
#: given the weight-read rate measured in FlashInfer issue #1732 (models/constants.py). The H200 launch
#: blog's Llama 2 13B 128/2048 row (TensorRT-LLM v0.5, batch 128) joined when the blog's five rows were
#: entered, before scoring (+39.7 %; heldout-scores.md step 26). Qwen3-30B-A3B FP4 on GB200 at 8k/1k
#: joined (+37 %) when FP4 experts were read at the HBM rate (serving-evidence.md, seventh amendment);
#: the same two at 1k/8k (+43 %, +37 %) when the MoE constant was refitted (the tenth amendment)
BEYOND = {
    "throughput": {
        "trtpo-b200-qwen3-30b-a3b-1024-8192",
        "trtpo-gb200-qwen3-30b-a3b-1024-8192",
        "trtpo-gb200-qwen3-30b-a3b-8192-1024",
        "xqa-h200-llama2-70b-128-2048-xqa-off",
        "xqa-h200-llama2-70b-128-2048-xqa-on",
        "trtpo-b200-qwen3-30b-a3b-8192-1024",
        "trt05-h200-llama2-13b-128-2048",
    },
    "ttft": {
        "trt05-a100-llama2-70b-tp4-ttft-128",
        "trt05-a100-llama2-7b-ttft-128",
        "trt05-h100-llama2-70b-tp4-ttft-128",
        "trt05-h100-llama2-7b-ttft-128",
    },
}
#: fine-tuning: today's (median, worst) per kind with a little slack
FINETUNE_TODAY = {"throughput": (0.11, 0.29), "time_to_train_min": (0.17, 0.40)}


@pytest.fixture(scope="module")
def serving():
    return SV.validate()


@pytest.fixture(scope="module")
def finetune():
    return FV.validate()


def cli_text(*args: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(list(args)) == 0
    return out.getvalue()


@pytest.fixture(scope="module")
def table() -> str:
    return cli_text("validate")


# --- levels ------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", sorted(TODAY))
def test_serving_holds_todays_level_on_held_out_rows(serving, kind):
    m = serving["by_kind_held_out"][kind]["model"]
    median, worst = TODAY[kind]
    assert m["median_abs_error"] <= median and m["worst_abs_error"] <= worst, m


@pytest.mark.parametrize("kind", sorted(TODAY))
def test_no_new_serving_row_beyond_the_worst_target(serving, kind):
    beyond = set(serving["by_kind_held_out"][kind]["beyond_worst_target"])
    assert beyond <= BEYOND[kind], beyond - BEYOND[kind]


def test_serving_rows_cover_the_issues_minimum(serving):
    rows = serving["rows"]
    assert sum(r["kind"] == "throughput" for r in rows) >= 25
    assert len({r["gpu"] for r in rows}) >= 3


def test_every_serving_row_names_its_software_generation(serving):
    """A row whose engine and version are not in SOFTWARE_GENERATIONS is refused here, so each row
    says which generation of software it measured and the table can set it beside the model's."""
    assert {r["software_generation"] for r in serving["rows"]} <= set(
        SV.SOFTWARE_GENERATIONS.values()
    )
    assert SV.ASSUMED_GENERATION in SV.SOFTWARE_GENERATIONS.values()


def test_errors_by_generation_partition_the_rows(serving):
    for kind in SV.TARGETS:
        groups = [g for g in serving["by_generation"] if g["kind"] == kind]
        assert sum(g["rows"] for g in groups) == serving["by_kind_all_rows"][kind]["model"]["rows"]
        for g in groups:
            errs = [
                r["error"]
                for r in serving["rows"]
                if r["kind"] == kind and r["software_generation"] == g["software_generation"]
            ]
            assert g["bias"] == pytest.approx(sum(errs) / len(errs))
            assert g["worst_abs_error"] == pytest.approx(max(abs(e) for e in errs))


@pytest.mark.parametrize("kind", sorted(FINETUNE_TODAY))
def test_finetune_holds_todays_level(finetune, kind):
    s = finetune["by_kind"][kind]
    median, worst = FINETUNE_TODAY[kind]
    assert s["median_abs_error"] <= median and s["worst_abs_error"] <= worst, s


# --- clusterplan validate ------------------------------------------------------------------------


def section(table: str, title: str, heading: str, n: int) -> dict[str, list[str]]:
    """The n lines under `heading` in the section that starts with `title`, split into cells by kind."""
    lines = table.split(title, 1)[1].splitlines()
    start = lines.index(heading) + 2  # after the column header
    return {x.split()[0]: x.split()[1:] for x in lines[start : start + n]}


@pytest.mark.parametrize(
    "heading, key",
    [
        ("scored rows:", "by_kind"),
        ("held-out rows (scored, not used to set any constant):", "by_kind_held_out"),
        ("all rows, [not scored] included:", "by_kind_all_rows"),
    ],
)
def test_cli_validate_prints_the_inference_summary(serving, table, heading, key):
    printed = section(table, "== Inference serving", heading, len(serving[key]))
    assert set(printed) == set(serving[key])
    for kind, cells in printed.items():
        s = serving[key][kind]
        m, r = s["model"], s["rule_of_thumb"]
        assert cells == [
            str(m["rows"]),
            f"{m['median_abs_error']:.1%}",
            f"{m['worst_abs_error']:.1%}",
            str(len(s["beyond_worst_target"])),
            f"{r['median_abs_error']:.1%}",
            f"{r['worst_abs_error']:.1%}",
        ], kind


def test_cli_validate_prints_the_finetune_summary(finetune, table):
    heading = next(
        x for x in table.split("== Fine-tuning", 1)[1].splitlines() if x.startswith("scored rows")
    )
    printed = section(table, "== Fine-tuning", heading, len(finetune["by_kind"]))
    assert set(printed) == set(finetune["by_kind"])
    for kind, cells in printed.items():
        s = finetune["by_kind"][kind]
        assert cells == [
            str(s["rows"]),
            f"{s['median_abs_error']:.1%}",
            f"{s['worst_abs_error']:.1%}",
            f"{s['rule_median_abs_error']:.1%}",
            f"{s['rule_worst_abs_error']:.1%}",
        ], kind


def test_cli_validate_prints_every_inference_and_finetune_row(serving, finetune, table):
    inference = table.split("== Inference serving", 1)[1].split("== Fine-tuning", 1)[0]
    for r in serving["rows"]:
        line = next(x for x in inference.splitlines() if x.startswith(r["id"] + " "))
        assert f"{r['error']:+.1%}" in line and r["software_generation"] in line, line
    ft = table.split("== Fine-tuning", 1)[1]
    for r in finetune["rows"]:
        line = next(x for x in ft.splitlines() if x.startswith(r["id"] + " "))
        assert f"{r['error']:+.1%}" in line, line


def test_cli_validate_json_carries_inference_and_finetune(serving, finetune):
    data = json.loads(cli_text("validate", "--json"))
    assert data["inference"]["by_kind_held_out"]["throughput"]["model"][
        "median_abs_error"
    ] == pytest.approx(serving["by_kind_held_out"]["throughput"]["model"]["median_abs_error"])
    assert len(data["inference"]["rows"]) == len(serving["rows"])
    assert [r["id"] for r in data["finetune"]["rows"]] == [r["id"] for r in finetune["rows"]]
    assert "by_kind" in data and "misses" in data  # training's keys stay where they were


# --- the Validation page --------------------------------------------------------------------------


def test_validation_page_shows_inference_and_finetune(serving, finetune):
    at = AppTest.from_file(HARNESS, default_timeout=60)
    at.run()
    at.session_state["_page"] = "validation"
    at.run()
    assert not at.exception, at.exception
    headers = [h.value for h in at.header]
    assert "Inference serving" in headers and "Fine-tuning" in headers
    frames = [d.value for d in at.dataframe]
    summary = next(
        f
        for f in frames
        if "rows (all held out)" not in f
        and "rows beyond worst target" in f
        and f["rows"].str.contains("held out").any()
        and set(f["kind"]) == set(serving["by_kind"])
    )
    held = summary[summary["rows"].str.endswith("(held out)")].set_index("kind")
    for kind, s in serving["by_kind_held_out"].items():
        assert held.loc[kind, "model median %"] == pytest.approx(
            100 * s["model"]["median_abs_error"]
        )
        assert held.loc[kind, "model worst %"] == pytest.approx(100 * s["model"]["worst_abs_error"])
        assert held.loc[kind, "rule of thumb median %"] == pytest.approx(
            100 * s["rule_of_thumb"]["median_abs_error"]
        )
    every = next(f for f in frames if "software generation" in f and "row" in f)
    assert list(every["row"]) == [r["id"] for r in serving["rows"]]
    ft = next(f for f in frames if "rows (all held out)" in f).set_index("kind")
    for kind, s in finetune["by_kind"].items():
        assert ft.loc[kind, "model median %"] == pytest.approx(100 * s["median_abs_error"])
    assert finetune["by_kind_gpus_added"]  # the AMD rows' own level, as `validate` prints it
    for kind, s in finetune["by_kind_gpus_added"].items():
        apart = ft.loc[f"{kind} (AMD rows added 2026-12-02, scored apart)"]
        assert apart["rows (all held out)"] == s["rows"]
        assert apart["model median %"] == pytest.approx(100 * s["median_abs_error"])
    ft_rows = next(f for f in frames if "within bound" in f)
    assert list(ft_rows["row"]) == [r["id"] for r in finetune["rows"]]
    assert list(ft_rows["split"]) == [r["split"] for r in finetune["rows"]]
    added = next(f for f in frames if "batch (rows added after the fit)" in f)
    added = added.set_index(["batch (rows added after the fit)", "method"])
    assert len(added) == sum(len(finetune[key]) for _, key, _ in FV.ADDED_BATCHES)
    for _, key, label in FV.ADDED_BATCHES:  # each batch beside the other, as `validate` prints them
        for name, s in finetune[key].items():
            got = added.loc[(label, name)]
            assert got["rows"] == s["rows"]
            assert got["model median %"] == pytest.approx(100 * s["median_abs_error"])
            assert got["signed median %"] == pytest.approx(100 * s["signed_median_error"])
    charts = at.get("plotly_chart")
    assert len(charts) >= 3  # training, inference, fine-tuning


@pytest.mark.parametrize("kind", sorted(SV.TARGETS))
def test_the_serving_floor_is_the_held_out_rows_best_rescaling(serving, kind, table):
    """The floor printed under the targets is `rescaling_floor` of the held-out rows of that kind:
    what one factor picked after the fact could reach; it is never worse than the model (k = 1)."""
    sel = [r for r in serving["rows"] if r["kind"] == kind and r["scored"] and not r["calibration"]]
    held = serving["by_kind_held_out"][kind]
    floor = held["floor"]
    assert floor == VS.rescaling_floor([r["predicted"] for r in sel], [r["published"] for r in sel])
    assert floor["worst_abs_error"] <= held["model"]["worst_abs_error"] + 1e-12
    assert (
        f"floor, {kind}: the model x one factor picked after the fact on the held-out rows is at "
        f"best median {floor['median_abs_error']:.1%}"
    ) in table

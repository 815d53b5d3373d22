"""The fifth independent serving set, MoE on current engine builds (models/data/validation/
thirdparty_serving5.csv; docs/reference/serving-evidence.md, thirty-first amendment): the data
file's checks (sources, dates, builds, units, no row of another validation file), the planner's
`serve` as the one path a row is predicted by, the scores as first reported, and the rule that
nothing reads the rows to fit."""

from __future__ import annotations

import pathlib

import pytest

from models.validation import thirdparty_serving5 as S
from tests import builders as B
from tests.builders import code_naming, csv_rows

ROOT = pathlib.Path(__file__).resolve().parents[1]
DATA = ROOT / "models" / "data" / "validation"
ROWS = csv_rows(S.ROWS)
#: where each source's rows come from: a string its `source` must carry
WHERE = {
    "inferencex-issue870-b200-2026": "https://github.com/SemiAnalysisAI/InferenceX/issues/870",
    "inferencex-pr1061-mi300x-2026": "https://github.com/SemiAnalysisAI/InferenceX/pull/1061",
    "inferencex-issue828-tp-2026": "https://github.com/SemiAnalysisAI/InferenceX/issues/828",
    "trtllm-pr11691-glm47-gb200-2026": "https://github.com/NVIDIA/TensorRT-LLM/pull/11691",
    "trtllm-pr11559-glm47-h100-2026": "https://github.com/NVIDIA/TensorRT-LLM/pull/11559",
    "trtllm-pr11612-qwen3-gb200-2026": "https://github.com/NVIDIA/TensorRT-LLM/pull/11612",
}
#: current builds (issue 29): the oldest release of each engine a row may name
OLDEST = {"vllm": (0, 11), "sglang": (0, 5, 3), "tensorrt-llm": (1, 0)}
#: the key that makes two rows the same measurement
KEY = ("model", "gpu", "engine", "input_tokens", "output_tokens", "concurrency")


def _version(v: str) -> tuple[int, ...]:
    return tuple(int(x) for x in v.split(".")[:3])


def test_every_row_names_its_source_date_build_statistic_and_settings():
    for r in ROWS:
        assert WHERE[r["source_id"]] in r["source"], r["id"]
        assert r["as_of"] == "2026-12-03" and "2026-02" <= r["published"] <= "2026-12", r["id"]
        assert r["statistic"] and r["settings"], r["id"]
        assert r["family"] == "moe" and r["engine"] in OLDEST, r["id"]
        # a version, where published, is a current build; else the row's date pins one
        if r["engine_version"]:
            assert _version(r["engine_version"]) >= OLDEST[r["engine"]], r["id"]
        else:
            assert "not stated" in r["settings"] or "not in the table" in r["settings"], r["id"]
        if r["gpus"]:
            assert int(r["gpus"]) % int(r["tp"]) == 0, r["id"]
        # issue 29: no prefix-cached or speculative run is entered
        assert not any(w in r["settings"].lower() for w in ("mtp", "eagle", "prefix cach"))


def test_rows_per_source_are_pinned_and_unexpressible_rows_say_why():
    counts = B.expressible_counts(ROWS)
    for r in ROWS:
        assert r["expressible"] == "no" or (r["model"] and r["gpus"]), r["id"]
    assert counts == {
        ("inferencex-issue870-b200-2026", "yes"): 5,
        ("inferencex-pr1061-mi300x-2026", "yes"): 4,
        ("inferencex-issue828-tp-2026", "yes"): 2,
        ("trtllm-pr11691-glm47-gb200-2026", "no"): 8,
        ("trtllm-pr11559-glm47-h100-2026", "no"): 13,
        ("trtllm-pr11612-qwen3-gb200-2026", "no"): 6,
    }
    assert len(ROWS) == 38


def test_units_hold_against_each_other():
    """Output tokens/s per GPU, read before any score, checked from the rows themselves: total
    tokens carry input and output in the rows' proportion; C users each cycling through TTFT and
    (O − 1) TPOTs give the service's output rate back (TensorRT-LLM's 1k/1k tables: per GPU is
    the server's / GPUs); at one MI300X, C / TPOT is the GPU's output rate (no TTFT posted)."""
    for r in ROWS:
        # PR 11612's figures (no GPU count) stay in its rows' settings, not in per-GPU columns
        measured = r["tpot_ms"] or r["ttft_ms"] or r["output_tokens_per_s_per_gpu"]
        assert measured or "Output TPS" in r["settings"], r["id"]
        if r["tpot_ms"]:
            assert 5 < float(r["tpot_ms"]) < 100, r["id"]
        i, o, c = int(r["input_tokens"]), int(r["output_tokens"]), int(r["concurrency"])
        out = float(r["output_tokens_per_s_per_gpu"] or "nan")
        if r["total_tokens_per_s_per_gpu"]:
            share = out / float(r["total_tokens_per_s_per_gpu"])
            assert share == pytest.approx(o / (i + o), rel=0.01), r["id"]
        if r["engine"] == "tensorrt-llm" and r["gpus"] and o == 1024:
            cycle_s = (float(r["ttft_ms"]) + (o - 1) * float(r["tpot_ms"])) / 1e3
            assert out * int(r["gpus"]) == pytest.approx(c * o / cycle_s, rel=0.10), r["id"]
        if r["gpu"] == "MI300X":
            assert out == pytest.approx(c / (float(r["tpot_ms"]) / 1e3), rel=0.05), r["id"]
    gb200 = [r for r in ROWS if r["source_id"] == "trtllm-pr11691-glm47-gb200-2026"]
    published = [225.8, 398.0, 688.4, 1079.7, 2069.8, 3569.8, 5039.3, 6804.4]
    assert [4 * float(r["output_tokens_per_s_per_gpu"]) for r in gb200] == pytest.approx(published)


def test_no_duplicates_and_none_from_the_other_sets():
    """No row twice, and none of ours is a row (or cites a source) of any other validation file;
    issue #870's H200 rows and #828's TP8 rows stay in their own sets."""
    assert len({r["id"] for r in ROWS}) == len(ROWS)
    keys = [tuple(r[k] for k in (*KEY, "tp", "gpus", "precision", "model_name")) for r in ROWS]
    assert len(set(keys)) == len(keys)
    ours = {tuple(r[k] for k in KEY) + (r["tp"],) for r in ROWS if r["model"]}
    others = sorted(p for p in DATA.glob("*.csv") if p.name != S.ROWS.name)
    assert len(others) >= 27
    for path in others:
        rows = csv_rows(path)
        assert not {r.get("id") for r in rows} & {r["id"] for r in ROWS}, path.name
        theirs = {tuple(r.get(k, "") for k in KEY) + (r.get("tp", ""),) for r in rows}
        assert not ours & theirs, path.name
        text = "".join(r.get("source", "") + r.get("silicon_data_source", "") for r in rows)
        for source_id, where in WHERE.items():
            if source_id.startswith("trtllm") or source_id.startswith("inferencex-pr"):
                assert where not in text, (path.name, where)
        # the same issues' other runs: other GPUs or layouts than ours
        for r in rows:
            if "issues/870" in r.get("source", ""):
                assert r["gpu"] != "B200", path.name
            if "issues/828" in r.get("source", ""):
                assert r["tp"] == "8", path.name


def test_every_scored_row_is_serve_of_its_own_fields():
    """Each expressible row's prediction is plan_serving of the CSV's fields: one replica of the
    row's GPUs at its concurrency, the engine build as published; a refusal is the planner's."""
    assert B.rows_served_as_their_fields(S, ROWS) == 11


def _one_per_class() -> list[dict]:
    """Per source, the predicted row of least and of most concurrency (or GPUs)."""
    rows = [r for r in ROWS if S.expressible(r) and S.predict(r) is not None]
    picked: dict[tuple, dict] = {}
    for r in sorted(rows, key=lambda r: (int(r["concurrency"]), -int(r["gpus"]))):
        picked.setdefault((r["source_id"], "least"), r)
        picked[(r["source_id"], "most")] = r
    return list(picked.values())


@pytest.mark.parametrize("row", _one_per_class(), ids=lambda r: r["id"])
def test_a_rows_prediction_is_the_planners_serve(row):
    """One path: the module's figures are `clusterplan serve --engine NAME:VERSION --gpus N
    --users C`'s."""
    B.check_serve_cli_matches(row, S.predict(row), S.METRICS)


def _cells(c: dict) -> dict:
    return B.band_cells(c, S.METRICS)


def test_the_scores_as_first_reported():
    """The figures written in the thirty-first amendment, scored once with the constants as
    committed: a model change that moves them must be reported there, not silently."""
    data = S.as_json()
    assert (data["rows"], data["scored"], len(data["not_expressible"])) == (38, 11, 27)
    assert (data["all"]["rows"], data["all"]["refused"], data["refused"]) == (11, 0, [])
    assert _cells(data["all"]) == {
        "tpot_ms": (21.4, 21.4, 66.7),
        "ttft_ms": (53.8, -53.8, 40.0),
        "output_tokens_per_s_per_gpu": (13.4, -4.9, 90.9),
    }
    by = {c["source_id"]: _cells(c) for c in data["classes"]}
    assert by["inferencex-issue870-b200-2026"] == {
        "tpot_ms": None,
        "ttft_ms": (53.8, -53.8, 40.0),
        "output_tokens_per_s_per_gpu": (13.4, 13.4, 80.0),
    }
    assert by["inferencex-pr1061-mi300x-2026"]["tpot_ms"] == (37.4, 37.4, 50.0)
    assert by["inferencex-pr1061-mi300x-2026"]["output_tokens_per_s_per_gpu"] == (
        24.9,
        -24.9,
        100.0,
    )
    assert by["inferencex-issue828-tp-2026"] == {
        "tpot_ms": (8.0, 8.0, 100.0),
        "ttft_ms": None,
        "output_tokens_per_s_per_gpu": (5.1, -5.1, 100.0),
    }


def test_nothing_fits_on_the_rows():
    """The rule: the rows are unseen; no fit (bench/) or model module reads them."""
    assert code_naming("thirdparty_serving5") == [
        "models/validation/thirdparty_serving5.py",
        "models/validation/thirdparty_sets.py",
    ]

"""The fourth independent serving set (models/data/validation/thirdparty_serving4.csv; docs/reference/
serving-evidence.md, twenty-seventh amendment): the data file's checks (sources, units, no row of
another validation file), the planner's `serve` as the one path a row is predicted by, the scores
as first reported, the page and the CLI reading them, and the rule that nothing reads the rows to
fit."""

from __future__ import annotations

import pathlib

import pytest

from models.validation import thirdparty_serving4 as S
from tests import builders as B
from tests.builders import code_naming, csv_rows

ROOT = pathlib.Path(__file__).resolve().parents[1]
DATA = ROOT / "models" / "data" / "validation"
ROWS = csv_rows(S.ROWS)
DSTACK_COMMIT = "06c957ab51572ca18db9c1f4bb254a9eb86df4d7"
#: where each source's rows come from: a string its `source` must carry
WHERE = {
    "nvidia-nim-bench-2025": "https://docs.nvidia.com/nim/benchmarking/llm/1.0.0/performance",
    "dstack-405b-h100-2024": (
        "comparison/h100sxm5_vs_mi300x/raw_data/8xH100SXM5-throughput/nvidia-throughput_test_ip"
    ),
    "sglang-cookbook-qwen36-2026": (
        "qwen3.6-benchmarks.jsx at commit 4b7077bebbea288f27e67679c8eaed69e3f3929d"
    ),
}
#: the key that makes two rows the same measurement
KEY = ("model", "gpu", "engine", "input_tokens", "output_tokens", "concurrency")


def test_every_row_names_its_source_date_statistic_and_settings():
    B.check_rows_cite_sources(ROWS, WHERE, DSTACK_COMMIT)
    for r in ROWS:
        assert r["family"] == "dense"
        assert r["engine"] in ("tensorrt-llm", "vllm", "sglang"), r["id"]
    # only dstack's H100 rows predate 2025, and the amendment says so
    assert {r["source_id"] for r in ROWS if r["published"] < "2025"} == {"dstack-405b-h100-2024"}


def test_rows_per_source_are_pinned_and_unexpressible_rows_say_why():
    counts = B.expressible_counts(ROWS)
    for r in ROWS:
        assert (r["expressible"] == "yes") == bool(r["model"]), r["id"]
    assert counts == {
        ("nvidia-nim-bench-2025", "yes"): 9,
        ("dstack-405b-h100-2024", "yes"): 17,
        ("sglang-cookbook-qwen36-2026", "no"): 10,
    }


def test_units_hold_against_each_other():
    """NIM's throughput is the service's output tokens/s: C users each cycling through TTFT and
    (O − 1) ITLs give it back within 10 % (a total-tokens or per-GPU reading would be 11× or 2×
    off); per GPU it is halved. dstack's offline rows carry N · (Ī + Ō) tokens, so output is
    Ō / (Ī + Ō) of total; SGLang's published per-GPU figure is total, output its 1024 / 9216."""
    for r in ROWS:
        assert r["tpot_ms"] or r["ttft_ms"] or r["output_tokens_per_s_per_gpu"], r["id"]
        if r["tpot_ms"]:
            assert 1 < float(r["tpot_ms"]) < 100, r["id"]
        i, o, c = int(r["input_tokens"]), int(r["output_tokens"]), int(r["concurrency"])
        if r["total_tokens_per_s_per_gpu"]:
            share = float(r["output_tokens_per_s_per_gpu"]) / float(r["total_tokens_per_s_per_gpu"])
            assert share == pytest.approx(o / (i + o), rel=0.01), r["id"]
        if r["source_id"] == "nvidia-nim-bench-2025":
            cycle_s = (float(r["ttft_ms"]) + (o - 1) * float(r["tpot_ms"])) / 1e3
            service = float(r["output_tokens_per_s_per_gpu"]) * int(r["gpus"])
            assert service == pytest.approx(c * o / cycle_s, rel=0.10), r["id"]
    nim = [r for r in ROWS if r["source_id"] == "nvidia-nim-bench-2025"]
    published = [51.67, 218.48, 623.4, 814.37, 917.26, 920.9, 920.54, 920.12, 52.85]
    assert [2 * float(r["output_tokens_per_s_per_gpu"]) for r in nim] == pytest.approx(published)


def test_no_duplicates_and_none_from_the_other_sets():
    """No row twice, and none of ours is a row (or cites a source) of any other validation file."""
    assert len({r["id"] for r in ROWS}) == len(ROWS)
    keys = [tuple(r[k] for k in KEY) + (r["precision"], r["model_name"]) for r in ROWS]
    assert len(set(keys)) == len(keys)
    ours = {tuple(r[k] for k in KEY) for r in ROWS if r["model"]}
    others = sorted(p for p in DATA.glob("*.csv") if p.name != S.ROWS.name)
    assert len(others) >= 25
    for path in others:
        rows = csv_rows(path)
        assert not {r.get("id") for r in rows} & {r["id"] for r in ROWS}, path.name
        assert not ours & {tuple(r.get(k, "") for k in KEY) for r in rows}, path.name
        text = "".join(r.get("source", "") + r.get("silicon_data_source", "") for r in rows)
        for where in WHERE.values():
            assert where not in text, (path.name, where)
        assert "nvidia-throughput_test" not in text and "docs.nvidia.com/nim" not in text


def test_every_scored_row_is_serve_of_its_own_fields():
    """Each expressible row's prediction is plan_serving of the CSV's fields: one replica of the
    row's GPUs at its concurrency; a refusal is the planner's."""
    assert B.rows_served_as_their_fields(S, ROWS) == 26


def _one_per_class() -> list[dict]:
    """Per source, engine and GPU, the predicted row of least and of most concurrency."""
    rows = [r for r in ROWS if S.expressible(r) and S.predict(r) is not None]
    picked: dict[tuple, dict] = {}
    for r in sorted(rows, key=lambda r: int(r["concurrency"])):
        picked.setdefault((r["source_id"], "least"), r)
        picked[(r["source_id"], "most")] = r
    return list(picked.values())


@pytest.mark.parametrize("row", _one_per_class(), ids=lambda r: r["id"])
def test_a_rows_prediction_is_the_planners_serve(row):
    """One path: the module's figures are `clusterplan serve --gpus N --users C`'s."""
    B.check_serve_cli_matches(row, S.predict(row), S.METRICS)


def _cells(c: dict) -> dict:
    return B.band_cells(c, S.METRICS)


def test_the_scores_as_first_reported():
    """The figures written in the twenty-seventh amendment, scored once: a model change that moves
    them must be reported there, not silently."""
    data = S.as_json()
    assert (data["rows"], data["scored"], len(data["not_expressible"])) == (36, 26, 10)
    assert (data["all"]["rows"], data["all"]["refused"]) == (26, 0)
    assert _cells(data["all"]) == {
        "tpot_ms": (15.4, 10.0, 100.0),
        # first scored 50.4 / +50.4 / 44.4; after the twenty-ninth amendment's own first token
        # (in-sample: these rows motivated it)
        "ttft_ms": (25.3, -0.2, 77.8),
        "output_tokens_per_s_per_gpu": (12.7, 12.7, 61.5),
    }
    by = {c["source_id"]: c for c in data["classes"]}
    assert _cells(by["nvidia-nim-bench-2025"])["output_tokens_per_s_per_gpu"] == (7.1, -6.6, 100.0)
    assert _cells(by["dstack-405b-h100-2024"])["output_tokens_per_s_per_gpu"] == (71.3, 71.3, 41.2)
    # first scored (twenty-first amendment's steady TTFT, unseen): slow by 50 to 382 % at 1 to 50
    # users, within 23 % at 100 to 250. After the twenty-ninth amendment's own first token
    # (in-sample): the lone 5,000-token request within 1 %, 5 to 100 users 25 to 41 % fast (the
    # p50 queue for the others' prefills is short of what they waited), 150 to 250 within 6 %
    nim = [r for r in S.load_rows() if r["source_id"] == "nvidia-nim-bench-2025"]
    ttft = {
        int(r["concurrency"]): S.errors(r)["ttft_ms"] for r in nim if r["input_tokens"] == "5000"
    }
    assert abs(ttft[1]) < 0.01
    assert all(-0.41 < ttft[c] < -0.25 for c in (5, 25, 50, 100))
    assert all(abs(ttft[c]) < 0.06 for c in (150, 200, 250))


def test_nothing_fits_on_the_rows():
    """The rule: the rows are unseen; no fit (bench/) or model module reads them."""
    assert code_naming("thirdparty_serving4") == [
        "models/validation/thirdparty_serving4.py",
        "models/validation/thirdparty_sets.py",
    ]


def test_an_older_vllm_release_quotes_what_this_set_measured_on_a_dense_model():
    """builds.OLDER_RELEASE_DENSE_EVIDENCE: measured / planned output tokens per second of dstack's
    vLLM 0.6.3 405B rows at the class's signed median, 1 / (1 + e); an older vLLM release's note
    quotes it beside the MoE figure, a measured or newer release's does not."""
    from models.serving import builds

    (cls,) = [c for c in S.as_json()["classes"] if c["source_id"] == "dstack-405b-h100-2024"]
    release, share = builds.OLDER_RELEASE_DENSE_EVIDENCE["vllm"]
    signed = cls["output_tokens_per_s_per_gpu"]["signed_median"]
    assert share == pytest.approx(1 / (1 + signed), abs=0.005)
    assert all(
        r["engine_version"].startswith(release)
        for r in S.load_rows()
        if r["source_id"] == "dstack-405b-h100-2024"
    )
    note = builds.resolve("vllm", "H100-SXM", "0.7.0").note
    assert "1.8x these costs' time per output token" in note
    assert f"vLLM {release} ran Llama 3.1 405B FP8 on 8 H100 at {share:.2f}x" in note
    assert "405B" not in builds.resolve("vllm", "H100-SXM", "99.0").note
    assert builds.resolve("vllm", "H100-SXM", builds.CUDA_MEASURED["vllm"][1]).note == ""

"""The third independent serving set (models/data/validation/thirdparty_serving3.csv; docs/reference/
serving-evidence.md, twenty-fifth amendment): the data file's checks, the planner's `serve` as the
one path a row is predicted by, the scores as first reported, the page and the CLI reading them,
and the rule that nothing reads the rows to fit."""

from __future__ import annotations

import pathlib

import pytest

from models.errors import InputError
from models.serving.plan import plan_serving
from models.validation import thirdparty_serving3 as S
from tests import builders as B
from tests.builders import code_naming, csv_rows

ROOT = pathlib.Path(__file__).resolve().parents[1]
DATA = ROOT / "models" / "data" / "validation"
ROWS = csv_rows(S.ROWS)
DSTACK_COMMIT = "06c957ab51572ca18db9c1f4bb254a9eb86df4d7"
#: where each source's rows come from: a string its `source` must carry
WHERE = {
    "inferencex-issue828-2026": "https://github.com/SemiAnalysisAI/InferenceX/issues/828",
    "lmsys-gptoss-2025": "blog/2025-08-27-gpt-oss.md at commit 03d9c09",
    "dstack-405b-mi300x-2024": "8Mi300x-throughput-quark/Meta-Llama-3.1-405B-Instruct-FP8-KV_throughput_req",
    "dstack-pd-gptoss-h200-2025": f"comparison/pd_ratio/csv_data/results.csv at commit {DSTACK_COMMIT}",
    "vllm-pr43232-2026": "https://github.com/vllm-project/vllm/pull/43232",
}


def test_every_row_names_its_source_date_statistic_and_settings():
    B.check_rows_cite_sources(ROWS, WHERE, DSTACK_COMMIT)
    for r in ROWS:
        assert r["family"] in ("dense", "moe") and r["engine"] in ("vllm", "sglang")
    # only dstack's 405B rows predate 2025, and the amendment says so
    assert {r["source_id"] for r in ROWS if r["published"] < "2025"} == {"dstack-405b-mi300x-2024"}


def test_rows_per_source_are_pinned_and_unexpressible_rows_say_why():
    counts = B.expressible_counts(ROWS)
    assert counts == {
        ("inferencex-issue828-2026", "yes"): 12,
        ("lmsys-gptoss-2025", "yes"): 4,
        ("lmsys-gptoss-2025", "no"): 2,
        ("dstack-405b-mi300x-2024", "yes"): 19,
        ("dstack-pd-gptoss-h200-2025", "no"): 12,
        ("vllm-pr43232-2026", "yes"): 1,
    }


def test_units_hold_against_each_other():
    """Per-GPU throughputs are a replica's over its GPUs: InferenceX's output share of its total
    is Ō / (Ī + Ō); dstack's offline 405B rows carry N · (Ī + Ō) tokens, so output is Ō / (Ī + Ō)
    of total; a batch-1 TPOT is 1000 / the published tokens/s (a ms/s or per-GPU slip moves these
    by 1000× or the GPU count)."""
    for r in ROWS:
        assert r["tpot_ms"] or r["ttft_ms"] or r["output_tokens_per_s_per_gpu"], r["id"]
        if r["tpot_ms"]:
            assert 1 < float(r["tpot_ms"]) < 100, r["id"]
        if r["total_tokens_per_s_per_gpu"] and r["source_id"] != "dstack-pd-gptoss-h200-2025":
            i, o = int(r["input_tokens"]), int(r["output_tokens"])
            share = float(r["output_tokens_per_s_per_gpu"]) / float(r["total_tokens_per_s_per_gpu"])
            assert share == pytest.approx(o / (i + o), rel=0.01), r["id"]
    b1 = [r for r in ROWS if r["source_id"] == "lmsys-gptoss-2025"]
    published = [318.53, 293.12, 416.02, 315.63, 200.84, 220.06]
    assert [1000 / float(r["tpot_ms"]) for r in b1] == pytest.approx(published, rel=5e-4)


def test_no_duplicates_and_none_from_the_other_sets():
    assert len({r["id"] for r in ROWS}) == len(ROWS)
    key = ("model", "gpu", "engine", "input_tokens", "output_tokens", "concurrency")
    keys = [tuple(r[k] for k in key) + (r["precision"], r["gpus"]) for r in ROWS]
    assert len(set(keys)) == len(keys)
    others = {
        name: csv_rows(DATA / name)
        for name in ("amd_serving.csv", "thirdparty_moe.csv", "inferencemax.csv")
    }
    ours = {tuple(r[k] for k in key) for r in ROWS}
    for name, rows in others.items():
        assert not {r["id"] for r in rows} & {r["id"] for r in ROWS}, name
        assert not ours & {tuple(r.get(k, "") for k in key) for r in rows}, name
        text = "".join(r["source"] for r in rows)
        for where in WHERE.values():
            assert where not in text, (name, where)
    # AIConfigurator measured gpt-oss-120b and Qwen3-235B itself (NVIDIA's runs): none of its
    # rows is one of ours (checkpoint, GPU, engine, lengths, concurrency), nor cites our sources
    system = {"H100-SXM": "h100_sxm", "H200": "h200_sxm", "B200": "b200_sxm"}
    silicon = csv_rows(DATA / "aiconfigurator_silicon.csv")
    theirs = {
        (r["model_path"], r["system"], r["backend"], r["isl"], r["osl"], r["batch_size"])
        for r in silicon
    }
    mine = {
        (r["model_name"], system.get(r["gpu"], ""), r["engine"], r["input_tokens"])
        + (r["output_tokens"], r["concurrency"])
        for r in ROWS
    }
    assert not mine & theirs
    text = "".join(r["silicon_data_source"] for r in silicon)
    assert not any(where in text for where in WHERE.values())


def test_every_scored_row_is_serve_of_its_own_fields():
    """Each expressible row's prediction is plan_serving of the CSV's fields: one replica of the
    row's GPUs at its concurrency; a refusal is the planner's."""
    predicted = 0
    for r in ROWS:
        if not S.expressible(r):
            assert S.refusal(r) == "" or S.predict(r) is None
            continue
        try:
            plan = plan_serving(B.serve_inputs_of_fields(r))
        except InputError as exc:
            assert S.predict(r) is None and S.refusal(r).startswith(f"{exc.field}: "), r["id"]
            continue
        for metric, _ in S.METRICS:
            assert S.predict(r)[metric] == pytest.approx(getattr(plan, metric), rel=1e-12), r["id"]
        predicted += 1
    assert predicted == 36  # 23 until the twenty-sixth amendment planned the 13 FP4 rows on H100


def _one_per_class() -> list[dict]:
    """Per source, engine and GPU, the predicted row of least concurrency."""
    seen: dict[tuple, dict] = {}
    for r in sorted(ROWS, key=lambda r: int(r["concurrency"])):
        if S.expressible(r) and S.predict(r) is not None:
            seen.setdefault((r["source_id"], r["engine"], r["gpu"]), r)
    return list(seen.values())


@pytest.mark.parametrize("row", _one_per_class(), ids=lambda r: r["id"])
def test_a_rows_prediction_is_the_planners_serve(row):
    """One path: the module's figures are `clusterplan serve --gpus N --users C`'s."""
    B.check_serve_cli_matches(row, S.predict(row), S.METRICS)


def test_fp4_weights_on_h100_are_planned_weight_only():
    """Until the twenty-sixth amendment the 12 InferenceX rows and LMSYS's MXFP4 H100 row were
    refused (no FP4 tensor cores); vLLM and SGLang serve them weight-only, and so does the
    planner now: nothing is refused, and those rows' plans say so."""
    assert S.as_json()["refused"] == []
    h100_fp4 = [
        r for r in ROWS if S.expressible(r) and r["precision"] == "fp4" and r["gpu"] == "H100-SXM"
    ]
    assert len(h100_fp4) == 13
    for r in h100_fp4:
        assert S.predict(r) is not None and S.refusal(r) == "", r["id"]


def test_the_scores_as_first_reported():
    """The figures written in the twenty-fifth amendment, scored once: a model change that moves
    them must be reported there, not silently."""
    data = S.as_json()
    a = data["all"]
    assert (data["rows"], data["scored"], len(data["not_expressible"])) == (50, 36, 14)
    # first reported with 13 refused (twenty-fifth amendment); the twenty-sixth's weight-only FP4
    # plans them, scored once (serving-evidence.md, both sections' tables)
    assert (a["rows"], a["refused"]) == (36, 0)

    def cells(c: dict) -> dict:
        return B.band_cells(c, S.METRICS)

    assert cells(a) == {
        "tpot_ms": (27.1, 25.6, 87.5),
        # first scored 68.7 / +68.7 / 0.0; the twenty-ninth amendment's own first token (its one
        # TTFT row, vLLM PR 43232 on B200; in-sample after it)
        "ttft_ms": (65.8, 65.8, 0.0),
        "output_tokens_per_s_per_gpu": (16.4, -9.6, 96.9),
    }
    ix = next(c for c in data["classes"] if c["source_id"] == "inferencex-issue828-2026")
    assert cells(ix) == {
        "tpot_ms": (28.9, 26.9, 91.7),
        "ttft_ms": None,
        "output_tokens_per_s_per_gpu": (19.2, -18.3, 91.7),
    }
    dense = next(c for c in data["families"] if c["family"] == "dense")
    assert dense["rows"] == 19 and dense["output_tokens_per_s_per_gpu"]["meets_targets"]
    assert cells(dense)["output_tokens_per_s_per_gpu"] == (16.0, 8.3, 100.0)


def test_nothing_fits_on_the_rows():
    """The rule: the rows are unseen; no fit (bench/) or model module reads them."""
    assert code_naming("thirdparty_serving3") == [
        "models/validation/thirdparty_serving3.py",
        "models/validation/thirdparty_sets.py",
    ]

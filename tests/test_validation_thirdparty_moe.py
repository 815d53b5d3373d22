"""Third-party DeepSeek-R1 serving rows (models/data/validation/thirdparty_moe.csv; docs/reference/
serving-evidence.md, twenty-second amendment): the data file's checks, the planner's `serve` as the
one path a row is predicted by, the page and the CLI reading the scores, and the rule that nothing
reads the rows to fit."""

from __future__ import annotations

import pathlib
import re

import pytest

from models.errors import InputError
from models.serving.plan import plan_serving
from models.validation import thirdparty_moe as T
from tests import builders as B
from tests.builders import code_naming, csv_rows

ROOT = pathlib.Path(__file__).resolve().parents[1]
ROWS = csv_rows(T.ROWS)
DSTACK_COMMIT = "7f37e6697725e58dd09b9ef190b62ce19f01d45e"


def test_every_row_names_its_source_date_statistic_and_settings():
    where = {
        "dstack-deepseek-r1-h200-2025": f"Deepseek-R1/raw_data/online_results.csv at commit {DSTACK_COMMIT}",
        "inferencex-issue870-2026": "https://github.com/SemiAnalysisAI/InferenceX/issues/870",
        "tenstorrent-issue356-2025": "https://github.com/tenstorrent/tt-inference-server/issues/356",
    }
    for r in ROWS:
        assert where[r["source_id"]] in r["source"], r["id"]
        assert r["as_of"] == "2026-12-02" and r["published"][:4] in ("2025", "2026")
        assert r["statistic"] in ("median", "mean")
        assert f"concurrency {r['concurrency']}" in r["settings"], r["id"]
        assert r["model"] == "deepseek-v3-like" and "DeepSeek-R1" in r["model_name"]
        assert int(r["gpus"]) == int(r["tp"]) * int(r["ep"]) or r["ep"] == "1"


def test_rows_per_source_are_pinned_and_unexpressible_rows_say_why():
    counts = B.expressible_counts(ROWS)
    assert counts == {
        ("dstack-deepseek-r1-h200-2025", "yes"): 18,
        ("dstack-deepseek-r1-h200-2025", "no"): 15,
        ("inferencex-issue870-2026", "yes"): 4,
        ("tenstorrent-issue356-2025", "yes"): 6,
    }


def test_no_duplicates_and_none_from_the_fitted_sets():
    assert len({r["id"] for r in ROWS}) == len(ROWS)
    keys = [
        (r["source_id"], r["engine"], r["input_tokens"], r["output_tokens"], r["concurrency"])
        for r in ROWS
    ]
    assert len(set(keys)) == len(keys)
    data = ROOT / "models" / "data" / "validation"
    amd_rows = csv_rows(data / "amd_serving.csv")
    assert not {r["gpu"] for r in amd_rows} & {r["gpu"] for r in ROWS}
    assert "thirdparty" not in (data / "aiconfigurator_silicon.csv").read_text(encoding="utf-8")


def test_units_hold_against_each_other():
    """Little's law on the replica, where a throughput is given: output tokens/s per GPU × GPUs ≈
    C · O / (TTFT + O · TPOT), TTFT and TPOT in ms (a unit or per-GPU slip moves it by 8× or
    1000×)."""
    checked = 0
    for r in ROWS:
        assert float(r["ttft_ms"]) > 0 and 0 < float(r["tpot_ms"]) < 1000
        if not r["output_tokens_per_s_per_gpu"]:
            continue
        o, c = float(r["output_tokens"]), int(r["concurrency"])
        e2e_s = (float(r["ttft_ms"]) + o * float(r["tpot_ms"])) / 1e3
        little = c * o / e2e_s / int(r["gpus"])
        assert little / float(r["output_tokens_per_s_per_gpu"]) - 1 == pytest.approx(0, abs=0.4)
        checked += 1
    assert checked == 37


def _one_per_class() -> list[dict]:
    """Per source and engine, the row of least concurrency (one a doubled concurrency spread
    over two replicas would not hide)."""
    seen: dict[tuple, dict] = {}
    for r in sorted(ROWS, key=lambda r: int(r["concurrency"])):
        if T.expressible(r) and r["engine_version"]:
            seen.setdefault((r["source_id"], r["engine"]), r)
    return list(seen.values())


def test_every_scored_row_is_serve_of_its_own_fields():
    """Each expressible row's prediction is plan_serving of the CSV's fields, read here without the
    module's mapping: one replica of the row's GPUs at its concurrency."""
    for r in ROWS:
        if not T.expressible(r):
            continue
        try:
            plan = plan_serving(B.serve_inputs_of_fields(r))
        except InputError:
            assert T.predict(r) is None, r["id"]
            continue
        for metric, _ in T.METRICS:
            assert T.predict(r)[metric] == pytest.approx(getattr(plan, metric), rel=1e-12), r["id"]


@pytest.mark.parametrize("row", _one_per_class(), ids=lambda r: r["id"])
def test_a_rows_prediction_is_the_planners_serve(row):
    """One path: the module's figures are `clusterplan serve --gpus N --users C`'s."""
    assert row["engine_version"]  # the command names the release: `--engine ENGINE:VERSION`
    B.check_serve_cli_matches(row, T.predict(row), T.METRICS)


def test_a_replica_over_two_nodes_is_planned_tp16_over_both():
    """The twenty-fourth amendment: the 16-H100 SGLang rows, refused before (`gpus`), are planned
    as one replica of TP 16 over two nodes, as the file's mapping reads them."""
    for r in ROWS:
        if r["source_id"] == "tenstorrent-issue356-2025":
            plan = plan_serving(T.inputs_of(r))
            assert T.refusal(r) == "" and T.predict(r) is not None, r["id"]
            assert (plan.tp, plan.nodes_per_replica, plan.gpus) == (16, 2, 16), r["id"]


def test_the_scores_as_first_reported():
    """The figures written in the twenty-second amendment (as committed; TTFT as the twenty-first
    amendment's steady form, merged after, moved it from 89.6 / -89.0 / 9.1; the twenty-fourth's
    replica over nodes scored the 6 Tenstorrent rows refused before: TPOT 51.4 / -51.4 / 36.4 and
    TTFT 94.7 / -92.8 / 13.6 over 22 rows became the figures below over 28): a model change that
    moves them must be reported there, not silently."""
    data = T.as_json()
    a = data["all"]
    assert (data["rows"], data["scored"], len(data["not_expressible"])) == (43, 28, 15)
    assert (a["rows"], a["refused"]) == (28, 0)
    assert B.band_cells(a, T.METRICS) == {
        "tpot_ms": (54.9, -54.9, 28.6),
        "ttft_ms": (91.6, -90.0, 21.4),
        "output_tokens_per_s_per_gpu": (168.6, 168.6, 18.2),
    }
    imx = next(c for c in data["classes"] if c["source_id"] == "inferencex-issue870-2026")
    assert imx["tpot_ms"]["meets_targets"] and imx["output_tokens_per_s_per_gpu"]["meets_targets"]


def test_nothing_fits_on_the_rows():
    """The rule: the rows are unseen; no fit (bench/) or model module reads them."""
    readers = code_naming("thirdparty_moe")
    assert readers == [
        "models/validation/thirdparty_moe.py",
        "models/validation/thirdparty_serving3.py",
        "models/validation/thirdparty_serving4.py",
        "models/validation/thirdparty_sets.py",
    ]
    # the rows' file is named by this set's module and by the registry (its record) only
    assert code_naming("thirdparty_moe.csv") == [
        "models/validation/thirdparty_moe.py",
        "models/validation/thirdparty_sets.py",
    ]
    # the third and fourth sets (twenty-fifth and twenty-seventh amendments) borrow the mapping
    # and METRICS, never these rows
    for path in readers[1:3]:
        other = (ROOT / path).read_text(encoding="utf-8")
        assert "thirdparty_moe.csv" not in other, path
        assert not re.search(r"thirdparty_moe\.(load_rows|ROWS|predict|errors|as_json)", other)


def test_an_older_release_quotes_what_the_set_measured_on_it():
    """A CUDA release older than the measured ones names what this set measured on such a release
    (builds.OLDER_RELEASE_EVIDENCE): the ratio is measured / planned TPOT at the class's signed
    median, 1 / (1 + e), for dstack's SGLang 0.4.3 and vLLM 0.7.4 rows; a newer unmeasured release
    and a measured one carry no such sentence."""
    from models.serving import builds

    classes = {
        c["engine"]: c for c in T.as_json()["classes"] if c["source_id"].startswith("dstack")
    }
    for engine, (release, ratio) in builds.OLDER_RELEASE_EVIDENCE.items():
        signed = classes[engine]["tpot_ms"]["signed_median"]
        assert ratio == pytest.approx(1 / (1 + signed), abs=0.005), engine
        assert {r["engine_version"] for r in ROWS if r["engine"] == engine} >= {release}
        note = builds.resolve(engine, "H200", release).note
        assert f"{release} served DeepSeek-R1 on 8 H200 at {ratio:.1f}x" in note
        lo, hi = builds.CUDA_MEASURED[engine]
        assert "Older releases" not in builds.resolve(engine, "H200", "99.0.0").note
        assert builds.resolve(engine, "H200", hi).note == ""

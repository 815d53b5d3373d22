"""The older CUDA releases' evidence, its fit and the adoption rule (models/validation/
older_cuda.py; docs/reference/serving-evidence.md, thirtieth amendment)."""

from __future__ import annotations

import pytest

from app.cli import main
from app.views.validation_older_cuda import older_cuda_table
from models.serving import builds
from models.serving.plan import evaluate
from models.validation import amd, older_cuda, step_fit


def _line(engine: str, cls: str, line: str) -> dict:
    return next(
        e
        for e in older_cuda.as_json()["lines"]
        if (e["engine"], e["class"], e["line"]) == (engine, cls, line)
    )


def test_builds_py_carries_exactly_the_lines_that_meet_the_rule():
    """A line meeting the rule must be in builds.py at its fit; one that fails must not be."""
    for e in older_cuda.as_json()["lines"]:
        assert e["adopted"] == e["meets_rule"], e
        carried = older_cuda.build_of_line(e["engine"], e["class"], e["line"])
        if e["meets_rule"]:
            assert (carried.step_factor, carried.step_s_per_layer * 1e6) == pytest.approx(
                (e["fit"]["k"], e["fit"]["s_us"])
            )
        else:
            assert carried is None


def test_the_rule_fails_where_the_rows_say_it_must():
    """vLLM 0.5 dense: its rows are at two concurrencies (40, 320); MoE: the fit gains under 10
    points on the record. Each part read from the rows, not restated."""
    dense = _line("vllm", "dense", "0.5")
    rows = older_cuda.lines()[("vllm", "dense", "0.5")]
    assert len({r["concurrency"] for r in rows}) == 2 and not dense["rule"]["concurrencies"]
    moe = _line("vllm", "moe", "0.5")
    gain = moe["record"]["tpot_ms"]["median_abs"] - moe["fitted"]["tpot_ms"]["median_abs"]
    assert gain < older_cuda.ADOPTION["gain"] and not moe["rule"]["in_sample"]
    assert moe["rule"]["rows"] and moe["rule"]["concurrencies"]


def test_the_note_quotes_the_records_scores_on_these_rows():
    seen, dense, moe = builds.OLDER_RELEASE_CLOSE["vllm"]
    assert {r["engine_version"] for r in older_cuda.lines()[("vllm", "moe", "0.5")]} == {seen}
    assert dense == round(_line("vllm", "dense", "0.5")["record"]["tpot_ms"]["median_abs"], 2)
    assert moe == round(_line("vllm", "moe", "0.5")["record"]["tpot_ms"]["median_abs"], 2)
    note = builds.resolve("vllm", "H100-SXM", "0.7.3", True).note
    assert "vLLM 0.5.4 served Llama 3.1 and Mixtral 8x7B on H100 within 10% and 14%" in note
    assert builds.resolve("vllm", "H100-SXM", "0.12.0", True).note == ""


def test_the_records_tpot_is_the_planners():
    """ "record" is the planner's own TPOT without a version (its MoE term included): the error
    equals evaluate's tpot over the measured one, on a Mixtral (MoE) row."""
    row = next(r for r in older_cuda.lines()[("vllm", "moe", "0.5")] if r["tp"] == "4")
    inp = amd.inputs_of(row | {"engine_version": ""})
    f = evaluate(inp, [4], [1], [float(row["concurrency"])])
    want = float(f["tpot"][0]) * 1e3 / float(row["tpot_ms"]) - 1
    assert older_cuda.errors(row, "record")["tpot_ms"] == pytest.approx(want, rel=1e-9)


def test_leaving_a_source_out_fits_on_the_others_only():
    rows = older_cuda.lines()[("vllm", "moe", "0.5")]
    split = [r | {"source_id": "a" if i % 2 else "b"} for i, r in enumerate(rows)]
    loso = older_cuda._loso(split)
    assert set(loso) == {"a", "b"}
    k, s, _ = step_fit.fit([r for r in split if r["source_id"] == "b"])
    assert (loso["a"]["k"], loso["a"]["s_us"]) == pytest.approx((k, s * 1e6))
    assert loso["a"]["rows"] == sum(r["source_id"] == "a" for r in split)
    assert older_cuda._loso(rows) == {}  # one source: nothing to leave out


def test_validate_and_the_page_read_the_same_lines(capsys):
    assert main(["validate"]) == 0
    out = capsys.readouterr().out.split("== Serving on older CUDA releases, measured")[1]
    assert "28 rows, 16 expressible, 16 scored" in out
    assert "vLLM 0.5 moe   (build 0.5.4; 8 rows, 1 source, H100-SXM): TPOT 14% (-14%)" in out
    table = older_cuda_table(older_cuda.as_json())
    assert list(table["status"]) == ["not adopted", "not adopted"]
    moe = _line("vllm", "moe", "0.5")["record"]["tpot_ms"]["median_abs"]
    assert table["TPOT record median |error| %"].iloc[1] == pytest.approx(100 * moe)

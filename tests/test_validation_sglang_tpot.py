"""The nineteenth amendment (docs/reference/serving-evidence.md, 2026-12-02): a time per token and
MoE layer in SGLang's CUDA decode step, fitted with its prefill share on SGLang's tuning rows and
adopted only if its tuning TPOT median falls by 2 points without its p90 rising
(bench/serve_sglang_tpot_fit.py)."""

from __future__ import annotations

import functools

import pytest

from bench import serve_sglang_tpot_fit as fit
from models.serving.engines import ENGINES
from models.serving.plan import ServeInputs, evaluate
from models.shapes import get_preset
from models.validation import silicon

DOC = (silicon.DATA_DIR.parent.parent / "docs" / "reference" / "serving-evidence.md").read_text()


@functools.cache
def _fitted() -> dict:
    return fit.fit(fit.columns())


def _tpot(model: str, gpu: str, engine: str, batch: int) -> tuple[float, float]:
    inp = ServeInputs(model=model, gpu=gpu, precision="fp8", input_tokens=1024,
                      output_tokens=1024, engine=engine)  # fmt: skip
    r = evaluate(inp, [8], [8], [batch])
    return float(r["t_step"][0]), float(r["ttft"][0])


@pytest.mark.parametrize("batch", [1, 64])
def test_the_term_adds_m_per_token_and_moe_layer_to_a_moe_step(batch):
    """With m set, a MoE model's SGLang step on a CUDA build gains m · B · moe_layers exactly; a
    dense model's step and every other engine's do not move."""
    m = 0.5e-6
    moe_layers = get_preset("deepseek-v3-like").moe_layers
    before = {e: _tpot("deepseek-v3-like", "H200", e, batch)[0] for e in ENGINES}
    dense_before = _tpot("llama3-70b", "H200", "sglang", batch)[0]
    with fit.constants(m, ENGINES["sglang"].prefill_share_in_decode):
        after = {e: _tpot("deepseek-v3-like", "H200", e, batch)[0] for e in ENGINES}
        dense_after = _tpot("llama3-70b", "H200", "sglang", batch)[0]
    assert after["sglang"] - before["sglang"] == pytest.approx(m * batch * moe_layers, rel=1e-9)
    assert after["tensorrt-llm"] == before["tensorrt-llm"] and after["vllm"] == before["vllm"]
    assert dense_after == dense_before


def test_the_term_leaves_the_rocm_build_alone():
    """SGLang's ROCm build keeps the sixteenth amendment's k and s (fitted on its own rows)."""
    inp = ServeInputs(model="deepseek-v3-like", gpu="MI300X", precision="fp8", input_tokens=1024,
                      output_tokens=1024, engine="sglang")  # fmt: skip
    before = float(evaluate(inp, [8], [8], [32])["t_step"][0])
    with fit.constants(0.5e-6, ENGINES["sglang"].prefill_share_in_decode):
        after = float(evaluate(inp, [8], [8], [32])["t_step"][0])
    assert after == before


def test_the_committed_constants_are_the_rules_outcome():
    """Adopted: engines.py holds the fit; not adopted: SGLang keeps m = 0 and φ = 0.60."""
    f = _fitted()
    spec = ENGINES["sglang"]
    if f["adopted"]:
        assert (spec.moe_s_per_token_layer, spec.prefill_share_in_decode) == pytest.approx(
            (f["m"], f["phi"])
        )
    else:
        assert (spec.moe_s_per_token_layer, spec.prefill_share_in_decode) == fit.CURRENT


def test_the_fit_is_as_the_amendment_writes_it():
    """Computed 2026-12-02: m = 0.30 µs, φ = 0.59; median 15.3 → 13.8 %, p90 40.5 → 38.1 %, over
    801 rows: 1.5 points, short of the 2.0 the rule asks, so not adopted."""
    f = _fitted()
    assert (f["m"], f["phi"], f["rows"]) == (pytest.approx(0.30e-6), pytest.approx(0.59), 801)
    assert f["median"] == pytest.approx((0.153, 0.138), abs=0.001)
    assert f["p90"] == pytest.approx((0.405, 0.381), abs=0.001)
    assert not f["adopted"]
    assert "m = 0.30 µs per token and MoE layer with φ = 0.59" in DOC
    assert "**Not adopted:** SGLang keeps m = 0 and φ = 0.60" in DOC


def test_the_fit_reads_sglang_tuning_rows_only():
    rows = {r["id"]: r for r in silicon.load_rows()}
    ids = fit.columns()["id"]
    assert len(ids) == 801
    assert not any(silicon.held_out(rows[i]) for i in ids)
    assert {rows[i]["backend"] for i in ids} == {"sglang"}


def test_the_grid_arithmetic_is_the_models():
    f = _fitted()
    assert fit.check(fit.columns(), f["m"], f["phi"]) < 1e-9

"""A ROCm build's decode step at scale (docs/reference/serving-evidence.md, thirty-third and
thirty-fourth amendments): AMD's throughput-table rows as entered, the step's two candidate terms
(m per sequence and layer, c of the step's arithmetic), their grid fit, and the planner applying
the adopted one."""

from __future__ import annotations

import dataclasses
import re

import numpy as np
import pytest

from models.serving import builds, roofline
from models.serving.plan import ServeInputs, evaluate
from models.shapes import get_preset
from models.validation import amd, step_fit

TPUT = [r for r in amd.load_rows() if r["id"].startswith("amdperf-tput-")]
INP = ServeInputs(
    model="llama3-70b", gpu="MI300X", precision="fp8", input_tokens=1024, output_tokens=1024
)


def test_the_throughput_rows_are_the_pages_figures_as_the_amendment_derives_them():
    """16 rows (4 images x 2 models x 2 length pairs), 128-token prompts only; output tokens/s is
    the midpoint of the two readings of the published T, TPOT the batch's time over its outputs."""
    assert len(TPUT) == 16
    assert {r["engine_version"] for r in TPUT} == {"0.9.0.1", "0.10.1", "0.10.2", "0.11.1"}
    for r in TPUT:
        i, o, n = int(r["input_tokens"]), int(r["output_tokens"]), int(r["concurrency"])
        assert i == 128 and o in (2048, 4096)
        assert n == (3200 if (r["model"], o) == ("llama3-70b", 2048) else 1500)
        t = float(re.search(r"published 'Throughput \(tokens/s\)' ([\d.]+)", r["settings"])[1])
        out = t * (1 + o / (i + o)) / 2  # as derived (the file rounds it to 0.1)
        assert float(r["output_tokens_per_s"]) == pytest.approx(out, abs=0.05)
        # either reading of T is within 3.1 % of the midpoint entered
        assert max(t / out - 1, 1 - t * o / (i + o) / out) < 0.031
        assert float(r["tpot_ms"]) == pytest.approx(1000 * n / out, abs=5e-4)


def test_the_planner_applies_the_adopted_time_per_sequence_and_layer():
    """The scoring and the planner agree on every throughput row the memory model fits, and the
    term is what moves them: without it the planner's step is k · roofline alone."""
    scored = 0
    for r in TPUT:
        p = amd.parts(r)
        if not p.fits:
            continue
        m, c = amd.terms(r, "after")
        assert (m, c) == (0.50e-6, 0.0)
        f = amd.figures(r, *amd.costs(r, "after"), None, m, c)
        assert p.t_engine == pytest.approx(1.01 * p.t_raw + m * p.batch * p.layers, rel=1e-12)
        assert f["tpot_ms"] / 1e3 == pytest.approx(
            p.t_engine + p.batch * p.t_prefill / p.output_tokens, rel=1e-12
        )
        assert m * p.batch * p.layers > 0.3 * p.t_raw  # at 1,500+ sequences the term is large
        scored += 1
    assert scored == 12  # 405B at 1,500 x 4,224 tokens is refused on all four images


def test_engine_step_s_adds_each_term(monkeypatch):
    """k · R + L · s + m · B · L + c · R_arith, each term on its own (made-up constants)."""
    shape = get_preset("llama3-70b")
    real = builds.build_of(INP)
    for m, c in ((0.0, 0.0), (2e-6, 0.0), (0.0, 0.7), (1e-6, 0.3)):
        fake = dataclasses.replace(
            real, step_factor=1.5, step_s_per_layer=10e-6, step_s_per_seq_layer=m,
            step_arith_share=c,
        )  # fmt: skip
        monkeypatch.setattr(builds, "build_of", lambda inp, fake=fake: fake)
        got = builds.engine_step_s(INP, shape, 0.010, 64.0, 0.004)
        want = 1.5 * 0.010 + shape.layers * 10e-6 + m * 64 * shape.layers + c * 0.004
        assert got == pytest.approx(want, rel=1e-12)


def test_cuda_plans_do_not_take_the_rocm_terms():
    """An NVIDIA plan's step is its engine's record whatever the arithmetic passed."""
    inp = INP.model_copy(update={"gpu": "H100-SXM", "engine": "vllm"})
    shape = get_preset(inp.model)
    assert builds.engine_step_s(inp, shape, 0.01, 64.0, 0.0) == builds.engine_step_s(
        inp, shape, 0.01, 64.0, 5.0
    )


def test_the_decode_arithmetic_grows_with_the_batch():
    """The step's arithmetic at the roofline's rates: proportional to the batch at a fixed context
    (GEMMs and attention both B-linear), and at most the roofline step itself."""
    shape, gpu = get_preset("llama3-70b"), builds.get_gpu("MI300X")
    b = np.array([16.0, 32.0, 64.0])
    su = roofline.setup(shape, gpu, "fp8", "fp8", np.full(3, 8.0), b, 1024, 1024)
    step, _, arith = roofline.decode_step(su, roofline.memory(su), True)
    assert arith[1] == pytest.approx(2 * arith[0]) and arith[2] == pytest.approx(4 * arith[0])
    assert np.all(arith < step)
    f = evaluate(INP, [8], [1], [64.0])
    assert f["t_arith"][0] == pytest.approx(float(arith[2]), rel=1e-12)


@pytest.mark.parametrize("form, term", [("F1", 0.30e-6), ("F2", 0.80)])
def test_the_grid_fit_recovers_made_up_constants(form, term):
    """Rows whose TPOT is made by (k, s, term) on the grid are fitted back to exactly those."""
    rows = [r for r in amd.load_rows() if amd.line_of(r)[2] == "0.10" and r["tpot_ms"]]
    rows = [r for r in rows if amd.parts(r).fits]
    k, s = 1.37, 25e-6
    m, c = (term, 0.0) if form == "F1" else (0.0, term)
    made = [r | {"tpot_ms": str(amd.figures(r, k, s, None, m, c)["tpot_ms"])} for r in rows]
    got = step_fit.fit_term(made, form)
    assert got[:3] == pytest.approx((k, s, term), abs=1e-12) and got[3] < 1e-9

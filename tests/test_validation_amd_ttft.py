"""Time to first token per ROCm build (docs/reference/serving-evidence.md, seventeenth amendment):
the committed constants are the fit rule's on the tuning rows, adopted only where they beat the
CUDA engine's constants there; a service on an AMD GPU takes its build's constants (a dense build
fitted on single waves: the steady share, the amendment's second part); CUDA is untouched; and
`clusterplan validate` and the Validation page show TTFT before -> sixteenth -> after."""

from __future__ import annotations

import re

import pytest

from app.cli import main
from app.views.validation_amd import amd_table
from bench import serve_rocm_ttft_fit as fit
from models.serving import builds
from models.serving.engines import ENGINES, first_token_s
from models.serving.plan import ServeInputs, evaluate
from models.validation import amd


def _fitted(engine: str, version: str):
    rows = fit.tuning_rows(engine, version)
    cols = fit.columns(rows)
    a, k, w, err = fit.fit(cols)
    return (a, k, w), err, fit.current_error(engine, cols), rows


@pytest.mark.parametrize(
    "engine,version", [(b.engine, b.version) for v in builds.ROCM_BUILDS.values() for b in v]
)
def test_committed_ttft_constants_are_the_rule_and_adopted_only_where_they_beat(engine, version):
    build = next(b for b in builds.ROCM_BUILDS[engine] if b.version == version)
    if not fit.tuning_rows(engine, version):  # vLLM 0.10.2: no TTFT rows (thirty-second)
        assert build.ttft is None
        return
    constants, err, current, rows = _fitted(engine, version)
    assert not any(amd.held_out(r) for r in rows)
    if len(rows) >= fit.MIN_ROWS and err < current:
        assert build.ttft == pytest.approx(constants), (engine, version)
    else:
        assert build.ttft is None, (engine, version)


def test_a_service_on_amd_takes_its_builds_constants():
    inp = ServeInputs(
        model="deepseek-v3-like", gpu="MI300X", input_tokens=3200, output_tokens=800, users=32
    )
    r = evaluate(inp, [8], [1], [32])
    build = builds.build_of(inp)
    assert build.ttft == (1.0, 10.0, 2.27)
    # a service: the steady form (twenty-first amendment) around the build's own a and k
    cycle = r["tpot"][0] * 800
    expected = builds.service_first_token_s(inp, r["t_prefill"][0], r["t_step"][0], 32, cycle)
    assert r["ttft"][0] == pytest.approx(expected, rel=1e-12)
    own = 1.0 + 10.0 * r["t_prefill"][0] + r["t_step"][0]
    assert r["ttft"][0] >= own - 1e-12
    cuda = first_token_s("vllm", r["t_prefill"][0], r["t_step"][0], 1)
    assert r["ttft"][0] > 2 * cuda
    split = first_token_s("vllm", r["t_prefill"][0], r["t_step"][0], 1, build.ttft)
    assert r["split_ttft"][0] == pytest.approx(split + r["t_kv"][0], rel=1e-12)


def test_a_dense_build_fitted_on_single_waves_takes_the_steady_share():
    """vLLM 0.6.3's rows sent every prompt at once: a service's w is k · w_e / k_e, the rows'
    score keeps the fitted w (about k / 2, half of each other's prefill)."""
    build = builds.resolve("vllm", "MI300X", "0.6.3", moe=False)
    a, k, w_rows = build.ttft_rows
    assert w_rows == pytest.approx(k / 2, abs=0.02)
    spec = ENGINES["vllm"]
    assert build.ttft == pytest.approx((a, k, k * spec.ttft_wave_share / spec.ttft_prefill_factor))
    row = next(r for r in amd.load_rows() if r["id"] == "dstack-405b-vllm-n64-i10000")
    assert amd.ttft_constants(row, "after") == build.ttft_rows
    moe = builds.resolve("vllm", "MI300X", None, moe=True)
    assert moe.ttft == moe.ttft_rows  # steady closed loops: as fitted


def test_cuda_services_keep_the_cuda_constants():
    inp = ServeInputs(
        model="llama3-70b", gpu="H100-SXM", input_tokens=2000, output_tokens=300, users=8
    )
    assert builds.build_of(inp).ttft is None
    r = evaluate(inp, [2], [1], [8])
    cycle = r["tpot"][0] * 300
    steady = builds.service_first_token_s(inp, r["t_prefill"][0], r["t_step"][0], 8, cycle)
    assert r["ttft"][0] == pytest.approx(steady, rel=1e-12)
    own = builds.first_token_s(inp, r["t_prefill"][0], r["t_step"][0])  # the CUDA engine's own
    assert own == pytest.approx(0.040 + 0.85 * r["t_prefill"][0] + r["t_step"][0], rel=1e-12)
    assert r["ttft"][0] >= own  # and at p50 the median wait for the 7 others' prefills (or none)


def test_ttft_moves_only_between_sixteenth_and_after():
    data = amd.as_json()
    for c in data["classes"]:
        for m in ("tpot_ms", "out_tps"):
            assert c["sixteenth"][m] == c["after"][m], (c["engine"], m)
        if c["split"] == "tuning" and c["version"] in ("0.6.3", "0.7.3", "0.4.2"):
            after, before = c["after"]["ttft_ms"], c["sixteenth"]["ttft_ms"]
            assert after["median_abs"] < 0.05 < 0.5 < before["median_abs"], c


def test_validate_and_the_page_show_the_three_ttft_forms(capsys):
    assert main(["validate"]) == 0
    section = capsys.readouterr().out.split("== Serving on AMD GPUs, measured")[1]
    line = next(x for x in section.splitlines() if re.search(r"vllm\s+0\.7\.3\s+tuning\s+9", x))
    # the columns before the seventeenth read vLLM's CUDA constants, refitted by the eighteenth
    # amendment (95 % and 95 % with the ninth's)
    assert re.search(r"97% ->\s+96% ->\s+2% \(\s+-0%\)", line), line
    data = amd.as_json()
    table = amd_table(data)
    first = data["classes"][0]["sixteenth"]["ttft_ms"]["median_abs"]
    assert table["TTFT 16th amendment %"].iloc[0] == pytest.approx(100 * first)


def test_the_plan_names_the_builds_first_token_constants():
    inp = ServeInputs(
        model="llama3-70b", gpu="MI300X", input_tokens=2000, output_tokens=300, rps=1,
        engine="vllm:0.6.3",
    )  # fmt: skip
    text = builds.software_of(inp)
    # a service waits for the others' prefills in steady traffic (twenty-first amendment), no w
    assert "first token 30 ms + 5.9 of the roofline's prefills (seventeenth" in text
    assert "the wait for the others' prefills (twenty-first)" in text
    cuda = ServeInputs(
        model="llama3-70b", gpu="H100-SXM", input_tokens=2000, output_tokens=300, rps=1
    )
    assert "first token" not in builds.software_of(cuda)


def test_the_validation_page_shows_ttft_before_sixteenth_and_after():
    from tests.builders import app

    at = app("validation")
    frames = [d.value for d in at.dataframe if "TTFT 16th amendment %" in d.value.columns]
    assert len(frames) == 1
    data = amd.as_json()
    frame = frames[0]
    want = [c["after"]["ttft_ms"]["median_abs"] for c in data["classes"]]
    assert list(frame["TTFT after %"].fillna(-1)) == pytest.approx(
        [-1 if x is None else 100 * x for x in want]
    )
    assert any("seventeenth amendment" in c.value for c in at.caption)

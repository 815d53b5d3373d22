"""An older CUDA release's own decode-step costs (docs/reference/serving-evidence.md, thirtieth
amendment): which build a version takes, and that the planner's step is the build's. The table is
patched with a build of made-up constants, so these tests hold the mechanism whatever the fit
adopts; the fit and the adopted constants are tested in test_validation_older_cuda.py."""

from __future__ import annotations

import pytest

from models.serving import builds
from models.serving.plan import ServeInputs, evaluate
from models.shapes import get_preset

FAKE = builds.MeasuredBuild("vllm", "0.7.3", 2.5, 200e-6, "made-up rows", "moe")


@pytest.fixture
def fake_build(monkeypatch):
    """vLLM's older builds replaced by one MoE build of made-up constants (resolve's cache cleared
    before and after, so no other test sees it)."""
    builds.resolve.cache_clear()
    monkeypatch.setattr(builds, "CUDA_OLDER_BUILDS", {"vllm": (FAKE,)})
    yield FAKE
    builds.resolve.cache_clear()


@pytest.mark.parametrize(
    "version, moe, costs, own",
    [
        ("0.7.4.dev181", True, "0.7.3", True),  # the line's build
        ("0.6.3", True, "0.7.3", True),  # nearer the 0.7 build than the record at 0.11.2
        ("0.10.2", True, "0.10.2", False),  # nearer the record (0.11.2): the record
        ("0.7.3", False, "0.7.3", False),  # a dense model: no dense build, the record
        ("0.12.0", True, "0.12.0", False),  # inside the measured releases: the record
    ],
)
def test_a_version_takes_the_nearest_build_of_its_class_or_the_record(
    fake_build, version, moe, costs, own
):
    b = builds.resolve("vllm", "H200", version, moe)
    assert (b.costs_version, b.own_step) == (costs, own)
    record = (builds.ENGINES["vllm"].decode_step_factor, 0.0)
    want = (FAKE.step_factor, FAKE.step_s_per_layer) if own else record
    assert (b.step_factor, b.step_s_per_layer) == want


def test_rocm_and_other_engines_are_untouched(fake_build):
    rocm = builds.resolve("vllm", "MI300X", "0.7.3", True)
    assert rocm.platform == "rocm" and rocm.step_factor == builds.ROCM_BUILDS["vllm"][1].step_factor
    sglang = builds.resolve("sglang", "H200", "0.4.3", True)
    assert not sglang.own_step and "was not measured" in sglang.note


def test_the_planners_step_is_the_builds_k_times_the_roofline_plus_s_per_layer(fake_build):
    inp = ServeInputs(
        model="deepseek-v3-like", gpu="H200", precision="fp8", engine="vllm",
        engine_version="0.7.4.dev181", input_tokens=3200, output_tokens=800, users=64,
    )  # fmt: skip
    f = evaluate(inp, [8], [1], [64.0])
    layers = get_preset("deepseek-v3-like").layers
    want = FAKE.step_factor * f["t_roofline"][0] + layers * FAKE.step_s_per_layer
    assert f["t_step"][0] == pytest.approx(want, rel=1e-12)
    record = evaluate(inp.model_copy(update={"engine_version": None}), [8], [1], [64.0])
    assert record["t_step"][0] != pytest.approx(want, rel=1e-3)
    text = builds.software_of(inp)
    assert "vLLM 0.7.3: each decode step 2.50x the roofline's + 200 µs per layer" in text
    assert "thirtieth amendment" in text and "0.7.4.dev181" in text


def test_a_rocm_plan_quotes_what_unseen_sets_measured_against_its_build():
    """ROCM_NEWER_EVIDENCE's ratios are 1 + the unseen sets' signed medians, at their releases,
    against the build each names; the note reaches a plan on that build at the default or a newer
    version, not one at an older or another build."""
    from models.validation import inferencemax, thirdparty_serving5

    seen, _, against, tpot, ttft, _ = builds.ROCM_NEWER_EVIDENCE[("vllm", "dense")]
    assert builds.resolve("vllm", "MI300X", None, False).costs_version == against
    imax = next(
        c
        for c in inferencemax.as_json()["by_engine_gpu_precision"]
        if (c["engine"], c["gpu"], c["precision"]) == ("vllm", "MI300X", "fp8")
    )
    assert tpot == round(1 + imax["tpot_ms"]["signed_median"], 2)
    assert ttft == round(1 + imax["ttft_ms"]["signed_median"], 2)
    rows = [r for r in inferencemax.load_rows() if r["gpu"] == "MI300X"]
    assert {r["engine_version"] for r in rows} == {seen}
    seen, _, against, tpot, ttft, _ = builds.ROCM_NEWER_EVIDENCE[("vllm", "moe")]
    assert builds.resolve("vllm", "MI300X", None, True).costs_version == against
    ix = next(
        c
        for c in thirdparty_serving5.as_json()["classes"]
        if (c["engine"], c["gpu"]) == ("vllm", "MI300X")
    )
    assert (tpot, ttft) == (round(1 + ix["tpot_ms"]["signed_median"], 2), None)
    rows = [r for r in thirdparty_serving5.load_rows() if r["gpu"] == "MI300X"]
    assert {r["engine_version"] for r in rows} == {seen}
    default = builds.resolve("vllm", "MI300X", None, False).evidence
    assert "measured by an unseen set: vLLM 0.10.1 served Llama 3.3 70B FP8" in default
    assert "0.85x its time per output token and 0.66x its time to first token" in default
    assert "unseen set" in builds.resolve("vllm", "MI300X", "0.9.0", True).evidence
    assert "unseen set" not in builds.resolve("vllm", "MI300X", "0.7.3", True).evidence
    assert "unseen set" not in builds.resolve("vllm", "MI300X", "0.6.0", False).evidence
    assert builds.resolve("sglang", "MI300X", None, True).evidence == ""
    inp = ServeInputs(model="llama3-70b", gpu="MI300X", input_tokens=1000, output_tokens=1000)
    assert default in builds.software_of(inp)  # the plan's software line carries it

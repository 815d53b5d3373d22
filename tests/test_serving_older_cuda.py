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

"""A planned service's time to first token in steady traffic (docs/reference/serving-evidence.md,
twenty-first amendment): own prefill + an M/M/1 wait for the others' prefills at the rate a closed
loop of users implies; benchmark rows that arrived in waves keep their own scoring form."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from models.serving import builds, queueing
from models.serving.engines import ENGINES
from models.serving.plan import ServeInputs, evaluate, plan_serving
from models.shapes import get_preset
from models.validation import amd, silicon

BASE = {"model": "llama3-70b", "gpu": "H100-SXM", "precision": "fp8", "gpus": 4}
#: sha256 of every AIConfigurator row's predicted TTFT and TPOT and every AMD row's errors in every
#: form (to 12 significant digits: the AMD rows' roofline step is read, no longer divided back out
#: of the build's step, which moves the last bit), computed with the same code as below at main
#: before this amendment (commit 7277972) and again at 09be416: the same digest (8429aec3...);
#: recomputed at the thirty-second amendment (18 AMD rows added; the default dense ROCm build is
#: vLLM 0.10.2, so OCI's rows with no version move; the AIConfigurator part is unchanged), and at
#: the thirty-fourth (16 AMD rows added; 0.10.2's time per sequence and layer moves the rows it
#: scores; `clusterplan validate`'s AIConfigurator block is byte-identical)
WAVE_ROWS_DIGEST = "a8eef007767857846c688a99bee7f5211f9c9de68d31fd924ed0aaeebf9c27c0"


def _ttft_ms(**kw) -> float:
    return plan_serving(ServeInputs(**(BASE | {"input_tokens": 2048} | kw))).ttft_ms


def test_steady_ttft_falls_as_answers_lengthen_at_fixed_users():
    # longer answers: each user comes back less often, fewer prefills arrive while one waits
    ttfts = [_ttft_ms(users=64, output_tokens=o, slo_percentile=90) for o in (64, 128, 256, 512)]
    assert all(a > b for a, b in zip(ttfts, ttfts[1:], strict=False)), ttfts


def test_steady_ttft_rises_toward_saturation_as_users_grow():
    ttfts = [_ttft_ms(users=u, output_tokens=256, slo_percentile=90) for u in (2, 8, 32, 64)]
    assert all(a < b for a, b in zip(ttfts, ttfts[1:], strict=False)), ttfts
    rho = queueing.closed_loop_utilisation([1, 10, 100, 1e4, 1e6], 0.1, 0.2, 2.0)
    assert np.all(np.diff(rho) > 0) and rho[-1] < 1 and rho[-1] > 0.99


def test_a_lone_user_waits_for_no_one_elses_prefill():
    # even at p99: the arrival rate it waits behind is the other users' (B − 1), none here
    fields = {"input_tokens": 2048, "output_tokens": 256, "users": 1, "slo_percentile": 99}
    inp = ServeInputs(**(BASE | fields))
    f = evaluate(inp, [4], [1], [1])
    a, k = ENGINES[inp.engine].own_first_token(get_preset(inp.model).is_moe)  # twenty-ninth
    own = a + k * f["t_prefill"][0] + f["t_step"][0]
    assert float(f["ttft"][0]) == pytest.approx(float(own), rel=1e-12)


def test_the_utilisation_is_the_closed_loops_arrival_rate_times_the_prefill():
    # ρ = λ·s with λ = (B − 1) / (own + ρ·s/(1 − ρ) + O·TPOT), solved by hand at the root
    others, s, own, cycle = 63.0, 0.08, 0.3, 9.0
    rho = float(queueing.closed_loop_utilisation(others, s, own, cycle))
    lam = others / (own + rho * s / (1 - rho) + cycle)
    assert rho == pytest.approx(lam * s, rel=1e-9)
    assert 0 < rho < 1


def test_the_percentile_reaches_the_prefill_wait():
    inp = ServeInputs(**(BASE | {"input_tokens": 2048, "output_tokens": 256, "users": 64}))
    f = evaluate(inp, [4], [1], [64])
    cycle = f["tpot"][0] * 256
    p90 = builds.service_first_token_s(inp.model_copy(update={"slo_percentile": 90}),
                                       f["t_prefill"][0], f["t_step"][0], 64, cycle)  # fmt: skip
    assert float(p90) > float(f["ttft"][0])


def test_the_benchmark_rows_scoring_is_byte_identical():
    h = hashlib.sha256()
    # the thirty-fifth and thirty-sixth amendments' weight-only rows were not expressed when the
    # digest was taken (hashed as then, None); every other row is as it was
    new = {r["id"] for r in silicon.load_rows() if silicon.weight_only_row(r)}
    for s in silicon.score():
        ttft, tpot = (None, None) if s.id in new else (s.ttft_predicted_ms, s.tpot_predicted_ms)
        h.update(f"{ttft!r};{tpot!r}\n".encode())
    for row in amd.load_rows():
        for form in amd.FORMS:
            errs = {k: None if v is None else f"{v:.12g}" for k, v in amd.errors(row, form).items()}
            h.update(f"{row['id']}:{form}:{errs!r}\n".encode())
    assert h.hexdigest() == WAVE_ROWS_DIGEST


def test_a_rocm_builds_prefill_server_is_the_rooflines_prefill():
    """The lead's correction: on every engine and build the prefill server's time is the roofline's
    prefill (k is the client's view of its own prefill, not server time), so on a ROCm build the
    wait at p50 is the M/M/1 median at rho = lambda x t_prefill with its own a and k."""
    inp = ServeInputs(
        **(
            BASE
            | {"gpu": "MI300X", "engine": "vllm:0.6.3", "input_tokens": 2048, "output_tokens": 256}
        )
        | {"users": 64}
    )
    build = builds.build_of(inp)
    assert build.ttft is not None and build.platform == "rocm"
    f = evaluate(inp, [4], [1], [64])
    a, k = build.ttft[:2]
    tp, ts = float(f["t_prefill"][0]), float(f["t_step"][0])
    own, cycle = a + k * tp + ts, float(f["tpot"][0]) * 256
    rho = float(queueing.closed_loop_utilisation(63.0, tp, own, cycle))
    want = own + float(queueing.queue_wait_s(rho, 1, tp, 50))
    got = float(builds.service_first_token_s(inp, tp, ts, 64, cycle))
    assert got == pytest.approx(want, rel=1e-9)

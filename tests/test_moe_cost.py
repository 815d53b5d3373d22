"""The cost of many small experts (issue 31 item 3; models/training/moe_cost.py; the form in
docs/reference/training.md section 6): grouped-GEMM launches and efficiency from DeepGEMM's
published table, and the expert all-to-all over the links its group spans."""

from __future__ import annotations

import contextlib
import dataclasses
import io
import json

import numpy as np
import pytest

from app.cli import main
from app.report_text import moe_step_text
from models import constants as C
from models.hardware import get_gpu
from models.training import moe_cost
from models.training.step_time import _context, _layer_comm, step_breakdown
from tests.builders import BODY, FINE, at_layout

pytestmark = pytest.mark.usefixtures("registry")

EP8 = {"tp": 1, "pp": 1, "dp": 64, "ep": 8, "zero": 1, "recompute": "none", "micro_batch": 1}


@pytest.mark.parametrize(
    ("tokens", "width", "measured"),
    [
        (256, 16384, 932 / 1346),  # masked grouped GEMM, 256 tokens per group
        (1024, 16384, 1233 / 1346),
        (8192, 2048, 1168 / 1426),  # K = 2,048 against the K = 16,384 reference
        (8192, 512, 751 / 1426),
        (64, 16384, 287 / 1265),  # the normal GEMM at M = 64 against its own M = 4,096
        (1e6, 1e5, 1.0),  # beyond the table: held at the reference
    ],
)
def test_efficiency_is_deepgemms_table_on_the_gpu_it_was_measured_on(tokens, width, measured):
    eta = moe_cost.grouped_gemm_efficiency(get_gpu("H800"), "fp8", tokens, width)
    assert float(eta) == pytest.approx(measured, rel=1e-9)


def test_bf16_on_h100_meets_the_curve_at_half_the_width():
    """The ridge point scales the table: H100 BF16 (989/3.35) is half H800 FP8 (1979/3.35)."""
    h100, h800 = get_gpu("H100-SXM"), get_gpu("H800")
    assert moe_cost.ridge_flop_per_byte(h100, "bf16") == pytest.approx(989 / 3.35)
    bf16 = moe_cost.grouped_gemm_efficiency(h100, "bf16", 8192, 1024)
    fp8 = moe_cost.grouped_gemm_efficiency(h800, "fp8", 8192, 2048)
    assert float(bf16) == pytest.approx(float(fp8), rel=2e-3)


def test_small_experts_pay_their_grouped_gemm_time_in_the_step(monkeypatch):
    """64 experts of 1,024 run below the large-GEMM rate: the step carries exactly the
    `moe_grouped_gemm` seconds it shows, and loses them when the efficiency is 1 (balanced routing:
    load imbalance has its own tests, test_moe_imbalance.py)."""
    job, one = at_layout(FINE, EP8)
    job = dataclasses.replace(job, moe_balance="forced")
    step = step_breakdown(job, one)
    shown = float(step["moe_grouped_gemm"][0])
    eta = float(moe_cost.grouped_gemm_efficiency(job.gpu, "bf16", 8192 * 16 * 8 / 64, 1024))
    assert eta == pytest.approx(0.82, abs=0.01)  # K = 2,048 in FP8 on H800: 1,168 / 1,426
    assert shown > 0.1
    monkeypatch.setattr(moe_cost, "grouped_gemm_efficiency", lambda *a: 1.0)
    flat = step_breakdown(job, one)
    assert float(flat["moe_grouped_gemm"][0]) == 0.0
    assert float(step["total"][0] - flat["total"][0]) == pytest.approx(shown, rel=1e-9)


def test_grouped_experts_pay_two_launches_whatever_their_number():
    """Megatron-Core's grouped GEMM: one launch per expert linear layer, not one per expert; the
    classic stack's loop over local experts keeps two per expert."""
    job, one = at_layout(FINE, EP8 | {"ep": 1, "dp": 64})
    assert moe_cost.extra_gemm_launches(job, one) == 0  # no shared experts
    classic = dataclasses.replace(job, stack="megatron-3d-classic")
    assert moe_cost.extra_gemm_launches(classic, one) == pytest.approx(2 * (64 - 1))
    # the tuned stack's step does not grow with the local experts' count through launches
    t_tuned = float(step_breakdown(job, one)["total"][0])
    assert t_tuned < float(step_breakdown(classic, one)["total"][0])


def test_an_ep_group_across_nodes_splits_its_bytes_over_both_links():
    """EP 16 on 8-GPU H100 nodes: 7/16 of the bytes over NVLink and 8/16 over the network at once,
    the slower of the two plus 15 scale-out latencies; the old form sent 15/16 at the network's rate."""
    job, one = at_layout(FINE, EP8 | {"ep": 16})
    job = dataclasses.replace(job, moe_balance="forced")  # balanced: test_moe_imbalance.py
    ctx = _context(job, one)
    a2a = float(np.asarray(_layer_comm(job, one, ctx)[1]).ravel()[0])
    routed = 8192 * FINE["experts_per_token"] * BODY["hidden"] * 2.0
    across = 8 / 16 * routed / ctx.out_bw
    inside = 7 / 16 * routed / ctx.up_bw
    assert a2a == pytest.approx(max(inside, across) + 15 * C.SCALEOUT_LATENCY_S, rel=1e-9)
    assert a2a < 15 / 16 * routed / ctx.out_bw


def test_node_limited_routing_sends_a_token_once_per_node():
    """DeepSeek-V3 (top-8, at most 4 nodes): 4 copies per token among the nodes of the group."""
    from models.scenario import Scenario
    from models.training.plan import Planner
    from models.training.search import all_layouts

    sc = Scenario.model_validate(
        {"workload": {"model": "deepseek-v3-like", "tokens": 1e12},
         "cluster": {"gpu": "H800", "gpus": 2048}}
    )  # fmt: skip
    job = dataclasses.replace(Planner(sc).job(2048), moe_balance="forced")  # balanced routing
    lay = all_layouts(job, 2048)
    i = next(i for i in range(len(lay)) if lay.row(i)["ep"] == 64 and lay.row(i)["tp"] == 1)
    one = lay.take([i])
    ctx = _context(job, one)
    a2a = float(np.asarray(_layer_comm(job, one, ctx)[1]).ravel()[0])
    T = float(np.asarray(ctx.T).ravel()[0])
    routed = T * 4 * 7168 * 2.0
    nodes = 64 // 8
    expected = (nodes - 1) / nodes * routed / ctx.out_bw + C.SCALEOUT_LATENCY_S * (nodes - 1)
    assert a2a == pytest.approx(ctx.moe_share * expected, rel=1e-9)


def test_the_text_report_shows_the_moe_terms(tmp_path):
    """`clusterplan train` names the MoE terms inside its step time; a dense model has none."""
    path = tmp_path / "fine.json"
    path.write_text(json.dumps(FINE))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        main(
            ["train", "--model", str(path), "--tokens", "1e11", "--gpu", "H100-SXM", "--gpus", "64"]
        )
    step_line = next(x for x in out.getvalue().splitlines() if x.startswith("Step time"))
    assert "MoE all-to-all" in step_line and "small or uneven experts' GEMMs 0.19 s" in step_line
    assert moe_step_text({"compute": 1.0}) == ""


def test_the_training_page_shows_the_moe_terms_of_an_moe_plan():
    """Workload page (AppTest): an MoE run's caption names its all-to-all and small-expert GEMM
    seconds, read from the plan's step breakdown; a dense run's does not."""
    from tests.builders import app

    def caption_of(model: str) -> str:
        at = app("workload", scenario={"workload": {"model": model, "tokens": 1e11},
                                        "cluster": {"gpu": "H100-SXM", "gpus": 64}})  # fmt: skip
        assert not at.exception
        return " ".join(c.value for c in at.caption)

    assert "MoE all-to-all" in caption_of("qwen3-30b-a3b")
    assert "MoE all-to-all" not in caption_of("llama3-8b")


def test_node_limited_routing_inside_one_domain_pays_its_nvlink_all_to_all():
    """DeepSeek-V3 at EP 64 inside one GB200 NVL72 domain: the node limit does not bind, so each
    token's k = 8 copies cross NVLink, 63/64 of them to other GPUs, plus 63 scale-up latencies
    (training.md 6.6: this all-to-all was free before). Over the domain's edge (H800, 8 per node)
    the node-limited form is kept: 4 copies among the nodes."""
    from models.scenario import Scenario
    from models.training.plan import Planner
    from models.training.search import all_layouts

    sc = Scenario.model_validate(
        {"workload": {"model": "deepseek-v3-like", "tokens": 1e12},
         "cluster": {"gpu": "GB200", "gpus": 256}}
    )  # fmt: skip
    job = dataclasses.replace(Planner(sc).job(256), moe_balance="forced")
    lay = all_layouts(job, 256)
    i = next(i for i in range(len(lay)) if lay.row(i)["ep"] == 64 and lay.row(i)["tp"] == 1)
    one = lay.take([i])
    assert int(np.ravel(moe_cost.dispatch_copies(job, one))[0]) == 8
    ctx = _context(job, one)
    a2a = float(np.asarray(_layer_comm(job, one, ctx)[1]).ravel()[0])
    T = float(np.asarray(ctx.T).ravel()[0])
    routed = T * 8 * 7168 * 2.0
    expected = 63 / 64 * routed / ctx.up_bw + 63 * C.SCALEUP_LATENCY_S
    assert a2a == pytest.approx(ctx.moe_share * expected, rel=1e-9) and a2a > 0

"""vLLM's replica over nodes: tensor parallel within a node x one pipeline stage per node, pp
concurrent batches each passing every stage (docs/reference/serving-evidence.md, twenty-eighth
amendment). Derived, nothing fitted: each test checks one step of the form against the
single-node figures it is built from."""

from __future__ import annotations

import json

import numpy as np
import pytest

from models import constants as C
from models.hardware import get_gpu
from models.serving import roofline
from models.serving.plan import ServeInputs, evaluate, plan_serving, sweep
from models.shapes import get_preset
from tests.builders import run_cli

SERVICE = {
    "model": "llama3-405b",
    "gpu": "H100-SXM",
    "precision": "bf16",
    "engine": "vllm",
    "input_tokens": 2000,
    "output_tokens": 500,
}


def _pair(b: float) -> tuple[dict, dict]:
    """(TP 8 x PP 2, TP 8 alone) at a concurrent batch of b, as arrays of one layout."""
    inp = ServeInputs(**SERVICE, users=32)
    staged = evaluate(inp, [8.0], [1.0], [b], dp=[1.0], pp=[2.0])
    alone = evaluate(inp, [8.0], [1.0], [b], dp=[1.0], pp=[1.0])
    return staged, alone


def _hop_s(tokens: float) -> float:
    """One send of `tokens` activations from a stage to the next over an H100's NIC."""
    gpu, hidden = get_gpu("H100-SXM"), get_preset("llama3-405b").hidden
    nic = roofline.link_rates(gpu)[1]
    return tokens * hidden * roofline.ACTIVATION_BYTES / nic + C.SCALEOUT_LATENCY_S


def _roofline(b: float, pp: float) -> tuple[float, float]:
    """(the roofline's decode step of a concurrent batch of b, its prefill) at TP 8 x PP pp."""
    su = roofline.setup(
        get_preset("llama3-405b"), get_gpu("H100-SXM"), "bf16", "bf16", np.array([8.0]),
        np.array([b]), 2000, 500, pp=np.array([pp]),
    )  # fmt: skip
    step = roofline.decode_step(su, roofline.memory(su), True)[0]
    return float(step[0]), float(roofline.prefill_s(su)[0])


@pytest.mark.parametrize("b", [1.0, 16.0, 64.0])
@pytest.mark.parametrize("pp", [2.0, 4.0])
def test_a_pass_through_the_stages_is_the_whole_models_tp8_step_plus_the_sends(b, pp):
    (step, prefill), (step1, prefill1) = _roofline(b, pp), _roofline(b, 1.0)
    assert step - step1 == pytest.approx((pp - 1) * _hop_s(b), rel=1e-9)
    assert prefill - prefill1 == pytest.approx((pp - 1) * _hop_s(2000), rel=1e-9)
    staged, alone = _pair(b)  # the engine's step: its own costs on the same roofline
    assert staged["t_step"][0] > alone["t_step"][0]
    assert staged["t_prefill"][0] - alone["t_prefill"][0] == pytest.approx(_hop_s(2000), rel=1e-9)


def test_each_gpu_holds_half_the_weights_and_its_layers_kv_for_both_batches():
    staged, alone = _pair(16.0)
    assert staged["weights_gpu"][0] == pytest.approx(alone["weights_gpu"][0] / 2, rel=1e-12)
    # a GPU holds its half of the layers for 2 x 16 sequences: a TP 8 replica's K/V of 16
    assert staged["kv_gpu"][0] == pytest.approx(alone["kv_gpu"][0], rel=1e-12)
    assert staged["max_seqs"][0] > alone["max_seqs"][0] >= 0  # 405B BF16: TP 8 alone holds none
    assert alone["max_seqs"][0] == 0


def test_the_replica_runs_both_batches_at_once_on_twice_the_gpus():
    staged, alone = _pair(16.0)
    assert staged["gpus_replica"][0] == 16 and staged["groups"][0] == 2
    # a sequence's cycle is O x TPOT; both batches complete their 16 requests each cycle
    cycle = 500 * staged["tpot"][0]
    assert staged["rps_replica"][0] == pytest.approx(2 * 16 / cycle, rel=1e-12)
    assert staged["rps_replica"][0] > 1.9 * alone["rps_replica"][0]
    # per GPU: 32 sequences' tokens per cycle over 16 GPUs, the TP 8 figure at a batch of 16
    assert staged["out_tps_gpu"][0] == pytest.approx(32 * 500 / cycle / 16, rel=1e-12)
    # the rule of thumb reads the weights once per pass for both batches' 32 sequences
    assert staged["rule_tps_gpu"][0] == pytest.approx(2 * alone["rule_tps_gpu"][0], rel=1e-12)


def test_users_are_spread_over_the_concurrent_batches():
    """32 users on a vLLM replica of 16 H100 run as two batches of 16, not 32 on each."""
    p = plan_serving(ServeInputs(**SERVICE, users=32, gpus=16))
    assert (p.tp, p.pp, p.batch, p.gpus) == (8, 2, 16, 16)
    staged, _ = _pair(16.0)
    assert p.tpot_ms == pytest.approx(staged["tpot"][0] * 1e3, rel=1e-9)
    assert p.weights_gib_per_gpu == pytest.approx(staged["weights_gpu"][0] / 2**30, rel=1e-12)


def test_the_search_lays_out_stages_only_where_no_node_holds_the_model():
    one_node = plan_serving(ServeInputs(**SERVICE | {"precision": "fp8"}, rps=1.0))
    assert one_node.pp is None and one_node.gpus_per_replica <= 8
    two = plan_serving(ServeInputs(**SERVICE, rps=1.0))
    assert (two.tp, two.pp, two.nodes_per_replica) == (8, 2, 2)


def test_the_chart_sweeps_the_staged_layout():
    inp = ServeInputs(**SERVICE, users=32, gpus=16)
    staged = sweep(inp, 8, pp=2)
    alone = sweep(inp, 8)
    assert staged["batch"] and not alone["batch"]  # TP 8 alone holds no sequence of 405B BF16
    p = plan_serving(inp)
    k = staged["batch"].index(float(p.batch))
    assert staged["tpot_ms"][k] == pytest.approx(p.tpot_ms, rel=1e-9)


def test_json_and_the_plan_name_the_stages_and_leave_them_out_within_a_node():
    rc, out, _ = run_cli(
        "serve",
        *("--model", "llama3-405b", "--gpu", "H100-SXM", "--precision", "bf16"),
        *("--engine", "vllm", "--input-tokens", "2000", "--output-tokens", "500"),
        *("--users", "32", "--json"),
    )
    assert rc == 0
    data = json.loads(out)
    assert (data["tp"], data["pp"], data["nodes_per_replica"]) == (8, 2, 2)
    rc, out, _ = run_cli(
        "serve",
        *("--model", "llama3-405b", "--gpu", "H100-SXM", "--precision", "bf16"),
        *("--engine", "vllm", "--input-tokens", "2000", "--output-tokens", "500", "--users", "32"),
    )
    layout = next(x for x in out.splitlines() if x.startswith("Layout"))
    assert "TP8 PP2 (16 GPUs per replica over 2 nodes)" in layout
    assert "16 sequences in flight per concurrent batch (32 per replica)" in layout
    m = data["max_sequences_per_replica"]  # one concurrent batch's share of the KV cache
    assert f"{m:,} sequences fit per concurrent batch ({2 * m:,} per replica)" in out
    # no measured row has stages: the plan says so, and what users report of vLLM pipelines
    accuracy = next(x for x in out.splitlines() if x.startswith("Accuracy"))
    assert "No measured serving row has pipeline stages" in accuracy and "2 stages" in accuracy
    rc, out, _ = run_cli(
        "serve",
        *("--model", "llama3-70b", "--gpu", "H100-SXM", "--engine", "vllm"),
        *("--input-tokens", "2000", "--output-tokens", "500", "--users", "32", "--json"),
    )
    assert "pp" not in json.loads(out)
    rc, out, _ = run_cli(
        "serve",
        *("--model", "llama3-70b", "--gpu", "H100-SXM", "--engine", "vllm"),
        *("--input-tokens", "2000", "--output-tokens", "500", "--users", "32"),
    )
    assert "pipeline stages" not in out


def test_rocm_builds_stay_on_one_node():
    with pytest.raises(Exception) as e:
        plan_serving(ServeInputs(**SERVICE | {"gpu": "MI300X"}, users=8, gpus=16))
    assert getattr(e.value, "field", None) == "gpus" and "ROCm" in str(e.value)
    assert np.isfinite(plan_serving(ServeInputs(**SERVICE | {"gpu": "MI300X"}, users=8)).tpot_ms)


def test_fewer_users_than_batches_run_as_many_sequences_not_one_per_batch():
    """One user on a replica of two concurrent batches (or 3 on 16 attention groups) is one
    sequence, not one per batch: the per-group batch is a fraction (pools.per_group), the replica
    completes that user's requests only, and the plan says how many groups are busy."""
    from models.serving.pools import per_group

    assert per_group(1.0, 2.0) == 0.5 and per_group(3.0, 2.0) == 2.0 and per_group(4.0, 2.0) == 2
    one = plan_serving(ServeInputs(**SERVICE, users=1, gpus=16))
    assert (one.pp, one.batch, one.groups_in_use) == (2, 1, 1)
    staged = evaluate(ServeInputs(**SERVICE, users=1), [8.0], [1.0], [0.5], dp=[1.0], pp=[2.0])
    assert one.requests_per_s_per_replica == pytest.approx(staged["rps_replica"][0], rel=1e-12)
    # one user's requests: one every cycle of its O tokens, not two
    assert one.requests_per_s_per_replica == pytest.approx(1 / (500 * one.tpot_ms / 1e3), rel=1e-9)
    two = plan_serving(ServeInputs(**SERVICE, users=2, gpus=16))
    assert (two.batch, two.groups_in_use) == (1, None)
    assert two.requests_per_s_per_replica > 1.9 * one.requests_per_s_per_replica
    rc, out, _ = run_cli(
        "serve",
        *("--model", "llama3-405b", "--gpu", "H100-SXM", "--precision", "bf16"),
        *("--engine", "vllm", "--input-tokens", "2000", "--output-tokens", "500"),
        *("--users", "1", "--gpus", "16"),
    )
    layout = next(x for x in out.splitlines() if x.startswith("Layout"))
    assert (
        "1 sequence in flight per replica (one on each of 1 of its 2 concurrent batches)" in layout
    )


def test_a_few_users_of_a_moe_model_get_the_layout_that_serves_them_fastest():
    """8 users of DeepSeek on H100 need two nodes: spread over 16 attention groups (TP 1 DP 16) they
    were counted as 16 sequences, which made that layout look the most productive per GPU; counted
    as the 8 they are (half a sequence per group on average), a layout with fewer, fuller groups
    serves them with a shorter TPOT, and the search takes it."""
    inp = ServeInputs(model="deepseek-v3-like", gpu="H100-SXM", engine="sglang",
                      input_tokens=1024, output_tokens=1024, users=8)  # fmt: skip
    p = plan_serving(inp)
    assert p.gpus == 16 and p.batch * p.attention_dp == 8 and p.groups_in_use is None
    spread = evaluate(inp, [1.0], [16.0], [0.5], dp=[16.0])  # TP 1 DP 16, 8 users
    assert p.attention_dp < 16 and p.tpot_ms < spread["tpot"][0] * 1e3

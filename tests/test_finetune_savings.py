"""Fine-tuning memory savings (models/finetune/savings.py, choose.py; issue 31): each saving's memory
and time formula, the planner's choice, the buyer's fixed choices, the eager LoRA cost, the host-link
data and the scores on the rows added after the model's form was fixed."""

import csv

import numpy as np
import pytest

from models import constants as C
from models.errors import InputError
from models.finetune import savings
from models.finetune.plan import FinetuneInputs, plan_finetune
from models.hardware import load_gpus
from models.training.layouts import Layouts
from models.units import BYTES_PER_GB
from models.validation import finetune as FV

GIB = 2**30


def inp(**kw) -> FinetuneInputs:
    base = dict(model="llama3-8b", method="lora", gpu="A100-80GB", tokens=1e8)
    return FinetuneInputs(**{**base, **kw})


def _arrays(**parts):
    mem = {k: np.array([float(v)]) for k, v in parts.items()}
    mem["total"] = sum(mem.values())
    return mem


def _ctx(gpu="A100-80GB", lps=80):
    return {
        "host": savings.host_link(gpu),
        "gpu_bytes": 0.95 * 80 * GIB,
        "grad_bytes": 4,
        "layers_per_stage": np.array([lps]),
    }


LAY = Layouts.single(8, tp=1, pp=1, dp=8, zero=3, micro_batch=1)
P = 8.75e9  # parameters one GPU updates (70B over 8)
MEM = _arrays(
    weights=2 * P,
    gradients=4 * P,
    optimizer=12 * P,
    zero3_gather=0,
    activations=8 * GIB,
    overhead=0,
)
STEP = {"compute": np.array([30.0]), "optimizer": np.array([P * 30 / 1.6e12])}
STEP["total"] = STEP["compute"] + STEP["optimizer"]
LINK = 31.5 * BYTES_PER_GB * C.HOST_LINK_EFFICIENCY
HOST_BW = 51.2 * BYTES_PER_GB * C.HOST_MEMORY_EFFICIENCY


def combo(**on):
    return {k: on.get(k, False) for k in savings.SAVINGS}


def test_optimizer_offload_moves_states_to_the_host_and_costs_the_transfer_and_cpu_step():
    m, s, extra = savings.apply(combo(optimizer_offload=True), MEM, STEP, LAY, _ctx())
    assert m["optimizer"][0] == 0 and m["gradients"][0] == pytest.approx(2 * P)
    assert extra["host_bytes"][0] == pytest.approx(12 * P + 4 * P)
    assert s["offload_transfer"][0] == pytest.approx(P * 4 / LINK)
    assert s["cpu_optimizer"][0] == pytest.approx(P * 30 / HOST_BW)
    assert s["optimizer"][0] == 0
    want = STEP["compute"][0] + P * 4 / LINK + P * 30 / HOST_BW
    assert s["total"][0] == pytest.approx(want)


def test_eight_bit_optimizer_halves_the_states_and_cuts_the_step_traffic():
    m, s, _ = savings.apply(combo(optimizer_8bit=True), MEM, STEP, LAY, _ctx())
    assert m["optimizer"][0] == pytest.approx(6 * P)
    assert s["optimizer"][0] == pytest.approx(STEP["optimizer"][0] * 18 / 30)


def test_param_offload_needs_a_fully_sharded_layout_and_pays_two_transfers_a_micro_batch():
    c = combo(optimizer_offload=True, param_offload=True)
    m, s, extra = savings.apply(c, MEM, STEP, LAY, _ctx())
    assert m["weights"][0] == 0 and extra["valid"][0]
    assert s["param_transfer"][0] == pytest.approx(2 * 2 * P * 1 / LINK)
    replicated = Layouts.single(8, tp=1, pp=1, dp=8, zero=1, micro_batch=1)
    assert not savings.apply(c, MEM, STEP, replicated, _ctx())[2]["valid"][0]


def test_paged_optimizer_pages_only_the_overflow():
    m, s, extra = savings.apply(combo(paged_optimizer=True), MEM, STEP, LAY, _ctx())
    over = MEM["total"][0] - 0.95 * 80 * GIB
    assert extra["host_bytes"][0] == pytest.approx(over)
    assert m["total"][0] == pytest.approx(0.95 * 80 * GIB)
    assert s["paging"][0] == pytest.approx(2 * over / LINK)


def test_activation_offload_keeps_two_layers_and_hides_under_compute():
    m, s, _ = savings.apply(combo(activation_offload=True), MEM, STEP, LAY, _ctx(lps=80))
    assert m["activations"][0] == pytest.approx(8 * GIB * 2 / 80)
    assert s["activation_transfer"][0] == 0  # 2 x 7.8 GiB at 25 GB/s < 30 s of compute


def test_host_memory_bounds_what_fits():
    """A 405B full fine-tune offloaded onto one A100 needs terabytes of CPU memory: invalid."""
    big = {k: v * 50 for k, v in MEM.items()}
    c = combo(optimizer_offload=True, param_offload=True)
    assert not savings.apply(c, big, STEP, LAY, _ctx())[2]["valid"][0]


@pytest.mark.parametrize("gpus", [8, 16])
def test_seventy_b_full_on_eight_or_sixteen_a100_is_planned_with_savings(gpus):
    """Issue 31: practitioners ran it (torchtune, FSDP CPU offload / paged AdamW); not refused."""
    p = plan_finetune(inp(model="llama2-70b", method="full", gpus=gpus, seq_len=4096))
    assert p.gpus == gpus and p.gpus < p.min_gpus
    assert p.savings_chosen_by == "planner" and any(p.savings.values())
    assert p.memory_gib_per_gpu["total"] <= 0.95 * 80
    assert set(p.savings_step_s) == {k for k, v in p.savings.items() if v}
    assert p.host_memory_gib_per_gpu > 0


def test_the_planner_takes_the_fastest_saving_set_that_fits():
    """Every other allowed set either does not fit or is no faster per sequence."""
    p = plan_finetune(inp(model="llama2-70b", method="full", gpus=8, seq_len=4096))
    for c in savings.combos({k: None for k in savings.SAVINGS}):
        try:
            q = plan_finetune(inp(model="llama2-70b", method="full", gpus=8, seq_len=4096, **c))
        except InputError:
            continue
        per_seq = q.step_time_s / q.layout.global_batch_seqs
        assert per_seq >= p.step_time_s / p.layout.global_batch_seqs - 1e-9, c


def test_buyer_choices_hold_and_cost_time():
    plain = plan_finetune(inp(gpus=1))
    off = plan_finetune(inp(gpus=1, optimizer_offload=True))
    assert off.savings["optimizer_offload"] and off.savings_chosen_by == "buyer"
    assert off.step_breakdown_s["cpu_optimizer"] > 0 and off.step_time_s > plain.step_time_s
    assert not plain.savings["optimizer_offload"] and plain.savings_chosen_by == "none needed"
    never = inp(model="llama2-70b", method="full", gpus=8, **dict.fromkeys(savings.SAVINGS, False))
    with pytest.raises(InputError) as exc:
        plan_finetune(never)
    assert exc.value.field == "gpus"


@pytest.mark.parametrize(
    "kw,field",
    [
        (dict(param_offload=True, optimizer_offload=False), "param_offload"),
        (dict(paged_optimizer=True, optimizer_offload=True), "paged_optimizer"),
    ],
)
def test_contradictory_savings_name_the_field(kw, field):
    with pytest.raises(InputError) as exc:
        plan_finetune(inp(**kw))
    assert exc.value.field == field


def test_eager_lora_pays_its_element_wise_traffic_and_megatron_does_not():
    fsdp = plan_finetune(inp(gpus=1))
    mega = plan_finetune(inp(gpus=1, framework="megatron"))
    assert fsdp.step_breakdown_s["adapters"] > 1.5 * mega.step_breakdown_s["adapters"]


def test_every_gpu_has_a_sourced_host_link():
    with savings.HOST_FILE.open(newline="") as f:
        rows = {r["gpu_id"]: r for r in csv.DictReader(f)}
    assert set(rows) == set(load_gpus())
    for r in rows.values():
        assert r["as_of"] and r["source"], r["gpu_id"]


def test_added_rows_are_scored_apart_and_hold_their_first_scores():
    """First (and only) score of the rows added after the form was fixed: all 6 at 18.1 % median,
    +18.1 % signed; the levels may not quietly worsen, nor any seen row move into them."""
    res = FV.validate()
    added = [r for r in res["rows"] if r["split"] == "added"]
    assert len(added) >= 6 and {r["method"] for r in added} == {"full", "lora", "qlora"}
    assert res["by_kind"]["throughput"]["rows"] == 16  # the seen rows only
    a = res["added"]["all"]
    assert a["median_abs_error"] <= 0.19 and abs(a["signed_median_error"]) <= 0.19
    # amendment 2: torchtune's full rows ran pure BF16; none is refused (issue 31's target)
    assert a["rejected"] == []
    assert "rows added after the model's form was fixed" in FV.report(res)


def test_parameter_offload_alone_brings_the_optimizer_offload():
    p = plan_finetune(inp(model="llama3-8b", method="full", gpus=8, param_offload=True))
    assert p.savings["param_offload"] and p.savings["optimizer_offload"]
    assert p.memory_gib_per_gpu["optimizer"] == 0 and p.step_breakdown_s["cpu_optimizer"] > 0


# --- pure BF16 (docs/reference/finetune-model.md, amendment 2) -----------------------------------


def test_pure_bf16_holds_bf16_gradients_and_moments_and_steps_over_fewer_bytes():
    """Weight 2 + gradient 2 + m, v 4 B per parameter, a 14 B step; with 8-bit moments 2 B and
    10 B; offloaded, the host holds the moments, the BF16 weight and gradient."""
    m, s, _ = savings.apply(combo(pure_bf16=True), MEM, STEP, LAY, _ctx())
    assert m["gradients"][0] == pytest.approx(2 * P) and m["optimizer"][0] == pytest.approx(4 * P)
    assert m["weights"][0] == pytest.approx(2 * P)
    assert s["optimizer"][0] == pytest.approx(STEP["optimizer"][0] * 14 / 30)
    m8, s8, _ = savings.apply(combo(pure_bf16=True, optimizer_8bit=True), MEM, STEP, LAY, _ctx())
    assert m8["optimizer"][0] == pytest.approx(2 * P)
    assert s8["optimizer"][0] == pytest.approx(STEP["optimizer"][0] * 10 / 30)
    c = combo(pure_bf16=True, optimizer_offload=True)
    mo, so, extra = savings.apply(c, MEM, STEP, LAY, _ctx())
    assert mo["optimizer"][0] == 0 and extra["host_bytes"][0] == pytest.approx((4 + 2 + 2) * P)
    assert so["cpu_optimizer"][0] == pytest.approx(P * 14 / HOST_BW)


def test_each_optimizer_saving_is_charged_its_own_share_of_the_step():
    """8-bit and pure BF16 together save 30 - 10 B per parameter: 16 to pure BF16, 4 to 8-bit."""
    c = combo(pure_bf16=True, optimizer_8bit=True)
    _, s, _ = savings.apply(c, MEM, STEP, LAY, _ctx())
    step_i = {k: float(v[0]) for k, v in s.items()}
    base_i = {k: float(v[0]) for k, v in STEP.items()}
    out = savings.seconds_by_saving(c, step_i, base_i)
    per_byte = STEP["optimizer"][0] / 30
    assert out["pure_bf16"] == pytest.approx(-16 * per_byte)
    assert out["optimizer_8bit"] == pytest.approx(-4 * per_byte)
    assert sum(out.values()) == pytest.approx(step_i["optimizer"] - base_i["optimizer"])


def test_pure_bf16_is_chosen_by_the_planner_when_nothing_fits_plainly():
    # under megatron too since amendment 3 (NeMo's distributed Adam with dtype bf16):
    # tests/test_finetune_nemo_optimizer.py
    fsdp = plan_finetune(inp(model="llama2-70b", method="full", gpus=8))
    assert fsdp.savings["pure_bf16"] and fsdp.savings_chosen_by == "planner"


def test_torchtunes_pure_bf16_full_finetune_on_eight_a100_is_planned_not_rejected():
    """tt2405: Llama 2 70B full on 8 A100-80GB with paged AdamW, dtype bf16."""
    rows = {r["id"]: r for r in FV.validate()["rows"]}
    assert rows["tt2405-llama2-70b-full-a100x8-paged"]["fits"]
    p = plan_finetune(inp(model="llama2-70b", method="full", gpus=8, pure_bf16=True))
    assert p.savings["pure_bf16"] and p.memory_gib_per_gpu["gradients"] == pytest.approx(
        70e9 * 2 / 8 / GIB, rel=0.03
    )


def test_the_batch_added_after_amendment_2_is_scored_apart_and_beside_the_first():
    """Rows entered after amendment 2 and committed before they were scored: ten (full 3, LoRA 7),
    their first score (12.8 % median, -8.1 % signed; the NeMo 24.07 70B SFT on 16 H100 rejected by
    the memory model until amendment 3 scored the SFT rows with NeMo's BF16 distributed Adam and FP8
    weights, as their configs ran: full 17.3 % -> 16.5 %, none rejected) pinned so it cannot move
    quietly; the first batch keeps its six. The report prints both batches on one line per method."""
    res = FV.validate()
    batch = [r for r in res["rows"] if r["split"] == "after-amendment"]
    assert len(batch) == 10 and all(r["kind"] == "throughput" for r in batch)
    after, before = res["after_amendment"], res["added"]
    assert {m: s["rows"] for m, s in after.items()} == {"all": 10, "full": 3, "lora": 7}
    assert {m: s["rows"] for m, s in before.items()} == {"all": 6, "full": 2, "lora": 3, "qlora": 1}
    assert after["all"]["median_abs_error"] == pytest.approx(0.128, abs=0.001)
    assert after["all"]["signed_median_error"] == pytest.approx(-0.081, abs=0.001)
    assert after["all"]["rejected"] == []
    assert after["full"]["median_abs_error"] == pytest.approx(0.165, abs=0.001)
    assert after["full"]["signed_median_error"] == pytest.approx(-0.165, abs=0.001)
    assert res["by_kind"]["throughput"]["rows"] == 16  # the seen rows only
    lines = FV.report(res).splitlines()
    assert any("before amendment 2" in x and "after amendment 2" in x for x in lines)
    all_line = next(x for x in lines if x.startswith("all      |"))
    # one cell per batch (a later batch adds one: tests/test_finetune_added3.py)
    assert all_line.count("|") == len(FV.ADDED_BATCHES) and "+18.1%" in all_line
    assert "-8.1%" in all_line

"""Random portfolios (scenario version 2) through the whole comparison: every option's result is
finite or the option is refused by name, and the capacity plans keep their books. Per available
option: served + queued + beyond the term = demanded; no month serves more than the GPUs held can;
no month serves work on capacity the option does not hold, and so does not pay for (the lab
sample's rentals were returned at their minimum term while the evaluations after them were still
served); the chargeback adds up to the total; the training summary is one run of the
representative workload on that run's own GPUs."""

from __future__ import annotations

import math

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from models.errors import InputError
from models.options import OPTION_IDS
from models.scenario import Scenario
from models.units import HOURS_PER_MONTH
from pricing.engine import compare

SMALL_MODELS = ["llama3-8b", "llama3.2-1b", "pythia-1b"]
SERVED_MODELS = ["llama3-8b", "llama3-70b"]


@st.composite
def portfolios(draw) -> dict:
    months = draw(st.sampled_from([12, 24, 36]))
    workloads = []
    for i in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["pretrain", "finetune", "serve", "steady"]))
        w = {
            "kind": kind,
            "name": f"w{i}",
            "team": draw(st.sampled_from(["a", "b"])),
            "start_month": draw(st.integers(0, months - 1)),
            "duration_months": draw(st.integers(1, months)),
        }
        if kind == "pretrain":
            w |= {
                "model": draw(st.sampled_from(SMALL_MODELS)),
                "tokens": draw(st.sampled_from([1e9, 2e10, 2e11])),
                "seq_len": 2048,
                "gpus": draw(st.sampled_from([None, 8, 64])),
                "runs_per_month": draw(st.sampled_from([0.25, 1.0, 2.0])),
            }
        elif kind == "finetune":
            w |= {
                "model": draw(st.sampled_from(SMALL_MODELS)),
                "method": draw(st.sampled_from(["lora", "full"])),
                "tokens": draw(st.sampled_from([1e6, 1e8])),
                "jobs_per_month": draw(st.sampled_from([1.0, 8.0])),
            }
        elif kind == "serve":
            w |= {
                "model": draw(st.sampled_from(SERVED_MODELS)),
                "input_tokens": draw(st.sampled_from([512, 4096])),
                "output_tokens": 256,
                "rps": draw(st.sampled_from([0.5, 5.0, 20.0])),
                "growth_pct_per_month": draw(st.sampled_from([0.0, 10.0])),
                "tpot_ms": draw(st.sampled_from([None, 40.0])),
                "ttft_ms": draw(st.sampled_from([None, 2000.0])),
                "slo_percentile": draw(st.sampled_from([50, 99])),
                "prefill_decode": draw(st.sampled_from(["auto", "colocated", "split"])),
            }
        else:
            w |= {
                "gpus": draw(st.integers(1, 96)),
                "utilisation_pct": draw(st.sampled_from([5.0, 50.0, 100.0])),
            }
        workloads.append(w)
    compare_ids = draw(
        st.lists(st.sampled_from(list(OPTION_IDS)), min_size=2, max_size=5, unique=True)
    )
    data = {
        "version": 2,
        "cluster": {"gpu": "H100-SXM"},
        "term": {"months": months},
        "options": {"compare": compare_ids},
        "workloads": workloads,
    }
    if draw(st.booleans()):
        data["cluster"]["gpus"] = draw(st.sampled_from([8, 64, 256]))
    commitment = draw(st.sampled_from([None, "monthly", "1y", "3y", "whole_term"]))
    if commitment:  # rentals step down at a commitment block's end (pricing/planning/)
        data["options"]["rent_commitment"] = commitment
    return data


#: a large run, then small work to the term's end (the pattern that rented GPUs for free)
TRICKLE_AFTER_A_RUN = {
    "version": 2,
    "cluster": {"gpu": "H100-SXM"},
    "term": {"months": 36},
    "options": {"compare": ["rent", "cloud:committed_1y", "cloud:on_demand"]},
    "workloads": [
        {"kind": "pretrain", "name": "base", "model": "llama3-8b", "tokens": 2e11, "gpus": 64,
         "seq_len": 2048, "runs_per_month": 1.0, "start_month": 0, "duration_months": 1},
        {"kind": "finetune", "name": "evals", "model": "llama3-8b", "method": "lora",
         "tokens": 1e6, "jobs_per_month": 8.0, "start_month": 0, "duration_months": 36},
    ],
}  # fmt: skip


@settings(max_examples=60, derandomize=True, deadline=None)
@given(portfolios())
@example(TRICKLE_AFTER_A_RUN)
def test_any_portfolio_keeps_its_books_under_every_option(data):
    try:
        scenario = Scenario.model_validate(data)
    except ValueError:
        return  # refused by the schema, naming the field (tests/test_planning.py)
    try:
        c = compare(scenario, decision=False)
    except InputError as exc:
        assert exc.field, exc  # a refusal names its field
        return
    for o in c.options:
        if not o.available:
            assert o.note, o.option  # an unavailable option says why
            continue
        assert math.isfinite(o.total_usd) and math.isfinite(o.npv_usd), o.option
        total = o.served_gpu_hours + o.queued_gpu_hours + o.beyond_term_gpu_hours
        assert total == pytest.approx(o.demanded_gpu_hours, rel=1e-9, abs=1e-6)
        # a bridged option's served work counts its bridge's hired GPUs too (its own line;
        # tests/test_portfolio_bridge.py checks what a bridge holds and serves)
        own = o.bridged_by is None
        for month, (served, held) in enumerate(
            zip(o.served_gpu_hours_by_month, o.capacity_gpus, strict=True), start=1
        ):
            assert not own or served <= held * HOURS_PER_MONTH * (1 + 1e-9) + 1e-6, (
                o.option,
                month,
            )
            assert not own or held > 0 or served <= 1e-6, (o.option, month, served)
        if o.chargeback_usd:
            assert sum(o.chargeback_usd.values()) == pytest.approx(o.total_usd, rel=1e-9)
    p, t = c.portfolio, c.training
    lay = t.layout
    assert lay.tp * lay.cp * lay.pp * lay.dp == p.representative_gpus == c.run_gpus
    if p.representative_kind == "pretrain":  # the run the demand planned, on its GPUs
        w = next(w for w in scenario.workloads if w.name == p.representative_workload)
        assert w.gpus is None or p.representative_gpus == w.gpus, (w.gpus, p.representative_gpus)

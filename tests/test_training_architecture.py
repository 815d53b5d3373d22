"""Custom architectures for training (issue 31 item 6): `clusterplan train --model FILE.json` and a
scenario's own model are planned from the file's layers, hidden, heads, KV heads, FFN width and
experts, not from a parameter count. Two MoE models with the same total and active parameters,
one with 8 experts of which 2 are routed per token, the other with 64 finer experts of which 16
are, get different plans for a named reason: each token is dispatched to k experts, so it leaves
k copies of its hidden state (2·h bytes each, BF16) for the experts' backward (models/training/
memory.py `routed`), and the expert all-to-all carries k copies (models/training/step_time.py)."""

from __future__ import annotations

import contextlib
import dataclasses
import io
import json

import numpy as np
import pytest

from app.cli import main
from models.scenario import Scenario
from models.training.memory import memory_breakdown
from models.training.plan import plan_training
from models.training.step_time import _context, _layer_comm
from models.units import BYTES_PER_GIB
from tests.builders import BODY, COARSE, FINE, at_layout

#: each test starts from and leaves the registry as it found it (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("registry")


def train(tmp_path, model: dict, *extra: str) -> tuple[int, dict | None, str]:
    path = tmp_path / f"{model['model_id']}.json"
    path.write_text(json.dumps(model))
    out, err = io.StringIO(), io.StringIO()
    args = ["train", "--model", str(path), "--tokens", "1e11", "--gpu", "H100-SXM", *extra]
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = main(args)
        except SystemExit as exc:
            rc = exc.code
    return rc, (json.loads(out.getvalue()) if rc == 0 else None), err.getvalue()


def test_same_parameters_other_experts_get_another_plan_for_a_named_reason(tmp_path):
    _, coarse, _ = train(tmp_path, COARSE, "--gpus", "64", "--json")
    _, fine, _ = train(tmp_path, FINE, "--gpus", "64", "--json")
    a, b = coarse["model"], fine["model"]
    # the same model by its counts (the routers' h·E weights differ: 0.03 % of the total,
    # 0.1 % of the active parameters)
    assert b["params"] == pytest.approx(a["params"], rel=5e-4)
    assert b["active_params"] == pytest.approx(a["active_params"], rel=2e-3)
    assert fine["step_time_s"] > coarse["step_time_s"]
    assert fine["gpu_hours"] > coarse["gpu_hours"]
    # at one layout (the planner's earlier choice for both: EP 8, PP 1), so the gap is the
    # architecture's alone
    lay = {"tp": 1, "pp": 1, "dp": 64, "ep": 8, "zero": 1, "recompute": "none", "micro_batch": 1}
    (job_c, one_c), (job_f, one_f) = at_layout(COARSE, lay), at_layout(FINE, lay)
    tokens_in_flight = 8192 * lay["micro_batch"]  # one micro-batch in flight at pp 1
    routed_copies = 2 * BODY["hidden"] * (FINE["experts_per_token"] - COARSE["experts_per_token"])
    extra_gib = routed_copies * tokens_in_flight * BODY["layers"] / BYTES_PER_GIB
    act = [
        float(memory_breakdown(j, o)["activations"][0]) for j, o in ((job_c, one_c), (job_f, one_f))
    ]
    assert (act[1] - act[0]) / BYTES_PER_GIB == pytest.approx(extra_gib, rel=1e-6)  # 10.5 GiB
    # the expert all-to-all carries k copies of each token: 8 times the bytes at the same layout,
    # beside the same fixed latency (balanced routing: the busiest rank's share, 1 + v at one
    # expert per rank, is tests/test_moe_imbalance.py's)
    job_c, job_f = (dataclasses.replace(j, moe_balance="forced") for j in (job_c, job_f))
    coarse_a2a, fine_a2a = all_to_all_s(job_c, one_c), all_to_all_s(job_f, one_f)
    assert 6 * coarse_a2a < fine_a2a < 8 * coarse_a2a


def all_to_all_s(job, one) -> float:
    """Seconds of one layer's expert all-to-all for one micro-batch at the layout `one`."""
    return float(np.asarray(_layer_comm(job, one, _context(job, one))[1]).ravel()[0])


def test_a_file_model_plans_as_the_scenario_that_carries_it(tmp_path, registry):
    _, by_file, _ = train(tmp_path, FINE, "--gpus", "64", "--json")
    registry.clear()  # a saved scenario opened elsewhere: the model only in its own_models
    sc = Scenario.model_validate(
        {
            "own_models": [FINE],
            "workload": {"model": "moe-e64", "tokens": 1e11},
            "cluster": {"gpu": "H100-SXM", "gpus": 64},
        }  # fmt: skip
    )
    plan = plan_training(sc, curve=False)
    assert plan.step_time_s == pytest.approx(by_file["step_time_s"], rel=1e-12)
    assert plan.memory_gib_per_gpu == by_file["memory_gib_per_gpu"]


@pytest.mark.parametrize(
    ("change", "says"),
    [
        ({"layers": 10**6}, "layers: 1,000,000 is over 1,000 (allowed 1 to 1,000)"),
        ({"experts_per_token": 65}, "experts_per_token: 65 is more than the 64 experts"),
        (
            {"layers": 1000, "hidden": 131072, "heads": 1024, "ffn_hidden": 1_048_576},
            "parameters (allowed at most 1e+14)",
        ),
    ],
)
def test_train_refuses_an_absurd_model_file_naming_the_field(tmp_path, change, says):
    rc, _, err = train(tmp_path, FINE | change, "--gpus", "64")
    assert rc == 2 and says in err and "Traceback" not in err

"""FP8 weights as a buyer's knob (Execution.fp8_params): the scenario, `clusterplan train
--fp8-params`, the share link and the Workload page carry it, it lowers the memory per GPU the plan
reports, and it is refused, naming the field, without precision fp8."""

from __future__ import annotations

import base64
import io
import json
import zlib

import pytest
from pydantic import ValidationError

from app import share_link
from app.cli import main
from models import constants as C
from models.scenario import Scenario, explain_validation_error
from models.training.plan import plan_training
from tests.builders import app
from tests.readback import number

#: a run whose chosen layout is the same with and without FP8 weights (so memory compares like
#: with like): the brief's Llama 3 405B on 16,384 H100s
BIG = {
    "workload": {"model": "llama3-405b", "tokens": 15.6e12, "precision": "fp8"},
    "cluster": {"gpu": "H100-SXM", "gpus": 16384},
}
BIG_ARGS = ["--model", "llama3-405b", "--tokens", "15.6T", "--gpu", "H100-SXM", "--gpus", "16384"]


def _plan(fp8_params: bool, precision: str = "fp8"):
    data = {**BIG, "workload": {**BIG["workload"], "precision": precision}}
    return plan_training(Scenario.model_validate({**data, "execution": {"fp8_params": fp8_params}}))


def test_fp8_weights_lower_the_memory_per_gpu_by_the_weights_alone():
    """Same layout: only the weights shrink, from BF16 + an FP8 copy (WEIGHT_BYTES +
    FP8_EXTRA_WEIGHT_BYTES per weight) to FP8 (FP8_PARAM_BYTES), the embedding kept in BF16, so
    the weights land between the all-FP8 and the all-BF16 share of the old figure."""
    base, fp8 = _plan(False), _plan(True)
    assert fp8.layout == base.layout
    assert fp8.execution["fp8_params"] is True
    was, now = base.memory_gib_per_gpu, fp8.memory_gib_per_gpu
    held = C.WEIGHT_BYTES + C.FP8_EXTRA_WEIGHT_BYTES
    assert was["weights"] * C.FP8_PARAM_BYTES / held <= now["weights"]
    assert now["weights"] < was["weights"] * C.WEIGHT_BYTES / held
    for k in was:
        if k not in ("weights", "total"):
            assert now[k] == pytest.approx(was[k])
    assert was["total"] - now["total"] == pytest.approx(was["weights"] - now["weights"])


def test_cli_flag_reaches_the_plan_and_its_execution_line(capsys):
    runs = {}
    for flag in ([], ["--fp8-params"]):
        assert main(["train", *BIG_ARGS, "--precision", "fp8", *flag, "--json"]) == 0
        runs[bool(flag)] = json.loads(capsys.readouterr().out)
    assert runs[True]["execution"]["fp8_params"] is True
    assert runs[False]["execution"]["fp8_params"] is False
    assert runs[True]["memory_gib_per_gpu"]["total"] < runs[False]["memory_gib_per_gpu"]["total"]
    assert main(["train", *BIG_ARGS, "--precision", "fp8", "--fp8-params"]) == 0
    assert "gradients fp32 | weights fp8\n" in capsys.readouterr().out


def test_fp8_weights_without_fp8_precision_are_refused_naming_the_field(capsys):
    with pytest.raises(ValidationError) as exc:
        Scenario.model_validate({**BIG, "workload": {**BIG["workload"], "precision": "bf16"},
                                 "execution": {"fp8_params": True}})  # fmt: skip
    field, message = explain_validation_error(exc.value)[0]
    assert field == "execution.fp8_params"
    assert "precision fp8" in message
    # the CLI names its own flag, in one line, exit status 2
    assert main(["train", *BIG_ARGS, "--fp8-params"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "Traceback" not in err
    assert err.startswith("clusterplan train: --fp8-params: weights held in FP8 need precision fp8")


def test_a_share_link_carries_fp8_weights_and_old_links_still_load():
    on = Scenario.model_validate({**BIG, "execution": {"fp8_params": True}})
    assert share_link.decode(share_link.encode(on)).execution.fp8_params is True
    off = Scenario.model_validate(BIG)
    token = share_link.encode(off)
    # a link made before the field existed is the same link: the default is not written
    assert "fp8_params" not in json.dumps(share_link.decode_data(token))
    assert share_link.decode(token).execution.fp8_params is False
    # a hand-made link that turns FP8 weights on under BF16 (encode refuses to make one)
    bad = {"version": 1, **BIG, "workload": {**BIG["workload"], "precision": "bf16"}}
    bad = json.dumps({**bad, "execution": {"fp8_params": True}}).encode()
    bad = base64.urlsafe_b64encode(zlib.compress(bad, 9)).decode().rstrip("=")
    with pytest.raises(share_link.LinkError, match=r"execution\.fp8_params"):
        share_link.decode(bad)


def _workload(precision: str, fp8_params: bool | None = None):
    data = {
        "workload": {"model": "llama3-70b", "tokens": 2e12, "precision": precision},
        "cluster": {"gpu": "H100-SXM", "gpus": 1024},
    }
    if fp8_params is not None:
        data["execution"] = {"fp8_params": fp8_params}
    return app("workload", share_link.encode(Scenario.model_validate(data)))


def _memory(at) -> float:
    return number(next(m.value for m in at.metric if m.label == "Memory per GPU"), "GiB")


def _errors(at) -> str:
    return "\n".join(e.value for e in at.error)


def test_the_workload_page_toggles_fp8_weights_and_refuses_them_under_bf16():
    at = _workload("fp8")
    toggle = at.toggle(key="w_fp8_params")
    assert not toggle.disabled and toggle.value is False
    memory, chart = _memory(at), at.get("plotly_chart")[0].proto.spec
    toggle.set_value(True).run()
    assert not at.exception, at.exception
    assert at.session_state["scenario"]["execution"]["fp8_params"] is True
    assert "weights fp8" in "\n".join(m.value for m in at.markdown)
    assert _memory(at) != memory  # the plan re-sized with FP8 weights (llama3-70b: a new layout)
    assert at.get("plotly_chart")[0].proto.spec != chart
    # precision back to BF16: the toggle stays on (nothing typed is lost) and Sizing says why
    at.selectbox(key="w_precision").set_value("bf16").run()
    assert not at.exception, at.exception
    assert at.session_state["scenario"]["execution"]["fp8_params"] is True
    assert "execution.fp8_params" in _errors(at) and "precision fp8" in _errors(at)
    assert not at.toggle(key="w_fp8_params").disabled  # it can still be turned off
    at.toggle(key="w_fp8_params").set_value(False).run()
    assert not _errors(at)
    # off under BF16: out of reach, with the reason in its help
    toggle = at.toggle(key="w_fp8_params")
    assert toggle.disabled and "Needs precision FP8" in toggle.help


def test_a_bf16_link_shows_fp8_weights_disabled():
    at = _workload("bf16")
    toggle = at.toggle(key="w_fp8_params")
    assert toggle.disabled and toggle.value is False and not _errors(at)


def test_the_pdf_cover_names_fp8_weights(monkeypatch):
    """The PDF's "Execution plan" row (report_text.execution_text) says when weights are FP8."""
    from pypdf import PdfReader

    from app import report_pdf
    from app.scenario_files import EXAMPLE
    from pricing.engine import compare

    monkeypatch.setattr(report_pdf, "charts_available", lambda *args, **kwargs: False)
    data = {**EXAMPLE, "workload": {**EXAMPLE["workload"], "precision": "fp8"}}
    sc = Scenario.model_validate({**data, "execution": {"fp8_params": True}})
    pdf = report_pdf.build_report(compare(sc), link=None).data
    text = " ".join(p.extract_text() for p in PdfReader(io.BytesIO(pdf)).pages)
    assert "gradients fp32 | weights fp8" in " ".join(text.split())

"""app/charts/common.py vline draws exactly what plotly's add_vline draws (the same shape and
annotation, so the same chart JSON) in every chart that uses it, at a fifth of the cost."""

import copy
import json
import pathlib

import plotly.io as pio
import pytest

from app.charts import common, memory, risk
from app.scenario_files import EXAMPLE
from models.finetune.plan import FinetuneInputs, plan_finetune
from models.scenario import Scenario
from models.training.plan import plan_training
from pricing.engine import compare

ENTERPRISE = (
    pathlib.Path(__file__).resolve().parents[1] / "app" / "data" / "portfolio_enterprise.json"
)


def _add_vline(fig, x, line, *, name=None, label=None):
    """The reference: plotly's own add_vline with the arguments vline documents."""
    extra = {"annotation": label, "annotation_position": "top left"} if label is not None else {}
    fig.add_vline(x=x, line=line, **({"name": name} if name is not None else {}), **extra)
    return fig


def _both(monkeypatch, build) -> tuple[str, str]:
    ours = pio.to_json(build(), validate=False)
    for module in (memory, risk):
        monkeypatch.setattr(module, "vline", _add_vline)
    return ours, pio.to_json(build(), validate=False)


@pytest.mark.parametrize("dark", [False, True])
def test_the_training_memory_chart_is_plotlys(monkeypatch, dark):
    plan = plan_training(Scenario.model_validate(copy.deepcopy(EXAMPLE)), curve=False)
    ours, plotlys = _both(
        monkeypatch, lambda: memory.training_memory(plan.model_dump(mode="json"), dark)
    )
    assert '"name":"capacity"' in ours and "GPU memory" in ours
    assert ours == plotlys


def test_the_finetune_memory_chart_is_plotlys(monkeypatch):

    plan = plan_finetune(
        FinetuneInputs(model="llama3-8b", method="lora", gpu="H100-SXM", tokens=1e8)
    )
    ours, plotlys = _both(monkeypatch, lambda: memory.finetune_memory(plan.model_dump(mode="json")))
    assert ours == plotlys


@pytest.mark.parametrize("source", ["run", "portfolio"])
def test_the_tornado_is_plotlys(monkeypatch, source):
    data = copy.deepcopy(EXAMPLE) if source == "run" else json.loads(ENTERPRISE.read_text())
    c = compare(Scenario.model_validate(data))
    ours, plotlys = _both(monkeypatch, lambda: risk.tornado(c))
    assert '"shapes"' in ours
    assert ours == plotlys


def test_a_line_without_a_label_has_no_annotation():
    fig = common.vline(common.figure("t", "s", False), 2.0, {"color": "#000"})
    assert len(fig.layout.shapes) == 1 and not fig.layout.annotations

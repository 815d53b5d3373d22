"""Memory per GPU by part: the Workload page's (a training plan) and the Fine-tune page's."""

from __future__ import annotations

from collections.abc import Mapping

import plotly.graph_objects as go

from app.charts.common import HOVER, SERVE_COLORS, THEMES, figure, plain, vline

METHOD_NAMES = {"full": "full fine-tune", "lora": "LoRA", "qlora": "QLoRA"}
#: fine-tuning memory parts, in the order a bar chart lists them
MEMORY_PARTS = {
    "weights": "Weights",
    "base_weights": "Frozen base weights",
    "adapter_weights": "Adapter weights",
    "gradients": "Gradients",
    "optimizer": "Optimizer states",
    "activations": "Activations",
    "overhead": "Framework and buffers",
    "zero3_gather": "ZeRO-3 gathered weights",
}


def finetune_memory(plan: Mapping, dark: bool = False) -> go.Figure:
    """Memory per GPU by part (models.finetune.FinetunePlan.memory_gib_per_gpu), horizontal bars in
    GiB, with the GPU's capacity as a dashed line."""
    mem, cap = plan["memory_gib_per_gpu"], plan["memory_capacity_gib"]
    fig = figure(
        "Memory per GPU by part",
        f"{plain(plan['model'])}, {METHOD_NAMES.get(plan['method'], plan['method'])} on {plan['gpus']:,} × {plain(plan['gpu'])}: "
        f"{mem['total']:,.1f} of {cap:g} GiB",
        dark,
    )
    return _memory_bars(fig, mem, cap, dark)


def training_memory(plan: Mapping, dark: bool = False) -> go.Figure:
    """Memory per GPU by part of a training plan (models.training.TrainingPlan, its dump), in GiB,
    with the GPU's capacity as a dashed line: the Workload page's memory chart."""
    mem, cap, lay = plan["memory_gib_per_gpu"], plan["memory_capacity_gib"], plan["layout"]
    fig = figure(
        "Memory per GPU by part",
        f"{plain(plan['model']['name'])} on {plan['gpus']:,} × {plain(plan['gpu'])}<br>"
        f"TP {lay['tp']} · PP {lay['pp']} · ZeRO-{lay['zero']}: {mem['total']:,.1f} of {cap:g} GiB",
        dark,
    )
    # it sits in a narrow column beside the inputs: the title starts at the figure's left edge, not
    # the plot's (the part names push that right), and the subtitle takes two lines
    fig.update_layout(title={"x": 0.02, "xref": "container"}, margin={"t": 96})
    return _memory_bars(fig, {k: v for k, v in mem.items() if k == "total" or v > 0.05}, cap, dark)


def _memory_bars(fig: go.Figure, mem: Mapping, cap: float, dark: bool) -> go.Figure:
    """Horizontal bars of GiB per GPU by part (MEMORY_PARTS' order and names) and the capacity."""
    t = THEMES[dark]
    parts = [(k, v) for k, v in mem.items() if k != "total"]
    order = [k for k in MEMORY_PARTS if k in dict(parts)] + [
        k for k, _ in parts if k not in MEMORY_PARTS
    ]
    values = [mem[k] for k in order]
    labels = [MEMORY_PARTS.get(k, k.replace("_", " ")) for k in order]
    fig.add_trace(
        go.Bar(
            x=values,
            y=labels,
            orientation="h",
            marker={"color": SERVE_COLORS["throughput"]},
            text=[f"{v:,.1f} GiB" for v in values],
            textposition="outside",
            name="GiB per GPU",
            meta={"kind": "memory"},
            customdata=[f"{n}: {v:,.2f} GiB per GPU" for n, v in zip(labels, values, strict=True)],
            hovertemplate=HOVER,
        )
    )
    vline(
        fig,
        cap,
        {"color": t["fg"], "width": 1.5, "dash": "dash"},
        name="capacity",
        label={"text": f"GPU memory {cap:g} GiB", "font": {"size": 11}},
    )
    top = max([cap, *values])
    fig.update_xaxes(title_text="GiB per GPU", rangemode="tozero", range=[0, top * 1.15])
    fig.update_yaxes(autorange="reversed", showgrid=False)
    fig.update_layout(showlegend=False, height=360)
    return fig

"""Model shapes: presets from `data/model_presets.csv`, and a plausible shape from a parameter count.

Parameter count (no biases): attention 2h² + 2h²·kv/a (Q and O full width, K and V per KV head),
MLP (3 if gated else 2)·h·f, MoE layers E routed + S shared experts plus an h·E router,
embeddings V·h (twice when input and output embeddings are untied).
"""

from __future__ import annotations

import csv
import functools
import math
import pathlib
import threading
from collections import OrderedDict
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

DATA_FILE = pathlib.Path(__file__).with_name("data") / "model_presets.csv"

#: Custom models follow the Llama 3 family: head dim 128, layers ≈ hidden/128, FFN 3.5·h, 8 KV heads.
HEAD_DIM = 128
DEFAULT_VOCAB = 128_256
SMALL_VOCAB = (
    32_000  # below 5B parameters, a Llama-2-sized vocabulary keeps embeddings in proportion
)
FFN_RATIO = 3.5
#: Expert layouts tried for a custom MoE (routed experts, experts per token), Mixtral to DeepSeek-V3.
MOE_CHOICES = ((8, 2), (16, 2), (64, 6), (128, 8), (256, 8))


class ModelShape(BaseModel):
    model_config = ConfigDict(frozen=True)

    model_id: str
    name: str
    layers: int = Field(ge=1)
    hidden: int = Field(ge=64)
    heads: int = Field(ge=1)
    kv_heads: int = Field(ge=1)
    ffn_hidden: int = Field(ge=1, description="MLP width; per expert for MoE layers")
    vocab: int = Field(ge=1)
    gated_mlp: bool = True
    tied_embeddings: bool = False
    dropout: bool = False
    experts: int = Field(default=1, ge=1)
    experts_per_token: int = Field(default=1, ge=1)
    shared_experts: int = Field(default=0, ge=0)
    dense_layers: int = Field(default=0, ge=0, description="leading dense layers in an MoE model")
    dense_ffn_hidden: int = Field(default=0, ge=0)
    published_params_b: float | None = None
    published_active_params_b: float | None = None
    source: str = ""
    #: width of one attention head when it is not hidden / heads (Qwen3); 0 = hidden / heads
    attn_head_dim: int = Field(default=0, ge=0)
    #: values cached per token per layer when attention caches a latent (DeepSeek MLA: kv_lora_rank
    #: + rope dim); 0 = K and V of every KV head (2 · kv_heads · head_dim). Read by models/serving/roofline.py.
    kv_cache_dim: int = Field(default=0, ge=0)
    #: routed experts of one token confined to at most this many devices or nodes (DeepSeek-V2
    #: device-limited routing M = 3, V2 Sec. 2.2.2 / 3.1.2; DeepSeek-V3 node-limited routing, at most
    #: 4 nodes, V3 Sec. 2.1.2 / 3.2.2); 0 = no limit. Read by models/training/step_time.py.
    routing_limit: int = Field(default=0, ge=0)
    routing_limit_unit: Literal["device", "node"] = "device"
    #: one layer's attention parameters where the heads formula does not give them (gated, latent
    #: or linear attention; a mean over a hybrid model's layers); 0 = the formula
    #: (docs/reference/serving-evidence.md, twelfth amendment)
    attention_params_per_layer: int = Field(default=0, ge=0)
    #: layers whose K/V cache grows with the context; the others attend linearly over a fixed
    #: state (Gated DeltaNet); 0 = every layer
    full_attention_layers: int = Field(default=0, ge=0)
    #: bytes of fixed state one sequence holds in each linear-attention layer (read and written
    #: every decode step); 0 = none
    linear_state_bytes_per_layer: int = Field(default=0, ge=0)
    #: a query attends at most this many earlier tokens (DeepSeek Sparse Attention's top-k);
    #: 0 = every earlier token
    sparse_attention_tokens: int = Field(default=0, ge=0)
    #: the sparse attention's indexer: query heads, and values cached per token and layer that it
    #: reads over the whole context; 0 = no indexer
    indexer_heads: int = Field(default=0, ge=0)
    indexer_dim: int = Field(default=0, ge=0)

    @property
    def is_moe(self) -> bool:
        return self.experts > 1

    @property
    def moe_layers(self) -> int:
        return self.layers - self.dense_layers if self.is_moe else 0

    @property
    def head_dim(self) -> int:
        return self.attn_head_dim or self.hidden // self.heads

    @property
    def attention_layers(self) -> int:
        """Layers that keep a K/V cache growing with the context (`full_attention_layers`)."""
        return min(self.full_attention_layers or self.layers, self.layers)

    @property
    def linear_layers(self) -> int:
        """Layers that attend linearly over a fixed per-sequence state."""
        return self.layers - self.attention_layers

    @property
    def attention_params(self) -> float:
        """Per layer: Q and O are h×(heads·d) (h×h when d = h/heads), K and V are h×(kv·d);
        `attention_params_per_layer` where given."""
        if self.attention_params_per_layer:
            return float(self.attention_params_per_layer)
        h = self.hidden
        return 2 * h * self.heads * self.head_dim + 2 * h * self.kv_heads * self.head_dim

    def mlp_params(self, width: int) -> float:
        return (3 if self.gated_mlp else 2) * self.hidden * width

    @property
    def dense_mlp_params(self) -> float:
        return self.mlp_params(self.dense_ffn_hidden or self.ffn_hidden)

    @property
    def expert_params(self) -> float:
        return self.mlp_params(self.ffn_hidden)

    @property
    def embedding_params(self) -> float:
        return self.vocab * self.hidden * (1 if self.tied_embeddings else 2)

    def _layer_params(self, experts_counted: int) -> float:
        dense = self.layers - self.moe_layers
        per_moe = (experts_counted + self.shared_experts) * self.expert_params + (
            self.hidden * self.experts
        )
        norms = 2 * self.hidden
        return (
            self.layers * (self.attention_params + norms)
            + dense * (self.dense_mlp_params if self.is_moe else self.expert_params)
            + self.moe_layers * per_moe
        )

    @property
    def params_total(self) -> float:
        return self._layer_params(self.experts) + self.embedding_params + self.hidden

    @property
    def params_active(self) -> float:
        """Parameters one token passes through (MoE: top-k routed plus shared experts)."""
        k = self.experts_per_token if self.is_moe else self.experts
        return self._layer_params(k) + self.embedding_params + self.hidden


@functools.lru_cache(maxsize=2)
def load_presets(path: pathlib.Path = DATA_FILE) -> dict[str, ModelShape]:
    presets = {}
    with path.open(newline="") as f:
        for line_no, row in enumerate(csv.DictReader(f), start=2):
            try:
                # an empty cell (the optional columns at the end) takes the field's default
                shape = ModelShape.model_validate(
                    {k: v for k, v in row.items() if v not in ("", None)}
                )
            except ValueError as exc:
                raise ValueError(f"{path.name} line {line_no}: {exc}") from None
            presets[shape.model_id] = shape
    return presets


#: models of one's own held at once (models/model_file.py registers them); the least recently
#: used goes first, and a portal session registers its own again on every run, so one dropped
#: comes back from the session's copy
MAX_OWN_MODELS = 64
#: id -> shape of the models of one's own, least recently used first; apart from the presets, so
#: `load_presets()` (and every picker and message listing it) holds the published shapes only
_OWN: OrderedDict[str, ModelShape] = OrderedDict()
_OWN_LOCK = threading.Lock()  # a portal server runs its sessions in threads


def own_model(model_id: str) -> ModelShape | None:
    """The model of one's own registered under `model_id` (now the most recently used), or None."""
    with _OWN_LOCK:
        shape = _OWN.get(model_id)
        if shape is not None:
            _OWN.move_to_end(model_id)
        return shape


def add_own_model(model_id: str, shape: ModelShape) -> None:
    """Holds `shape` under `model_id` (models/model_file.py decides the id and checks it is free);
    past MAX_OWN_MODELS the least recently used is dropped. Never a preset's id."""
    if model_id in load_presets():
        raise ValueError(f"{model_id!r} is a preset's id")
    with _OWN_LOCK:
        _OWN[model_id] = shape
        _OWN.move_to_end(model_id)
        while len(_OWN) > MAX_OWN_MODELS:
            _OWN.popitem(last=False)


def forget_own_model(model_id: str) -> None:
    with _OWN_LOCK:
        _OWN.pop(model_id, None)


def known_model(model_id: object) -> bool:
    """Whether `model_id` names a preset or a model of one's own registered now."""
    return isinstance(model_id, str) and (
        model_id in load_presets() or own_model(model_id) is not None
    )


def unknown_model(name: object) -> str:
    """Why a workload's `model` is refused: neither a preset nor a model of one's own that the
    scenario defines (its `own_models`, models/scenario.py) or the session registered."""
    return (
        f"unknown model {str(name)[:60]!r}: not a preset, nor a model in this scenario's "
        f"own_models; presets: {', '.join(load_presets())}"
    )


def get_preset(model_id: str) -> ModelShape:
    """A preset's shape, else a registered model of one's own; KeyError listing the presets."""
    presets = load_presets()
    shape = presets[model_id] if model_id in presets else own_model(model_id)
    if shape is None:
        raise KeyError(f"unknown model preset '{model_id}'; choose one of: {', '.join(presets)}")
    return shape


def _round_to(x: float, step: int) -> int:
    return max(step, int(round(x / step)) * step)


def _round_hidden(x: float) -> int:
    """Hidden size in whole heads; from 2,048 up, a multiple of 8 heads so TP up to 8 divides it."""
    return _round_to(x, HEAD_DIM * 8) if x >= 2048 else _round_to(x, HEAD_DIM)


def _dense_layer_params(h: int, kv: int, heads: int, ffn: int) -> float:
    return 2 * h * h + 2 * h * kv * HEAD_DIM + 3 * h * ffn + 2 * h


def shape_from_params(params_total: float, params_active: float | None = None) -> ModelShape:
    """A plausible Llama-3-like shape for a parameter count (and an MoE when active < total).

    Dense: with layers L ≈ h/128 and about 12·h² per layer, h ≈ (128·N/12)^(1/3); the layer count is
    then solved so the total matches N. MoE: with E routed and k active experts of y parameters each
    per layer stack, N = x + E·y and A = x + k·y give y = (N − A)/(E − k) and x = A − k·y.
    """
    if not math.isfinite(params_total) or params_total < 1e8:
        raise ValueError("params must be at least 100 million")
    active = params_total if params_active is None else params_active
    if not 0 < active <= params_total:
        raise ValueError("active params must be positive and at most the total params")
    label = f"{params_total / 1e9:.3g}B"
    vocab = DEFAULT_VOCAB if params_total >= 5e9 else SMALL_VOCAB
    if active >= params_total * 0.999:
        h = _round_hidden((128 * params_total / 12) ** (1 / 3))
        heads = max(1, h // HEAD_DIM)
        kv = min(8, heads)
        ffn = _round_to(FFN_RATIO * h, 256)
        emb = 2 * vocab * h
        layers = max(1, round((params_total - emb) / _dense_layer_params(h, kv, heads, ffn)))
        return ModelShape(
            model_id="custom",
            name=f"Custom {label} dense",
            layers=layers,
            hidden=h,
            heads=heads,
            kv_heads=kv,
            ffn_hidden=ffn,
            vocab=vocab,
        )
    ratio = active / params_total
    for experts, k in MOE_CHOICES:
        y = (params_total - active) / (experts - k)
        x = active - k * y  # attention, norms and embeddings
        if x > 0.1 * active or (experts, k) == MOE_CHOICES[-1]:
            break
    x = max(x, 0.05 * active)
    # attention ≈ 2h²(1 + kv/heads) per layer; with L = h/128, x ≈ L·2.1h² + 2·V·h
    h = HEAD_DIM
    for cand in range(HEAD_DIM, 32768, HEAD_DIM):
        if (cand // 128) * 2.1 * cand * cand + 2 * vocab * cand > x:
            break
        h = cand
    h = _round_hidden(h)
    heads = max(1, h // HEAD_DIM)
    layers = max(1, h // 128)
    ffn = max(128, _round_to(y / (layers * 3 * h), 64))
    return ModelShape(
        model_id="custom",
        name=f"Custom {label} MoE ({active / 1e9:.3g}B active, {ratio:.0%})",
        layers=layers,
        hidden=h,
        heads=heads,
        kv_heads=min(8, heads),
        ffn_hidden=ffn,
        vocab=vocab,
        experts=experts,
        experts_per_token=k,
    )

"""Corrections of entry of 2026-12-02 (docs/reference/finetune-model.md, "Corrections of entry"):
a row's setting must match the value pinned from its own config, so a data-entry slip cannot
come back quietly."""

import pytest

from models.validation import finetune as FV

AUTOMODEL = "automodel2510-llama3.3-70b-lora-h100x8"
DGXC_LORA = "ft3-dgxc2502-llama3-70b-lora-bf16-h100x8"

#: the config's activation_checkpointing, as pinned in the row's source (NVIDIA-NeMo/Automodel @
#: 01926a5c443b, examples/llm_finetune/llama3_3/custom_llama3_3_70b_instruct_peft_benchmark.yaml
#: l. 55), and the model's recompute mode it maps to (AutoModel wraps every layer's attention,
#: MLP and norms in checkpoint_wrapper: the whole forward recomputed)
PINNED_AC = "activation_checkpointing: true"
RECOMPUTE_OF_AC = {
    "activation_checkpointing: true": "full",
    "activation_checkpointing: false": "none",
}


def _row(row_id: str) -> dict:
    return next(r for r in FV.load_rows() if r["id"] == row_id)


def test_the_automodel_rows_recompute_is_its_pinned_config_value():
    r = _row(AUTOMODEL)
    assert "01926a5c443b" in r["source"] and f"({PINNED_AC}, l. 55)" in r["source"]
    assert r["recompute"] == RECOMPUTE_OF_AC[PINNED_AC]
    # and the validation scores it at that mode, not the fastest that fits
    scored = next(x for x in FV.validate()["rows"] if x["id"] == AUTOMODEL)
    assert scored["recompute"] == "full"
    # before the correction +147.6 % at no recompute; after, +71.7 % (full recompute)
    assert scored["error"] == pytest.approx(0.717, abs=0.001)


def test_the_dgxc_70b_lora_row_has_the_recipes_rank_and_targets():
    """NeMo v2.1.0 recipes/llama3_70b.py: peft.dim 16 (l. 313), target_modules ['linear_qkv']
    (l. 389); the LoRA class's own default (32) is overridden by the recipe."""
    r = _row(DGXC_LORA)
    assert "633cb602777b" in r["notes"]
    assert int(r["lora_rank"]) == 16 and r["lora_targets"] == "q k v"

"""Framework classes of a fine-tune (amendment 4 of docs/reference/finetune-model.md, 2026-12-02).

Amendment 4's candidate form: step time = physics step time ÷ η_c, so tokens/s = physics tokens/s
× η_c (memory unchanged), with c the class of the plan's `framework` input: `megatron` (NeMo /
Megatron-Core with Transformer Engine) or `fsdp` (PyTorch FSDP / FSDP2 / DeepSpeed ZeRO under eager
PyTorch). η_c = exp(source-weighted median of log(published ÷ model tokens/s per GPU)) over the
class's throughput rows in models/data/validation/finetune.csv (`models/validation/finetune_classes`
fits it and scores it leave-one-source-out). The adoption rule was not met (leave one source out
the median |error| went 10.4 % → 11.3 %), so the model charges no framework factor: FITTED_EFFICIENCY
records the fit, nothing in the model multiplies by it.
"""

from __future__ import annotations

#: the framework input's values and the class each belongs to (one class per framework today)
FRAMEWORK_CLASS = {"megatron": "megatron", "fsdp": "fsdp"}

#: η per class as amendment 4 fitted it on the 41 throughput rows (each source weighted equally);
#: reproduced from the rows by tests/test_finetune_classes.py
FITTED_EFFICIENCY = {"fsdp": 0.93, "megatron": 0.99}

#: amendment 4's adoption rule's verdict (leave one source out); False: no factor is charged
ADOPTED = False


def framework_class(framework: str) -> str:
    """The class of a `framework` input value (a KeyError names an unknown framework)."""
    return FRAMEWORK_CLASS[framework]

"""The fine-tuning plan's records: the chosen layout and the plan a buyer reads
(models/finetune/plan.py assembles them; presentation reads these fields, never recomputes)."""

from __future__ import annotations

from pydantic import Field

from models.record import Record


class FinetuneLayout(Record):
    tp: int
    pp: int
    dp: int
    zero: int
    recompute: str
    micro_batch: int
    microbatches: int
    global_batch_seqs: int


class FinetunePlan(Record):
    """A fine-tuning run sized on one GPU type; memory per GPU, time for the whole dataset."""

    model: str
    method: str
    gpu: str
    precision: str
    gpus: int
    nodes: int
    sizing: str = Field(description='"fixed" or "smallest that fits"')
    min_gpus: int = Field(description="the fewest GPUs on the node ladder with a fitting layout")
    lora_rank: int | None
    lora_targets: list[str] | None
    params_total: float
    trainable_params: float
    layout: FinetuneLayout
    memory_gib_per_gpu: dict[str, float]
    memory_capacity_gib: float
    activations_gib_no_recompute: float = Field(description="same layout, nothing recomputed")
    activations_gib_full_recompute: float = Field(description="same layout, full recompute")
    step_time_s: float
    step_breakdown_s: dict[str, float]
    tokens_per_s: float
    tokens_per_s_per_gpu: float
    dataset_tokens: float
    epochs: float
    steps: int
    train_hours: float
    gpu_hours: float
    rule_of_thumb_tokens_per_s: float = Field(
        description="MFU 40 % × dense peak × GPUs ÷ (6 × parameters)"
    )
    rule_of_thumb_memory_gib_per_gpu: float = Field(
        description="16 / 2 / 0.5 bytes per parameter (full / LoRA / QLoRA) ÷ GPUs"
    )
    layouts_evaluated: int
    framework: str = Field(description="fsdp (FSDP / DeepSpeed ZeRO) or megatron (NeMo)")
    savings: dict[str, bool] = Field(description="each memory-saving choice, on or off")
    savings_chosen_by: str = Field(
        description='"buyer" (all set), "planner" (it turned one on to fit) or "none needed"'
    )
    savings_step_s: dict[str, float] = Field(
        description="seconds per step each chosen saving adds (8-bit optimizer: saves, negative)"
    )
    host_memory_gib_per_gpu: float = Field(description="CPU memory the offloaded state takes")
    min_gpus_with_savings: int = Field(
        description="the fewest GPUs on the node ladder that fit when savings may be chosen"
    )
    fp8_params: bool = Field(
        description="weights held in FP8 only, no BF16 copy (Transformer Engine fp8_model_init, "
        "NeMo fp8_params): the buyer's input"
    )
    bf16_grads: bool = Field(
        False,
        description="gradient buffers in BF16, 2 B per trained parameter held and synced, FP32 "
        "master and Adam states kept (Megatron-Core grad_reduce_in_fp32 False): the buyer's input",
    )
    bf16_optimizer: bool = Field(
        description="Adam without an FP32 master copy, gradients held in BF16 (pure BF16; under "
        "megatron NeMo's distributed_fused_adam, dtype and grad_sync_dtype bf16)"
    )
    optimizer_bytes_per_param: float = Field(
        description="optimizer bytes per trained parameter: FP32 master + m + v 12; pure BF16 m + v "
        "4 (+ 2, NeMo's BF16 copy over FP8-only weights); savings.optimizer_form"
    )
    grad_sync_bytes_per_param: float = Field(
        description="bytes per gradient the data-parallel reduce-scatter (LoRA: all-reduce) moves"
    )

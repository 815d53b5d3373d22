"""Tokens/s/GPU from a Megatron-LM TFLOP/s/GPU figure: the method behind the `published` figure of
the `swissai-gh200-` rows of models/data/validation/runs.csv.

`PYTHONPATH=. .venv/bin/python -m bench.swissai_megatron_tokens TFLOPS --layers L --hidden H
--heads A --kv-heads G --ffn F --seq S --vocab V [--gated]`

Megatron-LM's --log-throughput divides num_floating_point_operations(args, batch) by the step time
(megatron/training/training.py; swiss-ai/Megatron-LM at 109b7d1e, February 2025). Per token:

    12 · L · h² · [ (1 + G/A + S/h) · (A·d/h) + (F/h) · m + V / (2 · L · h) ]

with d = h/A the head width, m = 3/2 for a gated (SwiGLU) MLP else 1, V the padded vocabulary
(dense models only: no experts, no shared experts). Tokens/s/GPU = TFLOP/s × 1e12 / that.
"""

from __future__ import annotations

import argparse


def megatron_flops_per_token(
    layers: int, hidden: int, heads: int, kv_heads: int, ffn: int, seq: int, vocab: int, gated: bool
) -> float:
    """FLOPs Megatron-LM's throughput log counts per token (formula in the module docstring)."""
    ratio = (hidden // heads) * heads / hidden
    attention = (1 + kv_heads / heads + seq / hidden) * ratio
    mlp = ffn / hidden * (1.5 if gated else 1.0)
    logit = vocab / (2 * layers * hidden)
    return 12 * layers * hidden * hidden * (attention + mlp + logit)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("tflops", type=float, help="published TFLOP/s per GPU")
    for name in ("layers", "hidden", "heads", "kv-heads", "ffn", "seq", "vocab"):
        p.add_argument(f"--{name}", type=int, required=True)
    p.add_argument("--gated", action="store_true", help="SwiGLU MLP")
    a = p.parse_args()
    per_token = megatron_flops_per_token(
        a.layers, a.hidden, a.heads, a.kv_heads, a.ffn, a.seq, a.vocab, a.gated
    )
    print(f"{per_token:.5e} FLOPs per token; {a.tflops * 1e12 / per_token:.0f} tokens/s/GPU")


if __name__ == "__main__":
    main()

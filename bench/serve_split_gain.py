"""Prints how many fewer GPUs a prefill/decode split needs than colocated replicas (models/serving/plan.py)
in the setup of NVIDIA Dynamo's published Llama 70B comparison: H100, FP8, 3,000 input and 150
output tokens (ai-dynamo/dynamo docs, architecture, "Disaggregated serving": 30 % more throughput
per GPU on one node, over 2x on two; its operating points are a scatter plot, not stated, so this
is a plausibility check, not a scored row). Arrivals 40 requests/s, TTFT objective 3 s.
Run: python -m bench.serve_split_gain"""

from __future__ import annotations

from models.errors import InputError
from models.serving.plan import ServeInputs, plan_serving

TPOT_MS = (15, 20, 25, 30, 40, 60, 100)


def gpus(tpot_ms: float, mode: str) -> int | None:
    try:
        return plan_serving(
            ServeInputs(
                model="llama3-70b",
                gpu="H100-SXM",
                precision="fp8",
                input_tokens=3000,
                output_tokens=150,
                rps=40.0,
                ttft_ms=3000,
                tpot_ms=tpot_ms,
                prefill_decode=mode,
            )
        ).gpus
    except InputError:
        return None


def main() -> None:
    print(f"{'TPOT objective':>15} {'colocated GPUs':>15} {'split GPUs':>11} {'gain':>6}")
    for t in TPOT_MS:
        c, s = gpus(t, "colocated"), gpus(t, "split")
        gain = f"{c / s:.2f}x" if c and s else "-"
        print(f"{t:>12} ms {c or '-':>15} {s or '-':>11} {gain:>6}")


if __name__ == "__main__":
    main()

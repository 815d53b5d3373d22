"""The twenty-first amendment's before -> after cases (docs/reference/serving-evidence.md): run
once in this tree and once with PYTHONPATH at a worktree of main, and compare. Prints, per case,
GPUs, TTFT at p50 and p90, TPOT and output tokens/s per GPU of `plan_serving`."""

from __future__ import annotations

from models.errors import InputError
from models.serving.plan import ServeInputs, plan_serving

L70 = {"model": "llama3-70b", "input_tokens": 1000, "output_tokens": 300}
CASES = {
    "Llama 3 70B, 64 users, TTFT 2 s, H100": L70
    | {"gpu": "H100-SXM", "users": 64, "ttft_ms": 2000},
    "Llama 3 70B, 64 users, TTFT 2 s, MI300X": L70
    | {"gpu": "MI300X", "users": 64, "ttft_ms": 2000},
    "DeepSeek-class MoE, 256 users, TTFT 3 s, H200": {
        "model": "deepseek-v3-like",
        "gpu": "H200",
        "input_tokens": 2000,
        "output_tokens": 500,
        "users": 256,
        "ttft_ms": 3000,
    },
    "Serve page's start, 64 users": {
        "model": "llama3-70b",
        "gpu": "H100-SXM",
        "input_tokens": 2048,
        "output_tokens": 256,
        "users": 64,
        "ttft_ms": 2000,
        "tpot_ms": 50,
    },
    "Serve page's start, 10 rps": {
        "model": "llama3-70b",
        "gpu": "H100-SXM",
        "input_tokens": 2048,
        "output_tokens": 256,
        "rps": 10.0,
        "ttft_ms": 2000,
        "tpot_ms": 50,
    },
}


def main() -> None:
    for name, fields in CASES.items():
        cells = []
        for pct in (50, 90):
            try:
                p = plan_serving(ServeInputs(**fields, slo_percentile=pct))
            except InputError as exc:
                cells.append(f"p{pct}: refused ({exc.field})")
                continue
            cells.append(
                f"p{pct}: {p.gpus} GPUs, TTFT {p.ttft_ms:.0f} ms, TPOT {p.tpot_ms:.1f} ms, "
                f"{p.output_tokens_per_s_per_gpu:.0f} tok/s/GPU"
            )
        print(f"{name}: " + "; ".join(cells))


if __name__ == "__main__":
    main()

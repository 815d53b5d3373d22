"""Fits each serving engine's decode-step factor against TensorRT-LLM (models/serving/engines.py
ENGINES) by the rule docs/reference/serving-evidence.md fixed before the fit (second amendment):
over the configurations of the tuning rows of models/data/validation/aiconfigurator_silicon.csv
measured on both the engine and TensorRT-LLM (aggregated rows with the same model, system,
precision, TP size, concurrency, input and output tokens), the median of the engine's median TPOT
over TensorRT-LLM's. Held-out rows are not read. Run: python -m bench.serve_engines"""

from __future__ import annotations

import statistics

from models.validation import silicon

REFERENCE = "trtllm"
KEY = ("model_path", "system", "precision", "tp_size", "batch_size", "isl", "osl")


def fit() -> dict[str, tuple[float, int]]:
    """{backend: (factor, configurations)} for every backend beside the reference."""
    by: dict[tuple, dict[str, list[float]]] = {}
    for row in silicon.load_rows():
        if (
            silicon.held_out(row)
            or row["mode"] != "agg"
            or row["model_path"] in silicon.TWELFTH_MODELS
        ):
            continue
        cell = by.setdefault(tuple(row[k] for k in KEY), {})
        cell.setdefault(row["backend"], []).append(float(row["silicon_tpot_ms"]))
    out = {}
    for backend in sorted({b for cell in by.values() for b in cell} - {REFERENCE}):
        ratios = [
            statistics.median(cell[backend]) / statistics.median(cell[REFERENCE])
            for cell in by.values()
            if backend in cell and REFERENCE in cell
        ]
        out[backend] = (statistics.median(ratios), len(ratios))
    return out


def main() -> None:
    for backend, (factor, n) in fit().items():
        print(f"{backend:8} {factor:.4f} over {n} configurations measured on it and {REFERENCE}")


if __name__ == "__main__":
    main()

"""AIConfigurator's own estimate of measured serving rows, for bench/serve_peer.py. Runs under
.venv-peer (scripts/peer.sh), not the project's environment: reads rows of
models/data/validation/aiconfigurator_silicon.csv as JSON lines on standard input and writes, per
row, {"id", "ttft_ms", "tpot_ms", "seconds"} or {"id", "error", "seconds"} as JSON lines.

Each row is estimated as its own aggregated or disaggregated configuration (backend and version,
system, precision modes, input and output tokens, layouts and batches), through the package's
`aiconfigurator.cli.api.cli_estimate`. The file names two models by paths whose configurations the
package does not ship (it fetches those from HuggingFace, which this machine cannot reach); they
are given as the shipped names of the same models (`MODEL_PATHS`)."""

from __future__ import annotations

import contextlib
import io
import json
import sys
import time

from aiconfigurator.cli.api import cli_estimate

#: the file's model paths -> the name of the same model's configuration the package ships
MODEL_PATHS = {
    "meta-llama/Llama-3.1-70B": "meta-llama/Meta-Llama-3.1-70B",
    "meta-llama/Llama-3.1-8B-Instruct": "meta-llama/Meta-Llama-3.1-8B",
}
LAYOUT = ("tp_size", "pp_size", "attention_dp_size", "moe_tp_size", "moe_ep_size")
POOL = (*LAYOUT, "batch_size", "num_workers")


def arguments(row: dict) -> dict:
    """cli_estimate's arguments for one row (an empty cell is left to the package's default)."""
    fields = ("batch_size", *LAYOUT)
    if row["mode"] != "agg":
        fields = tuple(f"{pool}_{f}" for pool in ("prefill", "decode") for f in POOL)
    return {
        "model_path": MODEL_PATHS.get(row["model_path"], row["model_path"]),
        "system_name": row["system"],
        "mode": row["mode"],
        "backend_name": row["backend"],
        "backend_version": row["backend_version"] or None,
        "isl": int(row["isl"]),
        "osl": int(row["osl"]),
        "gemm_quant_mode": row["gemm_quant_mode"] or None,
        "moe_quant_mode": row["moe_quant_mode"] or None,
        **{f: int(row[f]) for f in fields if row.get(f)},
    }


def _run(args: dict) -> dict:
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        result = cli_estimate(**args)
    return {"ttft_ms": float(result.ttft), "tpot_ms": float(result.tpot)}


def estimate(row: dict) -> dict:
    """The peer's estimate of one row. A backend version the package has no database for (or
    names differently) is estimated on the package's default database for that backend and
    system, and marked `"version": "default"`, as the package's own accuracy script does."""
    start = time.perf_counter()
    args = arguments(row)
    try:
        try:
            out = _run(args)
        except ValueError as exc:
            if args["backend_version"] is None or "version" not in str(exc).lower():
                raise
            out = _run(args | {"backend_version": None}) | {"version": "default"}
    except Exception as exc:  # the peer's refusal is a result too: reported, not raised
        out = {"error": f"{type(exc).__name__}: {str(exc)[:200]}"}
    return {"id": row["id"], **out, "seconds": time.perf_counter() - start}


def main() -> None:
    for line in sys.stdin:
        if line.strip():
            print(json.dumps(estimate(json.loads(line))), flush=True)


if __name__ == "__main__":
    main()

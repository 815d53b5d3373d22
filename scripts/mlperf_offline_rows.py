"""Writes models/data/validation/mlperf_offline.csv from openshift-psap/performance-dashboard's
MLPerf Inference result tables (docs/reference/mlperf-serving-evidence.md says which rows and why).
Run once by hand, with a copy of that repository (commit 71007029f):
python scripts/mlperf_offline_rows.py PATH/TO/performance-dashboard"""

from __future__ import annotations

import csv
import io
import pathlib
import sys

#: MLPerf benchmark -> the model preset it runs
BENCHMARKS = {
    "llama2-70b-99": "llama2-70b",
    "llama3.1-405b": "llama3.1-405b",
    "mixtral-8x7b": "mixtral-8x7b",
    "deepseek-r1": "deepseek-v3-like",
}
#: the table's accelerator name -> models/data/gpus.csv (SXM parts only: NVL and PCIe are not there)
ACCELERATORS = {
    "NVIDIA H100-SXM-80GB": "H100-SXM",
    "NVIDIA H200-SXM-141GB": "H200",
    "NVIDIA B200-SXM-180GB": "B200",
    "NVIDIA GB200": "GB200",
    "AMD Instinct MI300X 192GB HBM3": "MI300X",
}
SOURCE = (
    "MLCommons MLPerf Inference v{v} datacenter, closed, Offline (public ID {id}), via "
    "openshift-psap/performance-dashboard mlperf-data/mlperf-{v}.csv (commit 71007029f, Apache-2.0)"
)
FIELDS = ["id", "version", "public_id", "organization", "system", "accelerator", "gpu", "gpus",
          "benchmark", "model", "tokens_per_s", "source"]  # fmt: skip


def _number(cell: str) -> float | None:
    try:
        return float(cell.strip().replace(",", ""))
    except ValueError:
        return None


def _pivot(path: pathlib.Path, version: str):
    """v5.0 and v5.1: a header of benchmarks (filled right), scenarios and column names, then four
    rows a system, the last with its average results (labelled in the column before the first
    benchmark's)."""
    rows = list(csv.reader(path.open(encoding="utf-8", errors="replace")))
    first = next(i for i, cell in enumerate(rows[2]) if cell.strip())
    names, name = [], ""
    for i, cell in enumerate(rows[2]):
        name = cell.strip() or name if i >= first else ""
        names.append(name)
    scenario, head = rows[3], rows[4]
    col = {h.strip(): i for i, h in reversed(list(enumerate(head[:first])))}
    system = None
    for r in rows[5:]:
        if r and r[0].strip():
            system = {"public_id": r[0], "organization": r[1], "system": r[3],
                      "nodes": r[col["# of Nodes"]],
                      "accelerator": r[col["Accelerator (click + for details)"]].strip()
                      if "Accelerator (click + for details)" in col else r[5].strip(),
                      "gpus": r[col["# of Accelerators"]]}  # fmt: skip
        elif system and len(r) > first and r[first - 1].startswith("Avg. Result"):
            for i in range(first, len(r)):
                if scenario[i].strip() == "Offline" and _number(r[i]) is not None:
                    yield system | {"benchmark": names[i], "result": _number(r[i])}


def _flat(path: pathlib.Path):
    """v6.0: one tab-separated UTF-16 row per result."""
    text = path.read_bytes().decode("utf-16", errors="replace")
    rows = list(csv.reader(io.StringIO(text), delimiter="\t"))
    head = rows[0]
    result = next(i for i, h in enumerate(head) if h.strip().startswith("Avg. Result"))
    col = {h: i for i, h in reversed(list(enumerate(head)))}
    for r in rows[1:]:
        if len(r) <= result or r[col["Scenario"]].strip() != "Offline":
            continue
        yield {"public_id": r[col["Public ID"]], "organization": r[col["Organization"]],
               "system": r[col["System Name (click + for details)"]],
               "nodes": r[col["# of Nodes"]],
               "accelerator": r[col["Accelerator (click + for details)"]].strip(),
               "gpus": r[col["Accelerators per node"]],
               "benchmark": r[col["Model MLC"]].strip(), "result": _number(r[result])}  # fmt: skip


def rows(root: pathlib.Path) -> list[dict]:
    out = []
    found = [("5.0", _pivot(root / "mlperf-data/mlperf-5.0.csv", "5.0")),
             ("5.1", _pivot(root / "mlperf-data/mlperf-5.1.csv", "5.1")),
             ("6.0", _flat(root / "mlperf-data/mlperf-6.0.csv"))]  # fmt: skip
    for version, results in found:
        for r in results:
            gpu = ACCELERATORS.get(r["accelerator"])
            if gpu is None or r["benchmark"] not in BENCHMARKS or r["result"] is None:
                continue
            if r["nodes"].strip() not in ("", "1"):
                continue
            pid = r["public_id"].removeprefix("v")
            out.append({
                "id": f"v{version}-{r['public_id'].rsplit('-', 1)[-1]}-{r['benchmark']}",
                "version": version, "public_id": pid,
                "organization": r["organization"], "system": r["system"],
                "accelerator": r["accelerator"], "gpu": gpu, "gpus": int(float(r["gpus"])),
                "benchmark": r["benchmark"], "model": BENCHMARKS[r["benchmark"]],
                "tokens_per_s": r["result"],
                "source": SOURCE.format(v=version, id=pid),
            })  # fmt: skip
    return out


def main() -> None:
    found = rows(pathlib.Path(sys.argv[1]))
    target = (
        pathlib.Path(__file__).resolve().parents[1] / "models/data/validation/mlperf_offline.csv"
    )
    with target.open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS)
        w.writeheader()
        w.writerows(found)
    print(f"{len(found)} rows -> {target}")


if __name__ == "__main__":
    main()

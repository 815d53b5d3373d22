"""Fits each older CUDA release line's decode-step costs (models/serving/builds.py
`CUDA_OLDER_BUILDS`: k and s in t_step = k · roofline step + layers · s) on
models/data/validation/older_cuda_serving.csv by the sixteenth amendment's grid rule
(models/validation/step_fit.py), and checks each line against the thirtieth amendment's adoption
rule (docs/reference/serving-evidence.md: at least 8 rows with TPOT at 3 concurrencies, the fit's
median |TPOT error| 10 points below the CUDA record's in-sample and on every source left out).
Prints each line, what the rule says and what builds.py carries. Reads no unseen row (dstack's
sets are scored by `clusterplan validate`, after the constants are committed).
Run: python -m bench.serve_older_cuda_fit"""

from __future__ import annotations

from models.validation import older_cuda


def main() -> None:
    print("\n".join(older_cuda.report_lines()))
    for e in older_cuda.as_json()["lines"]:
        failed = [k for k, ok in e["rule"].items() if not ok]
        verdict = "meets the rule" if not failed else "fails: " + ", ".join(failed)
        carried = older_cuda.build_of_line(e["engine"], e["class"], e["line"])
        committed = (
            f"committed: k = {carried.step_factor:.2f}, s = "
            f"{carried.step_s_per_layer * 1e6:.0f} µs (version {carried.version})"
            if carried
            else "not in builds.py"
        )
        print(f"{e['engine']} {e['line']} {e['class']}: {verdict}; {committed}")


if __name__ == "__main__":
    main()

"""Fits each ROCm build's decode-step costs (models/serving/builds.py `ROCM_BUILDS`: k and s in
t_step = k · roofline step + layers · s) by the rule docs/reference/serving-evidence.md fixed
before the fit (sixteenth amendment): per engine and measured version, the grid point k = 1.00 to
4.00 by 0.01, s = 0 to 400 µs by 5 µs that minimises the median plus the 90th percentile of the
absolute TPOT error (the one 90th percentile, models/validation/summaries.py `p90`) over its
tuning rows of models/data/validation/amd_serving.csv that give TPOT
and that the model does not refuse (ties: the smaller s, then the smaller k), each row's TPOT
with its engine's share φ_e of the others' prefills, as the planner (the amendment's note of
2026-12-02). Held-out rows are not
read. Each row is evaluated once by the model (models/validation/amd.py `_parts`); every grid
point is then arithmetic, and the script checks it against the model at the constants it prints.
Run: python -m bench.serve_rocm_fit"""

from __future__ import annotations

import numpy as np

from models.serving import builds
from models.validation import amd
from models.validation.step_fit import fit


def tuning_rows(engine: str, version: str) -> list[dict]:
    """The build's tuning rows that give TPOT and fit (the version its costs resolve to)."""
    out = []
    for r in amd.load_rows():
        if r["engine"] != engine or amd.held_out(r) or not r["tpot_ms"]:
            continue
        b = amd._build(r)
        if (
            b.costs_version == version
            and amd.same_line(r, version)
            and amd.figures(r, 1.0, 0.0) is not None
        ):
            out.append(r)
    return out


def main() -> None:
    for engine, versions in builds.ROCM_BUILDS.items():
        for build in versions:
            rows = tuning_rows(engine, build.version)
            if build.step_s_per_seq_layer or build.step_arith_share:
                print(
                    f"{engine} {build.version}: a time per sequence and layer too, fitted by the "
                    "thirty-third and thirty-fourth amendments' rule: python -m "
                    "bench.serve_rocm_batch_fit"
                )
                continue
            if not rows:
                print(f"{engine} {build.version}: no tuning rows")
                continue
            k, s, obj = fit(rows)
            check = [amd.figures(r, k, s)["tpot_ms"] for r in rows]
            direct = [
                (k * amd.parts(r).t_raw + amd.parts(r).layers * s) * 1e3
                + amd.prefill_share(r)
                * amd.parts(r).batch
                * amd.parts(r).t_prefill
                / amd.parts(r).output_tokens
                * 1e3
                for r in rows
            ]
            assert np.allclose(check, direct), "grid arithmetic differs from the model"
            print(
                f"{engine} {build.version}: k = {k:.2f}, s = {s * 1e6:.0f} µs per layer "
                f"({len(rows)} tuning rows; median + p90 of |TPOT error| {obj:.1%}); "
                f"committed: k = {build.step_factor:.2f}, s = {build.step_s_per_layer * 1e6:.0f} µs"
            )


if __name__ == "__main__":
    main()

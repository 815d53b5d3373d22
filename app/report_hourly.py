"""`clusterplan hourly`'s report and its data: the owned cluster's all-in cost per delivered
GPU-hour at each utilisation beside the catalogue's rental prices (moved out of
app/report_text.py, which holds the comparison's report)."""

from __future__ import annotations

import math
from collections.abc import Iterable

from app.formatting import usd as _usd
from app.formatting import usd_rate
from models.options import OPTIONS
from pricing.catalogue.rows import RentalRow
from pricing.engine import MIN_GPU_HOURS
from pricing.results import Comparison

#: the catalogue's rental figures `hourly` lists: (key, label)
RENTAL_FIGURES = (
    ("rent_usd_per_gpu_hour", "Rent dedicated (1-yr commit)"),
    ("cloud_committed_3y_usd_per_gpu_hour", "Cloud 3-year commit"),
    ("cloud_committed_1y_usd_per_gpu_hour", "Cloud 1-year commit"),
    ("cloud_spot_usd_per_gpu_hour", "Cloud spot"),
    ("cloud_on_demand_usd_per_gpu_hour", "Cloud on-demand"),
)


def _per_gpu_hour(c: Comparison) -> tuple[float, dict[str, float]]:
    """The owned option's all-in USD per delivered GPU-hour and each cost line's share of it;
    (None, {}) where it delivers too few GPU-hours for a rate (the engine's MIN_GPU_HOURS)."""
    build = c.options[0]
    if build.usd_per_gpu_hour is None:
        return None, {}
    return build.usd_per_gpu_hour, {
        k: v / build.delivered_gpu_hours for k, v in build.breakdown_usd.items()
    }


def _finite(value: float | None) -> float | None:
    return None if value is None or not math.isfinite(value) else value


def hourly_report(gpu: str, gpus: int, months: int, rows: list[tuple[float, Comparison]]) -> str:
    """Owned cost per delivered GPU-hour at each utilisation, then the catalogue's rental prices."""
    lines = [
        f"All-in cost of owning {gpus:,} x {gpu} for {months} months, per delivered GPU-hour",
        "(servers, fabric, storage, networks, management servers, racks, cooling, installation,",
        " sales tax, power, colocation, staff, support, insurance, property tax, the months before",
        " the cluster is ready, less the resale value at the hardware's age when the term ends;",
        " cash purchase; no software licence; from `pricing/engine.py` with the bundled catalogue)",
        "",
    ]
    c0 = rows[0][1]
    ops, t = c0.operations, c0.training
    if ops is not None and ops.hardware_capex_usd:
        lines += [
            "  hardware bought: "
            + ", ".join(f"{k} {_usd(v)}" for k, v in ops.hardware_capex_usd.items() if v),
            f"  file system {t.storage_system_tb:,.0f} TB usable, sized by {t.storage_sized_by}"
            f" ({t.storage_tb:,.1f} TB of checkpoints and data, "
            f"{t.checkpoint.write_bandwidth_gbyte_per_s:,.0f} GB/s of checkpoint writes); "
            f"{ops.racks:,} {ops.cooling}-cooled racks, {ops.mgmt_servers:.1f} management servers",
            "",
        ]
    for util, c in rows:
        rate, parts = _per_gpu_hour(c)
        if rate is None:  # the engine gives no rate below MIN_GPU_HOURS delivered
            lines.append(
                f"  at {util:g} % utilisation: no cost per GPU-hour (under {MIN_GPU_HOURS:g} "
                f"GPU-hour delivered over the term; the term costs {_usd(c.options[0].total_usd)})"
            )
            continue
        top = ", ".join(
            f"{k} {v:,.2f}" for k, v in sorted(parts.items(), key=lambda kv: -abs(kv[1]))
        )
        lines.append(f"  at {util:g} % utilisation: {usd_rate(rate)} per GPU-hour ({top})")
    figures = {a.key: a for a in rows[0][1].assumptions}
    lines += [
        "",
        "Catalogue rental prices for the same GPU (USD per GPU-hour, pay only for hours bought):",
    ]
    for key, label in RENTAL_FIGURES:
        f = figures[key]
        missing = f.value is None or f.value != f.value  # none in the catalogue (None or NaN)
        offered = _offered(rows[0][1], key)
        value = "-" if missing or offered is not None else f"${f.value:.2f}"
        source = f.source if offered is None else offered
        lines.append(f"  {label:28} {value:>7}   {source}")
    return "\n".join(lines)


def _offered(c: Comparison, price_key: str) -> str | None:
    """None when the offer priced by `price_key` is available for this cluster (or was not
    compared), else the engine's note saying why not (e.g. spot above its size limit). The offer
    is the registry's first option paying that price (rent, a cloud purchase); managed and hybrid
    come later and pay it with more, so their availability says nothing of the offer."""
    own = next(o.id for o in OPTIONS if o.price_key == price_key)
    for o in c.options:
        if o.option == own and not o.available:
            return o.note
    return None


def hourly_data(
    gpu: str,
    gpus: int,
    months: int,
    rows: list[tuple[float, Comparison]],
    rentals: Iterable[RentalRow],
) -> dict:
    """`hourly_report`'s figures as data (`clusterplan hourly --json`): per utilisation the owned
    all-in USD per delivered GPU-hour and its lines (the numbers the text prints, unrounded; the
    lines sum to it), the engine's rental figures, and every catalogue rental row for the GPU.
    JSON-safe: a figure the catalogue lacks is null, never NaN."""
    owned = []
    for util, c in rows:
        build = c.options[0]
        rate, parts = _per_gpu_hour(c)
        owned.append(
            {
                "utilisation_pct": util,
                "option": build.option,
                "usd_per_gpu_hour": rate,
                "lines_usd_per_gpu_hour": parts,
                "total_usd": build.total_usd,
                "lines_usd": dict(build.breakdown_usd),
                "delivered_gpu_hours": build.delivered_gpu_hours,
            }
        )
    figures = {a.key: a for a in rows[0][1].assumptions}
    return {
        "gpu": gpu,
        "gpus": gpus,
        "months": months,
        "catalogue_as_of": rows[0][1].catalogue_as_of,
        "owned": owned,
        "rental_figures": [
            {
                "key": key,
                "label": label,
                "usd_per_gpu_hour": _finite(figures[key].value),
                "source": figures[key].source,
                "as_of": figures[key].as_of,
                #: None when offered for this cluster, else why not (the engine's note)
                "not_offered": _offered(rows[0][1], key),
            }
            for key, label in RENTAL_FIGURES
        ],
        "rentals": [
            {
                "provider": r.provider,
                "provider_kind": r.provider_kind,
                "offer": r.offer,
                "region": r.region,
                "usd_per_gpu_hour": r.price_usd_per_gpu_hour,
                "source": r.source,
                "as_of": r.as_of.isoformat(),
                "grade": r.grade,
                "notes": r.notes,
            }
            for r in rentals
        ],
    }

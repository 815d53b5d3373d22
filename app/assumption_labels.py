"""Every figure the engine reads as a reader knows it: a label with its unit per catalogue key, the
value in the formatting module's voice by the figure's unit (pricing/results.py Assumption.unit),
and the one line that says which overrides are in force (every page that uses the scenario's
comparison, and the PDF). Data, no Streamlit: the PDF imports it."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping

from app.formatting import NA, gpus, pct, ratio, usd, usd_rate

#: every figure the engine reads, by who pays it (the group the Assumptions page lists it under,
#: in this order after the tornado's ranked ones): catalogue key -> (what a reader calls it, the
#: unit a typed override is read in). The one registry of figure keys for the presentation:
#: the page's groups and order, every label and unit come from here.
GROUPED: dict[str, dict[str, tuple[str, str]]] = {
    "Owned hardware": {
        "server_usd_per_gpu": ("GPU server price", "USD per GPU"),
        "spares_pct_of_nodes": ("Spare servers", "% of nodes"),
        "ib_switch_64port_ndr_usd_per_switch": ("InfiniBand switch, 64-port NDR", "USD per switch"),
        "optic_400g_usd_per_transceiver": ("400G optical transceiver", "USD each"),
        "storage_buy_usd_per_tb": ("Storage purchase", "USD per TB"),
        "storage_system_uplift_ratio": ("Storage system cost over raw drives", "×"),
        "installation_usd_per_node": ("Installation", "USD per node"),
        "electricity_usd_per_kwh": ("Electricity price", "USD per kWh"),
        "pue": ("Power usage effectiveness, PUE", "facility power ÷ IT power"),
        "idle_power_pct": ("Idle power", "% of full power"),
        "colocation_usd_per_kw_month": ("Colocation", "USD per kW-month"),
        "facility_capex_usd_per_kw": ("Own data hall build cost", "USD per kW"),
        "facility_life_years": ("Data hall life", "years"),
        "facility_maintenance_pct_of_capex_per_year": ("Data hall upkeep", "% of its cost a year"),
        "ops_fte_per_1000_gpus": ("Operations team", "FTE per 1,000 GPUs"),
        "ops_min_team_fte": ("Smallest operations team", "FTE"),
        "ops_salary_usd_per_year": ("Operations salary", "USD a year"),
        "ops_loaded_cost_ratio": ("Salary to employer cost", "×"),
        "ops_hiring_lead_months": ("Hiring lead time", "months"),
        "support_pct_of_capex_per_year": ("Support and maintenance", "% of hardware a year"),
        "insurance_pct_per_year": ("Insurance", "% of hardware a year"),
        "sales_tax_pct": ("Sales tax on hardware", "%"),
        "property_tax_pct_per_year": ("Property tax", "% of hardware a year"),
        "hardware_deposit_pct": ("Deposit with the hardware order", "%"),
        "licence_usd_per_gpu_year": ("Software licence", "USD per GPU a year"),
        "residual_value_pct": ("Resale value at term end", "% of price"),
        "gpu_share_of_server_cost_pct": ("GPUs' share of the server price", "%"),
        "host_value_decline_pct_per_year": ("Server host resale decline", "% a year"),
        "fabric_value_decline_pct_per_year": ("Network fabric resale decline", "% a year"),
        "resale_bulk_haircut_pct": ("Bulk resale discount", "%"),
        "managed_owned_fee_pct_of_capex_per_year": ("Managed-on-owned fee", "% of hardware a year"),
        "storage_write_gbyte_per_s_per_tb": ("Storage write speed", "GB/s per TB"),
        "storage_min_system_tb": ("Smallest file system", "TB"),
        "frontend_network_usd_per_node": ("Front-end network", "USD per node"),
        "oob_network_usd_per_node": ("Out-of-band network", "USD per node"),
        "mgmt_servers_per_1000_gpus": ("Management servers", "per 1,000 GPUs"),
        "mgmt_min_servers": ("Fewest management servers", ""),
        "cpu_server_usd_per_server": ("CPU server", "USD each"),
        "rack_cabinet_usd_per_rack": ("Rack cabinet", "USD per rack"),
        "rack_pdu_usd_per_rack": ("Rack power distribution", "USD per rack"),
        "liquid_cooling_usd_per_kw": ("Liquid cooling", "USD per kW"),
        "liquid_retrofit_usd_per_kw": ("Liquid retrofit of an air-cooled site", "USD per kW"),
    },
    "Rented": {
        "rent_usd_per_gpu_hour": ("Dedicated rental price", "USD per GPU-hour"),
        "rent_on_demand_usd_per_gpu_hour": ("Dedicated rental on demand", "USD per GPU-hour"),
        "bridge_rent_usd_per_gpu_hour": (
            "Dedicated bridge to go-live (options.bridge_price)",
            "USD per GPU-hour",
        ),
        "rent_support_pct": ("Rental support plan", "% of rent"),
        "rent_setup_fee_usd_per_node": ("Rental setup fee", "USD per node"),
        "commitment_resale_haircut_pct": ("Past-term resale haircut", "% of the months' price"),
        "rent_min_term_months": ("Shortest rental term", "months"),
        "managed_premium_pct": ("Managed-service premium", "% over rent"),
        "managed_restart_ratio": ("Managed restart time", "× of self-run"),
        "storage_rent_usd_per_gb_month": ("Rented storage", "USD per GB-month"),
        "egress_usd_per_gb": ("Data egress", "USD per GB"),
        "rented_ops_fte_per_1000_gpus": ("Platform team on rented GPUs", "FTE per 1,000 GPUs"),
        "rented_ops_min_team_fte": ("Smallest platform team", "FTE"),
    },
    "Public cloud": {
        "cloud_on_demand_usd_per_gpu_hour": ("Cloud on-demand price", "USD per GPU-hour"),
        "cloud_support_pct": ("Cloud support plan", "% of cloud compute"),
        "cloud_spot_usd_per_gpu_hour": ("Cloud spot price", "USD per GPU-hour"),
        "spot_interruption_overhead_pct": ("Spot interruption overhead", "% more GPU-hours"),
        "cloud_committed_1y_usd_per_gpu_hour": ("Cloud 1-year commit price", "USD per GPU-hour"),
        "cloud_committed_3y_usd_per_gpu_hour": ("Cloud 3-year commit price", "USD per GPU-hour"),
        "committed_1y_discount_pct": ("Cloud 1-year commit discount", "%"),
        "committed_3y_discount_pct": ("Cloud 3-year commit discount", "%"),
        "cloud_spot_max_gpus": ("Most spot GPUs to count on", "GPUs"),
    },
    "Money and risk": {
        "discount_rate_pct_per_year": ("Discount rate for NPV", "% a year"),
        "loan_rate_pct_per_year": ("Loan interest", "% a year"),
        "lease_rate_pct_per_year": ("Lease rate", "% a year"),
        "failure_rate_multiplier": ("Failure rate", "× the GPU's published rate"),
        "lead_time_multiplier": ("Procurement lead time", "× the catalogue's"),
        "tax_rate_pct": ("Corporate tax rate", "%"),
        "depreciation_years": ("Depreciation period", "years"),
    },
    # set by the scenario (Workload page, `usage`): no catalogue figure, labelled for the tornado
    "Usage": {
        "utilisation_pct": ("Utilisation", "%"),
        "runs": ("Training runs", ""),
    },
}
#: catalogue key -> (label, unit), every group's
LABELS: dict[str, tuple[str, str]] = {k: v for keys in GROUPED.values() for k, v in keys.items()}


def name(key: str) -> str:
    """The reader's name of a figure ('Electricity price'); an unknown key (a link's) as it is."""
    return LABELS[key][0] if key in LABELS else key


def label(key: str) -> str:
    """The name with the unit an override is typed in: 'Electricity price (USD per kWh)'."""
    if key not in LABELS:
        return key
    text, unit = LABELS[key]
    return f"{text} ({unit})" if unit else text


def _decimals(x: float, most: int) -> int:
    """The fewest decimals (up to `most`) that show x as it is rounded to `most`."""
    return next(d for d in range(most + 1) if round(x, d) == round(x, most))


def _number(x: float, unit: str = "") -> str:
    """A plain quantity: '7.8', '250 TB', '0.133 GB/s per TB' (commas, at most 3 decimals)."""
    return f"{x:,.{_decimals(x, 3)}f} {unit}".rstrip()


def _percent(x: float, suffix: str = "") -> str:
    """A catalogue percentage (5.0 means 5 %): '5 %', '25.15 %', '12.5 % a year'."""
    return pct(x / 100, _decimals(x, 2)) + suffix


def _rate(x: float, per: str) -> str:
    """A price per unit, to the cent ('$2.35 per GPU-hour'); under a dollar to four significant
    digits, since a cent is a large share of it ('$0.0861 per kWh')."""
    if abs(x) >= 1 or round(x, 2) == x:
        return usd_rate(x, per)
    return f"${x:.4g} per {per}"


#: Assumption.unit -> how its value is written
UNIT_FORMATS: dict[str, Callable[[float], str]] = {
    "%": _percent,
    "%/year": lambda x: _percent(x, " a year"),
    "ratio": ratio,
    "USD/GPU": lambda x: usd(x) + " per GPU",
    "USD/switch": lambda x: usd(x) + " per switch",
    "USD/transceiver": lambda x: usd(x) + " each",
    "USD/TB": lambda x: usd(x) + " per TB",
    "USD/node": lambda x: usd(x) + " per node",
    "USD/kW": lambda x: usd(x) + " per kW",
    "USD/rack": lambda x: usd(x) + " per rack",
    "USD/server": lambda x: usd(x) + " each",
    "USD/year": lambda x: usd(x) + " a year",
    "USD/GPU-year": lambda x: usd(x) + " per GPU a year",
    "USD/kWh": lambda x: _rate(x, "kWh"),
    "USD/kW-month": lambda x: _rate(x, "kW-month"),
    "USD/GPU-hour": lambda x: _rate(x, "GPU-hour"),
    "USD/GB-month": lambda x: _rate(x, "GB-month"),
    "USD/GB": lambda x: _rate(x, "GB"),
    "FTE": lambda x: _number(x, "FTE"),
    "FTE/1000 GPUs": lambda x: _number(x, "FTE per 1,000 GPUs"),
    "servers/1000 GPUs": lambda x: _number(x, "per 1,000 GPUs"),
    "servers": lambda x: _number(x, "servers"),
    "GPUs": gpus,
    "runs": lambda x: _number(x, "runs"),
    "months": lambda x: _number(x, "months"),
    "years": lambda x: _number(x, "years"),
    "TB": lambda x: _number(x, "TB"),
    "GB/s per TB": lambda x: _number(x, "GB/s per TB"),
}
#: figures whose unit says "ratio" but are written as a bare number by convention
BARE = frozenset({"pue"})


def value_text(key: str, value: float | None, unit: str) -> str:
    """A figure's value as the reader reads it: '$21,000 per switch', '5 %', '$2.35 per GPU-hour'."""
    if value is None:
        return "-"
    if not math.isfinite(value):
        return NA
    if key in BARE:
        return _number(value)
    return UNIT_FORMATS.get(unit, lambda x: _number(x, unit))(value)


def overrides_line(overrides: Mapping[str, float], units: Mapping[str, str]) -> str | None:
    """'2 overridden assumptions in use: Electricity price = $0.20 per kWh, Power usage
    effectiveness, PUE = 1.2', in key order; None without overrides. `units`: key -> the figure's unit (the
    comparison's assumptions), so the value reads as the Assumptions page shows it."""
    if not overrides:
        return None
    n = len(overrides)
    parts = [
        f"{name(k)} = {value_text(k, v, units.get(k, '')) if isinstance(v, int | float) else v}"
        for k, v in sorted(overrides.items())
    ]
    return f"{n} overridden assumption{'s' if n != 1 else ''} in use: " + ", ".join(parts)

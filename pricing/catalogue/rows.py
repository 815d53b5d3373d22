"""Row schemas of the price catalogue's data files, and the vocabulary they use.

Every row carries `as_of` (ISO date), `grade` (A/B/C source quality, as in docs/reference/tco.md)
and a non-empty `source`; assumption keys end in the unit of their value. `pricing/catalogue/loader.py`
reads the files through these models.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

from models.errors import InputError
from models.hardware import gpu_ids
from models.options import OPTION_IDS, OptionId
from models.units import DAYS_PER_MONTH

# The project's hardware ids, from the GPU catalogue (models/data/gpus.csv).
GPU_IDS: tuple[str, ...] = tuple(gpu_ids())
#: capacity_block: a cluster reserved for days to weeks at its own rate (AWS EC2 Capacity Blocks)
OFFERS: tuple[str, ...] = ("on_demand", "committed_1y", "committed_3y", "spot", "capacity_block")
ITEM_GPUS: dict[str, int] = {"server_8gpu": 8, "rack_nvl72": 72, "gpu_only": 1}
SERVER_ITEMS = frozenset({"server_8gpu", "rack_nvl72"})

# An assumption key ends with the unit its value is in; the longest matching suffix wins.
# fmt: off
KEY_SUFFIX_UNITS: dict[str, str] = {
    "_pct_of_capex_per_year": "%/year", "_pct_per_year": "%/year", "_pct_of_nodes": "%",
    "_pct": "%", "_fte_per_1000_gpus": "FTE/1000 GPUs", "_fte": "FTE", "_ratio": "ratio",
    "pue": "ratio", "_usd_per_gpu_hour": "USD/GPU-hour", "_usd_per_gpu_year": "USD/GPU-year",
    "_usd_per_gpu": "USD/GPU", "_usd_per_kw_month": "USD/kW-month", "_usd_per_kwh": "USD/kWh",
    "_usd_per_gb_month": "USD/GB-month", "_usd_per_tb": "USD/TB", "_usd_per_node": "USD/node",
    "_usd_per_switch": "USD/switch", "_usd_per_year": "USD/year", "_years": "years",
    "_months": "months", "_weeks": "weeks", "_days": "days", "_usd_per_gb": "USD/GB",
    "_usd_per_transceiver": "USD/transceiver", "_usd_per_port": "USD/port", "_usd_per_kw": "USD/kW",
    "_usd_per_rack": "USD/rack", "_usd_per_server": "USD/server", "_tb": "TB",
    "_gbyte_per_s_per_tb": "GB/s per TB", "_servers_per_1000_gpus": "servers/1000 GPUs",
    "_servers": "servers",
    "_gpus": "GPUs",
}
# Scalars the cost engine expects; absent ones are reported by Catalogue.missing().
EXPECTED_ASSUMPTIONS: tuple[str, ...] = (
    "electricity_usd_per_kwh", "pue", "colocation_usd_per_kw_month", "fabric_usd_per_node",
    "storage_buy_usd_per_tb", "storage_rent_usd_per_gb_month", "ops_fte_per_1000_gpus",
    "ops_salary_usd_per_year", "ops_loaded_cost_ratio", "support_pct_of_capex_per_year", "licence_usd_per_gpu_year",
    "rented_ops_fte_per_1000_gpus", "rented_ops_min_team_fte", "spares_pct_of_nodes", "depreciation_years", "tax_rate_pct",
    "managed_premium_pct", "committed_1y_discount_pct", "committed_3y_discount_pct",
    "spot_interruption_overhead_pct", "installation_usd_per_node", "idle_power_pct",
    "storage_system_uplift_ratio", "optic_400g_usd_per_transceiver",
    "egress_usd_per_gb", "rent_setup_fee_usd_per_node", "rent_support_pct", "rent_min_term_months",
    "cloud_support_pct",
    "managed_restart_ratio", "managed_owned_fee_pct_of_capex_per_year",
    "discount_rate_pct_per_year", "loan_rate_pct_per_year", "lease_rate_pct_per_year",
    "facility_capex_usd_per_kw", "facility_life_years", "facility_maintenance_pct_of_capex_per_year",
    "insurance_pct_per_year", "sales_tax_pct", "property_tax_pct_per_year", "hardware_deposit_pct",
    "ops_hiring_lead_months", "resale_bulk_haircut_pct", "gpu_share_of_server_cost_pct",
    "host_value_decline_pct_per_year", "fabric_value_decline_pct_per_year",
    "storage_write_gbyte_per_s_per_tb", "storage_min_system_tb", "frontend_network_usd_per_node",
    "oob_network_usd_per_node", "mgmt_servers_per_1000_gpus", "mgmt_min_servers",
    "cpu_server_usd_per_server", "rack_cabinet_usd_per_rack", "rack_pdu_usd_per_rack",
    "liquid_cooling_usd_per_kw", "liquid_retrofit_usd_per_kw",
    "cloud_spot_max_gpus",
)
PLANNER_DEFAULT_SOURCE = "planner default (no public figure found)"
# timeline.csv vocabulary; pricing/timeline.py says what each phase and quantity means
TimelineOption = OptionId  # the option registry's ids (models/options.py)
TimelinePhase = Literal["procurement", "delivery", "facility", "rack_and_cable", "fabric_bring_up",
                        "burn_in_acceptance", "contract", "capacity", "validation", "onboarding",
                        "provisioning", "capacity_reservation"]
TIMELINE_OPTIONS: tuple[str, ...] = OPTION_IDS
DAYS_PER_UNIT = {"days": 1.0, "weeks": 7.0, "months": DAYS_PER_MONTH}
# fmt: on
UNITS = frozenset(KEY_SUFFIX_UNITS.values())

_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_KEY = re.compile(r"[a-z][a-z0-9_]*")


#: a catalogue file is missing or holds a bad row: the one input error (models/errors.py), whose
#: field and message name the file, line and column
CatalogueError = InputError


class MissingFigureError(LookupError):
    """The catalogue holds no figure for what was asked."""


def unit_for_key(key: str) -> str | None:
    """The unit an assumption key's suffix implies, or None when it has no known suffix."""
    for suffix in sorted(KEY_SUFFIX_UNITS, key=len, reverse=True):
        if key.endswith(suffix):
            return KEY_SUFFIX_UNITS[suffix]
    return None


class _Row(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    as_of: date
    grade: Literal["A", "B", "C"]
    source: str = Field(min_length=1)
    notes: str = ""

    @field_validator("as_of", mode="before")
    @classmethod
    def _iso_date(cls, value: object) -> object:
        if isinstance(value, str) and not _ISO_DATE.fullmatch(value):
            raise ValueError("expected an ISO date YYYY-MM-DD")
        return value

    @property
    def derived(self) -> bool:
        return self.notes.lower().startswith("derived")

    @property
    def planner_default(self) -> bool:
        return self.source.strip().lower().startswith("planner default")


class _GpuRow(_Row):
    gpu_id: str

    @field_validator("gpu_id")
    @classmethod
    def _known_gpu(cls, value: str) -> str:
        if value not in GPU_IDS:
            raise ValueError(f"unknown gpu_id {value!r}; known: {', '.join(GPU_IDS)}")
        return value


class RentalRow(_GpuRow):
    provider: str = Field(min_length=1)
    provider_kind: Literal["hyperscaler", "neocloud", "marketplace"]
    offer: Literal["on_demand", "committed_1y", "committed_3y", "spot", "capacity_block"]
    price_usd_per_gpu_hour: float = Field(gt=0, allow_inf_nan=False)
    region: str = ""


class HardwareRow(_GpuRow):
    item: Literal["server_8gpu", "rack_nvl72", "gpu_only"]
    price_usd: float = Field(gt=0, allow_inf_nan=False)
    gpus_per_unit: int = Field(gt=0)

    @field_validator("gpus_per_unit")
    @classmethod
    def _matches_item(cls, value: int, info: ValidationInfo) -> int:
        item = info.data.get("item")
        if item in ITEM_GPUS and value != ITEM_GPUS[item]:
            raise ValueError(f"{item} holds {ITEM_GPUS[item]} GPUs, not {value}")
        return value

    @property
    def price_usd_per_gpu(self) -> float:
        return self.price_usd / self.gpus_per_unit


class LeadTimeRow(_GpuRow):
    lead_time_weeks_low: float = Field(ge=0, allow_inf_nan=False)
    lead_time_weeks_high: float = Field(ge=0, allow_inf_nan=False)

    @field_validator("lead_time_weeks_high")
    @classmethod
    def _not_below_low(cls, value: float, info: ValidationInfo) -> float:
        low = info.data.get("lead_time_weeks_low")
        if low is not None and value < low:
            raise ValueError(f"high ({value}) is below low ({low})")
        return value


class AssumptionRow(_Row):
    key: str
    value: float = Field(ge=0, allow_inf_nan=False)
    unit: str

    @field_validator("key")
    @classmethod
    def _unit_suffix(cls, value: str) -> str:
        if not _KEY.fullmatch(value) or unit_for_key(value) is None:
            raise ValueError(f"key {value!r} must be snake_case and end with a unit suffix")
        return value

    @field_validator("unit")
    @classmethod
    def _known_unit(cls, value: str, info: ValidationInfo) -> str:
        if value not in UNITS:
            raise ValueError(f"unknown unit {value!r}; allowed: {', '.join(sorted(UNITS))}")
        implied = unit_for_key(info.data.get("key", ""))
        if implied is not None and value != implied:
            raise ValueError(f"unit {value!r} does not match the key's suffix ({implied!r})")
        return value


class ResidualValueRow(_Row):
    """Resale value at an age, % of the new price: the default and its sourced range (the tornado
    swings to the range and the Monte Carlo draws across it, pricing/ranges.py). The range's ends
    come first so the default is checked against them."""

    age_years: int = Field(ge=1)
    residual_value_low_pct: float = Field(ge=0, le=100, allow_inf_nan=False)
    residual_value_high_pct: float = Field(ge=0, le=100, allow_inf_nan=False)
    residual_value_pct: float = Field(ge=0, le=100, allow_inf_nan=False)

    @field_validator("residual_value_pct")
    @classmethod
    def _default_in_its_range(cls, value: float, info: ValidationInfo) -> float:
        low = info.data.get("residual_value_low_pct")
        high = info.data.get("residual_value_high_pct")
        if low is not None and high is not None and not low <= value <= high:
            raise ValueError(f"{value:g} must lie in its range {low:g}-{high:g}")
        return value


class TimelineRow(_Row):
    """A provisioning figure: a duration (low-high days/weeks/months) or a parameter (rack rate,
    GPUs per rack, crews, order-size thresholds); it applies where size_min < size <= size_max."""

    option: TimelineOption
    phase: TimelinePhase
    quantity: Literal[
        "duration", "order_size_ramp", "gpus_per_rack", "rate", "racks_per_crew", "max_crews"
    ]
    applies_to: Literal["any", "air", "liquid"]
    size_metric: Literal["none", "gpus", "it_power_kw", "fabric_tiers"]
    size_min: float | None = Field(default=None, ge=0, allow_inf_nan=False)
    size_max: float | None = Field(default=None, gt=0, allow_inf_nan=False)
    low: float = Field(ge=0, allow_inf_nan=False)
    high: float = Field(ge=0, allow_inf_nan=False)
    unit: Literal["days", "weeks", "months", "racks/day", "GPUs", "GPUs/rack", "racks", "crews"]

    @field_validator("size_min", "size_max", mode="before")
    @classmethod
    def _blank_is_none(cls, value: object) -> object:
        return None if isinstance(value, str) and not value.strip() else value

    @field_validator("high")
    @classmethod
    def _not_below_low(cls, value: float, info: ValidationInfo) -> float:
        if info.data.get("low") is not None and value < info.data["low"]:
            raise ValueError(f"high ({value}) is below low ({info.data['low']})")
        return value

    @field_validator("unit")
    @classmethod
    def _consistent(cls, value: str, info: ValidationInfo) -> str:
        get = info.data.get
        if (get("quantity") == "duration") != (value in DAYS_PER_UNIT):
            raise ValueError(f"unit {value!r} does not fit quantity {get('quantity')!r}")
        lo, hi = get("size_min"), get("size_max")
        if get("size_metric") == "none" and (lo is not None or hi is not None):
            raise ValueError("size bounds given but size_metric is 'none'")
        if lo is not None and hi is not None and hi <= lo:
            raise ValueError(f"size_max ({hi}) is not above size_min ({lo})")
        return value

    @property
    def key(self) -> tuple[str, str, str, str]:
        return self.option, self.phase, self.quantity, self.applies_to

    def covers(self, size: float) -> bool:
        low = -1.0 if self.size_min is None else self.size_min
        return low < size and (self.size_max is None or size <= self.size_max)

    @property
    def days(self) -> tuple[float, float]:
        """(low, high) in days, for duration rows."""
        return self.low * DAYS_PER_UNIT[self.unit], self.high * DAYS_PER_UNIT[self.unit]

    @property
    def mid(self) -> float:
        return (self.low + self.high) / 2

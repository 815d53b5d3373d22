"""Figures carried over a range (issue 30): the catalogue figures with no current public source,
or only an old one, that the tornado swings to their range's ends and the Monte Carlo draws
across it (pricing/decision.py)."""

from __future__ import annotations

#: figures with no current public source, or one this old, carried over their plausible range
#: (the catalogue row's notes state it, tests/test_cost_lines.py checks they agree): the tornado
#: swings each to its range's ends instead of ±SWING, and the Monte Carlo draws it as it draws
#: lead times, half the draws uniform below the base value and half above, so its median stays
#: the base value
RANGES: dict[str, tuple[float, float]] = {
    "support_pct_of_capex_per_year": (10.0, 20.0),
    "managed_owned_fee_pct_of_capex_per_year": (2.0, 10.0),
    "spot_interruption_overhead_pct": (2.0, 30.0),
    "resale_bulk_haircut_pct": (10.0, 40.0),
    "commitment_resale_haircut_pct": (12.0, 50.0),
    # no 2024-26 source found (searched 2026-12): EIA's 2023 industrial average, the 2002 dealer
    # prices of used servers and switches
    "electricity_usd_per_kwh": (0.066, 0.098),
    "host_value_decline_pct_per_year": (37.0, 75.0),
    "fabric_value_decline_pct_per_year": (37.0, 75.0),
}

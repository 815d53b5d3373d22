"""After-tax cash flows: what finance reports beside the pre-tax NPV.

Every cost line is a deductible business expense in the month it is paid (rent, cloud, power,
colocation, staff, support, insurance, property tax, interest, lease payments) except buying
hardware: the purchase (`hardware`: the deposit with the order, the rest on acceptance or as loan
principal) and the sales tax paid on it (`sales tax`, part of the asset's cost basis under
26 U.S.C. § 1012 and § 164(a)) are recovered through depreciation from the month of acceptance
(`Term.depreciation`), and selling it at the end of the term (`residual value`, a negative flow) is
taxed on the gain over its remaining book value (a loss is a deduction). So, per month m, with tax
rate t:

    after-tax flow = pre-tax flow − t × deductible costs − t × depreciation + t × gain on sale

Depreciation (`Term.depreciation`):
- "straight_line": the hardware straight-line over `depreciation_years` (an election MACRS allows,
  26 U.S.C. § 168(b)(5));
- "bonus_2025": the first-year bonus depreciation of 26 U.S.C. § 168(k) as the One Big Beautiful
  Bill Act (Public Law 119-21, signed 2025-07-04, § 70301) left it: 100 % in the month the hardware
  is placed in service for property acquired after 2025-01-19, and the rest (none at 100 %)
  straight-line as above. `bonus_pct` gives the rate by date, the Tax Cuts and Jobs Act's
  phase-down (80 % in 2023, 60 % in 2024, 40 % in 2025, 20 % in 2026, 0 after) for property
  acquired before 2025-01-20. GPU servers, fabric and storage are 5-year property (computers,
  Rev. Proc. 87-56 asset class 00.12) and racks, power distribution and cooling at most 15-year, so
  all of them qualify (§ 168(k)(2)(A): a recovery period of 20 years or less).

A facility of the buyer's own (`options.facility` = "owned") is a building: nonresidential real
property, recovered straight-line over 39 years (26 U.S.C. § 168(c)) under either choice, and not
eligible for bonus depreciation; the hardware in it follows the choice above. Its construction cost
is part of the `hardware` flows (pricing/cashflows.py), so the caller gives its basis. A facility
upgrade the buyer's site needs (the `facility upgrade` line, pricing/site_power.py) is an
improvement to the building: recovered the same way, and what is left of it written off in the
month the hardware is sold (it is not sold with it).

A lease leaves the hardware with the lessor: the payments are deductible, nothing is depreciated
(the choice changes nothing).
"""

from __future__ import annotations

from datetime import date

import numpy as np

#: flows that buy or sell an asset rather than pay an expense
CAPITAL = frozenset({"hardware", "sales tax", "residual value", "facility upgrade"})
#: the capital flows that make up the cost basis (hardware, and a facility upgrade the buyer's
#: site needs: pricing/site_power.py)
BASIS = ("hardware", "sales tax", "facility upgrade")
#: the capital flows recovered as a building (39 years, no bonus): an upgrade of the buyer's
#: site's power and cooling is an improvement to nonresidential real property (§ 168(c)); it is
#: not sold with the hardware, so what is left of it is written off when the hardware is sold
BUILDING_LINES = ("facility upgrade",)
#: recovery period of nonresidential real property, years (26 U.S.C. § 168(c)): a new facility
BUILDING_LIFE_YEARS = 39.0
#: property acquired after this day takes 100 % bonus depreciation (Public Law 119-21 § 70301)
OBBBA_ACQUIRED_AFTER = date(2025, 1, 19)
#: the Tax Cuts and Jobs Act's phase-down by the year placed in service (§ 168(k)(6)(A)), for
#: property acquired before 2025-01-20; 100 % up to 2022, 0 from 2027
TCJA_PHASE_DOWN_PCT: dict[int, float] = {2023: 80.0, 2024: 60.0, 2025: 40.0, 2026: 20.0}
#: the planner prices a decision taken now: its hardware is acquired after 2025-01-19
DECISION_ACQUIRED = date(2025, 1, 20)


def bonus_pct(acquired: date, placed_in_service: date) -> float:
    """The § 168(k) bonus depreciation rate, %, of hardware acquired and placed in service on
    these days, as the law stands after Public Law 119-21 (2025-07-04)."""
    if acquired > OBBBA_ACQUIRED_AFTER:
        return 100.0
    year = placed_in_service.year
    return 100.0 if year <= 2022 else TCJA_PHASE_DOWN_PCT.get(year, 0.0)


#: the bonus rate, %, each `Term.depreciation` choice applies to the hardware
BONUS_PCT: dict[str, float] = {
    "straight_line": 0.0,
    "bonus_2025": bonus_pct(DECISION_ACQUIRED, DECISION_ACQUIRED),
}


#: one purchase of hardware: (its capital flows {category: (n, months)}, the month it is accepted
#: (n, 1), the month it is sold (n, 1) and, optionally, the cost of a facility built with it
#: (n, 1), part of its `hardware` flows)
Asset = tuple


def _depreciation(basis, k, life, bonus, in_use) -> np.ndarray:
    """Monthly depreciation (n, months) of `basis` (n, 1), `k` months after acceptance: `bonus`
    (a share) of it in the first month, the rest straight-line over `life` months."""
    first = np.where(k == 0, basis * bonus, 0.0)
    rest = np.where((k >= 0) & (k < life), basis * (1 - bonus) / life, 0.0)
    return np.where(in_use, first + rest, 0.0)


def after_tax_flows(
    flows: dict[str, np.ndarray],
    ready_month: np.ndarray,
    months: int,
    tax_rate_pct: np.ndarray,
    depreciation_years: np.ndarray,
    assets: list[Asset] | None = None,
    depreciation: str = "straight_line",
    facility_basis: np.ndarray | float = 0.0,
) -> np.ndarray:
    """Monthly after-tax cash flows, shape (n, months), for one option's pre-tax `flows`
    ({category: (n, months)}); `ready_month` (n, 1) is the month the hardware is accepted.
    `assets`: each purchase on its own (an expansion phase, a refresh, a hybrid's owned base),
    depreciated from its own acceptance month to the month it is sold, where the gain over its
    book value is taxed; default: the flows' capital lines as one purchase (with a facility of
    `facility_basis`), sold in the last month. `depreciation`: a `Term.depreciation` choice."""
    t = np.asarray(tax_rate_pct, dtype=float) / 100
    bonus = BONUS_PCT[depreciation] / 100
    shape = np.broadcast_shapes(*(np.shape(v) for v in flows.values()), (1, months))
    zero = np.zeros(shape)
    total = zero + sum(flows.values())
    deductible = zero + sum((v for k, v in flows.items() if k not in CAPITAL), zero)
    m = np.arange(months)[None, :]
    life = np.maximum(np.asarray(depreciation_years, dtype=float) * 12, 1.0)
    recovered = zero
    last = np.full((1, 1), months - 1)
    default = [(flows, ready_month, last, facility_basis)]
    for capital, accepted, sold, *built in assets if assets is not None else default:
        site = built[0] if built else 0.0
        site = site + (zero + sum((capital.get(k, zero) for k in BUILDING_LINES), zero)).sum(
            axis=1, keepdims=True
        )
        basis = (zero + sum((capital.get(k, zero) for k in BASIS), zero)).sum(axis=1, keepdims=True)
        site = np.minimum(site, basis)  # a leased facility is not the buyer's to depreciate
        k = m - accepted  # months since acceptance
        in_use = m <= sold
        depreciation_ = _depreciation(basis - site, k, life, bonus, in_use)
        depreciation_ = depreciation_ + _depreciation(
            site, k, BUILDING_LIFE_YEARS * 12, 0.0, in_use
        )
        book_at_sale = basis - depreciation_.sum(axis=1, keepdims=True)
        resale = -(zero + capital.get("residual value", zero)).sum(axis=1, keepdims=True)
        gain = np.where(m == sold, resale - book_at_sale, 0.0) * (basis > 0)
        recovered = recovered + t * depreciation_ - t * gain
    return total - t * deductible - recovered

"""After-tax cash flows: what finance reports beside the pre-tax NPV.

Every cost line is a deductible business expense in the month it is paid (rent, cloud, power,
colocation, staff, support, insurance, property tax, interest, lease payments) except buying
hardware: the purchase (`hardware`: the deposit with the order, the rest on acceptance or as loan
principal) and the sales tax paid on it (`sales tax`, part of the asset's cost basis under
26 U.S.C. § 1012 and § 164(a)) are recovered through straight-line
depreciation over `depreciation_years` from the month of acceptance, and selling it at the end of
the term (`residual value`, a negative flow) is taxed on the gain over its remaining book value
(a loss is a deduction). So, per month m, with tax rate t:

    after-tax flow = pre-tax flow − t × deductible costs − t × depreciation + t × gain on sale

A lease leaves the hardware with the lessor: the payments are deductible, nothing is depreciated.
"""

from __future__ import annotations

import numpy as np

#: flows that buy or sell an asset rather than pay an expense
CAPITAL = frozenset({"hardware", "sales tax", "residual value"})
#: the capital flows that make up the hardware's cost basis
BASIS = ("hardware", "sales tax")


#: one purchase of hardware: (its capital flows {category: (n, months)}, the month it is accepted
#: (n, 1), the month it is sold (n, 1))
Asset = tuple[dict[str, np.ndarray], np.ndarray, np.ndarray]


def after_tax_flows(
    flows: dict[str, np.ndarray],
    ready_month: np.ndarray,
    months: int,
    tax_rate_pct: np.ndarray,
    depreciation_years: np.ndarray,
    assets: list[Asset] | None = None,
) -> np.ndarray:
    """Monthly after-tax cash flows, shape (n, months), for one option's pre-tax `flows`
    ({category: (n, months)}); `ready_month` (n, 1) is the month the hardware is accepted.
    `assets`: each purchase on its own (an expansion phase, a refresh, a hybrid's owned base),
    depreciated from its own acceptance month to the month it is sold, where the gain over its
    book value is taxed; default: the flows' capital lines as one purchase, sold in the last
    month."""
    t = np.asarray(tax_rate_pct, dtype=float) / 100
    shape = np.broadcast_shapes(*(np.shape(v) for v in flows.values()), (1, months))
    zero = np.zeros(shape)
    total = zero + sum(flows.values())
    deductible = zero + sum((v for k, v in flows.items() if k not in CAPITAL), zero)
    m = np.arange(months)[None, :]
    life = np.maximum(np.asarray(depreciation_years, dtype=float) * 12, 1.0)
    recovered = zero
    last = np.full((1, 1), months - 1)
    for capital, accepted, sold in assets if assets is not None else [(flows, ready_month, last)]:
        basis = (zero + sum((capital.get(k, zero) for k in BASIS), zero)).sum(axis=1, keepdims=True)
        k = m - accepted  # months since acceptance
        depreciation = np.where((k >= 0) & (k < life) & (m <= sold), basis / life, 0.0)
        book_at_sale = basis - depreciation.sum(axis=1, keepdims=True)
        resale = -(zero + capital.get("residual value", zero)).sum(axis=1, keepdims=True)
        gain = np.where(m == sold, resale - book_at_sale, 0.0) * (basis > 0)
        recovered = recovered + t * depreciation - t * gain
    return total - t * deductible - recovered

"""Which prices an answer depends on, and which of them are old.

The figures the answer depends on: those the tornado varies for the two cheapest options
(`Comparison.sensitivity.bars`, in the tornado's order) and then the price figure of each compared
option that could be priced (its registry `price_key`; `server_usd_per_gpu` for owned hardware).
Without decision support (no tornado) only the price figures count.

Each is dated, then compared with the reference date, `Comparison.catalogue_as_of` (the newest
date in the catalogue, not today's clock, so the same catalogue always gives the same answer):

- a figure the user set (an override, or a scenario field such as the run count) is never stale;
- a planner default (source "planner default ...") has no date worth giving: it is listed in
  `planner_defaults` instead;
- a figure with its own `as_of` carries it;
- a figure without one (the rental and cloud prices, the residual value, the lead-time
  multiplier, prices derived from them) is dated through the catalogue rows its source cites:
  `rental_prices.csv: <gpu> <offer>, <who>` is the newest of the rows that median is taken over
  (as `server_usd_per_gpu` already carries its newest quote's date), `residual_values.csv at
  <age> years` the older of the two ages interpolated between, `lead_times.csv` the lead-time row
  the engine reads (the newest for the GPU), and another figure named in the source (a committed
  discount) its own date. A figure computed from several of these carries the oldest of them (each
  moves it). A part the user overrode is never stale; a part that is a planner default is listed
  with the planner defaults. A figure whose source cites nothing that can be dated this way (the
  failure rate, from the GPU table) is not listed: its age is unknown.

Stale means dated more than 12 months before the reference: before the same day 12 months
earlier. The age given is in whole months.
"""

from __future__ import annotations

import calendar
import re
from datetime import date

from models.numbers import mid_sentence
from models.options import spec
from pricing.catalogue.loader import Catalogue
from pricing.catalogue.rows import PLANNER_DEFAULT_SOURCE
from pricing.decision import KEY_INPUTS, MONTE_CARLO_INPUTS
from pricing.results import Assumption, Comparison, StalePrice

#: a price older than this many months before the catalogue's newest date is stale
STALE_MONTHS = 12
#: the price figure of an owned option (the registry gives none: it pays for servers)
OWNED_PRICE_KEY = "server_usd_per_gpu"
#: sources of figures the user chose (the scenario's own fields)
USER_SOURCES = ("scenario", "user override")
#: how the 3-year rent's derivation names the committed discounts
_ALIASES = {
    "1y discount": "committed_1y_discount_pct",
    "3y discount": "committed_3y_discount_pct",
}
_RENTAL_CITE = re.compile(r"rental_prices\.csv: (?P<gpu>\S+) (?P<offer>\w+), ")
_RESIDUAL_CITE = re.compile(r"residual_values\.csv at (?P<age>\d+(?:\.\d+)?) years")
_WORD = re.compile(r"[a-z0-9]+(?:_[a-z0-9]+)+")

#: the gpu-specific figures, labelled with the GPU's name
_GPU_LABELS = {
    OWNED_PRICE_KEY: "server price",
    "lead_time_multiplier": "procurement lead time",
}


def label_for(key: str, gpu: str) -> str:
    """The name a reader knows a figure by: "H100-SXM server price", "Discount rate"."""
    if key in _GPU_LABELS:
        return f"{gpu} {_GPU_LABELS[key]}"
    name = KEY_INPUTS.get(key) or MONTE_CARLO_INPUTS.get(key)
    if name is None:
        return key
    if key.endswith("_usd_per_gpu_hour"):  # a rental or cloud price: of this GPU
        return f"{gpu} {mid_sentence(name)}"
    return name


def dependent_keys(c: Comparison) -> list[str]:
    """The figures the answer depends on (the module docstring), each once, in order."""
    keys = [bar.key for bar in c.sensitivity.bars] if c.sensitivity is not None else []
    for o in c.options:
        if o.available:
            keys.append(spec(o.option).price_key or OWNED_PRICE_KEY)
    return list(dict.fromkeys(keys))


def _date(text: str) -> date | None:
    try:
        return date.fromisoformat(text.strip()[:10])
    except ValueError:
        return None


def months_between(earlier: date, later: date) -> int:
    """Whole months from `earlier` to `later` (2024-08-01 to 2026-11-30: 27)."""
    months = (later.year - earlier.year) * 12 + later.month - earlier.month
    return months - 1 if later.day < earlier.day else months


def is_stale(as_of: date, reference: date) -> bool:
    """Dated before the same day `STALE_MONTHS` months before `reference`."""
    months = reference.year * 12 + reference.month - 1 - STALE_MONTHS
    year, month = divmod(months, 12)
    day = min(reference.day, calendar.monthrange(year, month + 1)[1])
    return as_of < date(year, month + 1, day)


def _is_planner_default(a: Assumption) -> bool:
    return a.source.strip().lower().startswith(PLANNER_DEFAULT_SOURCE.split(" (")[0])


class _Dater:
    """Dates the comparison's figures through the catalogue rows their sources cite."""

    def __init__(self, c: Comparison, catalogue: Catalogue | None) -> None:
        self.figures = {a.key: a for a in c.assumptions}
        self.catalogue = catalogue
        self.gpu = c.scenario.cluster.gpu
        #: planner defaults met among the parts of a derived figure
        self.defaults: list[str] = []

    def date_of(self, a: Assumption, seen: frozenset[str] = frozenset()) -> date | None:
        """The figure's date (None: not stale, or unknown); planner-default parts are noted."""
        if a.overridden or a.source in USER_SOURCES:
            return None
        if _is_planner_default(a):
            self.defaults.append(a.key)
            return None
        own = _date(a.as_of)
        if own is not None:
            return own
        parts = self._parts(a, seen | {a.key})
        if parts is None:
            return None
        dated = [d for d in parts if d is not None]
        return min(dated) if dated else None

    def _parts(self, a: Assumption, seen: frozenset[str]) -> list[date | None] | None:
        """The dates of what the source cites (None for a part that is never stale); None when
        a cited part cannot be dated, or nothing is cited."""
        text, parts, found = a.source, [], False
        cat = self.catalogue
        for m in _RENTAL_CITE.finditer(text):
            found = True
            rows = self._rental_rows(m.group("gpu"), m.group("offer"), text[m.end() :])
            if not rows:
                return None
            parts.append(max(row.as_of for row in rows))
        for m in _RESIDUAL_CITE.finditer(text):
            found = True
            if cat is None:
                return None
            age = float(m.group("age"))
            lo, hi = int(max(age - 0.05, 0.0)), -int(-(age + 0.05) // 1)  # printed to 0.1 year
            rows = [r for r in cat.residual_value_rows if lo <= float(r.age_years) <= hi]
            if not rows:
                return None
            parts.append(min(r.as_of for r in rows))
        if "lead_times.csv" in text:
            found = True
            if cat is None:
                return None
            try:
                parts.append(cat.lead_time(self.gpu).as_of)
            except (ValueError, LookupError):  # no lead time for the GPU, or an unknown GPU
                return None
        named = {w for w in _WORD.findall(text) if w in self.figures}
        named |= {key for alias, key in _ALIASES.items() if alias in text and key in self.figures}
        for key in sorted(named - seen):
            found = True
            parts.append(self.date_of(self.figures[key], seen))
        return parts if found else None

    def _rental_rows(self, gpu: str, offer: str, rest: str) -> list:
        """The rows a `rental_prices.csv: <gpu> <offer>, <who>` median is taken over (grade A/B
        preferred, as the catalogue's median does)."""
        cat = self.catalogue
        if cat is None:
            return []
        rows = [r for r in cat.rental_rows if r.gpu_id == gpu and r.offer == offer]
        kinds = {r.provider_kind for r in rows}
        choices = [(p, p, None) for p in {r.provider for r in rows}]
        choices += [(f"{k} median", None, k) for k in kinds]
        choices.append(("median of all providers", None, None))
        # the longest name the rest of the source starts with ("RunPod Community", not "RunPod")
        for who, provider, kind in sorted(choices, key=lambda ch: -len(ch[0])):
            if rest.startswith(who):
                used = [
                    r
                    for r in rows
                    if provider in (None, r.provider) and kind in (None, r.provider_kind)
                ]
                return [r for r in used if r.grade in ("A", "B")] or used
        return []


def assess(c: Comparison, catalogue: Catalogue | None) -> tuple[list[StalePrice], list[str]]:
    """The stale prices and the planner defaults among the figures the answer depends on.

    `catalogue` is the one the comparison was made with (its rows date the figures that carry no
    date of their own); None dates only figures that carry one."""
    reference = _date(c.catalogue_as_of)
    dater = _Dater(c, catalogue)
    stale: list[StalePrice] = []
    for key in dependent_keys(c):
        a = dater.figures.get(key)
        if a is None or a.value is None:
            continue
        as_of = dater.date_of(a)
        if as_of is None or reference is None or not is_stale(as_of, reference):
            continue
        stale.append(
            StalePrice(
                key=key,
                label=label_for(key, dater.gpu),
                as_of=as_of.isoformat(),
                age_months=months_between(as_of, reference),
                source=a.source,
            )
        )
    return stale, list(dict.fromkeys(dater.defaults))


def with_freshness(c: Comparison, catalogue: Catalogue | None) -> Comparison:
    """The comparison with `stale_prices` and `planner_defaults` filled (`assess`)."""
    stale, defaults = assess(c, catalogue)
    return c.model_copy(update={"stale_prices": stale, "planner_defaults": defaults})


def stale_line(s: StalePrice) -> str:
    """'H100-SXM server price: 2024-08, 27 months old' (the month the figure is dated)."""
    return f"{s.label or s.key}: {s.as_of[:7]}, {s.age_months} months old"


def planner_default_labels(c: Comparison) -> list[str]:
    """The planner defaults the answer leans on, by the names a reader knows them by."""
    return [label_for(key, c.scenario.cluster.gpu) for key in c.planner_defaults]


def planner_defaults_line(c: Comparison) -> str:
    """'Planner defaults the answer leans on (no public figure): Discount rate'; '' when it leans
    on none."""
    if not c.planner_defaults:
        return ""
    return "Planner defaults the answer leans on (no public figure): " + ", ".join(
        planner_default_labels(c)
    )

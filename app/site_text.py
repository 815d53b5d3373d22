"""The power each option draws and the facility upgrades the buyer's site needs, in words: the
same lines on the Compare page, the PDF cover and the text report. They read the typed results
(pricing/results.py SitePower, filled by pricing/site_power.py) and recompute nothing."""

from __future__ import annotations

from models.numbers import days, usd

YOURS, THEIRS = "on your site", "at the provider's"


def _kw(x: float) -> str:
    return f"{x:,.0f} kW"


def power_line(c) -> list[str]:
    """One line: the IT power each available option's cluster draws and its power with PUE, and
    where it draws it (the buyer's site for owned hardware, the provider's otherwise); options of
    the same draw are named together. None without an available option."""
    shown = [o for o in c.options if o.available and o.power is not None]
    if not shown:
        return []
    groups: dict[tuple, list] = {}
    for o in shown:
        p = o.power
        groups.setdefault((round(p.it_power_kw, 1), p.facility_power_kw, p.cooling), []).append(o)
    parts = []
    for (it_kw, all_kw, cooling), options in groups.items():
        where = [
            ", ".join(o.label for o in options if o.power.on_buyer_site == mine) + f" {words}"
            for mine, words in ((True, YOURS), (False, THEIRS))
            if any(o.power.on_buyer_site == mine for o in options)
        ]
        parts.append(
            f"{_kw(it_kw)} of IT load, {_kw(all_kw)} in all, {cooling}-cooled: {'; '.join(where)}"
        )
    return [f"Power drawn (in all at PUE {shown[0].power.pue:g}): " + " | ".join(parts)]


def upgrade_lines(c) -> list[str]:
    """Each owned option that needs a facility upgrade beyond the buyer's stated site: what, how
    long (it ends the facility phase) and what it costs (its `facility upgrade` line)."""
    out = []
    for o in c.options:
        p = o.power
        if o.available and p is not None and p.upgrade:
            out.append(
                f"{o.label} needs a facility upgrade beyond your site: {p.upgrade}, "
                f"{days(p.upgrade_days)} from the decision (its facility phase), "
                f"{usd(p.upgrade_usd)} (its facility upgrade line)"
            )
    return out


def site_lines(c) -> list[str]:
    """The upgrades, then the power line: what the Compare page, the PDF and the report print."""
    return upgrade_lines(c) + power_line(c)

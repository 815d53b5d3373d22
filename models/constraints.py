"""The buyer's constraints (issue 30): what rules an option out before any price is looked at.

A regulated buyer (data residency, a customer contract, a sector rule) may not put work on public
cloud at all: with `public_cloud_allowed` off, every option whose GPUs are a public cloud's
(on-demand, spot, committed) is not offered, and neither is a hybrid whose burst runs there
(models/options.py `OptionSpec.uses_public_cloud`). They are shown as not offered, with the reason,
and never ranked, priced, planned or recommended. One table of reasons, read by the cost inputs
(pricing/inputs.py), the portfolio planner and every page that names a cloud price."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from models.options import OPTIONS

NO_PUBLIC_CLOUD = "ruled out by the buyer's constraints: no public cloud"
NO_CLOUD_BURST = (
    "ruled out by the buyer's constraints: its burst runs on public cloud (Build or a dedicated "
    "option serves the peaks instead)"
)


class Constraints(BaseModel):
    """What the buyer rules out before any cost is compared."""

    model_config = ConfigDict(extra="forbid")

    public_cloud_allowed: bool = Field(
        default=True,
        description="work may run on public cloud (on-demand, spot, committed, a hybrid's burst); "
        "off for data residency or a regulated industry: those options are not offered, and the "
        "Guide quotes no cloud price",
    )


def describe(constraints: Constraints) -> str | None:
    """The constraints in words, for every report (None when they rule nothing out)."""
    if constraints.public_cloud_allowed:
        return None
    return "no public cloud (data residency)"


def excluded(constraints: Constraints) -> dict[str, str]:
    """option id -> why the constraints rule it out (empty when they rule nothing out)."""
    if constraints.public_cloud_allowed:
        return {}
    return {
        o.id: NO_PUBLIC_CLOUD if o.public_cloud else NO_CLOUD_BURST
        for o in OPTIONS
        if o.uses_public_cloud
    }


__all__ = ["Constraints", "describe", "excluded", "NO_PUBLIC_CLOUD", "NO_CLOUD_BURST"]

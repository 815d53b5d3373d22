"""The buyer's constraints as inputs, the same on the Workload page's single-run and portfolio
modes (models/constraints.py): public cloud allowed, the site's IT power and cooling, whether a
facility upgrade is allowed, and a quoted hardware lead time. Each writes its scenario field; the
schema gives the bounds and the help, and names the field when a value is out of range."""

from __future__ import annotations

import streamlit as st

from app import schema_widgets as sw
from app import state
from models.constraints import Constraints

#: the site's cooling as the selectbox shows it (None: not stated, no cooling check)
COOLING = {None: "not stated", "air": "air-cooled", "liquid": "liquid-ready"}


def render(where, prefix: str) -> None:
    """The constraints' inputs; widget keys start with `prefix` (unique per mode)."""
    sw.toggle(
        where, "Public cloud allowed", "constraints.public_cloud_allowed", f"{prefix}_public_cloud"
    )
    with where.expander("Site power, cooling and delivery", icon=":material/bolt:"):
        c1, c2 = st.columns(2)
        sw.count(
            c1,
            "Site IT power (kW)",
            "constraints.site_power_kw",
            f"{prefix}_site_power",
            help="IT power your site (own hall or contracted colocation) can give owned "
            "hardware; Build beyond it needs a facility upgrade, or is not offered.",
            placeholder="no site limit",
            unit="kW",
        )
        cooling = state.get("constraints.site_cooling")
        c2.selectbox(
            "Site cooling",
            list(COOLING),
            index=list(COOLING).index(cooling if cooling in COOLING else None),
            format_func=COOLING.get,
            key=f"{prefix}_site_cooling",
            on_change=state.bind("constraints.site_cooling", f"{prefix}_site_cooling"),
            help=(Constraints.model_fields["site_cooling"].description or "").capitalize() + ".",
        )
        sw.toggle(
            c1,
            "Facility upgrade allowed",
            "constraints.facility_upgrade_allowed",
            f"{prefix}_upgrade",
        )
        sw.count(
            c2,
            "Quoted hardware lead time (weeks)",
            "constraints.hardware_lead_time_weeks",
            f"{prefix}_lead_time",
            help="A delivery lead time a vendor has quoted you for the owned hardware; it moves "
            "Build's ready day on every page.",
            placeholder="catalogue's, by GPU and size",
            unit="weeks",
        )

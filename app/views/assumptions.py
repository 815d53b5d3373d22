"""Assumptions: every price and assumption the comparison uses, with its default, source and date;
edit a value to override it for this scenario (the catalogue files never change)."""

import pandas as pd
import streamlit as st

from app import state
from app.formatting import md_plain
from pricing.inputs import NOT_OVERRIDABLE, override_range

GROUPS = {
    "Owned hardware (build, managed on owned hardware)": (
        "server_usd_per_gpu",
        "spares_pct_of_nodes",
        "ib_switch_64port_ndr_usd_per_switch",
        "optic_400g_usd_per_transceiver",
        "nic_400g_usd_per_port",
        "storage_buy_usd_per_tb",
        "storage_system_uplift_ratio",
        "installation_usd_per_node",
        "electricity_usd_per_kwh",
        "pue",
        "idle_power_pct",
        "colocation_usd_per_kw_month",
        "facility_capex_usd_per_kw",
        "facility_life_years",
        "facility_maintenance_pct_of_capex_per_year",
        "ops_fte_per_1000_gpus",
        "ops_min_team_fte",
        "ops_salary_usd_per_year",
        "support_pct_of_capex_per_year",
        "licence_usd_per_gpu_year",
        "part_replacement_pct_per_year",
        "residual_value_pct",
        "managed_owned_fee_pct_of_capex_per_year",
    ),
    "Rented (rent dedicated, managed)": (
        "rent_usd_per_gpu_hour",
        "rent_support_pct",
        "rent_setup_fee_usd_per_node",
        "rent_min_term_months",
        "managed_premium_pct",
        "managed_restart_ratio",
        "storage_rent_usd_per_gb_month",
        "egress_usd_per_gb",
    ),
    "Public cloud": (
        "cloud_on_demand_usd_per_gpu_hour",
        "cloud_spot_usd_per_gpu_hour",
        "spot_interruption_overhead_pct",
        "cloud_committed_1y_usd_per_gpu_hour",
        "cloud_committed_3y_usd_per_gpu_hour",
        "committed_1y_discount_pct",
        "committed_3y_discount_pct",
    ),
    "Money and risk": (
        "discount_rate_pct_per_year",
        "loan_rate_pct_per_year",
        "lease_rate_pct_per_year",
        "failure_rate_multiplier",
        "lead_time_multiplier",
    ),
}


def render() -> None:
    st.title("Assumptions")
    st.caption(
        "Every figure behind the comparison, with where it comes from. Change a value to override "
        "it for this scenario only; overrides travel in the share link. Planner defaults are figures "
        "no public source gives; their notes say why the value was chosen."
    )

    sc, c = state.require_comparison("Reading the catalogue...")
    defaults, _ = state.comparison(sc.model_copy(update={"overrides": {}}))
    default_of = {a["key"]: a for a in defaults.assumptions} if defaults else {}
    current = {a["key"]: a for a in c.assumptions}
    overrides = dict(sc.overrides)

    if overrides:
        st.info(
            f"{len(overrides)} value(s) changed from the catalogue: "
            + ", ".join(sorted(overrides)),
            icon=":material/edit:",
        )
        if st.button(
            "Reset all to catalogue defaults", icon=":material/restart_alt:", key="reset_overrides"
        ):
            state.put("overrides", {})
            for title in GROUPS:
                st.session_state.pop(f"editor_{title}", None)
            st.rerun()

    for title, keys in GROUPS.items():
        st.subheader(title)
        rows = []
        for key in keys:
            if key not in current or key in NOT_OVERRIDABLE:
                continue
            a, d = current[key], default_of.get(key, current[key])
            rows.append(
                {
                    "key": key,
                    "Input": key.replace("_", " "),
                    "Value": a["value"],
                    "Unit": a["unit"],
                    "Default": d["value"],
                    "Changed": "✎" if key in overrides else "",
                    "Source": d["source"],
                    "As of": d["as_of"] or "-",
                }
            )
        frame = pd.DataFrame(rows)
        edited = st.data_editor(
            frame,
            key=f"editor_{title}",
            hide_index=True,
            width="stretch",
            disabled=[col for col in frame.columns if col != "Value"],
            column_config={
                "key": None,
                "Value": st.column_config.NumberColumn("Value", help="Edit to override"),
                "Source": st.column_config.TextColumn("Source", width="large"),
            },
        )
        changed = False
        for _, row in edited.iterrows():
            key, value = row["key"], row["Value"]
            if pd.isna(value):
                continue
            lo, hi = override_range(key)
            if not lo <= value <= hi:
                st.error(
                    f"**overrides.{md_plain(key)}**: {value:g} is out of range (allowed: {lo:g} to {hi:g})",
                    icon=":material/error:",
                )
                continue
            default = default_of.get(key, {}).get("value")
            if default is not None and abs(value - default) <= 1e-12 * max(1.0, abs(default)):
                changed |= overrides.pop(key, None) is not None
            elif overrides.get(key) != value:
                overrides[key] = float(value)
                changed = True
        if changed:
            state.put("overrides", overrides)
            st.rerun()

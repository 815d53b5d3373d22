"""Assumptions: every price and assumption the comparison uses, with its default, source and date;
edit a value to override it for this scenario (the catalogue files never change)."""

import pandas as pd
import streamlit as st

from app import state
from app.formatting import md_code
from pricing.inputs import NOT_OVERRIDABLE, override_range

GROUPS = {
    "Owned hardware (build, managed on owned hardware)": (
        "server_usd_per_gpu",
        "spares_pct_of_nodes",
        "ib_switch_64port_ndr_usd_per_switch",
        "optic_400g_usd_per_transceiver",
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
        "ops_loaded_cost_ratio",
        "ops_hiring_lead_months",
        "support_pct_of_capex_per_year",
        "insurance_pct_per_year",
        "sales_tax_pct",
        "property_tax_pct_per_year",
        "hardware_deposit_pct",
        "licence_usd_per_gpu_year",
        "residual_value_pct",
        "gpu_share_of_server_cost_pct",
        "host_value_decline_pct_per_year",
        "fabric_value_decline_pct_per_year",
        "resale_bulk_haircut_pct",
        "managed_owned_fee_pct_of_capex_per_year",
        "storage_write_gbyte_per_s_per_tb",
        "storage_min_system_tb",
        "frontend_network_usd_per_node",
        "oob_network_usd_per_node",
        "mgmt_servers_per_1000_gpus",
        "mgmt_min_servers",
        "cpu_server_usd_per_server",
        "rack_cabinet_usd_per_rack",
        "rack_pdu_usd_per_rack",
        "liquid_cooling_usd_per_kw",
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
        "rented_ops_fte_per_1000_gpus",
        "rented_ops_min_team_fte",
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


#: session keys: {input: value typed out of its range} (shown as rejected, never in the scenario),
#: and a counter in the editors' keys: a new key gives an editor without the user's pending edits,
#: so after an edit is applied or refused each table shows what is in force.
REJECTED, GENERATION = "assumptions_rejected", "assumptions_editor_generation"


def render() -> None:
    st.title("Assumptions")
    st.caption(
        "Every figure behind the comparison, with where it comes from. Change a value to override "
        "it for this scenario only, clear it to go back to the catalogue; overrides travel in the "
        "share link. Planner defaults are figures no public source gives; their notes say why the "
        "value was chosen."
    )

    sc, c = state.require_comparison("Reading the catalogue...")
    defaults, _ = state.comparison(sc.model_copy(update={"overrides": {}}))
    default_of = {a.key: a for a in defaults.assumptions} if defaults else {}
    current = {a.key: a for a in c.assumptions}
    overrides = dict(sc.overrides)
    rejected: dict[str, float] = st.session_state.setdefault(REJECTED, {})
    generation = st.session_state.get(GENERATION, 0)

    if overrides:
        st.info(
            f"{len(overrides)} value(s) changed from the catalogue: "
            + ", ".join(md_code(key) for key in sorted(overrides)),
            icon=":material/edit:",
        )
        if st.button(
            "Reset all to catalogue defaults", icon=":material/restart_alt:", key="reset_overrides"
        ):
            rejected.clear()
            _apply_and_rerun({})

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
                    "Value": a.value,
                    "Unit": a.unit,
                    "Default": d.value,
                    "Changed": f"✗ {rejected[key]:g} rejected"
                    if key in rejected
                    else ("✎" if key in overrides else ""),
                    "Source": d.source,
                    "As of": d.as_of or "-",
                }
            )
        frame = pd.DataFrame(rows)
        edited = st.data_editor(
            frame,
            key=f"editor_{title}_{generation}",
            hide_index=True,
            width="stretch",
            disabled=[col for col in frame.columns if col != "Value"],
            column_config={
                "key": None,
                "Value": st.column_config.NumberColumn(
                    "Value", help="Edit to override; clear to use the catalogue value"
                ),
                "Source": st.column_config.TextColumn("Source", width="large"),
            },
        )
        for key in frame["key"]:
            if key in rejected:
                lo, hi = override_range(key)
                st.error(
                    f"{md_code('overrides.' + key)}: {rejected[key]:g} is out of range (allowed: "
                    f"{lo:g} to {hi:g}), so it was not applied; the value in force is "
                    f"{current[key].value:g}.",
                    icon=":material/error:",
                )
        if edits := _edits(frame, edited):
            new = dict(overrides)
            for key, value in edits.items():
                rejected.pop(key, None)
                default = default_of[key].value if key in default_of else None
                if value is None or (
                    default is not None and abs(value - default) <= 1e-12 * max(1.0, abs(default))
                ):
                    new.pop(key, None)  # cleared, or back to the catalogue's figure
                elif not _in_range(key, value):
                    rejected[key] = value
                else:
                    new[key] = value
            _apply_and_rerun(new)


def _edits(frame: pd.DataFrame, edited: pd.DataFrame) -> dict[str, float | None]:
    """{input: the value typed, or None where the cell was cleared} for each edited row."""
    out = {}
    for (_, before), (_, after) in zip(frame.iterrows(), edited.iterrows(), strict=True):
        value = after["Value"]
        if pd.isna(value):
            if not pd.isna(before["Value"]):
                out[before["key"]] = None
        elif value != before["Value"]:
            out[before["key"]] = float(value)
    return out


def _in_range(key: str, value: float) -> bool:
    lo, hi = override_range(key)
    return lo <= value <= hi


def _apply_and_rerun(overrides: dict[str, float]) -> None:
    """The scenario's overrides set (when they changed), fresh editors, and a rerun."""
    if overrides != dict(state.get("overrides") or {}):
        state.put("overrides", overrides)
    st.session_state[GENERATION] = st.session_state.get(GENERATION, 0) + 1
    st.rerun()

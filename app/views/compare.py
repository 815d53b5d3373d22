"""Compare: what each option costs over the term, when it is ready, and how sure we are. For a
portfolio (scenario version 2) it shows too, per option, its capacity against the demand (served,
queued, idle), the delay each workload suffers and the chargeback by team, as the engine gives
them (pricing/results.py OptionResult)."""

import json
import re

import pandas as pd
import streamlit as st

from app import exports, report_pdf, share_link, state
from app.formatting import (
    bridge_lines,
    capacity_size,
    deadline_miss,
    deadline_sizing,
    deadline_status,
    efficient_size_advice,
    md_plain,
    on_day,
    plan_length,
    ruled_out,
    sentence,
    training_run_text,
    usd,
    usd_rate,
)
from app.idle_text import idle_gang_lines
from app.range_text import resale_line
from app.recommendation_text import headline, reasons, recommendation_text, service_notes
from app.report_text import TOKEN_COST_NOTE, chargeback_rows, refresh_lines, token_cost_rows
from app.site_text import power_line, upgrade_lines
from app.time_value_text import HEADING as TIME_VALUE_HEADING
from app.time_value_text import basis as time_value_basis
from app.time_value_text import time_value_rows, workload_lines
from app.views import guide, side_by_side
from app.views.chart_cache import chart
from models.options import Billing, spec
from models.scenario import Scenario
from pricing import price_checks
from pricing.catalogue import freshness
from pricing.results import Comparison, OptionResult


def render() -> None:
    st.title("Compare")

    sc, c = state.require_comparison("Pricing every option over the term...")

    dark = state.dark_theme()

    rate = next((a.value for a in c.assumptions if a.key == "discount_rate_pct_per_year"), 0.0)
    _PAGE_OF[sc.kind](sc, c, rate, dark)


def _run_page(sc: Scenario, c: Comparison, rate: float, dark: bool) -> None:
    """Compare for one training run: the cards, warnings, views and totals."""
    st.caption(run_caption(c, rate))
    deadline = sc.cluster.deadline_days
    _deadline_sizing(c, deadline)
    _run_cards(c)
    _freshness(c)
    for line in bridge_lines(c):  # options put on the same work (pricing/bridge.py)
        st.caption(md_plain(line) + ".")
    _site(c)
    _run_warnings(c, deadline)
    _run_views(sc, c, dark)
    _run_totals(c, deadline)
    _save_and_downloads(sc, c)


def _site(c: Comparison) -> None:
    """The facility upgrades the buyer's site needs, then the power each option draws
    (app/site_text.py; the PDF and the text report print the same lines)."""
    for line in upgrade_lines(c):
        st.warning(md_plain(line) + ".", icon=":material/bolt:")
    for line in power_line(c):
        st.caption(md_plain(line) + ".")


def _deadline_sizing(c: Comparison, deadline: float | None) -> None:
    """How the cluster was sized for the deadline, and a size that would be more efficient."""
    t = c.training
    sized_for = c.option(t.deadline_sized_for) if t.deadline_sized_for else None
    if deadline is not None and sized_for is not None and t.train_days_budget is not None:
        st.caption(
            md_plain(
                deadline_sizing(
                    deadline, sized_for.label, sized_for.ready_day, sized_for.first_result_day
                )
            )
            + "."
        )
        if advice := efficient_size_advice(t.gpus, t.efficient):
            st.info(md_plain(advice) + ".", icon=":material/speed:")


def _run_cards(c: Comparison) -> None:
    """The cheapest option, the fastest to a first result and the recommendation."""
    rec = c.recommendation  # the engine's choice: presentation does not rank again
    cheapest = c.option(rec.option) if rec.option else None
    fastest = c.option(rec.fastest_option) if rec.fastest_option else None
    if fastest is not None and fastest.first_result_day is None:
        fastest = None
    m1, m2, m3 = st.columns([1, 1, 2])
    _card(
        m1,
        "Cheapest over the term",
        cheapest and cheapest.label,
        cheapest and f"NPV {usd(cheapest.npv_usd)} · nominal {usd(cheapest.total_usd)}",
    )
    _card(
        m2,
        "Fastest to first result",
        fastest and fastest.label,
        fastest and f"first run done on {on_day(fastest.first_result_day)}",
    )
    with m3.container(border=True):
        _recommendation(c.recommendation)


def _recommendation(rec) -> None:
    """The recommendation box: the answer in one sentence, its reasons as short lines, and the
    whole argument behind an expander (app/recommendation_text.py; the PDF and the text report
    give the same sentence and lines in the same order)."""
    st.caption("Recommendation")
    st.markdown(f"**{md_plain(headline(rec))}**")
    if lines := reasons(rec):
        st.markdown("\n".join(f"- {md_plain(line)}" for line in lines))
    with st.expander("The whole argument"):
        st.write(md_plain(recommendation_text(rec)) + ".")


def _run_warnings(c: Comparison, deadline: float | None) -> None:
    """The options that cannot complete the workload or miss the deadline."""
    ruled = ruled_out(c)
    for o in c.options:
        if not o.completes_workload and o.option not in ruled:  # said once, above
            st.warning(f"{o.label}: {md_plain(o.note)}", icon=":material/warning:")
        if o.meets_deadline is False:
            text = deadline_miss(o.label, deadline, o.first_result_day, o.days_past_deadline)
            st.warning(md_plain(text) + ".", icon=":material/event_busy:")


def _run_views(sc: Scenario, c: Comparison, dark: bool) -> None:
    """The chosen view: cost over the term, time, or sensitivity and uncertainty."""
    # Only the chosen view's charts are drawn, each built once per scenario and theme
    # (app/views/chart_cache.py): a plotly figure takes 20-70 ms to construct.
    views = ["Cost over the term", "Time", "Sensitivity and uncertainty"]
    view = (
        st.segmented_control(
            "View", views, default=views[0], key="compare_view", label_visibility="collapsed"
        )
        or views[0]
    )
    if view == "Cost over the term":
        _cost_over_the_term(sc, dark)
    elif view == "Time":
        chart("provisioning_gantt", sc, dark, key="chart_gantt")
        chart("scaling_curve", sc, dark, key="chart_scaling")
    elif view == "Sensitivity and uncertainty":
        _sensitivity(sc, c, dark)


def _run_totals(c: Comparison, deadline: float | None) -> None:
    """Each option's totals, $ per run, ready and first-result days, deadline and residual value."""
    st.subheader("Totals")
    rows = [
        {
            **_money_columns(o),
            "$ per training run": usd(o.usd_per_training_run),
            "Ready": on_day(o.ready_day) if o.available else "n/a",
            "First result": on_day(o.first_result_day),
            **(
                {"Deadline": deadline_status(o.meets_deadline, o.days_past_deadline)}
                if deadline is not None
                else {}
            ),
            "Residual value": usd(o.residual_value_usd) if o.residual_value_usd else "-",
        }
        for o in c.options
    ]
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
    st.caption(
        "Totals are sums of monthly cash flows over the term; NPV discounts each month. NPV after "
        "tax deducts expenses as paid, depreciates hardware straight-line (or, by the Workload "
        "page's choice, 100 % at once under the US bonus depreciation of 2025) and a new facility "
        "over 39 years, and taxes a sale on the gain over book value (tax rate and depreciation "
        "period on the Assumptions page). "
        "$ per delivered GPU-hour divides the total by the GPU-hours of work done."
    )
    _resale(c)
    _value_of_time(c)


def _save_and_downloads(sc: Scenario, c: Comparison) -> None:
    """Saving the comparison for Side by side, and the downloads (both kinds of scenario)."""
    st.subheader("Save for side by side")
    side_by_side.save_form()
    st.subheader("Downloads")
    _downloads(sc, c)


def run_caption(c: Comparison, rate: float) -> str:
    """The run, its length (formatting.run_length), the term and the discount rate."""
    t = c.training
    return (
        f"{t.model} on {t.gpus:,} × {t.gpu}: one run takes "
        f"{plan_length(t)}"
        f"; term {c.scenario.term.months} months; NPV discounted at {rate:g} % a year."
    )


CAPACITY_VIEW = "Capacity and demand"


def _portfolio_page(sc: Scenario, c, rate: float, dark: bool) -> None:
    """Compare for a portfolio: the same cards, views and totals, with the capacity each option
    plans against the demand, each workload's delay and the chargeback by team."""
    teams = sorted({w.team for w in sc.workloads})
    _portfolio_captions(sc, c, rate, teams)
    _portfolio_cards(c)
    for line in idle_gang_lines(c):  # held mostly idle by a rare run (pricing/idle_capacity.py)
        st.warning(md_plain(line), icon=":material/hourglass_empty:")
    _freshness(c)
    _site(c)
    for line in bridge_lines(c):  # work before a go-live on the bridge (planning/bridging.py)
        st.caption(md_plain(line) + ".")
    ruled = ruled_out(c)
    for o in c.options:
        if not o.completes_workload and o.option not in ruled:  # said once, above
            st.warning(f"{o.label}: {md_plain(o.note)}", icon=":material/warning:")
    _portfolio_views(sc, c, dark)
    _portfolio_totals(c)
    available = [o for o in c.options if o.available]
    _capacity_served(sc, available)
    _workload_delays(available)
    _chargeback(c)
    _token_costs(c)
    _save_and_downloads(sc, c)


def _portfolio_captions(sc: Scenario, c: Comparison, rate: float, teams: list[str]) -> None:
    """The portfolio, its demand, the term and the discount rate; the representative run."""
    p = c.portfolio
    st.caption(
        f"A portfolio of {len(sc.workloads)} workloads from {len(teams)} team(s) on "
        f"{md_plain(sc.cluster.gpu)}: {p.demanded_gpu_hours:,.0f} GPU-hours demanded over "
        f"{p.months} months ({p.beyond_term_gpu_hours:,.0f} of them finishing after the term); "
        f"NPV discounted at {rate:g} % a year."
    )
    st.caption(
        md_plain(
            "Storage and checkpoints are sized for the representative run, " + training_run_text(c)
        )
        + "."
    )


def _portfolio_cards(c: Comparison) -> None:
    """The cheapest option and the recommendation."""
    rec = c.recommendation
    cheapest = c.option(rec.option) if rec.option else None
    m1, m2 = st.columns([1, 2])
    _card(
        m1,
        "Cheapest over the term",
        cheapest and cheapest.label,
        cheapest and f"NPV {usd(cheapest.npv_usd)} · nominal {usd(cheapest.total_usd)}",
    )
    with m2.container(border=True):
        _recommendation(rec)


def _portfolio_views(sc: Scenario, c: Comparison, dark: bool) -> None:
    """The chosen view: capacity and demand, cost over the term, time, or sensitivity."""
    views = [CAPACITY_VIEW, "Cost over the term", "Time", "Sensitivity and uncertainty"]
    view = (
        st.segmented_control(
            "View", views, default=views[0], key="compare_view_v2", label_visibility="collapsed"
        )
        or views[0]
    )
    if view == CAPACITY_VIEW:
        _capacity_view(sc, c, dark)
    elif view == "Cost over the term":
        _cost_over_the_term(sc, dark)
    elif view == "Time":
        _portfolio_time(sc, c, dark)
    else:
        _sensitivity(sc, c, dark)


def _capacity_view(sc: Scenario, c: Comparison, dark: bool) -> None:
    """The capacity and demand chart of one option, picked above it (the recommended first)."""
    rec = c.recommendation
    available = [o for o in c.options if o.available]
    ids = [o.option for o in available]
    if ids:
        first = rec.option if rec.option in ids else ids[0]
        option = st.radio(
            "Option",
            ids,
            index=ids.index(first),
            format_func=lambda i: c.option(i).label,
            horizontal=True,
            key="compare_capacity_option",
        )
        chart("capacity_demand", sc, dark, key="chart_capacity", option=option)


def _portfolio_totals(c: Comparison) -> None:
    """Each option's totals, ready day and residual value."""
    st.subheader("Totals")
    rows = [
        {
            **_money_columns(o),
            "Ready": on_day(o.ready_day) if o.available else "n/a",
            "Residual value": usd(o.residual_value_usd) if o.residual_value_usd else "-",
        }
        for o in c.options
    ]
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch", key="totals_v2")
    _resale(c)
    _value_of_time(c)


def _resale(c: Comparison) -> None:
    """How the owned hardware's resale is valued and its sourced range (app/range_text.py)."""
    if (line := resale_line(c)) is not None:
        st.caption(md_plain(line))


def _value_of_time(c: Comparison) -> None:
    """The buyer's value of time beside each option's NPV (app/time_value_text.py): the ranking's
    own adjustment, not a cash line; nothing without a value per day."""
    rows = time_value_rows(c)
    if not rows:
        return
    st.subheader("Value of time")
    st.dataframe(
        pd.DataFrame(rows[1:], columns=rows[0]), hide_index=True, width="stretch", key="time_value"
    )
    st.caption(md_plain(f"{TIME_VALUE_HEADING}. {time_value_basis(c)}."))
    for line in workload_lines(c):
        st.caption(md_plain(line))


def _capacity_served(sc: Scenario, available: list[OptionResult]) -> None:
    """Each option's capacity and the demand it serves, how its capacity is planned, the
    expansion phases and the hardware refreshes."""
    st.subheader("Capacity and demand served")
    st.dataframe(
        pd.DataFrame(
            [
                {
                    "Option": o.label,
                    "GPUs": capacity_size(o),
                    "GPUs at term end": f"{o.capacity_gpus[-1]:,.0f}" if o.capacity_gpus else "-",
                    "Served GPU-hours": f"{o.served_gpu_hours or 0:,.0f}",
                    "Queued at term end": f"{o.queued_gpu_hours or 0:,.0f}",
                    "Finishing after term": f"{o.beyond_term_gpu_hours or 0:,.0f}",
                    "Idle GPU-hours": f"{o.idle_gpu_hours or 0:,.0f}",
                }
                for o in available
            ]
        ),
        hide_index=True,
        width="stretch",
        key="capacity_v2",
    )
    st.caption(
        "Demanded = served + queued (released, not started by the term end) + finishing after "
        "the term. Idle: GPU-hours held and not working. GPUs: the plan's size, or for a per-use "
        "option its largest month; at the term end: the capacity of the last month, expansion "
        "phases included."
    )
    st.markdown("**How each option's capacity is planned**")
    st.markdown(  # in full, under the table: a table cell would cut a long rule short
        "\n".join(
            f"- **{md_plain(o.label)}**: {md_plain(sentence(o.capacity_rule))}."
            for o in available
            if o.capacity_rule
        )
    )
    if sc.options.build_expansions:
        phases = ", ".join(
            f"{p.gpus:,} GPUs ordered in month {p.month}" for p in sc.options.build_expansions
        )
        owned = [o.label for o in available if spec(o.option).billing is Billing.OWNED]
        st.caption(
            f"Expansion phases (Workload page): {phases}; "
            + (
                f"they add to {', '.join(owned)}."
                if owned
                else "no owned option is compared, so they change no result."
            )
        )
    for o in available:
        if o.hardware_refreshes:
            st.caption(f"{o.label}, hardware refresh: {'; '.join(refresh_lines(o))}.")


def _workload_delays(available: list[OptionResult]) -> None:
    """The longest and mean delay of each workload on each option, and the work never served."""
    st.subheader("Delay each workload suffers")
    first = available[0].workload_delays if available else []
    delay_rows = []
    for w in first:
        row = {"Workload": w.name, "Team": w.team}
        for o in available:
            d = next(x for x in o.workload_delays if x.name == w.name)
            row[o.label] = (
                "never served"
                if d.never_served
                else "-"
                if d.delay_days_max is None
                else f"{d.delay_days_max:,.1f} (mean {d.delay_days_mean:,.1f})"
            )
        delay_rows.append(row)
    st.dataframe(pd.DataFrame(delay_rows), hide_index=True, width="stretch", key="delays_v2")
    for note in service_notes(available):
        st.caption(
            f"Service level (each workload's maximum wait, counted from the ready day): {note}"
        )
    st.caption(
        "Days a workload's work waited for capacity: the longest wait (and the mean) on each "
        "option; work still waiting at the term end counts its wait until then."
    )
    for o in available:
        for d in o.workload_delays:
            if d.never_served:
                st.warning(
                    f"{md_plain(o.label)}, {md_plain(d.name)}: {md_plain(d.never_served)}",
                    icon=":material/hourglass_disabled:",
                )


def _chargeback(c) -> None:
    """Each team's share of each option's total cost, and the option's total: the table the PDF and
    the text report print (report_text.chargeback_rows)."""
    st.subheader("Chargeback by team")
    header, *rows = chargeback_rows(c)
    st.dataframe(
        pd.DataFrame(rows, columns=header), hide_index=True, width="stretch", key="chargeback_v2"
    )
    st.caption(
        "Each team's share of an option's total cost (nominal): the total times the team's share "
        "of the served GPU-hours, idle capacity shared in the same proportion."
    )


def _token_costs(c: Comparison) -> None:
    """Each serving workload's cost per million output tokens on each option (none: no table)."""
    rows = token_cost_rows(c)
    if len(rows) < 2:
        return
    st.subheader("Serving cost per million output tokens")
    st.dataframe(pd.DataFrame(rows[1:], columns=rows[0]), hide_index=True, width="stretch")
    st.caption(md_plain(sentence(TOKEN_COST_NOTE) + "."))


def _portfolio_time(sc: Scenario, c: Comparison, dark: bool) -> None:
    """A portfolio's Time view: each option's provisioning, then what its capacity makes the
    workloads wait, and the demand by kind of work (the Guide's lines, app/views/guide.py)."""
    chart("provisioning_gantt", sc, dark, key="chart_gantt_v2", first_run=False)
    st.markdown("**Waiting for capacity**")
    for line in guide.portfolio_delays(c):
        st.markdown(f"- {md_plain(line)}")
    st.markdown("**Demand by kind of work**")
    for line in guide.portfolio_kind_lines(c):
        st.markdown(f"- {md_plain(line)}")


def _freshness(c) -> None:
    """The prices the answer depends on that are over a year older than the catalogue, and the
    planner defaults it leans on (pricing/catalogue/freshness.py)."""
    if c.stale_prices:
        lines = "\n".join(f"- {md_plain(freshness.stale_line(p))}" for p in c.stale_prices)
        st.warning(
            f"Prices older than 12 months (catalogue as of {md_plain(c.catalogue_as_of)}); "
            f"check or override them on the Assumptions page:\n\n{lines}",
            icon=":material/history:",
        )
    if c.planner_defaults:
        st.caption(md_plain(freshness.planner_defaults_line(c)))
    if c.price_inversions:
        lines = "\n".join(
            f"- {md_plain(price_checks.inversion_line(p))}" for p in c.price_inversions
        )
        st.info(
            f"{md_plain(price_checks.INVERSIONS_HEADING)}:\n\n{lines}",
            icon=":material/compare_arrows:",
        )


def _card(column, caption: str, title: str | None, detail: str | None) -> None:
    with column.container(border=True):
        st.caption(caption)
        st.markdown(f"#### {title or 'none'}")
        if detail:
            st.caption(detail)


@st.cache_data(max_entries=32, ttl=3600, show_spinner=False)
def _pdf_report(scenario_json: str, link: str) -> tuple[bytes, int, str]:
    """The PDF report of a scenario (bytes, pages, note on missing charts), built once per
    scenario and link; the comparison itself comes from the portal's cache."""
    c, err = state.comparison(Scenario.model_validate_json(scenario_json))
    if err:
        raise ValueError(f"{err[0]}: {err[1]}")
    report = report_pdf.build_report(c, link=link)
    return report.data, report.pages, report.charts_note


def _downloads(sc: Scenario, c) -> None:
    """PDF on request (it takes a second or two), CSV and JSON built only when downloaded."""
    base = state.page_address()
    try:
        link = share_link.link_url(sc, base)
    except share_link.LinkError:
        link = ""
    key = json.dumps(sc.model_dump(mode="json"), sort_keys=True)
    t = c.training
    stem = "clusterplan-" + re.sub(
        r"[^a-z0-9]+", "-", f"{t.model} {t.gpus}x {t.gpu}".lower()
    ).strip("-")
    if not report_pdf.charts_available(start=False):
        st.info(
            "The PDF report will hold tables only: its charts need Chromium, which this server "
            "lacks. The tables hold every number.",
            icon=":material/info:",
        )
    pdf_col, csv_col, json_col = st.columns(3)
    with pdf_col:
        slot = st.empty()  # the button, then in its place the download
        ready = st.session_state.get("pdf_report_for") == [key, link]
        if not ready and slot.button(
            "Prepare PDF report",
            icon=":material/picture_as_pdf:",
            width="stretch",
            key="pdf_prepare",
        ):
            ready = True
        if ready:
            with slot.container():
                try:
                    with st.spinner("Building the PDF report..."):
                        data, pages, note = _pdf_report(key, link)
                except (report_pdf.ReportError, ValueError) as exc:
                    st.error(
                        f"The PDF report could not be built: {md_plain(exc)}",
                        icon=":material/error:",
                    )
                else:
                    st.session_state["pdf_report_for"] = [key, link]
                    st.download_button(
                        "Download PDF report",
                        data,
                        file_name=f"{stem}.pdf",
                        mime="application/pdf",
                        on_click="ignore",
                        type="primary",
                        icon=":material/download:",
                        width="stretch",
                        key="pdf_download",
                    )
                    st.caption(f"{pages} pages" + (f". {note}" if note else ""))
    csv_col.download_button(
        "Monthly cash flows (CSV)",
        lambda: exports.monthly_csv(c),
        file_name=f"{stem}-monthly.csv",
        mime="text/csv",
        on_click="ignore",
        icon=":material/table_view:",
        width="stretch",
        key="csv_download",
    )
    json_col.download_button(
        "Whole comparison (JSON)",
        lambda: exports.comparison_json(c),
        file_name=f"{stem}.json",
        mime="application/json",
        on_click="ignore",
        icon=":material/data_object:",
        width="stretch",
        key="json_download",
    )


def _cost_over_the_term(sc: Scenario, dark: bool) -> None:
    """The "Cost over the term" view, for a single run and a portfolio alike: the cumulative cost
    curves and the cost by category."""
    chart("cumulative_cost", sc, dark, key="chart_cumulative")
    chart("cost_breakdown", sc, dark, key="chart_breakdown")


def _sensitivity(sc: Scenario, c: Comparison, dark: bool) -> None:
    """The tornado, the uncertainty bands and the flip points (both kinds of scenario)."""
    chart("tornado", sc, dark, key="chart_tornado")
    chart("uncertainty", sc, dark, key="chart_uncertainty")
    if c.flip_points:
        st.markdown("**Flip points** (where the cheapest option changes)")
        for f in c.flip_points:
            st.markdown(f"- {f.text}")


def _money_columns(o) -> dict[str, str]:
    """The totals table's first columns, the same for a single run and a portfolio."""
    return {
        "Option": o.label,
        "Total (nominal)": usd(o.total_usd) if o.available else "n/a",
        "NPV": usd(o.npv_usd) if o.available else "n/a",
        "NPV after tax": usd(o.npv_after_tax_usd) if o.available else "n/a",
        "$ per delivered GPU-hour": usd_rate(o.usd_per_gpu_hour),
    }


#: the page body of each kind of scenario (models/scenario.py `Scenario.kind`)
_PAGE_OF = {"run": _run_page, "portfolio": _portfolio_page}

"""Compare: what each option costs over the term, when it is ready, and how sure we are."""

import pandas as pd
import streamlit as st

from app import charts, state
from app.formatting import days, usd, usd_rate


def render() -> None:
    st.title("Compare")

    sc, problems = state.scenario()
    if problems:
        st.info("Fix the inputs on the Workload page first.")
        state.show_problems(problems)
        st.stop()
    with st.spinner("Pricing every option over the term..."):
        c, err = state.comparison(sc)
    if err:
        st.error(f"**{err[0]}**: {err[1]}", icon=":material/error:")
        st.stop()

    dark = state.dark_theme()

    t = c.training
    rate = next((a["value"] for a in c.assumptions if a["key"] == "discount_rate_pct_per_year"), 0.0)
    st.caption(f"{t['model']} on {t['gpus']:,} × {t['gpu']}: one run takes {t['train_days']:.1f} days "
               f"({t['ideal_days']:.1f} without failures, goodput {t['goodput']:.1%}); "
               f"term {sc.term.months} months; NPV discounted at {rate:g} % a year.")

    ok = [o for o in c.options if o.available and o.completes_workload]
    cheapest = min(ok, key=lambda o: o.npv_usd) if ok else None
    fastest = min((o for o in ok if o.first_result_day is not None), key=lambda o: o.first_result_day, default=None)
    m1, m2, m3 = st.columns([1, 1, 2])
    with m1.container(border=True):
        st.caption("Cheapest over the term")
        if cheapest:
            st.markdown(f"#### {cheapest.label}")
            st.caption(f"NPV {usd(cheapest.npv_usd)} · nominal {usd(cheapest.total_usd)}")
        else:
            st.markdown("#### none")
    with m2.container(border=True):
        st.caption("Fastest to first result")
        if fastest:
            st.markdown(f"#### {fastest.label}")
            st.caption(f"first run done on day {fastest.first_result_day:,.0f}")
        else:
            st.markdown("#### none")
    with m3.container(border=True):
        st.caption("Recommendation")
        st.write(c.recommendation["why"] + ".")
    for o in c.options:
        if not o.completes_workload:
            st.warning(f"{o.label}: {o.note}", icon=":material/warning:")

    # Only the chosen view's charts are built: plotly figures take 10-20 ms each to construct.
    views = ["Cost over the term", "Time", "Sensitivity and uncertainty"]
    view = st.segmented_control("View", views, default=views[0], key="compare_view",
                                label_visibility="collapsed") or views[0]
    if view == "Cost over the term":
        st.plotly_chart(charts.cumulative_cost(c, dark=dark), theme=None, width="stretch", key="chart_cumulative")
        st.plotly_chart(charts.cost_breakdown(c, dark=dark), theme=None, width="stretch", key="chart_breakdown")
    elif view == "Time":
        st.plotly_chart(charts.provisioning_gantt(c, dark=dark), theme=None, width="stretch", key="chart_gantt")
        st.plotly_chart(charts.scaling_curve(c, dark=dark), theme=None, width="stretch", key="chart_scaling")
    elif view == "Sensitivity and uncertainty":
        st.plotly_chart(charts.tornado(c, dark=dark), theme=None, width="stretch", key="chart_tornado")
        st.plotly_chart(charts.uncertainty(c, dark=dark), theme=None, width="stretch", key="chart_uncertainty")
        if c.flip_points:
            st.markdown("**Flip points** (where the cheapest option changes)")
            for f in c.flip_points:
                st.markdown(f"- {f['text']}")
    st.subheader("Totals")
    rows = [{
        "Option": o.label,
        "Total (nominal)": usd(o.total_usd) if o.available else "n/a",
        "NPV": usd(o.npv_usd) if o.available else "n/a",
        "$ per delivered GPU-hour": usd_rate(o.usd_per_gpu_hour),
        "$ per training run": usd(o.usd_per_training_run),
        "Ready": days(o.ready_day) if o.available else "n/a",
        "First result": days(o.first_result_day),
        "Residual value": usd(o.residual_value_usd) if o.residual_value_usd else "-",
    } for o in c.options]
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
    st.caption("Totals are sums of monthly cash flows over the term; NPV discounts each month. "
               "$ per delivered GPU-hour divides the total by the GPU-hours of work done.")

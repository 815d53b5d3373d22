"""Plotly figures, shared by the portal (screen) and the PDF report: a module per page or concept.

- `common`: THE template (`clusterplan`, `clusterplan_dark`) used on screen and in the PDF, the
  colours (one fixed colour per option, so an option looks the same in every chart and what the
  buyer saw is what gets printed), `user_text`, amount formats and layout helpers.
- `compare`: `all_figures`, the Compare page's and the PDF report's charts in their order, from
  `cost` (cumulative cost, cost breakdown), `timeline` (the provisioning Gantt), `scaling` (training
  time against cluster size) and `risk` (the tornado of the recommendation, the cost's uncertainty).
- `portfolio`: a portfolio's monthly demand and its capacity against demand per option.
- `side_by_side`: cumulative cost of 2-3 scenarios on one chart.
- `serve`, `memory` (Workload and Fine-tune pages), `validation`: the other pages' charts.

Every builder takes a `Comparison` (or the dict `model_dump(mode="json")` makes of one), or the
page's plan, and `dark`, and returns a `go.Figure` with `template=` set explicitly; the portal
should draw it with `st.plotly_chart(fig, theme=None)` so that Streamlit does not restyle it.

A name the user typed (a team, a workload, a saved scenario) reaches a figure only through
`common.user_text`, which escapes what plotly.js would read as markup (its subset of HTML: links,
styled spans) or as LaTeX: the name is printed as typed, never interpreted.

Nothing is re-exported here: import a builder from its module.
"""

"""The side-by-side PDF (app/report_pdf/): 2-3 named scenarios, what each comparison recommends,
the table the portal and `clusterplan compare A B` show (app/side_by_side.py), the cumulative cost
curves on one chart and per scenario the monthly numbers behind them."""

from __future__ import annotations

from app import side_by_side as sbs_text
from app.chart_export import print_figure
from app.charts.common import HEIGHT_PX
from app.charts.side_by_side import side_by_side_cost
from app.formatting import usd
from app.report_pdf.document import INK, MUTED, WARN, Document, plain
from pricing.results import Comparison
from pricing.side_by_side import SideBySide


def side_by_side_title(sbs: SideBySide) -> str:
    return "Side by side: " + " vs ".join(s.name for s in sbs.scenarios)


def side_by_side_figure(sbs: SideBySide):
    """The side-by-side PDF's chart (app/charts/side_by_side.py side_by_side_cost) laid out for
    print: its legend of one entry per scenario and option, two a row, below the plot."""
    fig = side_by_side_cost(sbs)
    rows = -(-sum(o.available for s in sbs.scenarios for o in s.options) // 2)
    fig.update_layout(
        legend={"orientation": "h", "yref": "container", "y": 0, "yanchor": "bottom", "x": 0},
        height=HEIGHT_PX + 40 + 18 * rows,
    )
    return print_figure(fig)


class SideBySideDocument(Document):
    """The side-by-side report: `write_side_by_side` lays it out (`sbs` and `comparisons` are set
    by build_side_by_side_report)."""

    sbs: SideBySide
    comparisons: list[Comparison]

    def write_side_by_side(self, svg: bytes | None, note: str) -> None:
        sbs = self.sbs
        self.add_page()
        self.text_block("GPU CLUSTER COMPARISON · SIDE BY SIDE", 8, MUTED, "B")
        self.ln(1)
        self.text_block(self.report_title, 18, INK, "B")
        self.text_block(
            f"Generated {self.stamp} · prices and figures as of {self.catalogue}", 8.5, MUTED
        )
        self.heading("Scenarios", 11)
        for s in sbs.scenarios:
            self.text_block(f"• {plain(sbs_text.scenario_line(s), 600)}", 9)
        self.heading("Side by side", 11)
        rows = [[plain(x, 80) for x in r] for r in sbs_text.table_rows(sbs, grouped=True)]
        self.grid(rows, (24, 38, 22, 22, 17, 20, 24), ("LEFT", "LEFT") + ("RIGHT",) * 5)
        self.caption(
            "Totals and NPV over each scenario's term (nominal USD; NPV discounted at each "
            "scenario's rate). Ready: the day the cluster is ready, counted from the decision; "
            f"{sbs_text.days_note(sbs)}; $ per delivered GPU-hour divides the total by "
            "the GPU-hours of work done. Every figure is the scenario's own comparison's."
        )
        self.add_page()  # the chart is most of a page: it starts one, with its heading
        self.heading("Cumulative cost over the term", before=0)
        if svg is not None:
            self.draw_charts({"side_by_side": svg})
        else:
            self.text_block(note, 10, WARN, "B")
        for s in sbs.scenarios:
            live = [o for o in s.options if o.available]
            if not live:
                continue
            self.heading(f"{plain(s.name, 80)}: cumulative cost at the end of each month", 10)
            rows = [["Month", *(o.label for o in live)]]
            rows += [
                [str(m + 1), *(usd(o.cumulative_usd[m]) for o in live)]
                for m in range(len(live[0].cumulative_usd))
            ]
            share = 150 / len(live)
            self.grid(rows, (30, *(share,) * len(live)), ("RIGHT",) * (len(live) + 1), 7.2)
        self.reopen_link(
            "Reopen these scenarios",
            "This link opens the planner with these scenarios saved, on the Side by side page:",
            "No share link was given for these scenarios.",
        )
        self.furniture()

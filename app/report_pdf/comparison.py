"""The sections of a comparison's PDF (app/report_pdf/): the cover (title, the recommendation and
why, stale prices, the scenario, the totals table, the share link), the charts, for a portfolio the
demand against each option's capacity plan, the tables that hold every charted number, the
sensitivity, uncertainty and flip points, and every assumption with its source and date."""

from __future__ import annotations

import io

from app.assumption_labels import overrides_line
from app.charts.common import CATEGORY_COLORS
from app.formatting import (
    band,
    bridge_lines,
    constraints_line,
    days,
    deadline_miss,
    on_day,
    pct,
    scaling_note,
    sentence,
    serve_engine_text,
    serve_weights_text,
    si,
    swing_text,
    training_run_subject,
    training_run_text,
    usd,
    usd_rate,
)
from app.idle_text import IDLE_HEADING, idle_gang_lines
from app.kinds import teams, words
from app.range_text import range_cell, resale_line
from app.recommendation_text import headline, reasons
from app.report_pdf.document import ACCENT, INK, MUTED, WARN, Document, plain
from app.report_text import (
    TOKEN_COST_NOTE,
    accuracy_line,
    after_tax_line,
    capacity_rows,
    chargeback_rows,
    deadline_sizing_line,
    delay_notes,
    delay_rows,
    execution_text,
    gpu_hours,
    monthly_capacity_rows,
    refresh_lines,
    token_cost_rows,
)
from app.site_text import power_line, upgrade_lines
from app.time_value_text import HEADING as TIME_VALUE_HEADING
from app.time_value_text import basis as time_value_basis
from app.time_value_text import time_value_rows, workload_lines
from pricing import price_checks
from pricing.catalogue import freshness
from pricing.results import Comparison, OptionResult


def _result(c: Comparison, option_id: str | None) -> OptionResult | None:
    """The engine's result for an option the recommendation names (None when it names none)."""
    return c.option(option_id) if option_id is not None else None


def _engine(w, gpu: str) -> str:
    """ "; " and a serving workload's engine on the cluster's GPU (build, version) and the precision
    of its weights; "" otherwise."""
    if w.kind != "serve":
        return ""
    weights = serve_weights_text(w, gpu)
    return f"; {serve_engine_text(w, gpu)}" + (f"; {weights}" if weights else "")


def _num(v: float | None) -> str:
    if v is None:
        return "n/a"
    a = abs(v)
    text = f"{v:,.0f}" if a >= 1000 else f"{v:,.3f}" if a >= 1 else f"{v:.4g}"
    return text.rstrip("0").rstrip(".") if "." in text and "e" not in text else text


def caveat_counts(c) -> list[str]:
    """What page 1 says page 2 lists: ['7 prices over a year old (the oldest: Fabric resale
    decline, 2002-11)', '2 planner defaults with no public figure', ...]."""
    parts = []
    if c.stale_prices:
        n, oldest = len(c.stale_prices), max(c.stale_prices, key=lambda p: p.age_months)
        which = f"{plain(oldest.label or oldest.key, 80)}, {oldest.as_of[:7]}"
        parts.append(
            f"{n} prices over a year old (the oldest: {which})"
            if n > 1
            else f"1 price over a year old ({which})"
        )
    if n := len(c.planner_defaults):
        parts.append(f"{n} planner default{'s' * (n != 1)} with no public figure")
    if n := len(c.price_inversions):
        parts.append(f"{n} committed rate{'s' * (n != 1)} above the on-demand rate")
    return parts


def deciding_text(c) -> str:
    """'What decides it: the gap between A and B moves most with X (±25 %), Y (from 25 to 65 %)
    and Z (±25 %) ...': the tornado's three widest bars, each with how far it was moved
    (formatting.swing_text: ±swing, or its range where it has one); '' without a tornado."""
    sens = c.sensitivity
    if sens is None or not sens.bars:
        return ""
    labels = {o.option: o.label for o in c.options}
    widest = sorted(
        (b for b in sens.bars if b.gap_low_usd is not None and b.gap_high_usd is not None),
        key=lambda b: -abs(b.gap_high_usd - b.gap_low_usd),
    )[:3]
    if not widest:
        return ""
    named = [
        (b.label if b.label[:2].isupper() else b.label[:1].lower() + b.label[1:])
        + f" ({swing_text(b, sens.swing)})"
        for b in widest
    ]
    return (
        f"What decides it: the gap between {labels.get(sens.cheapest, sens.cheapest)} and "
        f"{labels.get(sens.runner_up, sens.runner_up)} moves most with {', '.join(named)} (the "
        "tornado chart and the assumptions follow)."
    )


#: the least share of its full size the cost chart is drawn at on page 1 (else it leads the charts)
SUMMARY_MIN_SHARE = 0.6


class ComparisonDocument(Document):
    """The report of one comparison: `write_all` lays out every section."""

    def write_all(self, svgs: dict[str, bytes], note: str) -> None:
        capacity = {k: v for k, v in svgs.items() if k.startswith("capacity:")}
        svgs = {k: v for k, v in svgs.items() if k not in capacity}
        summary = svgs.pop("cumulative", None)  # the cost over the term: on page 1
        self.add_page()
        self.cover(summary)
        self.add_page()
        self.details()
        if self.summary_chart is not None:
            svgs = {"cumulative": self.summary_chart, **svgs}
        first = next(iter(svgs.values()), None)  # the heading keeps the first chart with it
        self.heading("Charts", 12, keep=self.chart_height(first) + 8 if first else 30)
        if svgs:
            self.draw_charts(svgs)
        else:
            self.text_block(note, 10, WARN, "B")
        for section in self.SECTIONS_OF[self.c.scenario.kind]:  # the kind's own sections
            section(self, capacity, note)
        self.numbers()
        self.assumptions()
        self.closing()
        self.furniture()

    #: the cost-over-the-term chart when page 1 had no room for it (drawn first among the charts)
    summary_chart: bytes | None = None

    def cover(self, summary: bytes | None = None) -> None:
        """Page 1: the answer, the totals, the inputs that decide it and the cost over the term."""
        c = self.c
        self.text_block("GPU CLUSTER COMPARISON", 8, MUTED, "B")
        self.ln(1)
        self.text_block(self.report_title, 18, INK, "B")
        rate = next((a.value for a in c.assumptions if a.key == "discount_rate_pct_per_year"), None)
        months = c.scenario.term.months
        self.text_block(
            f"Generated {self.stamp} · prices and figures as of {self.catalogue} · term "
            f"{months} months" + (f", NPV at {rate:g} % a year" if rate is not None else ""),
            8.5,
            MUTED,
        )
        if line := overrides_line(c.scenario.overrides, {a.key: a.unit for a in c.assumptions}):
            self.text_block(plain(line, 600), 8.5, WARN)  # the line every portal page shows
        for line in constraints_line(c):  # what the buyer ruled out before any cost
            self.text_block(plain(line, 600), 8.5, INK, "B")
        for line in upgrade_lines(c):  # what the buyer's site needs (app/site_text.py)
            self.text_block(plain(line, 600) + ".", 8.5, MUTED)
        for line in bridge_lines(c):  # options put on the same work (pricing/bridge.py)
            self.text_block(plain(line, 600) + ".", 8.5, MUTED)
        self.ln(4)
        self.recommendation()
        self.caveats_pointer()
        self.heading("Totals over the term", 11)
        rows = [
            [
                "Option",
                "Total (nominal)",
                "NPV",
                "$ per GPU-hour",
                "$ per training run",
                "Ready",
                "First result",
                "Residual value",
            ]
        ]
        for o in c.options:
            ok = o.available
            rows.append(
                [
                    o.label,
                    usd(o.total_usd) if ok else "n/a",
                    usd(o.npv_usd) if ok else "n/a",
                    usd_rate(o.usd_per_gpu_hour),
                    usd(o.usd_per_training_run),
                    on_day(o.ready_day) if ok else "n/a",
                    on_day(o.first_result_day),
                    usd(o.residual_value_usd) if o.residual_value_usd else "-",
                ]
            )
        self.grid(rows, (30, 23, 21, 20, 23, 20, 21, 22), ("LEFT",) + ("RIGHT",) * 7)
        self.caption(after_tax_line(c))
        self.value_of_time()
        self.deciding_inputs()
        if summary is not None and not self.summary_on_cover(summary):
            self.summary_chart = summary  # no room left on page 1: it leads the charts instead

    def summary_on_cover(self, svg: bytes) -> bool:
        """The cost-over-the-term chart in what is left of page 1, shrunk to fit down to
        SUMMARY_MIN_SHARE of its size; False (nothing drawn) when less room is left."""
        full, room = self.chart_height(svg), self.page_break_trigger - self.get_y() - 2
        if room < SUMMARY_MIN_SHARE * full:
            return False
        scale = min(1.0, room / full)
        w, h = self.epw * scale, full * scale
        self.image(io.BytesIO(svg), x=self.l_margin + (self.epw - w) / 2, y=self.get_y(), w=w, h=h)
        self.current_font_is_set_on_page = False  # the chart's text changed fonts
        self.set_y(self.get_y() + h + 2)
        return True

    def details(self) -> None:
        """Page 2: the scenario as entered, the notes on options and the deadline, how the totals
        are counted and the model's accuracy (the cover keeps to the answer)."""
        c, t = self.c, self.c.training
        self.heading("Scenario", 11, before=0)
        self.grid(self.scenario_rows(), (34, 146), ("LEFT", "LEFT"), 8, header=False)
        self.stale_prices()
        for o in c.options:
            if not o.completes_workload or not o.available:
                self.caption(f"{o.label}: {o.note}")
        for o in c.options:
            if o.meets_deadline is False:
                deadline = c.scenario.cluster.deadline_days
                self.caption(
                    deadline_miss(o.label, deadline, o.first_result_day, o.days_past_deadline) + "."
                )
        for line in deadline_sizing_line(c):
            self.caption(line + ".")
        self.caption(
            "Totals are sums of monthly cash flows over the term; NPV discounts each month. "
            f"$ per GPU-hour divides the total by the GPU-hours of work done. "
            f"{sentence(training_run_subject(c))}: "
            f"{days(t.train_days)} whole run{band(t.train_days_low, t.train_days_high)}"
            + (f", steady state {days(t.steady_days)}" if t.steady_days is not None else "")
            + "."
        )
        if (resale := resale_line(c)) is not None:
            self.caption(plain(resale, 600))
        self.caption(accuracy_line() + ".")

    def deciding_inputs(self) -> None:
        """The three inputs that move the answer most (the tornado's widest bars), in a line."""
        if said := deciding_text(self.c):
            self.caption(said)

    def closing(self) -> None:
        """The share link, after the assumptions (it ran the cover onto a second page)."""
        self.reopen_link(
            "Reopen this scenario",
            "This link opens the same scenario in the planner's portal:",
            "No share link could be made for this scenario.",
        )

    def value_of_time(self) -> None:
        """The buyer's value of time beside each NPV (app/time_value_text.py; none without it)."""
        rows = time_value_rows(self.c)
        if not rows:
            return
        self.heading("Value of time", 11)
        self.caption(f"{TIME_VALUE_HEADING}. {plain(time_value_basis(self.c), 600)}.")
        self.grid(
            [[plain(x, 60) for x in r] for r in rows],
            (40, 35, 35, 35, 35),
            ("LEFT",) + ("RIGHT",) * 4,
        )
        for line in workload_lines(self.c):
            self.caption(plain(line, 600))

    def recommendation(self) -> None:
        c, rec = self.c, self.c.recommendation
        best = _result(c, rec.option)
        fastest = _result(c, rec.fastest_option)
        y0 = self.get_y()
        self.set_fill_color(239, 246, 251)
        title = f"Recommendation: {rec.label or 'none'}"
        self.text_block(title, 12.5, INK, "B", fill=True, padding=(3, 4, 1, 5))
        self.text_block(headline(rec), 9.5, INK, "B", fill=True, padding=(0.5, 4, 1, 5))
        why = "\n".join(f"- {line}." for line in reasons(rec))
        if why:
            self.text_block(why, 9, INK, fill=True, padding=(0.5, 4, 1.5, 5))
        if idle := idle_gang_lines(c):  # held mostly idle by a rare run, the remedy
            text = f"{IDLE_HEADING}:\n" + "\n".join(f"- {line}" for line in idle)
            self.text_block(text, 8.5, INK, fill=True, padding=(0.5, 4, 1.5, 5))
        lines = []
        if best:
            first = "Cheapest over the term"
            if rec.ranked_npv_usd is not None:
                first = f"First with the value of time ({usd(rec.ranked_npv_usd)} in the ranking)"
            lines.append(
                f"{first}: {best.label}, NPV {usd(best.npv_usd)}, nominal {usd(best.total_usd)}."
            )
        if fastest and fastest.first_result_day is not None:
            lines.append(
                f"Fastest to first result: {fastest.label}, first run done on "
                f"{on_day(fastest.first_result_day)}."
            )
        self.text_block("\n".join(lines) or " ", 8.5, MUTED, fill=True, padding=(0.5, 4, 3, 5))
        self.set_fill_color(*ACCENT)
        self.rect(self.l_margin, y0, 1.4, self.get_y() - y0, style="F")
        self.set_fill_color(255, 255, 255)

    def caveats_pointer(self) -> None:
        """Page 1's one line on the caveats page 2 lists in full (`stale_prices`): how many prices
        are over a year old (and the oldest), the planner defaults, the committed rates above the
        on-demand rate; nothing when there are none. The lists would push the cost chart off page 1
        (the university sample's seven stale prices did)."""
        parts = caveat_counts(self.c)
        if parts:
            self.ln(1)
            self.text_block(f"Caveats, listed on page 2: {'; '.join(parts)}.", 8.5, WARN, "B")

    def stale_prices(self) -> None:
        """On page 2, under the scenario: the prices the answer depends on that are over a year
        older than the catalogue, the planner defaults it leans on (pricing/catalogue/freshness.py)
        and committed rates above the on-demand rate (page 1 counts them: `caveats_pointer`)."""
        c = self.c
        if c.stale_prices:
            self.ln(2)
            self.text_block(
                f"Prices older than 12 months (catalogue as of {plain(c.catalogue_as_of)}):",
                9,
                WARN,
                "B",
            )
            for p in c.stale_prices:
                self.text_block(f"• {plain(freshness.stale_line(p), 600)}", 8.5)
        if c.planner_defaults:
            self.ln(1)
            self.caption(plain(freshness.planner_defaults_line(c), 600))
        if c.price_inversions:
            self.ln(2)
            self.text_block(f"{plain(price_checks.INVERSIONS_HEADING, 600)}:", 9, WARN, "B")
            for p in c.price_inversions:
                self.text_block(f"• {plain(price_checks.inversion_line(p), 600)}", 8.5)

    def _run_work(self) -> tuple[list[str], str, str]:
        """(the work, the cluster, the usage) of one training run, for `scenario_rows`."""
        s, t = self.c.scenario, self.c.training
        w, cl, u = s.workload, s.cluster, s.usage
        work = [t.model, f"{si(w.tokens)} tokens", f"sequence {w.seq_len:,}", w.precision.upper()]
        cluster = f"{t.gpus:,} × {t.gpu} ({t.nodes:,} nodes)"
        if cl.deadline_days:
            cluster += f", deadline {cl.deadline_days:g} days"
        usage = (
            f"{u.runs:g} training runs over the term"
            if u.mode == "runs"
            else f"{u.utilisation_pct:g} % utilisation"
        )
        return work, cluster, usage

    def _portfolio_work(self) -> tuple[list[str], str, str]:
        """(the workloads, the cluster, the demand) of a portfolio, for `scenario_rows`."""
        s, p, cl = self.c.scenario, self.c.portfolio, self.c.scenario.cluster
        n = teams(s)
        work = [
            f"{len(s.workloads)} workloads, {n} team{'s' if n != 1 else ''}",
            *(
                f"{x.name} ({x.kind}, {x.team}{_engine(x, self.c.training.gpu)})"
                for x in s.workloads[:12]
            ),
        ] + ([f"{len(s.workloads) - 12} more"] if len(s.workloads) > 12 else [])
        cluster = f"{self.c.training.gpu}; " + (
            f"{cl.gpus:,} GPUs on the fixed-size options"
            if cl.gpus
            else "each option's size from its capacity plan (Demand and capacity)"
        )
        usage = (
            f"{gpu_hours(p.demanded_gpu_hours)} GPU-hours over the term, "
            f"peak {max(p.peak_gpus, default=0):,.0f} GPUs"
        )
        return work, cluster, usage

    def scenario_rows(self) -> list[list[str]]:
        s, t = self.c.scenario, self.c.training
        term, opts = s.term, s.options
        lay = t.layout
        labels = {o.option: o.label for o in self.c.options}
        work, cluster, usage = self.WORK_OF[s.kind](self)
        fin = term.financing + (
            f" over {term.loan_years} years" if term.financing != "cash" else ""
        )
        said = words(s)
        rows = [
            [said.work_row, " · ".join(work)],
            ["Cluster", cluster],
            ["Execution plan", execution_text(s.execution, s.cluster.gpu)],
            [
                "Training",
                training_run_text(self.c)
                + f"; layout TP {lay.tp}{f' · CP {lay.cp}' if lay.cp > 1 else ''} · PP {lay.pp} · DP {lay.dp}; "
                + f"MFU {pct(t.mfu, 1)}"
                + (f". {note}" if (note := scaling_note(t.scaling, lay)) else ""),
            ],
            [said.usage_row, usage],
            [
                "Term",
                f"{term.months} months, financing: {fin}; commitment months past the term: "
                + (
                    "resold or assigned at term end"
                    if term.past_term == "resold"
                    else "paid and idle"
                )
                + (  # the default (straight-line) is said in the after-tax line only
                    "; after tax: US bonus depreciation of 2025 (100 % in the first month)"
                    if term.depreciation == "bonus_2025"
                    else ""
                ),
            ],
            ["Facility (build)", opts.facility],
            ["Options compared", ", ".join(labels.get(o, o) for o in opts.compare)],
            [
                "Your overrides",
                ", ".join(
                    f"{k} = {_num(v) if isinstance(v, int | float) else v}"
                    for k, v in sorted(s.overrides.items())
                )
                or "none",
            ],
        ]
        return [[k, plain(v, 600)] for k, v in rows]

    def option_table(self, heading: str, caption: str, rows: list[list[str]]) -> None:
        """A table of a first column then one column per option, under its heading and caption."""
        n = len(rows[0]) - 1
        self.heading(heading, 10)
        self.caption(caption)
        self.grid(
            [[plain(x, 60) for x in r] for r in rows],
            (34, *(146 / max(n, 1),) * n),
            ("LEFT",) + ("RIGHT",) * n,
        )

    def demand_capacity(self, svgs: dict[str, bytes], note: str) -> None:
        """A portfolio's demand against each option's capacity plan: the tables `clusterplan
        compare` prints (app/report_text.py) and a chart per option (app.charts.portfolio)."""
        c = self.c
        self.heading("Demand and capacity")
        p = c.portfolio
        self.caption(
            f"The portfolio asks for {gpu_hours(p.demanded_gpu_hours)} GPU-hours over the term, "
            f"at most {max(p.peak_gpus, default=0):,.0f} GPUs at once. Each option serves it on "
            "its own capacity plan; work not started by the term end is queued, work started "
            "and finishing after it is beyond the term, capacity held and not working is idle."
        )
        rows = capacity_rows(c)
        self.heading("GPU-hours over the term", 10, 2)
        self.grid(rows, (30, 18, 22, 22, 20, 20, 22), ("LEFT",) + ("RIGHT",) * 6)
        for o in c.options:
            if o.available and o.capacity_rule:
                self.caption(f"{o.label}: {plain(o.capacity_rule, 400)}.")
            if o.available and o.hardware_refreshes:
                self.caption(f"{o.label}, hardware refresh: {'; '.join(refresh_lines(o))}.")
        rows = delay_rows(c)
        n = len(rows[0]) - 3
        self.heading("Delay per workload", 10)
        self.caption(
            "Days each workload's work waited for capacity: the longest and the mean (a run's "
            "start less its release; steady work weighted by its GPU-hours)."
        )
        self.grid(
            [[plain(x, 60) for x in r] for r in rows],
            (30, 20, 16, *(114 / max(n, 1),) * n),
            ("LEFT", "LEFT", "LEFT") + ("RIGHT",) * n,
            7.4,
        )
        for line in delay_notes(c):
            self.caption(plain(line, 400) + ".")
        self.option_table(
            "Chargeback by team",
            "Each team's share of an option's total cost (nominal): the total times the team's "
            "share of the GPU-hours served; idle capacity is shared in the same proportion.",
            chargeback_rows(c),
        )
        if len(rows := token_cost_rows(c)) > 1:
            self.option_table(
                "Serving cost per million output tokens", sentence(TOKEN_COST_NOTE) + ".", rows
            )
        first = next(iter(svgs.values()), None)  # the heading stays with its first chart
        keep = self.chart_height(first) + 8 if first is not None else 30
        self.heading("Monthly capacity against demand", 10, keep=keep)
        if svgs:
            self.draw_charts(svgs)
        elif note:
            self.caption(note)
        rows = monthly_capacity_rows(c)
        n = len(rows[0]) - 2
        self.caption("GPU-hours demanded each month and the GPUs each option holds.")
        self.grid(
            rows,
            (14, 28, *(138 / max(n, 1),) * n),
            ("RIGHT",) * (n + 2),
            7.2,
        )

    def numbers(self) -> None:
        c = self.c
        live = [o for o in c.options if o.available]
        self.heading("The numbers behind the charts")
        self.caption("Nominal USD unless marked NPV; days count from the start of the term.")
        if live:
            self.heading("Cumulative cost at the end of each month", 10, 2)
            share = 150 / len(live)
            rows = [["Month", *(o.label for o in live)]]
            rows += [
                [str(m + 1), *(usd(o.cumulative_usd[m]) for o in live)]
                for m in range(len(live[0].cumulative_usd))
            ]
            self.grid(rows, (30, *(share,) * len(live)), ("RIGHT",) * (len(live) + 1), 7.2)
            cats = list(
                dict.fromkeys(
                    [k for k in CATEGORY_COLORS if any(k in o.breakdown_usd for o in live)]
                    + [k for o in live for k in o.breakdown_usd]
                )
            )
            self.heading("Cost breakdown by category over the term", 10)
            rows = [["Category", *(o.label for o in live)]]
            rows += [
                [k, *(usd(o.breakdown_usd[k]) if k in o.breakdown_usd else "-" for o in live)]
                for k in cats
            ]
            rows.append(["Total", *(usd(o.total_usd) for o in live)])
            self.grid(rows, (30, *(share,) * len(live)), ("LEFT",) + ("RIGHT",) * len(live))
            self.heading("Provisioning and time to first result", 10)
            run = words(c.scenario).run_column
            rows = [["Option", "Ready", run, "First result", "Phases (start and end day)"]]
            for o in live:
                phases = "; ".join(
                    f"{p.phase} {p.start_day:,.0f}–{p.end_day:,.0f}" for p in o.timeline
                )
                rows.append(
                    [
                        o.label,
                        on_day(o.ready_day),
                        days(o.train_days),
                        on_day(o.first_result_day),
                        phases,
                    ]
                )
            self.grid(rows, (28, 18, 18, 22, 94), ("LEFT", "RIGHT", "RIGHT", "RIGHT", "LEFT"))
            for line in power_line(c):  # the power each option draws (app/site_text.py)
                self.text_block(plain(line, 600) + ".", 8.5, MUTED)
        curve = c.training.curve
        if curve:
            self.heading("Training time against GPU count", 10)
            rows = [
                [
                    "GPUs",
                    "Step (s)",
                    "MFU",
                    "Ideal",
                    "With failures",
                    "GPU-hours",
                    "Scaling efficiency",
                ]
            ]
            for p in curve:
                mark = " (chosen)" if p.gpus == c.training.gpus else ""
                rows.append(
                    [
                        f"{p.gpus:,}{mark}",
                        f"{p.step_time_s:.2f}",
                        pct(p.mfu, 1),
                        days(p.ideal_days),
                        days(p.train_days),
                        si(p.gpu_hours),
                        pct(p.scaling_efficiency),
                    ]
                )
            self.grid(rows, (30, 20, 20, 24, 30, 26, 30), ("LEFT",) + ("RIGHT",) * 6)
        self.decision()

    def decision(self) -> None:
        c = self.c
        labels = {o.option: o.label for o in c.options}
        s = c.sensitivity
        if s is not None and s.bars:
            a, b = labels.get(s.cheapest, s.cheapest), labels.get(s.runner_up, s.runner_up)
            swing = round(100 * s.swing)
            self.heading("Sensitivity of the recommendation", 10)
            self.caption(
                f"NPV of {b} minus NPV of {a} (today {usd(s.base_gap_usd)}) with each input "
                f"{swing} % lower or higher; below zero, {b} becomes the cheaper."
            )
            rows = [["Input", "Value now", f"Gap at −{swing} %", f"Gap at +{swing} %"]]
            rows += [
                [
                    bar.label,
                    f"{_num(bar.base_value)} {bar.unit}",
                    usd(bar.gap_low_usd),
                    usd(bar.gap_high_usd),
                ]
                for bar in s.bars
            ]
            self.grid(rows, (70, 40, 35, 35), ("LEFT", "RIGHT", "RIGHT", "RIGHT"))
        u = c.uncertainty
        if u is not None and u.options:
            self.heading("Uncertainty of the cost", 10)
            self.caption(
                f"NPV over the term across {u.draws:,} random draws of the uncertain inputs."
            )
            rows = [["Option", "P10", "Median", "P90", "Cheapest in", "Completes in"]]
            for key, q in u.options.items():
                rows.append(
                    [
                        labels.get(key, key),
                        usd(q.p10_usd),
                        usd(q.p50_usd),
                        usd(q.p90_usd),
                        pct(q.probability_cheapest),
                        pct(q.probability_completes),
                    ]
                )
            self.grid(rows, (40, 28, 28, 28, 28, 28), ("LEFT",) + ("RIGHT",) * 5)
        if c.flip_points:
            self.heading("Flip points (where the cheapest option changes)", 10)
            for f in c.flip_points:
                self.text_block(f"• {f.text}", 8.5)

    def assumptions(self) -> None:
        self.heading("Assumptions and their sources")
        self.caption(
            "Every figure the comparison used, with its source and the date the source gives "
            "(blank for figures derived from other rows or taken from the scenario)."
        )
        rows = [["Figure", "Value", "Unit", "Source", "As of"]]
        for a in self.c.assumptions:
            value = _num(a.value) + (" (yours)" if a.overridden else "")
            rows.append([a.key, value, a.unit, range_cell(a) + a.source, a.as_of])
        self.grid(
            rows, (44, 17, 25, 76, 18), ("LEFT", "RIGHT", "LEFT", "LEFT", "LEFT"), 7, header=True
        )

    #: each kind of scenario's (models/scenario.py `Scenario.kind`) description of its work for
    #: the scenario table, and the sections it adds after the charts
    WORK_OF = {"run": _run_work, "portfolio": _portfolio_work}
    SECTIONS_OF = {"run": (), "portfolio": (demand_capacity,)}

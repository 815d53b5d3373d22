"""The typed result of `compare`: what the engine hands to the page, the PDF, the CSV/JSON and the
CLI. Every field is named with its unit; presentation reads these fields and never recomputes
what is here (cheapest, fastest, staff, spares, per-unit costs).

`Comparison.model_dump(mode="json")` is `clusterplan compare --json`.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from models.infrastructure import FabricPlan
from models.portfolio.service import ServiceLevel
from models.record import Record
from models.scenario import Scenario
from models.training.plan import (
    Checkpoint,
    CurvePoint,
    EfficientSize,
    Layout,
    ScalingNote,
    StorageNeeds,
    TrainingPlan,
)


def _empty(v) -> bool:
    """Portfolio fields are left out of a version 1 result's JSON, which stays as it was."""
    return v is None or v == "" or v == [] or v == {}


class Phase(Record):
    """One provisioning phase of an option, in days from the decision (day 0)."""

    phase: str
    start_day: float
    end_day: float
    note: str


class HardwareRefresh(Record):
    """One refresh of an owned cluster's hardware (options.build_refresh_after_months), days from
    the decision: new hardware ordered, accepted, and the day the hardware it replaces is sold
    at the refresh age (its purchase and that sale are in the `hardware` and `residual value`
    lines; a gap when the lead time is longer than the age)."""

    generation: int
    gpus: int
    order_day: float
    ready_day: float
    replaced_sold_day: float


class WorkloadDelay(Record):
    """One workload of a portfolio under an option's capacity plan (models/portfolio/capacity.py): its
    GPU-hours and how long its work waited. Delays: a run's start less its release; flat work's
    GPU-hour-weighted wait; work still waiting at the term end counts its wait until then."""

    name: str
    team: str
    kind: str
    demanded_gpu_hours: float
    served_gpu_hours: float
    queued_gpu_hours: float
    beyond_term_gpu_hours: float
    delay_days_max: float | None
    delay_days_mean: float | None
    runs: int
    runs_finished: int
    #: why some of its runs can never be served on this plan (None when all can)
    never_served: str | None = None


class SitePower(Record):
    """The power an option's cluster draws and what the buyer's site needs for it
    (pricing/site_power.py): IT kW = nodes × node power; facility kW = IT × PUE."""

    it_power_kw: float
    facility_power_kw: float
    pue: float
    #: how its racks are cooled: "air" or "liquid" (rack-scale NVL72)
    cooling: str
    #: the buyer owns the hardware, so it draws on the buyer's site (else the provider's)
    on_buyer_site: bool
    #: the facility upgrade it needs beyond the stated site, in words ("" when none)
    upgrade: str = ""
    #: the upgrade's length in days (it ends the facility phase) and its cost, USD (the
    #: `facility upgrade` line); None without an upgrade
    upgrade_days: float | None = None
    upgrade_usd: float | None = None


class WorkloadTimeValue(Record):
    """One portfolio workload's value of time on an option (pricing/time_value.py): its mean delay
    less the least mean delay on any completing option, at its value per day."""

    name: str
    value_usd_per_day_earlier: float
    delay_days: float
    value_usd: float


class TimeValue(Record):
    """What an option's later results are worth to the buyer (pricing/time_value.py): an adjustment
    to its NPV in the ranking only, never a cash flow or part of a total."""

    #: Σ value per day × days later than the earliest completing option (0 for the earliest)
    value_usd: float
    #: one run: days its first result comes after the earliest option's; a portfolio: its
    #: workloads' delays weighted by their value per day
    delay_days: float
    #: the NPV the ranking reads: npv_usd + value_usd
    ranked_npv_usd: float
    #: one run: the runs whose results are valued, and the option whose first result is earliest
    runs: float | None = Field(None, exclude_if=_empty)
    earliest_label: str | None = Field(None, exclude_if=_empty)
    #: a portfolio: each workload with a value per day
    workloads: list[WorkloadTimeValue] = Field(default_factory=list, exclude_if=_empty)


class TimeTrade(Record):
    """The recommendation's value of time against one other option (pricing/time_value.py
    `trade`): the option cheapest in cash when that is not the recommended one, else the
    runner-up in the ranking."""

    option: str
    label: str
    npv_usd: float
    #: the other option's value of time, and the recommended option's
    value_usd: float
    best_value_usd: float
    #: how many days later the other option's results come (negative: earlier), as TimeValue
    #: measures them
    days_later: float


class OptionResult(Record):
    option: str
    label: str
    available: bool
    note: str = ""
    total_usd: float
    npv_usd: float
    #: after tax (pricing/tax.py): expenses deducted as paid, hardware depreciated, sale taxed
    total_after_tax_usd: float = 0.0
    npv_after_tax_usd: float = 0.0
    monthly_usd: list[float]
    cumulative_usd: list[float]
    breakdown_usd: dict[str, float]
    #: the monthly cash flows by category (the CSV export's rows)
    monthly_by_category_usd: dict[str, list[float]] = Field(default_factory=dict)
    residual_value_usd: float
    delivered_gpu_hours: float
    usd_per_gpu_hour: float | None
    runs_completed: float
    usd_per_training_run: float | None
    completes_workload: bool
    train_days: float
    timeline: list[Phase]
    ready_day: float
    #: the power it draws and any facility upgrade it needs (None: not available)
    power: SitePower | None = None
    first_result_day: float | None
    #: the option whose capacity runs the work from its start to this option's go-live
    #: (pricing/bridge.py; its cost is the `bridge` line); None: not bridged
    bridged_by: str | None = Field(None, exclude_if=_empty)
    #: the day its work starts on the bridge (before its ready day); None: not bridged
    work_start_day: float | None = Field(None, exclude_if=_empty)
    #: what its bridge pays per GPU-hour, and which price that is (options.bridge_price for a
    #: dedicated bridge, a managed one with the managed premium; cloud on demand at its own
    #: price); None: not bridged
    bridge_usd_per_gpu_hour: float | None = Field(None, exclude_if=_empty)
    bridge_price: Literal["committed_1y", "on_demand", "cloud_on_demand"] | None = Field(
        None, exclude_if=_empty
    )
    #: a portfolio's runs and jobs released before its go-live: how many the bridge took (they
    #: would have waited longer than their maximum wait) and how many wait for the go-live
    #: within it (pricing/planning/bridging.py); None: not bridged, or one run
    bridge_runs: int | None = Field(None, exclude_if=_empty)
    bridge_runs_waiting: int | None = Field(None, exclude_if=_empty)
    #: with a deadline (cluster.deadline_days, days from the decision on day 0, provisioning
    #: included): whether the first run ends by then (False when no run ends in the term); None
    #: without a deadline or for an option that is not available
    meets_deadline: bool | None = None
    #: days from the deadline to the first run's end when that is later, else 0; None without a
    #: deadline, when no run ends in the term, or for an option that is not available
    days_past_deadline: float | None = None
    #: other option id -> first month (1-based) from which this one stays cheaper, or None
    breakeven_month: dict[str, int | None]
    #: the same on the discounted cumulative cost (each month's flow at the scenario's discount
    #: rate, as the NPV counts it): the break-even on the basis the recommendation ranks on
    breakeven_month_npv: dict[str, int | None] = Field(default_factory=dict, exclude_if=_empty)
    # --- a portfolio (scenario version 2; empty or None for version 1): the option's capacity
    # plan (pricing/planning/) and what it serves (models/portfolio/capacity.py)
    #: the plan's size (fixed-size options) or its largest month (per use), GPUs; and its rule
    capacity_size_gpus: int | None = Field(None, exclude_if=_empty)
    capacity_rule: str = Field("", exclude_if=_empty)
    #: whether its plan's waits meet every workload's max_wait_days, and who waits longer
    #: (models/portfolio/service.py); None for a version 1 scenario
    service_level: ServiceLevel | None = Field(None, exclude_if=_empty)
    #: a rented, managed or committed option of two contracts (pricing/planning/ step
    #: down, step up): the GPUs held from the day the second starts, and that day; None: one
    resized_gpus: int | None = Field(None, exclude_if=_empty)
    resized_day: float | None = Field(None, exclude_if=_empty)
    #: GPUs held each month (0 before the ready day; a share of the ready month)
    capacity_gpus: list[float] = Field(default_factory=list, exclude_if=_empty)
    #: GPU-hours the demand asks for each month, unconstrained (the same for every option)
    demand_gpu_hours: list[float] = Field(default_factory=list, exclude_if=_empty)
    served_gpu_hours_by_month: list[float] = Field(default_factory=list, exclude_if=_empty)
    idle_gpu_hours_by_month: list[float] = Field(default_factory=list, exclude_if=_empty)
    #: demanded = served + queued (released, not started by the term end) + beyond the term
    #: (started, finishing after it)
    demanded_gpu_hours: float | None = Field(None, exclude_if=_empty)
    served_gpu_hours: float | None = Field(None, exclude_if=_empty)
    queued_gpu_hours: float | None = Field(None, exclude_if=_empty)
    beyond_term_gpu_hours: float | None = Field(None, exclude_if=_empty)
    #: GPU-hours held and not working: capacity × hours − served
    idle_gpu_hours: float | None = Field(None, exclude_if=_empty)
    workload_delays: list[WorkloadDelay] = Field(default_factory=list, exclude_if=_empty)
    #: team -> its share of the option's total cost (nominal, USD): total × the team's share of
    #: the served GPU-hours (idle capacity is shared in the same proportion)
    chargeback_usd: dict[str, float] = Field(default_factory=dict, exclude_if=_empty)
    #: a portfolio's serving workloads: each one's share of the option's total (as the chargeback
    #: shares it: by GPU-hours served, idle capacity in the same proportion) per million output
    #: tokens it serves over the term (its requests each month × output tokens, times the share
    #: of its GPU-hours served); none where it serves nothing
    usd_per_million_output_tokens: dict[str, float] = Field(default_factory=dict, exclude_if=_empty)
    #: an owned option's hardware refreshes, in order (empty without options.build_refresh_after_months)
    hardware_refreshes: list[HardwareRefresh] = Field(default_factory=list, exclude_if=_empty)
    #: with a value per day of earlier results (usage or a workload's
    #: value_usd_per_day_earlier): what its later results are worth, added to its NPV in the
    #: ranking only (pricing/time_value.py); None without one or for an option not ranked
    value_of_time: TimeValue | None = Field(None, exclude_if=_empty)

    @classmethod
    def unavailable(cls, option: str, label: str, note: str, months: int) -> OptionResult:
        """An option the catalogue cannot offer for this scenario: no flows, never ranked."""
        zeros = [0.0] * months
        return cls(
            option=option,
            label=label,
            available=False,
            note=note,
            total_usd=0.0,
            npv_usd=0.0,
            monthly_usd=zeros,
            cumulative_usd=zeros,
            breakdown_usd={},
            residual_value_usd=0.0,
            delivered_gpu_hours=0.0,
            usd_per_gpu_hour=None,
            runs_completed=0.0,
            usd_per_training_run=None,
            completes_workload=False,
            train_days=0.0,
            timeline=[],
            ready_day=0.0,
            first_result_day=None,
            breakeven_month={},
        )


class OptionNpv(Record):
    """An option the recommendation is weighed against: who, and its base NPV."""

    option: str
    label: str
    npv_usd: float


class DeadlineMiss(Record):
    """An option that misses the deadline: when its first run ends (None: none ends in the term)
    and how many days after the deadline."""

    option: str
    label: str
    npv_usd: float
    first_result_day: float | None
    days_past_deadline: float | None


class WorkloadWait(Record):
    """A portfolio workload whose longest wait on the recommended option is at least
    pricing/decision.py WAIT_NOTE_DAYS more than on the compared option where it waits least."""

    name: str
    delay_days_max: float
    least_delay_days_max: float
    least_label: str


class DemandShape(Record):
    """A portfolio's demand shape against the recommended option (pricing/decision.py
    demand_shape): the busiest month's GPUs at work and the mean of the months with work, the
    share of the GPU-hours the recommendation holds that sit idle, and the most idle other
    completing option's."""

    peak_gpus: float
    mean_gpus: float
    #: how the recommended option is billed (models/options.py Billing value)
    billing: str
    most_idle_label: str | None = None
    most_idle_share: float | None = None


class Recommendation(Record):
    """The cheapest option by NPV among those that complete the workload, the facts it rests on,
    and how sure that answer is (pricing/decision.py `recommend` states the rules). The facts
    only: app/recommendation_text.py writes them in words."""

    option: str | None
    label: str | None = None
    #: the option whose first run finishes soonest
    fastest_option: str | None = None
    #: the recommended option's chance of being cheapest over the Monte Carlo draws (None: no
    #: Monte Carlo ran, e.g. decision support off or fewer than two options)
    probability_cheapest: float | None = None
    #: True when the Monte Carlo cannot tell the recommended option from its closest contender
    close_call: bool = False
    #: when a close call: the recommended option and its closest contender (option ids)
    contenders: list[str] = Field(default_factory=list)
    #: a portfolio's service level (max_wait_days): False when no option meets it (the answer
    #: says so and names `closest_service`); None for a version 1 scenario or without a choice
    meets_service_level: bool | None = Field(None, exclude_if=_empty)
    #: the cheaper options left out for keeping work waiting longer than it accepts
    cheaper_but_slow: list[OptionNpv] = Field(default_factory=list, exclude_if=_empty)
    #: when no option meets the service level: the one with the least excess wait, and its misses
    closest_service: OptionNpv | None = Field(None, exclude_if=_empty)
    closest_service_level: ServiceLevel | None = Field(None, exclude_if=_empty)
    #: with a deadline: whether the recommended option's first run ends by it (False: no option
    #: does, and the answer says so); None without a deadline or without a recommendation
    meets_deadline: bool | None = None
    #: a portfolio's demand shape (pricing/decision.py demand_shape): the largest month's peak
    #: GPUs over the mean of the months with work, and the share of the recommended option's held
    #: GPU-hours left idle; None for a version 1 scenario
    peak_to_mean_demand: float | None = Field(None, exclude_if=_empty)
    idle_share: float | None = Field(None, exclude_if=_empty)
    #: why there is no recommendation: no compared option can be offered ("unavailable", with
    #: each one's reason in `unavailable_notes`, "label: note"), or none completes the workload
    #: within the term ("incomplete"); None when there is one
    none_reason: Literal["unavailable", "incomplete"] | None = Field(None, exclude_if=_empty)
    unavailable_notes: list[str] = Field(default_factory=list, exclude_if=_empty)
    #: the recommended option's base NPV, over a term of `months`; its ready day and the end of
    #: its first run (None: none ends in the term)
    npv_usd: float | None = Field(None, exclude_if=_empty)
    months: int | None = Field(None, exclude_if=_empty)
    ready_day: float | None = Field(None, exclude_if=_empty)
    first_result_day: float | None = Field(None, exclude_if=_empty)
    #: the fastest option's label and the end of its first run
    fastest_label: str | None = Field(None, exclude_if=_empty)
    fastest_first_result_day: float | None = Field(None, exclude_if=_empty)
    #: the next cheapest by base NPV among the options it was chosen from
    runner_up: OptionNpv | None = Field(None, exclude_if=_empty)
    #: with a Monte Carlo: the other option cheapest in the most draws (the close call's other
    #: side), its share of the draws, and the number of draws
    contender: OptionNpv | None = Field(None, exclude_if=_empty)
    contender_probability_cheapest: float | None = Field(None, exclude_if=_empty)
    draws: int | None = Field(None, exclude_if=_empty)
    #: half the P10–P90 width of the contender's NPV gap over the draws (None: not measured), and
    #: whether the base gap is smaller (one of the two close-call tests)
    gap_spread_usd: float | None = Field(None, exclude_if=_empty)
    gap_within_spread: bool = Field(False, exclude_if=lambda v: not v)
    #: the deadline (days, provisioning included), when the scenario sets one
    deadline_days: float | None = Field(None, exclude_if=_empty)
    #: some options meet the deadline and some miss it: the recommendation is among the first,
    #: and these cheaper ones miss it (cheapest first)
    chosen_on_time: bool = Field(False, exclude_if=lambda v: not v)
    cheaper_but_late: list[DeadlineMiss] = Field(default_factory=list, exclude_if=_empty)
    #: no option meets the deadline: the one whose first result comes soonest
    closest_late: DeadlineMiss | None = Field(None, exclude_if=_empty)
    demand_shape: DemandShape | None = Field(None, exclude_if=_empty)
    #: workloads that wait much longer on the recommendation (the longest first, at most
    #: pricing/decision.py WAIT_NOTE_NAMES), and how many more do
    longer_waits: list[WorkloadWait] = Field(default_factory=list, exclude_if=_empty)
    longer_waits_more: int = Field(0, exclude_if=lambda v: not v)
    #: bridging off (options.bridge) and the options deliver different work: ranked by NPV per
    #: delivered unit ("GPU-hour" for steady use, "run" for runs; pricing/decision.py
    #: `per_delivered_unit`), with the recommended option's and the runner-up's NPV per unit
    ranked_per: str | None = Field(None, exclude_if=_empty)
    npv_per_unit_usd: float | None = Field(None, exclude_if=_empty)
    runner_up_npv_per_unit_usd: float | None = Field(None, exclude_if=_empty)
    #: with a value of time (pricing/time_value.py): ranked on NPV + value of time; the
    #: recommended option's value of time and ranked NPV, and the trade against the option
    #: cheapest in cash (or the runner-up)
    value_of_time_usd: float | None = Field(None, exclude_if=_empty)
    ranked_npv_usd: float | None = Field(None, exclude_if=_empty)
    time_trade: TimeTrade | None = Field(None, exclude_if=_empty)


class TornadoBar(Record):
    key: str
    label: str
    base_value: float
    #: the input's value at the bar's low and high ends: base_value × (1 ∓ swing), or its range's
    #: ends where it has one (pricing/ranges.py range_of)
    low_value: float
    high_value: float
    unit: str
    #: NPV gap runner-up − cheapest with the input at low_value and high_value (None: not finite)
    gap_low_usd: float | None
    gap_high_usd: float | None


class Tornado(Record):
    """Each key input moved by ±swing (or to its range's ends): how the NPV gap between the two cheapest options moves, or
    in a close call between the recommended option and its contender (Recommendation.contenders:
    the option cheapest in the most draws, which need not be the second cheapest by NPV)."""

    cheapest: str
    #: the option the gap is measured to: the second cheapest, or the close call's contender
    runner_up: str
    swing: float
    base_gap_usd: float
    bars: list[TornadoBar]


class OptionUncertainty(Record):
    p10_usd: float | None
    p50_usd: float | None
    p90_usd: float | None
    probability_cheapest: float
    probability_completes: float
    #: this option's NPV minus the base case's cheapest option's (`Uncertainty.cheapest`), P10 and
    #: P90 over the draws where both complete; None for the cheapest itself or when no draw has both
    gap_p10_usd: float | None = None
    gap_p90_usd: float | None = None


class Uncertainty(Record):
    """Monte Carlo over the key inputs: NPV percentiles and the chance each option is cheapest."""

    draws: int
    seed: int
    #: the inputs drawn (pricing/decision.py states their spreads and correlations)
    varied: list[str]
    options: dict[str, OptionUncertainty]
    #: the option cheapest with every input at its base value (None: no option completes)
    cheapest: str | None = None


class FlipPoint(Record):
    """The value of one input at which the cheapest option changes."""

    key: str
    label: str
    unit: str
    base_value: float
    flip_value: float
    direction: str  # "below" or "above" today's value
    cheapest_now: str
    cheapest_after: str
    text: str


class Assumption(Record):
    """One figure the engine used, with its unit, source and date."""

    key: str
    value: float | None
    unit: str
    source: str
    as_of: str
    overridden: bool
    note: str
    #: the range the tornado swings it to and the Monte Carlo draws it across (pricing/ranges.py
    #: range_of), in its unit, and where that range comes from; None for a figure without one
    range_low: float | None = Field(None, exclude_if=_empty)
    range_high: float | None = Field(None, exclude_if=_empty)
    range_source: str = Field("", exclude_if=_empty)


class PriceInversion(Record):
    """A committed figure (a rental's or a cloud commitment's rate) above the on-demand figure for
    the same GPUs (pricing/price_checks.py): said, not changed."""

    #: the committed figure's key, e.g. "cloud_committed_1y_usd_per_gpu_hour"
    key: str
    #: the options that pay it
    labels: list[str]
    #: the GPUs both figures are for (the option's size)
    gpus: int
    usd_per_gpu_hour: float
    source: str
    on_demand_usd_per_gpu_hour: float
    on_demand_source: str


class StalePrice(Record):
    """A figure the answer depends on whose date is more than 12 months before the catalogue's
    newest (pricing/catalogue/freshness.py says which figures count and how a derived one is dated)."""

    key: str
    #: the figure as a reader knows it, e.g. "H100-SXM server price"
    label: str | None = None
    #: the figure's date (YYYY-MM-DD): its own, or for a figure computed from catalogue rows the
    #: date of the rows it came from
    as_of: str
    #: whole months from `as_of` to `Comparison.catalogue_as_of`
    age_months: int
    source: str


class DeadlineAnswer(Record):
    """How a deadline sized one run, counted from the decision (pricing/deadline.py `answer`): the
    compared option that can deliver first, its ready day and its own days of one run, on the
    GPU count chosen; the same answer on Compare, the Workload page and `clusterplan train`."""

    deadline_days: float
    option: str
    label: str
    gpus: int
    gpu: str
    ready_day: float
    #: one run's wall-clock days on that option (a managed service's faster restarts shorten it)
    run_days: float
    first_result_day: float
    plan: TrainingPlan


class TrainingSummary(Record):
    """The training plan the options run, with the infrastructure sized for it."""

    model: str
    gpu: str
    gpus: int
    nodes: int
    layout: Layout
    step_time_s: float
    mfu: float
    ideal_days: float
    goodput: float
    #: the whole-run expectation (models/training/plan.py TrainingPlan.train_days): costs use it
    train_days: float
    train_days_low: float | None = None
    train_days_high: float | None = None
    gpu_hours_per_run: float
    #: the steady-state run and the factor between the two (TrainingPlan.steady_days)
    steady_days: float | None = None
    steady_gpu_hours_per_run: float | None = None
    whole_run_factor: float = 1.0
    it_power_kw: float
    storage_tb: float
    #: usable TB of the parallel file system an owned cluster buys (pricing/cashflows.py
    #: storage_system) and what sized it: "capacity", "bandwidth" or "minimum system"
    storage_system_tb: float = 0.0
    storage_sized_by: str = ""
    fabric_switches: int
    transceivers: int
    memory_gib_per_gpu: dict[str, float]
    memory_capacity_gib: float
    tokens_per_s: float
    sizing: str
    min_gpus: int | None
    #: deadline sizing: the wall-clock training days the GPU count was sized to fit, the deadline
    #: less the provisioning of `deadline_sized_for` (pricing/engine.py `size_for_deadline`)
    train_days_budget: float | None = None
    #: deadline sizing: the option the budget leaves provisioning time for (the one that can
    #: deliver first); None without a deadline
    deadline_sized_for: str | None = None
    checkpoint: Checkpoint
    fabric: FabricPlan
    storage: StorageNeeds
    chosen_gpus: int
    #: training time against GPU count (empty when the plan was made without it)
    curve: list[CurvePoint] = Field(default_factory=list)
    #: the efficient size beside the chosen count on that curve (models/training/plan.py EfficientSize)
    efficient: EfficientSize | None = None
    #: the chosen count against half of it (models/training/plan.py ScalingNote)
    scaling: ScalingNote | None = None


class Operations(Record):
    """What running the cluster takes, as the engine costs it (owned options)."""

    #: operations team the build option pays for (pricing/cashflows.py staff_fte)
    staff_fte: float
    #: platform team the buyer still pays on rented or cloud capacity (scheduler, storage,
    #: software stack, job debugging); managed options pay none (models/options.py Staffing)
    rented_staff_fte: float
    #: spare servers bought with the cluster (nodes × spares_pct_of_nodes)
    spare_nodes: float
    #: failures per GPU-day the reliability model uses (the GPU's rate × failure_rate_multiplier)
    failures_per_gpu_day: float
    #: job interruptions a week on the planned GPUs (failures per GPU-day × GPUs × 7)
    interruptions_per_week: float
    #: the owned hardware bought, line by line, USD (pricing/cashflows.py hardware_capex; the
    #: lines sum to what the build option pays for hardware)
    hardware_capex_usd: dict[str, float] = Field(default_factory=dict)
    #: head, login and management servers bought (pricing/cashflows.py mgmt_servers)
    mgmt_servers: float = 0.0
    #: racks the GPUs fill and how they are cooled ("air" or "liquid")
    racks: int = 0
    cooling: str = ""


class PortfolioDemand(Record):
    """A portfolio's monthly demand, unconstrained (models/portfolio/demand.py), and the workload the costs
    size storage and checkpoints for (pricing/planning/representative.py representative_run)."""

    months: int
    gpu_hours: list[float]
    peak_gpus: list[float]
    gpu_hours_by_team: dict[str, list[float]]
    gpu_hours_by_kind: dict[str, list[float]]
    peak_gpus_by_team: dict[str, list[float]]
    peak_gpus_by_kind: dict[str, list[float]]
    demanded_gpu_hours: float
    #: work that even started on release would finish after the term end
    beyond_term_gpu_hours: float
    representative_model: str
    #: the workload the representative run is one run of (None: the portfolio trains nothing and
    #: the run is the largest served model's, sized only for storage and checkpoints)
    representative_workload: str | None = None
    #: its kind: "pretrain" (the run is the demand's own plan of it) or "finetune" (planned as a
    #: full-parameter run of its model and tokens, which sizes storage and checkpoints)
    representative_kind: str | None = None
    #: the GPUs that run's plan uses (the count the demand gave it; the summary's days, layout and
    #: MFU are on this count, the infrastructure on the option's size)
    representative_gpus: int = 0


class IdleGangNote(Record):
    """A fixed-size option held mostly idle because one gang run, planned at the efficient size
    (no GPU count from the buyer), sets its size (pricing/idle_capacity.py), and the remedy: the
    workload's `gpus` at the count where one run takes its longest acceptable time, with the
    option's cost there (the same scenario -> comparison, rerun)."""

    option: str
    label: str
    size_gpus: int
    idle_share: float
    workload: str
    field: str  # e.g. "workloads[0].gpus"
    run_gpus: int
    run_days: float
    runs_per_month: float
    #: the longest one run may take: the spacing of its runs, or less where the last run
    #: would otherwise end past the term; and which of the two it is ("spacing" | "term")
    longest_run_days: float
    longest_by: str
    #: the fewest GPUs (the deadline rule) whose run fits longest_run_days; None: none smaller
    smaller_gpus: int | None = None
    smaller_run_days: float | None = None
    #: the option rerun with workloads[i].gpus = smaller_gpus: its size, cost and service level
    smaller_size_gpus: int | None = None
    smaller_total_usd: float | None = None
    smaller_npv_usd: float | None = None
    smaller_idle_share: float | None = None
    smaller_meets_service_level: bool | None = None
    total_usd: float = 0.0
    npv_usd: float = 0.0


class Comparison(Record):
    scenario: Scenario
    training: TrainingSummary
    options: list[OptionResult]
    recommendation: Recommendation
    #: None when fewer than two options can be compared
    sensitivity: Tornado | None
    uncertainty: Uncertainty | None
    flip_points: list[FlipPoint]
    assumptions: list[Assumption]
    catalogue_as_of: str
    operations: Operations
    #: figures the answer depends on dated more than 12 months before `catalogue_as_of`
    #: (pricing/catalogue/freshness.py); overrides are never stale
    stale_prices: list[StalePrice] = Field(default_factory=list)
    #: keys of the figures the answer depends on that no public source gives (planner defaults)
    planner_defaults: list[str] = Field(default_factory=list)
    #: committed figures above the on-demand figure for the same GPUs (pricing/price_checks.py)
    price_inversions: list[PriceInversion] = Field(default_factory=list, exclude_if=_empty)
    #: a portfolio's demand (scenario version 2); None for version 1
    portfolio: PortfolioDemand | None = Field(None, exclude_if=_empty)
    #: fixed-size options held mostly idle for a rare run at the efficient size, with the remedy
    #: (pricing/idle_capacity.py); empty where none is
    idle_gang: list[IdleGangNote] = Field(default_factory=list, exclude_if=_empty)

    @property
    def run_gpus(self) -> int:
        """The GPUs the training summary's run uses: the cluster's for one run, the representative
        run's own count for a portfolio (its options' sizes are their capacity plans')."""
        return self.portfolio.representative_gpus if self.portfolio else self.training.gpus

    def option(self, option_id: str) -> OptionResult | None:
        """The result of one option, or None when it was not compared."""
        return next((o for o in self.options if o.option == option_id), None)

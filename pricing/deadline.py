"""A deadline, counted from the decision: the GPU count a one-run scenario is sized to, the option
it leaves room for, and, when no option can make it, the closest date any can. One answer for
Compare (pricing/engine.py), the Workload page, the PDF and `clusterplan train --deadline-days`.

A deadline (cluster.deadline_days) counts in days from the decision (day 0) to the end of the first
run, provisioning included: an option meets it when its first result day (ready day + its own
wall-clock days of one run) is on or before it."""

from __future__ import annotations

import math

from models.errors import InputError
from models.hardware import get_gpu
from models.numbers import on_day
from models.options import label
from models.portfolio.workloads import MAX_GPUS
from models.scenario import Scenario
from models.training.plan import TrainingPlan, plan_training
from pricing.catalogue.loader import Catalogue, load_catalogue
from pricing.delivery import ready_and_train_days
from pricing.inputs import CostInputs, build_inputs
from pricing.results import DeadlineAnswer
from pricing.valuation import base_params

#: most fixed-point steps of the deadline sizing: each step re-sizes for the provisioning of the
#: cluster sized by the step before; the GPU count only grows and settles within two or three
DEADLINE_SIZING_STEPS = 12


def _training_budgets(inp: CostInputs, deadline: float) -> dict[str, tuple[float, float]]:
    """option -> (training budget, ready day) on this plan's cluster. The budget is the core's
    training days (`TrainingPlan.train_days`) that let the option's first run end by the deadline:
    (deadline − ready day) × core days / the option's own days (a managed service's faster
    restarts and spot interruptions change them). Options the catalogue cannot offer are left
    out."""
    P = base_params(inp)
    out = {}
    for option in inp.scenario.options.compare:
        if option in inp.unavailable:
            continue
        ready, days = (float(x[0, 0]) for x in ready_and_train_days(inp, P, option))
        out[option] = ((deadline - ready) * inp.plan.train_days / days, ready)
    return out


def size_for_deadline(scenario: Scenario, catalogue: Catalogue) -> tuple[CostInputs, str | None]:
    """`_size_for_deadline`; where its fixed point finds no size, the fewest GPUs of the ladder on
    which a compared option's first run ends by the deadline (`_scan`: ready days grow with the
    cluster, so the fixed point can step past it); a deadline no option can meet is refused with
    the closest date any option can give and its size (`closest`)."""
    try:
        return _size_for_deadline(scenario, catalogue)
    except InputError as exc:
        if exc.field != "cluster.deadline_days":
            raise
        found = _scan(scenario, catalogue)  # the fixed point can step past a size that works
        if found is not None:
            return found
        raise _unmet(scenario, catalogue, str(exc).removeprefix(f"{exc.field}: ")) from None


def _size_for_deadline(scenario: Scenario, catalogue: Catalogue) -> tuple[CostInputs, str | None]:
    """The engine's inputs, with a deadline's GPU count leaving room for provisioning, and the
    option it left room for (None without a deadline).

    Rule: the fewest GPUs on which at least one compared option's first run ends by the deadline,
    i.e. training fits the deadline less the provisioning of the option that can deliver first
    (the largest budget of `_training_budgets`). Ready days grow with the cluster (procurement
    ramps with order size, racking with rack count, capacity bands with GPU count), so it is a
    fixed point: size for the whole deadline, take the budget the resulting cluster leaves, re-size
    for it, and repeat until the cluster fits its own budget. Options that provision more slowly
    may then miss the deadline; `compare` marks them. Refused (InputError naming
    cluster.deadline_days) when no option can deliver by the deadline."""
    deadline = scenario.cluster.deadline_days
    if deadline is None:
        return build_inputs(scenario, catalogue), None
    plan = _deadline_plan(scenario, deadline, None)
    for _ in range(DEADLINE_SIZING_STEPS):
        inp = build_inputs(scenario, catalogue, plan)
        budgets = _training_budgets(inp, deadline)
        if not budgets:  # nothing can be offered: the comparison says why
            return inp, None
        option = max(budgets, key=lambda o: budgets[o][0])
        budget, ready = budgets[option]
        if budget <= 0:
            raise InputError(
                "cluster.deadline_days",
                f"a {deadline:g}-day deadline cannot be met: the option that can deliver first, "
                f"{label(option)}, is ready on {on_day(ready)} for {plan.gpus:,} {plan.gpu}, "
                "before any training; allowed: a deadline after that day",
            )
        if plan.train_days <= budget * (1 + 1e-12):  # the cluster fits its own budget
            plan = plan.model_copy(update={"train_days_budget": budget})
            return build_inputs(scenario, catalogue, plan), option
        plan = _deadline_plan(scenario, deadline, (budget, ready, option))
    raise InputError(
        "cluster.deadline_days",
        f"the GPU count for a {deadline:g}-day deadline did not settle in "
        f"{DEADLINE_SIZING_STEPS} steps; try a looser deadline",
    )


def _deadline_plan(
    scenario: Scenario, deadline: float, target: tuple[float, float, str] | None
) -> TrainingPlan:
    """The core's plan (with its scaling curve) for the whole deadline, or for `target`'s training
    budget (budget, ready day, option); its refusal restated with the provisioning."""
    try:
        budget = None if target is None else target[0]
        return plan_training(scenario, curve=True, train_days_budget=budget)
    except InputError as exc:
        if exc.field != "deadline_days":
            raise
        if target is None:
            raise InputError("cluster.deadline_days", str(exc)) from None
        _, ready, option = target
        raise InputError(
            "cluster.deadline_days",
            f"a {deadline:g}-day deadline cannot be met: {label(option)}, the option that can "
            f"deliver first, is ready around {on_day(ready)}, and {exc}",
        ) from None


def first_results(inp: CostInputs) -> dict[str, tuple[float, float]]:
    """option -> (ready day, one run's wall-clock days on it) for every compared option the
    catalogue and the constraints offer, on the inputs' cluster."""
    P = base_params(inp)
    out = {}
    for option in inp.scenario.options.compare:
        if option not in inp.unavailable:
            ready, days = (float(x[0, 0]) for x in ready_and_train_days(inp, P, option))
            out[option] = (ready, days)
    return out


def answer(scenario: Scenario, catalogue: Catalogue | None = None) -> DeadlineAnswer | None:
    """How the deadline sized the run (None without a deadline, or when nothing can be offered):
    the option that can deliver first, its ready day, its own days of one run and so its first
    result, on the GPU count `size_for_deadline` chose."""
    if scenario.cluster.deadline_days is None:
        return None
    inp, option = size_for_deadline(scenario, catalogue or load_catalogue())
    if option is None:
        return None
    ready, days = first_results(inp)[option]
    return DeadlineAnswer(
        deadline_days=scenario.cluster.deadline_days,
        option=option,
        label=label(option),
        gpus=inp.plan.gpus,
        gpu=inp.plan.gpu,
        ready_day=ready,
        run_days=days,
        first_result_day=ready + days,
        plan=inp.plan,
    )


def _ladder(scenario: Scenario, catalogue: Catalogue):
    """(GPUs, inputs) on each count of the ladder that fits, fewest first: power-of-two node
    counts up to the schema's largest, each a fixed-size plan of the scenario's run."""
    data = scenario.model_dump(mode="json")
    node = get_gpu(scenario.cluster.gpu).gpus_per_node
    for n in sorted({node << i for i in range(20) if node << i <= MAX_GPUS}):
        data["cluster"] |= {"gpus": n, "deadline_days": None}
        try:
            yield n, build_inputs(Scenario.model_validate(data), catalogue)
        except InputError:
            continue  # no layout fits on n GPUs


def _scan(scenario: Scenario, catalogue: Catalogue) -> tuple[CostInputs, str] | None:
    """The fewest GPUs of the ladder on which a compared option's first run ends by the deadline,
    and that option (the one with the most training days to spare); None if no count does."""
    deadline = scenario.cluster.deadline_days
    for n, inp in _ladder(scenario, catalogue):
        budgets = _training_budgets(inp, deadline)
        fits = {o: b for o, b in budgets.items() if inp.plan.train_days <= b[0] * (1 + 1e-12)}
        if not fits:
            continue
        option = max(fits, key=lambda o: fits[o][0])
        data = scenario.model_dump(mode="json")
        data["cluster"] |= {"gpus": n, "deadline_days": None}
        plan = plan_training(Scenario.model_validate(data), curve=True)
        plan = plan.model_copy(update={"sizing": "deadline", "train_days_budget": fits[option][0]})
        return build_inputs(scenario, catalogue, plan), option
    return None


def closest(scenario: Scenario, catalogue: Catalogue) -> tuple[float, int, str] | None:
    """(first result day, GPUs, option): the earliest first result any compared option gives on
    any GPU count of the ladder, for a deadline none can meet; None if no count fits."""
    best = None
    for n, inp in _ladder(scenario, catalogue):
        for option, (ready, days) in first_results(inp).items():
            if best is None or ready + days < best[0]:
                best = (ready + days, n, option)
    return best


def _unmet(scenario: Scenario, catalogue: Catalogue, why: str) -> InputError:
    """The refusal of a deadline no option can meet, with the closest date any can and its size."""
    near = closest(scenario, catalogue)
    if near is None:
        return InputError("cluster.deadline_days", why)
    day, n, option = near
    why = why.split("; allowed:")[0]
    return InputError(
        "cluster.deadline_days",
        f"{why}. The earliest first result any option gives is {on_day(day)}: {n:,} "
        f"{scenario.cluster.gpu} on {label(option)}; allowed: a deadline of "
        f"{math.ceil(day):,} days or more (or a GPU count)",
    )

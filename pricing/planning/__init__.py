"""A capacity plan per option for a portfolio (scenario version 2): the demand is derived once
(models/portfolio/demand.py), each option gets one capacity vector, and models/portfolio/capacity.py `simulate` serves
the demand on it once (not per Monte Carlo draw). The option's cash-flow function then prices it
through a CostInputs whose GPU count is the plan's size and a Context from the simulation.

Plans (months are the term's; capacity is 0 before the option's ready day, pricing/timeline.py,
and a share of the ready month; the simulation gets it slot by slot, models/portfolio/capacity.py
`slot_capacity`, so no work is served and no run starts before the ready day):

- Fixed size (owned, rented, managed, committed cloud): `cluster.gpus` when given, else the
  smallest size in whole nodes, found by bisection, whose work left queued or running past the
  term is no more than the unconstrained demand's (`Demand.beyond_term_gpu_hours`); where no size
  achieves that (the option is ready too late), no more than the largest size searched achieves,
  and the option does not complete. Owned hardware is held to the term end, a rented or managed
  cluster for its commitment (pricing/cashflows.py `rental_end` from the end of the last served
  work), a committed cloud block for whole blocks. A contract (rented, managed, committed cloud)
  starts no earlier than the first month with work (`Planner.ready`: signed its provisioning
  time ahead of it, its timeline shown from then), and so is owned hardware bought as one cluster
  (`waits_for_work`: ordered its build timeline ahead, its resale priced at its own age), a
  hybrid's base too; with expansion phases or refreshes, which are timed by month and age, it is
  ordered on day 0. Where work
  waits for a contract's capacity after its ready month (`backlogged`), the sizes a node or two
  above it and LARGER_SIZE_FACTORS × it that serve as much are priced whole too, and the cheapest
  whole plan is kept: more GPUs finish the work sooner, and a commitment can end sooner.
- Step down (rented, managed, committed cloud, sized here rather than by `cluster.gpus`; not a
  whole-term rental): the first contract may end at the end of any commitment block from its
  minimum term on (day T), and a second contract of S GPUs, the demand's largest peak from T's
  month on in whole nodes, serves the rest, with its own inputs (price tier, setup fee, minimum
  term, platform team: `SecondContract`, replaces=True). Taken where S is at most STEP_MAX_SHARE
  of the size, for STEP_MIN_MONTHS or more, the two contracts cost less than one at the
  catalogue's base figures (`contract_usd`), and the simulation on the stepped capacity leaves no
  more work undone than one contract; the largest saving of STEP_TRIES candidates that passes
  wins, and is kept only where the whole plan, every cost line priced as the engine prices it,
  costs less than one contract (`Planner.total_usd`: two contracts side by side each pay
  storage and a platform team minimum, which `contract_usd` leaves out).
- Step up (the same options, where no step down is taken): a growing demand starts on a first
  contract of F GPUs, the demand's largest peak before month T in whole nodes (at most
  STEP_MAX_SHARE of the size, ready on its own timeline before T), and adds a second contract of
  size − F GPUs from the start of month T (ordered its provisioning time ahead; replaces=False),
  each held and priced as its own contract; chosen as the step down is.
- Per use (cloud on-demand, spot): elastic up to the demand's peak GPUs (its largest month, which
  sets the price tier) from the ready day, holding and billed on the GPU-hours served (spot: its training runs' GPU-hours plus the interruption overhead, as a version 1 run).
- Hybrid (a composite option, OptionSpec.composed_of = (base option, burst option)): an owned
  base of B GPUs (`cluster.gpus` when given, else of the months' peak GPUs at the
  HYBRID_BASE_PERCENTILES, each rounded up to whole nodes, at least one node, the one whose whole
  plan costs least at the catalogue's base figures, `cheapest_hybrid`), ready on the build timeline
  for B; and a per-use cloud burst elastic up to S = the largest month's peak GPUs less the base
  available that month (before the base is ready, the whole peak), from the cloud's ready day,
  priced at the on-demand / capacity-block figure of S GPUs. One simulation on base + burst; in
  each slot (≈ a day) the base serves first, min(GPUs in use, base), and the burst the rest
  (models/portfolio/in_use.py `served_within`; a gang run may span both: a simplification). Its flows are the base option's on the base's GPUs and
  served hours plus the burst option's on the burst's (pricing/cashflows.py `composed`): the
  owned team for the base, the rented platform team only in months the burst serves work.
  A version 1 scenario has no demand over time: hybrid is unavailable there (inputs.py).
- Expansion phases (owned options, build and managed on owned hardware; version 2 only):
  `options.build_expansions`, each g GPUs ordered at the start of month M, is ready on day
  M × DAYS_PER_MONTH + the option's ready day for an order of g GPUs (pricing/timeline.py on g
  GPUs and their nodes: the whole build timeline, facility included, for each phase), and adds g
  GPUs from then to the term end. A fixed size is searched with the phases' capacity added.
  Each phase is priced as its own owned cluster of g GPUs (its own inputs, Context shifted to its
  order day: deposit with its order, hardware on its acceptance with the scenario's financing,
  power, space, support, insurance, property tax from its own milestones, resale at its own age
  at term end), except that it buys no file system (the base's serves it) and only the
  management servers the larger cluster adds; one operations team is sized on the GPUs
  installed (pricing/cashflows.py `owned`). A hybrid's base has no phases.

- Hardware refresh (owned options, not a hybrid's base; version 2 only):
  `options.build_refresh_after_months` = A. The cluster's hardware (not its expansion phases) is
  sold each time it is A months old, at the resale curve at that age (residual_values.csv, as
  pricing/inputs.py prices the base at term end; `aged_years`), its loan repaid or lease ended
  then; a new cluster of the same size is ordered its lead time L ahead
  (pricing/timeline.py `refresh_lead_days`: the build timeline without the facility) and
  accepted that day, or L after the old one's acceptance when L > A (a gap without capacity).
  Each refresh is priced as its own owned cluster (its catalogue capex, deposit with its order,
  resale at its own age when it is itself refreshed or at term end) that buys no file system
  and no management servers and pays no space (the old one's serve it). The team stays.

Context per option (pricing/cashflows.py): busy = served GPU-hours / (size × hours of the month);
held as above; runs_done = finished gang runs, each counted by its model's weights over the
representative model's (so the egress line ships each run's own weights); completes = nothing is
queued or beyond the term that the unconstrained demand would have finished.

The training plan the costs read for storage, checkpoints and the summary is the representative
run's (`representative_run`), planned on the GPU count the demand gave one of its runs
(`plan_representative`); the option's size and fabric then set the infrastructure around it.
"""

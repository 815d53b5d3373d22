"""Number formatting shared by the terminal tables, the portal and the PDF; and text made safe to
show inside the portal's markdown (md_plain, md_code)."""

from __future__ import annotations

import math
import re

from models.constraints import describe, excluded
from models.numbers import (  # noqa: F401  the rules live in the core, shared by every layer
    MILLIONS_FROM_USD,
    NA,
    band,
    day_count,
    days,
    gib,
    gpus,
    mid_sentence,
    on_day,
    pct,
    plural,
    ratio,
    si,
    usd,
    usd_rate,
)

#: every ASCII punctuation character (CommonMark lets each be backslash-escaped), so none can start
#: emphasis, a link, code, a heading, a list, a table, HTML, KaTeX ($) or a directive (:red[...]);
#: except "_" between two letters or digits, which cannot (deadline_days stays as it is)
_MD_PUNCT = re.compile(r"[!-/:-@\[-^`{-~]|(?<![^\W_])_|_(?![^\W_])")
#: where a zero-width space goes so that text Streamlit rewrites after parsing stays text: the
#: autolinks (https://..., www.x, a@b.c) and the :emoji: / :material/icon: shortcodes. A backslash
#: is no help there: those rewrites read the text after its escapes are resolved.
_LINKISH = re.compile(r"(?<=:)|(?=@)|(?<=www)(?=\.)", re.IGNORECASE)
ZWSP = "\u200b"
#: longest user-controlled name (an override key, a field path) quoted back on a page
MAX_NAME_CHARS = 80


def run_length(
    train_days: float,
    low: float | None,
    high: float | None,
    ideal: float,
    goodput: float,
    steady: float | None = None,
) -> str:
    """One run's length with its band, the steady-state run, ideal days and goodput in one
    parenthesis: '32 days expected for the whole run (likely 23–64 days; steady state 22 days,
    22 days without failures, goodput 98.7 %)'. Without `steady` (a plan from before the
    whole-run expectation) the length alone."""
    likely = band(low, high).strip().removeprefix("(").removesuffix(")")
    head = days(train_days) if steady is None else f"{days(train_days)} expected for the whole run"
    state = "" if steady is None else f"steady state {days(steady)}, "
    return (
        f"{head} ({likely + '; ' if likely else ''}{state}{days(ideal)} without failures, "
        f"goodput {pct(goodput, 1)})"
    )


def plan_length(t) -> str:
    """run_length of a training plan or a comparison's training summary (its own fields)."""
    return run_length(
        t.train_days, t.train_days_low, t.train_days_high, t.ideal_days, t.goodput, t.steady_days
    )


def steady_state_text(p) -> str:
    """The steady-state run beside the whole-run expectation a plan's costs use (TrainingPlan)."""
    return (
        f"{days(p.steady_days)}, {si(p.steady_gpu_hours)} GPU-hours at this layout; the whole run "
        f"takes x{p.whole_run_factor:.2f} (restarts, evaluation, data stalls, warm-up and schedule "
        "phases, an allocation not fully used: fitted on published whole runs)"
    )


def sentence(text: str) -> str:
    """Text with its first letter made a capital and the rest as written ('one run of base-70b'
    -> 'One run of base-70b'; str.capitalize would lower 'H100')."""
    return text[:1].upper() + text[1:]


def training_run_subject(c) -> str:
    """Whose run the training summary describes (pricing/results.py Comparison), on how many
    GPUs: 'one run on 1,024 × H100-SXM'. For a portfolio: the pre-training workload it is one run
    of, on that run's own count; a fine-tune, planned as a full-parameter run of its tokens for
    storage and checkpoints; or, with neither, the model it sizes storage and checkpoints for."""
    p, t = c.portfolio, c.training
    on = f"on {c.run_gpus:,} × {t.gpu}"
    if p is None:
        return f"one run {on}"
    if p.representative_workload is None:
        return (
            "no pre-training or fine-tuning workload; storage and checkpoints sized for one "
            f"training run of {t.model} {on}"
        )
    if p.representative_kind == "finetune":
        return (
            f"{p.representative_workload} as one full-parameter run of its tokens {on} "
            "(sizes storage and checkpoints)"
        )
    return f"one run of {p.representative_workload} {on}"


def training_run_text(c) -> str:
    """The summary's run and its length: 'one run of base-70b on 1,024 × H100-SXM: 22 days
    (likely 20–37 days; ...)' (training_run_subject, run_length)."""
    t = c.training
    return f"{training_run_subject(c)}: " + plan_length(t)


def prefill_decode_text(p) -> str:
    """Where a serving plan (models/serving/plan.py ServePlan) runs prefill and decode."""
    if p.prefill_decode != "split":
        return "prefill and decode on the same replicas"
    return (
        f"prefill and decode split: each prompt's K/V cache sent from a prefill to a decode "
        f"replica in {p.kv_transfer_ms:.1f} ms"
    )


def engine_text(p) -> str:
    """A serving plan's engine as the buyer deploys it: its label, its build on an AMD GPU (ROCm)
    and the version its costs come from (`engine_version`), e.g. "vLLM (ROCm) 0.10.2"."""
    from models.serving.builds import is_amd
    from models.serving.engines import ENGINES

    text = ENGINES[p.engine].label + (" (ROCm)" if is_amd(p.gpu) else "")
    return f"{text} {p.engine_version}" if p.engine_version else text


def serve_engine_text(w, gpu: str) -> str:
    """A portfolio's serving workload's engine on the cluster's GPU: the build and the version
    whose costs are used (models/serving/builds.py), e.g. "vLLM (ROCm) 0.10.2"; the refusal's
    message where the GPU cannot run it."""
    from models.errors import InputError
    from models.serving.builds import resolve
    from models.shapes import get_preset, known_model

    try:
        engine = w.engine_on(gpu)
        moe = get_preset(w.model).is_moe if known_model(w.model) else None
        b = resolve(engine, gpu, w.engine_version, moe)
    except InputError as exc:
        return str(exc)
    version = f" {b.costs_version}" if b.costs_version else ""
    return f"{b.label}{version}" + (f" ({b.note})" if b.note else "")


def serve_weights_text(w, gpu: str) -> str:
    """A portfolio's serving workload's weights on the cluster's GPU: its precision, or the GPU's
    default (models/serving/precision.py), with "(weight-only)" where the engines dequantise 4-bit
    weights to BF16 arithmetic, e.g. "FP8 weights", "INT4 weights (weight-only)"."""
    from models.hardware import gpu_ids
    from models.serving.precision import default_precision, weight_only

    if gpu not in gpu_ids():
        return ""
    precision = w.precision or default_precision(gpu)
    suffix = " (weight-only)" if weight_only(gpu, precision) else ""
    return f"{precision.upper()} weights{suffix}"


def layout_text(p, sep: str = " · ") -> str:
    """A serving plan's layout per replica: 'TP8', 'TP8 · EP8', 'TP2 · EP16 · DP8' (attention data
    parallel groups, ServePlan.attention_dp), 'TP8 · PP2' (pipeline stages, ServePlan.pp)."""
    parts = (
        [f"TP{p.tp}"] + [f"EP{p.ep}"] * (p.ep > 1) + [f"DP{p.attention_dp}"] * (p.attention_dp > 1)
    ) + [f"PP{p.pp}"] * bool(p.pp)
    return sep.join(parts)


def batch_text(p, replica: str = "replica") -> str:
    """'64 sequences in flight per replica', or with attention data parallelism '64 sequences in
    flight per attention group (512 per replica)', or with pipeline stages '32 sequences in flight
    per concurrent batch (64 per replica)'; `replica` names what one is ("decode replica")."""
    name, names, n = groups_of(p)
    if n > 1 and p.groups_in_use:  # fewer users than groups: one each on some of them
        s = "" if p.groups_in_use == 1 else "s"
        return (
            f"{p.groups_in_use:,} sequence{s} in flight per {replica} (one on each of "
            f"{p.groups_in_use:,} of its {n:,} {names})"
        )
    if n > 1:
        return f"{p.batch:,} sequences in flight per {name} ({p.batch * n:,} per {replica})"
    return f"{p.batch:,} sequences in flight per {replica}"


def groups_of(p) -> tuple[str, str, int]:
    """(what one of a replica's batches is, the plural, how many): ("attention group", "attention
    groups", dp), ("concurrent batch", "concurrent batches", pp) or ("", "", 1); a plan's `batch`
    and `max_sequences_per_replica` count one of them."""
    if p.attention_dp > 1:
        return "attention group", "attention groups", p.attention_dp
    if (p.pp or 1) > 1:
        return "concurrent batch", "concurrent batches", p.pp
    return "", "", 1


def fit_text(p) -> str:
    """'220 sequences fit', or for a replica of several batches '210 sequences fit per concurrent
    batch (420 per replica)' (ServePlan.max_sequences_per_replica counts one group's)."""
    name, _, n = groups_of(p)
    m = p.max_sequences_per_replica
    return f"{m:,} sequences fit" + (f" per {name} ({m * n:,} per replica)" if n > 1 else "")


def deployment_text(p) -> str:
    """'4 replica(s), 8 GPUs (3.87 requests/s per replica at full load)', or with a split the
    two pools: '22 replicas (18 prefill, 4 decode), 44 GPUs (...per decode replica...)'."""
    if p.prefill_decode != "split":
        return (
            f"{p.replicas} replica(s), {p.gpus} GPUs ({p.requests_per_s_per_replica:.2f} "
            "requests/s per replica at full load)"
        )
    return (
        f"{p.replicas} replicas ({p.prefill_replicas} prefill, {p.replicas - p.prefill_replicas} "
        f"decode), {p.gpus} GPUs ({p.requests_per_s_per_replica:.2f} requests/s per decode "
        "replica at full load)"
    )


def efficient_size_advice(chosen_gpus: int, e, *, deadline: bool = True) -> str:
    """The efficient size beside the fastest a deadline chose (models/training/plan.py EfficientSize):
    'Efficient size: 8,192 GPUs, a run in 168 days at 86 % scaling efficiency (the 32,768 GPUs the
    deadline needs run at 39 %); each extra 1,000 GPUs beyond it saves 3.1 days, and the last
    step, from 16,384 GPUs (95 days), saves 0.1 days per extra 1,000 GPUs'. '' when the chosen
    count is itself the efficient size or there is none. Without a `deadline` the chosen count
    is the one given ('the 16,384 GPUs chosen')."""
    if e is None or e.gpus == chosen_gpus or e.marginal_days_per_1000_gpus is None:
        return ""
    text = (
        f"Efficient size: {gpus(e.gpus)}, a run in {days(e.train_days)} at "
        f"{pct(e.scaling_efficiency)} scaling efficiency (the {gpus(chosen_gpus)} "
        f"{'the deadline needs' if deadline else 'chosen'} run at "
        f"{pct(e.chosen_scaling_efficiency)}); each extra 1,000 GPUs beyond it saves "
        f"{days(e.marginal_days_per_1000_gpus)}"
    )
    if (
        e.previous_gpus is not None
        and e.previous_gpus != e.gpus
        and e.previous_marginal_days_per_1000_gpus is not None
    ):
        text += (
            f", and the last step, from {gpus(e.previous_gpus)} "
            f"({days(e.previous_train_days)}), saves "
            f"{days(e.previous_marginal_days_per_1000_gpus)} per extra 1,000 GPUs"
        )
    return text


#: a scaling note's cause, by the step part that loses the most time (models/training/sizing.py
#: STEP_LOSSES); {m}, {pp}: the layout's micro-batches per pipeline and stages, {share}: the
#: part's share of the step
SCALING_CAUSE = {
    "pipeline_bubble": "{m} micro-batches per pipeline of {pp} stages keep it idle {share} of the step",
    "pipeline_p2p": "pipeline stage-to-stage transfers take {share} of the step",
    "data_parallel": "exposed data-parallel gradient communication takes {share} of the step",
    "optimizer": "the optimizer update takes {share} of the step",
    "fixed_per_step": "per-step costs that do not shrink with more GPUs take {share} of the step",
}


def scaling_note(note, layout) -> str:
    """One line on what the chosen count buys over half of it (models/training/plan.py
    ScalingNote, the plan's `layout` for the micro-batches and stages): 'Scaling: 32,768 GPUs run
    8 % faster than 16,384 at this global batch (4 micro-batches per pipeline of 8 stages keep it
    idle 58 % of the step); a larger global batch or fewer GPUs would use them better' where the
    note warns, else the gain alone; '' without a note."""
    if note is None:
        return ""
    pace = f"{pct(note.gain)} faster" if note.gain >= 0 else f"{pct(-note.gain)} slower"
    text = f"Scaling: {gpus(note.gpus)} run {pace} than {note.half_gpus:,} at this global batch"
    if not note.warns:
        return text
    cause = SCALING_CAUSE[note.dominant_loss].format(
        m=layout.microbatches, pp=layout.pp, share=pct(note.dominant_loss_share)
    )
    return f"{text} ({cause}); a larger global batch or fewer GPUs would use them better"


def deadline_status(met: bool | None, days_past: float | None) -> str:
    """An option against the deadline (OptionResult.meets_deadline, days_past_deadline): 'met',
    '60 days late', 'no run in the term', or '-' without a deadline."""
    if met is None:
        return "-"
    if met:
        return "met"
    return "no run in the term" if days_past is None else f"{day_count(days_past)} late"


def deadline_miss(label: str, deadline: float, first_day: float | None, days_past) -> str:
    """'Build misses the 180-day deadline: its first run ends on day 240, 60 days late
    (provisioning included)' for an option whose meets_deadline is False; the days late are
    counted from the day shown (day 151 against 150 is 1 day late, never '0 days')."""
    if first_day is None or days_past is None:
        return f"{label} misses the {deadline:g}-day deadline: no run ends within the term"
    late = max(_shown_day(first_day) - deadline, 1.0)
    return (
        f"{label} misses the {deadline:g}-day deadline: its first run ends on "
        f"{on_day(first_day)}, {day_count(math.ceil(late))} late (provisioning included)"
    )


def _shown_day(x: float) -> int:
    """The day `on_day` shows for a point in time."""
    return math.ceil(x - 1e-9)


def deadline_sizing(
    deadline: float, label: str, ready_day: float, first_result_day: float | None
) -> str:
    """How a deadline sized the cluster, in numbers that add up as shown: 'Sized for the 150-day
    deadline from the decision: Managed, the option that can deliver first, is ready on day 58,
    leaving 92 days; a run takes 89 days there, so its first result is on day 147' (the days left
    and the run's days are the differences of the days shown)."""
    ready = _shown_day(ready_day)
    said = (
        f"Sized for the {deadline:g}-day deadline from the decision: {label}, the option that can "
        f"deliver first, is ready on {on_day(ready_day)}, leaving {day_count(deadline - ready)}"
    )
    if first_result_day is None:  # the deadline lies past the term's end
        return said + "; its first run does not end within the term"
    first = _shown_day(first_result_day)
    return (
        f"{said}; a run takes {day_count(first - ready)} there, so its first result is on "
        f"{on_day(first_result_day)}"
    )


def _one_line(text: object, limit: int | None) -> str:
    """Printable on one line (newlines, tabs, control and format characters become spaces), and
    clipped to `limit` characters with an ellipsis."""
    line = "".join(ch if ch.isprintable() else " " for ch in str(text))
    if limit is not None and len(line) > limit:
        line = line[: limit - 1] + "…"
    return line


def md_plain(text: object, limit: int | None = None) -> str:
    """Text shown literally, on one line, inside Streamlit markdown (st.error, st.markdown ...):
    every ASCII punctuation character is backslash-escaped and a zero-width space breaks up URLs,
    e-mail addresses and :shortcodes:, so user-controlled text in a message (a provider name, a
    link's error) can neither format nor link nor inject anything."""
    line = _LINKISH.sub(ZWSP, _one_line(text, limit))
    return _MD_PUNCT.sub(lambda m: "\\" + m.group(), line)


def md_code(text: object, limit: int = MAX_NAME_CHARS) -> str:
    """A user-controlled name (an override key, a field path) as an inline code span: one line,
    clipped to `limit` characters, its backticks replaced by quotes so the span cannot be closed
    early. Inside a code span markdown, links, KaTeX and shortcodes are all plain text."""
    line = _one_line(text, limit).replace("`", "'")
    return f"` {line} `"  # CommonMark strips one space each side: the name is shown as it is


def capacity_size(o, gpus: str = "") -> str:
    """An option's capacity plan size as a table or a chart says it: 'per use', '1,024' and, where
    a rental has a second contract, '1,024 → 8 from day 741' (a step down) or '8 → 24 from day
    610' (a step up); `gpus` is the unit after each count (' GPUs' in a sentence)."""
    if o.capacity_size_gpus is None:
        return "per use"
    size = f"{o.capacity_size_gpus:,}{gpus}"
    if o.resized_gpus is None:
        return size
    return f"{size} → {o.resized_gpus:,}{gpus} from {on_day(o.resized_day)}"


def waiting_text(p) -> str:
    """A fixed replica's users beyond what its KV cache holds (ServePlan.users_waiting), who wait
    for a free slot: how many and how long on average (in the plan's TTFT)."""
    return (
        f"{p.users_waiting:,} users beyond the {p.batch:,} sequences the KV cache holds wait for "
        f"a free slot, {p.ttft_queue_ms:,.0f} ms on average (in the TTFT)"
    )


def rule_of_thumb_text(p, scores: str = "the Validation page") -> str:
    """What the serving rule of thumb is (ServePlan.rule_of_thumb_tokens_per_s_per_gpu: HBM
    bandwidth ÷ weight bytes × batch) and what it is for: the figure a buyer meets in a vendor deck
    or a blog, set beside this plan's so the gap is explained rather than left to puzzle over. It
    reads the weights once per step and nothing else (no KV cache, attention, communication or the
    engine's per-step costs), so it is an upper bound, not a size to buy on; `scores` names where the two are
    scored."""
    times = p.rule_of_thumb_tokens_per_s_per_gpu / max(p.output_tokens_per_s_per_gpu, 1e-9)
    return (
        f"the back-of-envelope figure (HBM bandwidth ÷ weight bytes × batch) is "
        f"{p.rule_of_thumb_tokens_per_s_per_gpu:,.0f} output tokens/s per GPU, {times:,.1f}× this "
        f"plan's {p.output_tokens_per_s_per_gpu:,.0f}: it reads the weights once per step and "
        f"leaves out the KV cache, attention, communication and the engine's per-step costs, so it "
        f"is a ceiling, not a size to buy on (how each scores against measured servers: {scores})"
    )


def finetune_rule_text(p, scores: str = "the Validation page") -> str:
    """What the fine-tuning rule of thumb is (FinetunePlan.rule_of_thumb_*: 40 % MFU × dense peak
    ÷ 6 × parameters; 16 / 2 / 0.5 bytes per parameter) and what it is for: a cross-check a buyer
    meets in vendor decks, set beside the plan's own figures so the gap is explained. It counts
    6 FLOPs per parameter and token whatever the method and no activations or buffers, so it is
    not a size to buy on; `scores` names where the two are scored against published runs."""
    times = p.rule_of_thumb_tokens_per_s / max(p.tokens_per_s, 1e-9)
    return (
        f"the back-of-envelope figures (40 % MFU × dense peak ÷ 6 × parameters; 16 / 2 / 0.5 bytes "
        f"per parameter for full / LoRA / QLoRA) are {p.rule_of_thumb_tokens_per_s:,.0f} tokens/s, "
        f"{times:,.1f}× this plan's {p.tokens_per_s:,.0f}, and "
        f"{p.rule_of_thumb_memory_gib_per_gpu:,.1f} GiB per GPU against the plan's "
        f"{p.memory_gib_per_gpu['total']:,.1f}: they count 6 FLOPs per parameter and token whatever "
        f"the method (LoRA skips most weight gradients) and leave out activations, buffers and "
        f"the layout's communication, so they are a cross-check, not a size to buy on (how each "
        f"scores against published runs: {scores})"
    )


def finetune_assumptions_text(p) -> str:
    """What a fine-tune plan assumes of its weights, optimizer and gradient sync, read from the
    plan's fields (FinetunePlan.fp8_params, bf16_optimizer, optimizer_bytes_per_param,
    grad_sync_bytes_per_param); shared by the CLI's layout line and the Fine-tune page."""
    weights = "FP8 only (no BF16 copy)" if p.fp8_params else "not FP8-only"
    if not p.bf16_optimizer:
        opt = "with an FP32 master copy"
    elif p.framework == "megatron":
        opt = "without an FP32 master copy (NeMo's BF16 distributed Adam)"
    else:
        opt = "without an FP32 master copy (pure BF16)"
    buffers = " (BF16 gradient buffers)" if getattr(p, "bf16_grads", False) else ""
    return (
        f"weights {weights}; optimizer {opt}, {p.optimizer_bytes_per_param:g} B per trained "
        f"parameter; gradients synced at {p.grad_sync_bytes_per_param:g} B each{buffers}"
    )


def ruled_out(c) -> dict[str, str]:
    """The compared options the buyer's constraints rule out (id -> reason)."""
    out = {o: why for o, why in excluded(c.scenario.constraints).items() if c.option(o) is not None}
    for o in c.options:  # an owned cluster beyond the site, with no upgrade allowed
        if not o.available and o.note.startswith("ruled out by the buyer's constraints"):
            out.setdefault(o.option, o.note)
    return out


def constraints_line(c) -> list[str]:
    """The buyer's constraints and the options they leave out, as one line (none without any),
    the same on the Compare page, the PDF cover and the text report."""
    said = describe(c.scenario.constraints)
    if said is None:
        return []
    out = [c.option(o).label for o in ruled_out(c)]
    return [f"Constraints: {said}" + (f"; not offered: {', '.join(out)}" if out else "")]


#: the choices of what a dedicated bridge pays (Options.bridge_price), in words
BRIDGE_PRICES = {
    "committed_1y": "a short reservation at the 1-year rate",
    "on_demand": "the on-demand rate",
}
#: which price a bridge paid (OptionResult.bridge_price), in words
_BRIDGE_PRICE_WORDS = {
    "committed_1y": "the dedicated providers' 1-year rate, a short reservation",
    "on_demand": "the dedicated providers' on-demand rate",
    "cloud_on_demand": "the cloud on-demand price",
}


def bridge_lines(c) -> list[str]:
    """Each option bridged to its go-live (pricing/bridge.py), one line: on whose capacity, from
    and to which day, at what cost (its `bridge` line, nominal) and rate; none without bridges."""
    out = []
    for o in c.options:
        if o.available and o.bridged_by is not None and o.work_start_day is not None:
            by = c.option(o.bridged_by)
            cost = o.breakdown_usd.get("bridge", 0.0)
            name = by.label if by else o.bridged_by
            line = _BRIDGE_LINE_OF[c.scenario.kind](o, name, usd(cost))
            out.append(line + _bridge_rate_text(o) + _bridge_runs_text(o))
    return out


def _bridge_rate_text(o) -> str:
    """'; at $2.35 a GPU-hour (the dedicated providers' 1-year rate, a short reservation)'."""
    if o.bridge_usd_per_gpu_hour is None or o.bridge_price is None:
        return ""
    return f"; at {usd_rate(o.bridge_usd_per_gpu_hour)} a GPU-hour ({_BRIDGE_PRICE_WORDS[o.bridge_price]})"


def _bridge_runs_text(o) -> str:
    """A portfolio bridge's runs: how many it takes and how many wait for the go-live."""
    took, wait = o.bridge_runs or 0, o.bridge_runs_waiting or 0
    if not took and not wait:
        return ""
    runs = "run or job" if took + wait == 1 else "runs and jobs"
    text = f"; of the {took + wait:,} {runs} released before its go-live, "
    if not wait:
        return text + "the bridge takes every one (each would wait longer than its maximum wait)"
    if not took:
        return text + "none goes on the bridge: each waits for the go-live within its maximum wait"
    waits = "waits for the go-live within its own" if wait == 1 else "wait for it within theirs"
    return text + (
        f"the bridge takes {took:,} that would wait longer than their maximum wait, and "
        f"{wait:,} {waits}"
    )


def _run_bridge_line(o, by: str, cost: str) -> str:
    """A one-run option's bridge (pricing/bridge.py), in words."""
    return (
        f"{o.label} runs the work on {by} capacity, hired by "
        f"the hour, from {on_day(o.work_start_day)} to its go-live on {on_day(o.ready_day)} "
        f"({cost}, its bridge line), so it delivers the same work from the same day"
    )


def _portfolio_bridge_line(o, by: str, cost: str) -> str:
    """A portfolio option's bridge (pricing/planning/bridging.py), in words: the work released
    before its go-live on the bridge, or only the start-up backlog where it goes live with it."""
    if o.work_start_day >= o.ready_day:
        return (
            f"{o.label}: the work released before {on_day(o.work_start_day)}, when the first "
            f"capacity is ready, is cleared that day on {by} capacity hired by the hour ({cost}, "
            "its bridge line), as on every option bridged"
        )
    return (
        f"{o.label} runs the work released before its go-live on {on_day(o.ready_day)} on {by} "
        f"capacity, hired by the hour, from {on_day(o.work_start_day)} ({cost}, its bridge line; "
        "a run started there finishes there), so its waits count from release, as the bridge's do"
    )


#: each kind of scenario's bridge line (models/scenario.py `Scenario.kind`)
_BRIDGE_LINE_OF = {"run": _run_bridge_line, "portfolio": _portfolio_bridge_line}


def term_text(term) -> str:
    """'term 36 months' (and how commitment months past it are valued, where not the default)."""
    resold = " (commitment months past it resold or assigned at term end)"
    return f"term {term.months} months" + (resold if term.past_term == "resold" else "")


def depreciation_text(scenario, years: float) -> str:
    """How the after-tax figures recover owned hardware (Term.depreciation) and a new facility
    (pricing/tax.py): 'hardware depreciated over 5 years' by default."""
    if scenario.term.depreciation == "bonus_2025":
        said = "hardware 100 % in its first month (US bonus depreciation, 2025 law)"
    else:
        said = f"hardware depreciated over {years:g} years"
    if scenario.options.facility == "owned":
        said += ", the new facility over 39 years"
    return said


def swing_ends(bar, swing: float) -> tuple[str, str]:
    """Where a tornado bar moved its input (pricing/results.py TornadoBar), low end then high:
    ('−25 %', '+25 %') for the plain swing, or the range's ends in the input's unit where the
    input is carried over a range (pricing/ranges.py range_of: the resale value 25–65 %, say)."""
    base = bar.base_value
    if math.isclose(bar.low_value, base * (1 - swing), rel_tol=1e-9, abs_tol=1e-12) and (
        math.isclose(bar.high_value, base * (1 + swing), rel_tol=1e-9, abs_tol=1e-12)
    ):
        return f"\u2212{pct(swing)}", f"+{pct(swing)}"
    return f"{bar.low_value:,.4g} {bar.unit}", f"{bar.high_value:,.4g} {bar.unit}"


def swing_text(bar, swing: float) -> str:
    """'±25 %', or 'from 25 to 65 %' for an input carried over its range (`swing_ends`)."""
    low, high = swing_ends(bar, swing)
    if low.startswith("\u2212"):
        return f"±{pct(swing)}"
    return f"from {bar.low_value:,.4g} to {high}"

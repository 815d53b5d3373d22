"""What the tests build, in one place: scenarios from a few base dicts, portal sessions under
AppTest, share-link tokens, sample and generated portfolios. A test that needs other defaults passes
them at the call (another base, or the sections it changes), so a reader sees them where they act.

Imported as `tests.builders` (run the tests with `python -m pytest` from the repository root)."""

from __future__ import annotations

import base64
import contextlib
import copy
import csv
import io
import json
import pathlib
import zlib
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from hypothesis import strategies as st

from app.scenario_files import PORTFOLIOS
from models.portfolio.demand import SIZERS, Sizing, demand_of
from models.portfolio.workloads import Finetune, Pretrain, Serve, Steady
from models.scenario import Scenario

if TYPE_CHECKING:
    from streamlit.testing.v1 import AppTest

HARNESS = str(pathlib.Path(__file__).resolve().with_name("portal_harness.py"))
#: the repository's root
ROOT = pathlib.Path(__file__).resolve().parents[1]

#: the time the report tests stamp on a report, so a report's text is the same on every run
GENERATED = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)

# ------------------------------------------------------------------------------------- scenarios

#: two 200B-token runs of Llama 3 8B on 64 H100s over 36 months, four options (the default base)
RUNS = {
    "workload": {"model": "llama3-8b", "tokens": 2e11},
    "cluster": {"gpu": "H100-SXM", "gpus": 64},
    "usage": {"mode": "runs", "runs": 2},
    "term": {"months": 36},
    "options": {"compare": ["build", "rent", "managed", "cloud:on_demand"]},
}

#: 256 H100s used 70 % of the time over 36 months (1T tokens of Llama 3 8B), the default options
UTILISED = {
    "workload": {"model": "llama3-8b", "tokens": 1e12, "seq_len": 4096},
    "cluster": {"gpu": "H100-SXM", "gpus": 256},
    "usage": {"mode": "utilisation", "utilisation_pct": 70},
    "term": {"months": 36},
}

#: a version 2 portfolio: a research team's steady use of 256 GPUs, and a 512-GPU pre-training
#: run every quarter
PEAKY = {
    "version": 2,
    "term": {"months": 36},
    "workloads": [
        {"kind": "steady", "name": "research", "team": "research", "gpus": 256,
         "utilisation_pct": 90, "duration_months": 36},
        {"kind": "pretrain", "name": "quarterly", "team": "lab", "model": "llama3-8b",
         "gpus": 512, "tokens": 2e12, "runs_per_month": 0.25, "duration_months": 36},
    ],
    "options": {"compare": ["build", "cloud:on_demand", "hybrid"], "software_licence": True},
}  # fmt: skip


def scenario(base: dict = RUNS, /, **changes) -> Scenario:
    """`base` (a copy; RUNS unless given) with `changes`, validated. `section={...}` sets those keys
    of the section and keeps its others (a new section, or a value that is not a dict, replaces);
    `section__key=value` sets one key."""
    data = copy.deepcopy(base)
    for name, value in changes.items():
        section, _, key = name.partition("__")
        if key:
            data.setdefault(section, {})[key] = value
        elif isinstance(value, dict) and isinstance(data.get(name), dict):
            data[name] = {**data[name], **value}
        else:
            data[name] = value
    return Scenario.model_validate(data)


def sample(name: str) -> dict:
    """The portal's sample portfolio `name` (app/scenario_files.py PORTFOLIOS), as a dict."""
    return json.loads(PORTFOLIOS[name].read_text())


#: one workload of each kind with every field away from its default
EVERY_FIELD = {
    "pretrain": {"model": "llama3-70b", "tokens": 2.5e12, "seq_len": 4096, "precision": "fp8",
                 "gpus": 2048, "runs_per_month": 0.25},
    "finetune": {"model": "llama3-70b", "method": "qlora", "tokens": 3.2e8, "epochs": 2.5,
                 "seq_len": 8192, "global_batch_seqs": 64, "lora_rank": 64, "precision": "fp8",
                 "gpus": 16, "jobs_per_month": 6.5},
    "serve": {"model": "llama3-8b", "precision": "bf16", "input_tokens": 2400,
              "output_tokens": 450, "rps": 37.5, "growth_pct_per_month": 10.0, "ttft_ms": 800.0,
              "tpot_ms": 45.0},
    "steady": {"gpus": 192, "utilisation_pct": 55.5},
}  # fmt: skip
TEN_NAMES = (
    "support-assistant-70b", "search-ranking-finetune", "base-model-pretrain-q3",
    "code-completion-serving", "vision-research-group", "speech-team-finetunes",
    "evaluation-harness-nightly", "robotics-lab-steady-use", "multilingual-pretrain-v2",
    "agent-platform-inference",
)  # fmt: skip


def ten_workloads() -> dict:
    """A ten-workload portfolio, every workload field and most scenario fields set, long names."""
    kinds = list(EVERY_FIELD)
    workloads = [
        {
            "kind": kinds[i % 4],
            "name": name,
            "team": f"{('applied-ml', 'research', 'platform', 'data-science')[i % 4]}-{i}",
            "start_month": 3 + i,
            "duration_months": 30 - i,
            **EVERY_FIELD[kinds[i % 4]],
        }
        for i, name in enumerate(TEN_NAMES)
    ]
    return {
        "version": 2,
        "cluster": {"gpu": "H200"},
        "term": {"months": 60, "discount_rate_pct": 9.5, "financing": "loan", "loan_years": 4},
        "options": {
            "compare": ["build", "rent", "managed", "cloud:on_demand", "cloud:committed_1y"],
            "facility": "owned",
            "rent_commitment": "monthly",
        },
        "overrides": {"server_usd_per_gpu": 31500.0, "electricity_usd_per_kwh": 0.083},
        "workloads": workloads,
    }


# --------------------------------------------------------------------- demand for the capacity core


def gang(gpus: int, days: float) -> Sizing:
    """A pre-training run's sizing: `gpus` together for `days`."""
    return Sizing(kind="pretrain", gang=True, gpus_per_run=gpus, run_days=days)


@st.composite
def portfolios(draw):
    """(demand, capacity): a term, workloads of every kind with made-up sizings (no core call),
    and a capacity a month."""
    months = draw(st.integers(12, 30))
    workloads, sizings = [], []
    for i in range(draw(st.integers(1, 6))):
        kind = draw(st.sampled_from(["pretrain", "finetune", "serve", "steady"]))
        base = {
            "name": f"w{i}",
            "team": draw(st.sampled_from(["a", "b"])),
            "start_month": draw(st.integers(0, months - 1)),
            "duration_months": draw(st.integers(1, 18)),
        }
        rate = draw(st.sampled_from([0.25, 0.5, 1.0, 3.0]))
        gpus, days = draw(st.integers(1, 160)), draw(st.floats(0.2, 70))
        if kind == "pretrain":
            workloads.append(Pretrain(**base, runs_per_month=rate))
            sizings.append(gang(gpus, days))
        elif kind == "finetune":
            workloads.append(Finetune(**base, jobs_per_month=rate))
            sizings.append(Sizing(kind=kind, gang=True, gpus_per_run=gpus, run_days=days))
        elif kind == "serve":
            workloads.append(Serve(**base))
            held = draw(st.lists(st.integers(0, 48), min_size=18, max_size=18))
            sizings.append(Sizing(kind=kind, gang=False, gpus_by_month=[float(g) for g in held]))
        else:
            w = Steady(
                **base, gpus=draw(st.integers(1, 96)), utilisation_pct=draw(st.floats(5, 100))
            )
            workloads.append(w)
            sizings.append(SIZERS["steady"](w, ""))
    capacity = draw(st.lists(st.integers(0, 300), min_size=months, max_size=months))
    return demand_of(workloads, sizings, months), [float(c) for c in capacity]


# ------------------------------------------------------------------------------- share-link tokens


def token_of(payload: bytes) -> str:
    """A share-link token of any bytes, as the planner packs a scenario's JSON (zlib, base64url)."""
    return base64.urlsafe_b64encode(zlib.compress(payload, 9)).decode().rstrip("=")


def token_of_json(obj) -> str:
    return token_of(json.dumps(obj).encode())


# ---------------------------------------------------------------------------- the portal (AppTest)


def app(
    page: str = "workload",
    token: str | None = None,
    *,
    scenario: dict | None = None,
    session: dict | None = None,
    timeout: float = 120,
) -> AppTest:
    """A new portal session (tests/portal_harness.py) on `page`, run once, with no exception: opened
    from the share-link `token` if given (as a browser opening /page?s=token), holding a copy of
    `scenario` as its scenario and a copy of each of `session`'s entries in its session state if
    given (as a share link or an earlier page leaves them). tests/portal_app.py's `goto` moves it to
    another page."""
    from streamlit.testing.v1 import AppTest  # here: a test that opens no page never loads it

    at = AppTest.from_file(HARNESS, default_timeout=timeout)
    if token is not None:
        at.query_params["s"] = token
    if scenario is not None:
        at.session_state["scenario"] = copy.deepcopy(scenario)
    for key, value in (session or {}).items():
        at.session_state[key] = copy.deepcopy(value)
    at.session_state["_page"] = page
    at.run()
    assert not at.exception, (page, at.exception)
    return at


#: a service level no plan has to size for (models/portfolio/workloads.py max_wait_days' largest)
PATIENT_DAYS = 3650.0


def patient(data: dict) -> dict:
    """A copy of a version 2 scenario dict whose every workload accepts any wait: its plans are
    sized for the work done by the term's end alone, as before the service level (issue 30), for
    tests of what such plans do (a trickle held, a step down, a close call)."""
    out = copy.deepcopy(data)
    for w in out.get("workloads") or []:
        w["max_wait_days"] = PATIENT_DAYS
    return out


#: 30 runs of Llama 3 70B on 1,024 H100 over 60 months; the server price overridden down so that
#: Build is the cheapest in cash (ready on day 181, Rent on day 11)
TIME_RUNS = {
    "workload": {"model": "llama3-70b", "tokens": 2e12},
    "cluster": {"gpu": "H100-SXM", "gpus": 1024},
    "usage": {"mode": "runs", "runs": 30},
    "term": {"months": 60},
    "options": {"compare": ["build", "rent", "managed"]},
    "overrides": {"server_usd_per_gpu": 8000.0},
}


# --- two MoE model files with the same parameters (issue 31 items 3 and 6) ---------------------
BODY = {"layers": 24, "hidden": 2048, "heads": 16, "kv_heads": 4, "vocab": 32000}
#: 8 experts of 8,192, top-2; and 64 experts of 1,024, top-16: the same expert parameters in
#: total (8 · 8,192 = 64 · 1,024) and per token (2 · 8,192 = 16 · 1,024)
COARSE = BODY | {"model_id": "moe-e8", "name": "MoE 8", "ffn_hidden": 8192, "experts": 8,
                 "experts_per_token": 2}  # fmt: skip
FINE = BODY | {"model_id": "moe-e64", "name": "MoE 64", "ffn_hidden": 1024, "experts": 64,
               "experts_per_token": 16}  # fmt: skip


def at_layout(model: dict, layout: dict):
    """(job, the one layout matching `layout`) for `model` on 64 H100."""
    from models.training.plan import Planner
    from models.training.search import all_layouts

    sc = Scenario.model_validate(
        {"own_models": [model], "workload": {"model": model["model_id"], "tokens": 1e11},
         "cluster": {"gpu": "H100-SXM", "gpus": 64}}
    )  # fmt: skip
    job = Planner(sc).job(64)
    lay = all_layouts(job, 64)
    match = [i for i in range(len(lay)) if all(lay.row(i)[k] == v for k, v in layout.items())]
    return job, lay.take(match[:1])


def plain_fifo(p, avail, slots: int, bstart=None, limit=None) -> tuple[list[int], list[bool]]:
    """The gang queue (models/portfolio/fifo.py) written plainly, the reference its compiled loop
    is checked against: (start slot, on the bridge) by run. Each run in FIFO order starts at the
    first slot from max(release, the run before's start) whose whole window (cut at the term end)
    is free; a run whose GPUs are never free from its release is passed over, any other that
    cannot start blocks the queue. With a bridge, a run offered it (bstart ≥ 0) whose start would
    be more than `limit` slots after bstart, or none, starts at bstart on the bridge instead,
    taking nothing from the queue."""
    free = avail.copy()
    starts, pinned = [-1] * len(p.wl), [False] * len(p.wl)
    prev = 0

    def first_fit(free, g, lo, n):
        for t in range(lo, slots):
            if free[t : min(t + n, slots)].min() >= g - 1e-9:
                return t
        return None

    for k in p.order.tolist():
        g, n, r = p.gpus[k], int(p.length[k]), int(p.rel[k])
        t = first_fit(free, g, max(r, prev), n)
        if bstart is not None and bstart[k] >= 0 and (t is None or t - bstart[k] > limit[k]):
            starts[k], pinned[k] = int(bstart[k]), True
            continue
        if t is None:
            if first_fit(avail, g, r, n) is not None:
                break
            continue
        free[t : min(t + n, slots)] -= g
        starts[k] = prev = t
    return starts, pinned


def first_commit(*args: str) -> str:
    """The oldest commit `git log` lists for these arguments (a path, a -S search); the test is
    skipped where there is no git history (an unpacked copy)."""
    import subprocess

    import pytest

    out = subprocess.run(
        ["git", "log", "--format=%H", "--reverse", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    lines = out.stdout.split()
    if out.returncode or not lines:
        pytest.skip("no git history here")
    return lines[0]


def is_ancestor(a: str, b: str) -> bool:
    """Commit a is b or comes before it."""
    import subprocess

    return subprocess.run(["git", "merge-base", "--is-ancestor", a, b], cwd=ROOT).returncode == 0


def run_cli(*args: str) -> tuple[int, str, str]:
    """`clusterplan ARGS` in-process: (exit status, stdout, stderr); an argparse exit is a status."""
    from app.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = main(list(args))
        except SystemExit as exc:
            rc = exc.code
    return rc, out.getvalue(), err.getvalue()


def csv_rows(path: pathlib.Path) -> list[dict]:
    """Every row of a CSV file as a dict keyed by its header."""
    with path.open(newline="") as f:
        return list(csv.DictReader(f))


#: the validation data folder (whole runs, stack classes)
VALIDATION_DATA = pathlib.Path(__file__).resolve().parents[1] / "models" / "data" / "validation"


def check_added_batch_schema(rows: list[dict], path: pathlib.Path, previous: str, n: int) -> None:
    """A batch of whole runs added after the fit (whole_runs_addedN.csv): the previous batch's
    header, `n` rows with every cell present, ids `aN-`, a batch note `addedN: entered 2026-12-02`,
    and notes saying the rows went in before any error was computed."""
    with (VALIDATION_DATA / previous).open(newline="") as f:
        before = next(csv.reader(f))
    with path.open(newline="") as f:
        header = next(csv.reader(f))
    assert header == before
    assert len(rows) == n
    key = path.stem.removeprefix("whole_runs_")
    for r in rows:
        assert None not in r and all(v is not None for v in r.values()), r["id"]
        assert r["id"].startswith(f"a{key.removeprefix('added')}-"), r["id"]  # a10- for added10
        assert r["batch"].startswith(f"{key}: entered 2026-12-02"), r["id"]
        assert "before any of their errors was computed" in r["notes"], r["id"]


def check_batch_names_known_parts(
    rows: list[dict], first_year: int, count_own: bool = False
) -> None:
    """Each added run names a preset, GPU, stack class and scope the planner knows, quotes its
    source, is BF16 from `first_year` on, and its preset's published sizes match the row's;
    `count_own`: the preset's own parameter count is within 2 % of its published size too."""
    import pytest

    from models.hardware import load_gpus
    from models.shapes import load_presets
    from models.validation.training import HELDOUT_SCOPES

    presets, gpus = load_presets(), load_gpus()
    classes = {s["stack_class"] for s in csv_rows(VALIDATION_DATA / "stack_classes.csv")}
    for r in rows:
        assert r["model"] in presets and r["gpu"] in gpus, r["id"]
        assert r["stack_class"] in classes and r["scope"] in HELDOUT_SCOPES, r["id"]
        assert "'" in r["source"] and r["stack"].strip() and r["gpu_as_published"].strip(), r["id"]
        assert first_year <= int(r["year"]) <= 2026 and r["precision"] == "bf16", r["id"]
        assert float(r["tokens"]) > 0 and int(r["seq_len"]) > 0, r["id"]
        shape = presets[r["model"]]
        assert float(r["params_total_b"]) == pytest.approx(shape.published_params_b, rel=0.02)
        active = shape.published_active_params_b or shape.published_params_b
        assert float(r["params_active_b"]) == pytest.approx(active, rel=0.02), r["id"]
        if count_own:
            own = shape.params_total / 1e9
            assert own == pytest.approx(shape.published_params_b, rel=0.02), r["id"]


#: the code that plans or scores a whole run: the commit that enters a batch may touch none of it
SCORING_CODE = ("models/validation/", "models/training/", "models/constants.py", "bench/")


def files_of_commit(rev: str) -> list[str]:
    """The paths one commit touched."""
    import subprocess

    out = subprocess.run(
        ["git", "show", "--name-only", "--format=", rev],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return out.stdout.split()


def check_skipped_leads_listed(word: str, mark: str, n: int, heading: str, leads) -> str:
    """A batch's leads not entered: `n` rows of skipped_heldout.csv whose reason names the batch
    (`word`, e.g. "eighth batch"), each starting with `mark` and giving the run and its source; the
    batch's doc section (`heading` in whole-run-model.md) counts them and names each of `leads`.
    Returns the section."""
    rows = [s for s in csv_rows(VALIDATION_DATA / "skipped_heldout.csv") if word in s["reason"]]
    assert len(rows) == n
    for s in rows:
        assert s["reason"].startswith(mark), s["run"]
        assert s["run"].strip() and s["source"].strip(), s["run"]
    doc = (ROOT / "docs" / "reference" / "whole-run-model.md").read_text()
    section = doc[doc.index(heading) :]
    assert f"{n} rows appended to `skipped_heldout.csv`" in section
    for lead in leads:
        assert lead in section, lead
    return section


def check_batch_scored_never_fitted(path: pathlib.Path) -> None:
    """An added batch the lead unsealed for its one scoring: an ADDED_BATCHES entry (so `clusterplan
    validate` scores it), never in FITTED_BATCHES nor among the fitted rows."""
    from models.validation import whole_run as W

    keys = [k for k, _, p in W.ADDED_BATCHES if p.name == path.name]
    assert len(keys) == 1, path.name
    assert keys[0] not in W.FITTED_BATCHES
    assert not {r["id"] for r in W.seen_rows()} & {r["id"] for r in csv_rows(path)}


def check_no_batch_entered(n: int) -> None:
    """A batch that entered no run (the eleventh, the twelfth): no `whole_runs_added{n}.csv`, no
    ADDED_BATCHES entry, no FITTED_BATCHES key, no `a{n}-` row in any whole-run file nor among the
    fitted rows, and no code naming such a file."""
    from models.validation import whole_run as W

    name, key, prefix = f"whole_runs_added{n}.csv", f"added{n}", f"a{n}-"
    data = ROOT / "models" / "data" / "validation"
    assert not (data / name).exists()
    assert name not in {p.name for _, _, p in W.ADDED_BATCHES}
    assert key not in W.FITTED_BATCHES and key not in {k for k, _, _ in W.ADDED_BATCHES}
    for path in sorted(data.glob("whole_runs*.csv")):
        assert not [r for r in csv_rows(path) if r["id"].startswith(prefix)], path.name
    assert not [r for r in W.seen_rows() if str(r.get("id", "")).startswith(prefix)]
    assert code_naming(f"whole_runs_added{n}") == []


def check_batch_committed_sealed(previous: str, path: str, heading: str) -> None:
    """The commit that first added the batch's file (`path`, relative to the repository) comes after
    the commit that added `previous`, carries the doc section (`heading` in whole-run-model.md) and
    changed no scoring code: the rows went in before anything could score them."""
    before, first = first_commit("--", previous), first_commit("--", path)
    assert first != before and is_ancestor(before, first)
    touched = files_of_commit(first)
    assert path in touched and "docs/reference/whole-run-model.md" in touched
    assert not [p for p in touched if p.startswith(SCORING_CODE)], touched
    assert heading in (ROOT / "docs" / "reference" / "whole-run-model.md").read_text()


def check_scored_from_its_own_file(path: pathlib.Path) -> dict:
    """A batch of whole runs is scored from its own file, in its order: each run's error is its
    steady-state GPU-hours x the committed F(features) over the published GPU-hours (F >= 1).
    Returns `added_scores(path)`."""
    import pytest

    from models.constants import WHOLE_RUN_FIT
    from models.training.whole_run import whole_run_factor
    from models.validation.whole_run import added_scores

    d = added_scores(path)
    assert [r["id"] for r in d["rows"]] == [r["id"] for r in csv_rows(path)]
    for r, e in zip(d["rows"], d["whole_run"]["errors"], strict=True):
        f = whole_run_factor(r["features"], WHOLE_RUN_FIT)
        assert r["factor"] == pytest.approx(f) and f >= 1
        assert e == pytest.approx(r["steady"] * f / r["published"] - 1)
    return d


def code_naming(word: str) -> list[str]:
    """The Python files under bench/, models/, pricing/ and scripts/ whose text names `word`
    (relative paths): who reads an evidence set that must never be fitted on."""
    return [
        p.relative_to(ROOT).as_posix()
        for d in ("bench", "models", "pricing", "scripts")
        for p in sorted((ROOT / d).rglob("*.py"))
        if word in p.read_text(encoding="utf-8")
    ]


def check_gpu_hours_basis(rows: list[dict]) -> None:
    """Each added run's GPU-hours follow its `basis`: `gpus_x_days`, GPUs x days x 24 from the
    row's own count and days; `reported`, the source's figure, with its GPU count and no days."""
    import pytest

    for r in rows:
        assert r["basis"] in ("reported", "gpus_x_days") and r["gpu_count_published"] == "1", r[
            "id"
        ]
        assert int(r["gpus"]) > 0 and float(r["published_gpu_hours"]) > 0, r["id"]
        if r["basis"] == "gpus_x_days":
            want = int(r["gpus"]) * float(r["wall_days"]) * 24
            assert float(r["published_gpu_hours"]) == pytest.approx(want, rel=1e-9), r["id"]
        else:
            assert not r["wall_days"], r["id"]


#: NeMo's Llama 2 70B full fine-tune on 16 H100 under megatron in FP8 (finetune-model.md, amendment
#: 3), as FinetuneInputs fields; the fine-tuning tests add the memory choices they test
MEGATRON_70B = dict(
    model="llama2-70b",
    method="full",
    tokens=1e8,
    gpu="H100-SXM",
    gpus=16,
    framework="megatron",
    precision="fp8",
)


# --- the third-party serving sets (models/validation/thirdparty_sets.py): their tests' shapes ---


def serve_inputs_of_fields(r: dict):
    """A third-party row's service read from the CSV's fields, without the set's mapping: one
    replica of the row's GPUs at its concurrency."""
    from models.serving.plan import ServeInputs

    return ServeInputs(
        model=r["model"],
        gpu=r["gpu"],
        precision=r["precision"],
        kv_precision=r["kv_precision"] or None,
        engine=r["engine"],
        engine_version=r["engine_version"] or None,
        input_tokens=int(r["input_tokens"]),
        output_tokens=int(r["output_tokens"]),
        users=int(r["concurrency"]),
        gpus=int(r["gpus"]),
    )


def expressible_counts(rows: list[dict]) -> dict[tuple[str, str], int]:
    """Rows per (source, expressible), checking each row says yes or no and gives a reason
    exactly when it says no."""
    counts: dict[tuple[str, str], int] = {}
    for r in rows:
        k = (r["source_id"], r["expressible"])
        counts[k] = counts.get(k, 0) + 1
        assert r["expressible"] in ("yes", "no")
        assert (r["expressible"] == "no") == bool(r["not_expressible_reason"]), r["id"]
    return counts


def check_serve_cli_matches(row: dict, predicted: dict, metrics) -> None:
    """`clusterplan serve --gpus N --users C --json` of a third-party row plans the row's GPUs and
    gives the set's predicted figure for every metric (to 1e-12)."""
    import pytest

    kv = ("--kv-precision", row["kv_precision"]) if row["kv_precision"] else ()
    engine = f"{row['engine']}:{row['engine_version']}" if row["engine_version"] else row["engine"]
    rc, out, err = run_cli(
        "serve",
        *("--model", row["model"], "--gpu", row["gpu"], "--precision", row["precision"]),
        *kv,
        *("--engine", engine),
        *("--input-tokens", row["input_tokens"], "--output-tokens", row["output_tokens"]),
        *("--gpus", row["gpus"], "--users", row["concurrency"], "--json"),
    )
    assert rc == 0, err
    plan = json.loads(out)
    assert plan["gpus"] == int(row["gpus"])
    for metric, _ in metrics:
        assert predicted[metric] == pytest.approx(plan[metric], rel=1e-12), metric


def band_cells(c: dict, metrics) -> dict:
    """A class's scores per metric as first reported: (median |error|, signed median, share
    within the band) in percent to 0.1, None where no row of the class measured the metric."""
    return {
        m: None
        if c[m]["rows"] == 0
        else tuple(round(100 * c[m][k], 1) for k in ("median_abs", "signed_median", "within_band"))
        for m, _ in metrics
    }


def check_validate_block(heading: str, label: str, key: str, rows: int) -> None:
    """`clusterplan validate` prints a set's block (after `heading`, with the all-rows line and
    the class line `label`) and `--json` carries its `rows` under `key`."""
    rc, out, _ = run_cli("validate")
    assert rc == 0
    section = out.split(heading)[1]
    assert "all scored rows" in section and label in section
    rc, out, _ = run_cli("validate", "--json")
    assert json.loads(out)[key]["rows"] == rows


def check_rows_cite_sources(rows: list[dict], where: dict[str, str], dstack_commit: str) -> None:
    """Each third-party row's `source` carries its source's string (`where`), a dstack row its
    pinned commit; it is dated 2026-12-02, published 2024 to 2026, names its statistic and
    settings, and its GPUs are whole tensor-parallel groups."""
    for r in rows:
        assert where[r["source_id"]] in r["source"], r["id"]
        if r["source_id"].startswith("dstack"):
            assert f"at commit {dstack_commit}" in r["source"], r["id"]
        assert r["as_of"] == "2026-12-02" and r["published"][:4] in ("2024", "2025", "2026")
        assert r["statistic"] and r["settings"], r["id"]
        assert int(r["gpus"]) % int(r["tp"]) == 0, r["id"]


def rows_served_as_their_fields(mod, rows) -> int:
    """Checks each expressible row of a third-party set `mod` (models/validation/thirdparty_*.py)
    predicts plan_serving of the CSV's fields (`serve_inputs_of_fields`: one replica of the row's
    GPUs at its concurrency), a refusal being the planner's; returns the rows predicted."""
    import pytest

    from models.errors import InputError
    from models.serving.plan import plan_serving

    predicted = 0
    for r in rows:
        if not mod.expressible(r):
            continue
        try:
            plan = plan_serving(serve_inputs_of_fields(r))
        except InputError as exc:
            assert mod.predict(r) is None and mod.refusal(r).startswith(f"{exc.field}: "), r["id"]
            continue
        assert plan.gpus == int(r["gpus"]), r["id"]
        for metric, _ in mod.METRICS:
            got = mod.predict(r)[metric]
            assert got == pytest.approx(getattr(plan, metric), rel=1e-12), r["id"]
        predicted += 1
    return predicted

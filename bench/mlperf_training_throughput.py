"""Training throughput (tokens/s/GPU) from MLPerf Training result logs: the method behind the
`published` figure of the `mlperf-` rows of models/data/validation/runs.csv.

`PYTHONPATH=. .venv/bin/python -m bench.mlperf_training_throughput REPO RESULTS_DIR [--seq N] [--gpus N]`

REPO is a local checkout or bare mirror of mlcommons/training_results_v4.0 / v4.1 / v5.0; RESULTS_DIR
e.g. NVIDIA/results/eos-dfw_n64_ngc25.01_nemo/llama31_405b. Its result_*.txt files are read from the
working tree, or with `git show HEAD:path` where REPO has none (a bare mirror).

Each log's MLLOG lines (logged once, by rank 0) are cut into blocks, the training between two
evaluations: a block's throughput is the tokens it trained over its seconds, divided by the GPUs.
The whole run is the tokens trained over (run_stop - run_start - the evaluations' time). The figure
runs.csv uses is the median over all blocks of all the files (the SUMMARY line); the Llama 2 70B
LoRA rows of finetune.csv use the median over the files of each file's median block after the first
(the LATER line; LoRA logs have no max_sequence_length: `--seq 8192`, their blocks end at eval_start
as the 405B H100 logs' do).

GPUs: `--gpus`, else number_of_nodes x accelerators_per_node of the submission's system description,
<division>/systems/<system>.json (the system being RESULTS_DIR's parent folder): e.g. eos-dfw_n64 is
64 nodes x 8 = 512 H100, tyche_ngpu256 64 nodes x 4 = 256 GB200. The log's submission_platform
("64xNVIDIA HGX H100") names the node count only, so it is printed as a check, not used.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import statistics
import subprocess
from dataclasses import dataclass

MLLOG = ":::MLLOG "
SKIPPED_KEYS = {"cache_clear"}  # printed by every rank before run_start; no timing content


def read_events(text: str) -> list[dict]:
    """The MLLOG records of a log, in log order: the JSON after `:::MLLOG ` on each line. Lines whose
    JSON does not parse (cut by other ranks' output) and cache_clear records are skipped."""
    events = []
    for line in text.splitlines():
        at = line.find(MLLOG)
        if at < 0:
            continue
        try:
            event = json.loads(line[at + len(MLLOG) :])
        except json.JSONDecodeError:
            continue
        if event.get("key") not in SKIPPED_KEYS:
            events.append(event)
    return events


def first_value(events: list[dict], key: str):
    """The value of the first record with this key, or None."""
    return next((e["value"] for e in events if e["key"] == key), None)


def counts_tokens(events: list[dict]) -> bool:
    """GPT-3 logs count training progress in tokens: their block records carry epoch_count (tokens
    per block) and first_epoch_num / epoch_num (tokens so far). Llama 3.1 405B logs count samples
    (samples_count), one sample being max_sequence_length tokens."""
    return any("epoch_count" in e.get("metadata", {}) for e in events)


def progress(meta: dict) -> float | None:
    """Training progress a record states: samples_count (405B, samples), else first_epoch_num
    (GPT-3 block records) or epoch_num (GPT-3 eval records), both in tokens."""
    for field in ("samples_count", "first_epoch_num", "epoch_num"):
        if field in meta:
            return float(meta[field])
    return None


def step_times_ms(events: list[dict]) -> list[tuple[float, float]]:
    """(samples trained, time_ms) of each training-step record: tracked_stats carrying
    train_step_time, whose metadata step is the samples trained so far (GB200 405B logs)."""
    return [
        (float(e["metadata"]["step"]), e["time_ms"])
        for e in events
        if e["key"] == "tracked_stats"
        and isinstance(e["value"], dict)
        and "train_step_time" in e["value"]
        and "step" in e.get("metadata", {})
    ]


def step_reaching(steps: list[tuple[float, float]], count: float) -> float | None:
    """Time of the first training-step record whose samples trained reach `count`, or None."""
    return next((t for s, t in steps if s >= count), None)


@dataclass
class Block:
    """Training between two evaluations; counts in the log's unit (samples or tokens)."""

    start_ms: float
    start_count: float
    end_ms: float | None = None
    end_count: float | None = None

    @property
    def complete(self) -> bool:
        return (
            self.end_ms is not None
            and self.end_count is not None
            and self.end_count > self.start_count
        )

    def rate(self, tokens_per_count: float) -> float:
        """Tokens per second: (end_count - start_count) x tokens_per_count / (end - start) seconds."""
        return (
            (self.end_count - self.start_count)
            * tokens_per_count
            / ((self.end_ms - self.start_ms) / 1000)
        )


def blocks_and_eval_ms(events: list[dict]) -> tuple[list[Block], float]:
    """The complete blocks of a log and the evaluations' total time (ms).

    A block starts at block_start (its count: samples_count or first_epoch_num). It ends:
    - GPT-3: at block_stop, whose count is first_epoch_num + epoch_count tokens;
    - 405B H100: at eval_start, whose samples_count is the count (its block_stop repeats the start count);
    - 405B GB200 (no eval_start or block_stop): at the training-step record that reaches the next
      evaluation's (eval_stop's) samples_count.
    An evaluation lasts from eval_start, or without one from the block's end, to eval_stop.
    """
    steps = step_times_ms(events)
    blocks: list[Block] = []
    eval_ms, eval_start = 0.0, None
    for e in events:
        key, meta, t = e["key"], e.get("metadata", {}), e["time_ms"]
        block = blocks[-1] if blocks else None
        if key == "block_start":
            blocks.append(Block(t, progress(meta)))
        elif key == "block_stop" and "epoch_count" in meta and block:
            block.end_ms, block.end_count = t, float(meta["first_epoch_num"] + meta["epoch_count"])
        elif key == "eval_start":
            eval_start = t
            if block and block.end_ms is None:
                block.end_ms, block.end_count = t, progress(meta)
        elif key == "eval_stop":
            if block and block.end_ms is None:
                block.end_count = progress(meta)
                block.end_ms = step_reaching(steps, block.end_count)
            began = eval_start if eval_start is not None else (block.end_ms if block else None)
            if began is not None:
                eval_ms += t - began
            eval_start = None
    return [b for b in blocks if b.complete], eval_ms


@dataclass
class LogThroughput:
    """One result file: its blocks' and its whole run's tokens/s (all GPUs together)."""

    platform: str | None
    status: str | None
    block_rates: list[float]
    whole_rate: float
    eval_s: float


def log_throughput(text: str, seq: int | None = None) -> LogThroughput:
    """Block and whole-run tokens/s of one log. Tokens per count: 1 for GPT-3 (counts are tokens),
    else the logged max_sequence_length (or `seq` where the log has none). Whole run: tokens trained
    (run_stop's samples_count x seq, else the last block's end) over run_stop - run_start - evaluations."""
    events = read_events(text)
    per_count = 1.0 if counts_tokens(events) else first_value(events, "max_sequence_length") or seq
    if per_count is None:
        raise ValueError("the log has no max_sequence_length: give --seq (tokens per sample)")
    blocks, eval_ms = blocks_and_eval_ms(events)
    if not blocks:
        raise ValueError("no complete training block between two evaluations in the log")
    stop = next(e for e in events if e["key"] == "run_stop")
    run_start = next(e["time_ms"] for e in events if e["key"] == "run_start")
    trained = stop["metadata"].get("samples_count")
    tokens = trained * per_count if trained else max(b.end_count for b in blocks) * per_count
    return LogThroughput(
        platform=first_value(events, "submission_platform"),
        status=stop["metadata"].get("status"),
        block_rates=[b.rate(per_count) for b in blocks],
        whole_rate=tokens / ((stop["time_ms"] - run_start - eval_ms) / 1000),
        eval_s=eval_ms / 1000,
    )


def _git(repo: pathlib.Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, check=True
    ).stdout


def read_repo_file(repo: pathlib.Path, path: str) -> str:
    """A file of REPO: from its working tree, else `git show HEAD:path` (bare mirror)."""
    local = repo / path
    return local.read_text() if local.is_file() else _git(repo, "show", f"HEAD:{path}")


def result_files(repo: pathlib.Path, results_dir: str) -> list[str]:
    """The result_*.txt paths under RESULTS_DIR, sorted."""
    local = repo / results_dir
    if local.is_dir():
        names = [p.relative_to(repo).as_posix() for p in local.glob("result_*.txt")]
    else:
        listed = _git(repo, "ls-tree", "--name-only", "HEAD", results_dir.rstrip("/") + "/")
        names = [n for n in listed.split() if pathlib.PurePosixPath(n).name.startswith("result_")]
    return sorted(names)


def system_gpus(repo: pathlib.Path, results_dir: str) -> int:
    """number_of_nodes x accelerators_per_node of <division>/systems/<system>.json, RESULTS_DIR being
    <division>/results/<system>/<benchmark>."""
    parts = pathlib.PurePosixPath(results_dir.rstrip("/")).parts
    system = json.loads(read_repo_file(repo, f"{parts[0]}/systems/{parts[-2]}.json"))
    return int(system["number_of_nodes"]) * int(system["accelerators_per_node"])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "repo", type=pathlib.Path, help="checkout or bare mirror of training_results_vX"
    )
    ap.add_argument("results_dir", help="e.g. NVIDIA/results/eos_n64_ngc24.04_nemo/gpt3")
    ap.add_argument(
        "--seq", type=int, help="tokens per sample where the log has no max_sequence_length"
    )
    ap.add_argument("--gpus", type=int, help="GPUs of the run (default: from the system JSON)")
    args = ap.parse_args(argv)
    files = result_files(args.repo, args.results_dir)
    if not files:
        ap.error(f"no result_*.txt under {args.results_dir}")
    gpus = args.gpus or system_gpus(args.repo, args.results_dir)
    print(f"{args.results_dir}: {len(files)} result files, {gpus} GPUs; tokens/s/GPU")
    all_blocks, medians, wholes, later = [], [], [], []
    for path in files:
        log = log_throughput(read_repo_file(args.repo, path), args.seq)
        rates = [r / gpus for r in log.block_rates]
        all_blocks += rates
        medians.append(statistics.median(rates))
        if len(rates) > 1:
            later.append(statistics.median(rates[1:]))
        wholes.append(log.whole_rate / gpus)
        print(
            f"  {pathlib.PurePosixPath(path).name:13} {log.platform or '-':22} {log.status or '-':8} "
            f"blocks {len(rates):3}  median {medians[-1]:7.1f}  min {min(rates):7.1f}  "
            f"max {max(rates):7.1f}  whole run {wholes[-1]:7.1f}  (evaluations {log.eval_s:.0f} s)"
        )
    print(
        f"SUMMARY median over all {len(all_blocks)} blocks: {statistics.median(all_blocks):.1f} "
        f"tokens/s/GPU (per-file medians {min(medians):.1f}-{max(medians):.1f}; "
        f"whole runs {min(wholes):.1f}-{max(wholes):.1f})"
    )
    if later:
        print(
            f"LATER median over {len(later)} files of each file's median block after the first: "
            f"{statistics.median(later):.1f} tokens/s/GPU (the finetune.csv MLPerf LoRA rows' figure)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

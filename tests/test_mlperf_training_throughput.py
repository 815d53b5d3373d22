"""bench/mlperf_training_throughput.py on small synthetic MLLOG logs whose block throughputs are worked
out by hand here: GPT-3 (counts in tokens), Llama 3.1 405B on H100 (samples, eval_start ends a
block) and on GB200 (no eval_start / block_stop: a block ends at the training step that reaches the
next evaluation's count)."""

import json
import pathlib
import re
import statistics
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from bench.mlperf_training_throughput import log_throughput, main  # noqa: E402

SEQ = 8192


def mllog(t_ms: int, key: str, value=None, **meta) -> str:
    """One MLLOG line as the NeMo callbacks print it (a prefix, then the JSON record)."""
    record = {"time_ms": t_ms, "event_type": "POINT_IN_TIME", "key": key, "value": value}
    return "[1,0]<stdout>::::MLLOG " + json.dumps({**record, "metadata": meta})


def gpt3_log(first_s: float, second_s: float) -> str:
    """Two blocks of 6,000 tokens (first_s and second_s long), evaluations of 1 s and 2 s."""
    a = 1000 + int(first_s * 1000)
    b = a + 1000 + int(second_s * 1000)
    return "\n".join(
        [
            mllog(0, "cache_clear", True),
            "[1,0]<stdout>::::MLLOG {truncated by another rank",
            mllog(10, "max_sequence_length", 2048),  # GPT-3 counts are tokens: never multiplied
            mllog(1000, "run_start"),
            mllog(1000, "block_start", first_epoch_num=0, epoch_count=6000),
            mllog(a, "block_stop", first_epoch_num=0, epoch_count=6000),
            mllog(a, "eval_start", epoch_num=6000),
            mllog(a + 1000, "eval_stop", epoch_num=6000),
            mllog(a + 1000, "block_start", first_epoch_num=6000, epoch_count=6000),
            mllog(b, "block_stop", first_epoch_num=6000, epoch_count=6000),
            mllog(b, "eval_start", epoch_num=12000),
            mllog(b + 2000, "eval_stop", epoch_num=12000),
            mllog(b + 2500, "run_stop", status="success"),
        ]
    )


H100_405B = "\n".join(
    [
        mllog(0, "submission_platform", "2xNVIDIA HGX H100"),
        mllog(0, "max_sequence_length", SEQ),
        mllog(0, "run_start"),
        mllog(0, "block_start", samples_count=0),
        mllog(10000, "block_stop", samples_count=0),  # repeats the start count
        mllog(10000, "eval_start", samples_count=50),
        mllog(12000, "eval_stop", samples_count=50),
        mllog(12000, "block_start", samples_count=50),
        mllog(17000, "block_stop", samples_count=50),
        mllog(17000, "eval_start", samples_count=100),
        mllog(18000, "eval_stop", samples_count=100),
        mllog(18500, "run_stop", samples_count=100, status="success"),
    ]
)


def step(t_ms: int, samples: int) -> str:
    return mllog(t_ms, "tracked_stats", {"train_step_time": 4.0}, step=float(samples))


GB200_405B = "\n".join(
    [
        mllog(0, "max_sequence_length", SEQ),
        mllog(0, "run_start"),
        mllog(0, "block_start", samples_count=0),
        step(4000, 20),
        step(8000, 40),
        step(12000, 60),
        mllog(
            14000, "tracked_stats", {"validation_step_time": 2.0}, step=120
        ),  # not a training step
        mllog(15000, "eval_accuracy", 7.5, samples_count=60),
        mllog(15000, "eval_stop", samples_count=60),
        mllog(15000, "block_start", samples_count=60),
        step(18000, 80),
        step(21000, 100),
        step(24000, 120),
        mllog(26000, "eval_stop", samples_count=120),
        mllog(26500, "run_stop", samples_count=120, status="success"),
    ]
)


def test_gpt3_blocks_count_tokens_and_whole_run_leaves_out_evaluations():
    log = log_throughput(gpt3_log(3, 2))
    assert log.block_rates == pytest.approx([6000 / 3, 6000 / 2])
    # 12,000 tokens over run_stop - run_start (8.5 s) less 1 s + 2 s of evaluation
    assert log.whole_rate == pytest.approx(12000 / (8.5 - 3))


def test_405b_h100_block_ends_at_eval_start_with_its_sample_count():
    log = log_throughput(H100_405B)
    assert log.platform == "2xNVIDIA HGX H100"
    assert log.block_rates == pytest.approx([50 * SEQ / 10, 50 * SEQ / 5])
    # run_stop's 100 samples over 18.5 s less 2 s + 1 s of evaluation
    assert log.whole_rate == pytest.approx(100 * SEQ / (18.5 - 3))


def test_405b_gb200_block_ends_at_the_training_step_reaching_the_eval_count():
    log = log_throughput(GB200_405B)
    # blocks end at the step records of samples 60 (12 s) and 120 (24 s), not at eval_stop
    assert log.block_rates == pytest.approx([60 * SEQ / 12, 60 * SEQ / (24 - 15)])
    # evaluations: 12 s -> 15 s and 24 s -> 26 s, timed from the block's last step
    assert log.eval_s == pytest.approx(3 + 2)
    assert log.whole_rate == pytest.approx(120 * SEQ / (26.5 - 5))


def test_405b_log_without_sequence_length_takes_seq_option():
    text = "\n".join(line for line in H100_405B.splitlines() if "max_sequence_length" not in line)
    with pytest.raises(ValueError, match="--seq"):
        log_throughput(text)
    assert log_throughput(text, seq=4096).block_rates == pytest.approx(
        [50 * 4096 / 10, 50 * 4096 / 5]
    )


def test_summary_is_median_over_all_blocks_per_gpu_from_system_json(tmp_path, capsys):
    results = tmp_path / "NVIDIA/results/sys_n2/gpt3"
    results.mkdir(parents=True)
    (results / "result_0.txt").write_text(gpt3_log(3, 2))  # blocks 2,000 and 3,000 tokens/s
    (results / "result_1.txt").write_text(gpt3_log(4, 1))  # blocks 1,500 and 6,000 tokens/s
    (tmp_path / "NVIDIA/systems").mkdir()
    (tmp_path / "NVIDIA/systems/sys_n2.json").write_text(
        json.dumps({"number_of_nodes": "2", "accelerators_per_node": "4"})
    )
    assert main([str(tmp_path), "NVIDIA/results/sys_n2/gpt3"]) == 0
    out = capsys.readouterr().out
    figure = float(re.search(r"SUMMARY median over all 4 blocks: ([\d.]+)", out).group(1))
    # median of the four blocks (not of the per-file medians 2,500 and 3,750), over 2 x 4 GPUs
    assert figure == pytest.approx(statistics.median([2000, 3000, 1500, 6000]) / (2 * 4), abs=0.05)


def lora_log(block_s: list[float]) -> str:
    """A Llama 2 70B LoRA log: no max_sequence_length; blocks of 384 samples, `block_s` seconds
    each, ending at block_stop / eval_start (samples_count), evaluations of 1 s."""
    lines, t, n = [mllog(0, "run_start")], 0, 0
    for s in block_s:
        lines.append(mllog(t, "block_start", samples_count=n))
        t, n = t + int(s * 1000), n + 384
        lines += [mllog(t, "block_stop", samples_count=n), mllog(t, "eval_start", samples_count=n)]
        t += 1000
        lines.append(mllog(t, "eval_stop", samples_count=n))
    lines.append(mllog(t, "run_stop", status="success", samples_count=n))
    return "\n".join(lines)


def test_lora_summary_is_median_over_files_of_median_later_block(tmp_path, capsys):
    results = tmp_path / "NVIDIA/results/sys_n1/llama2_70b_lora"
    results.mkdir(parents=True)
    # slow first blocks (9 s); later blocks 2, 2 / 4, 6 / 5, 5 s. The files' later medians are 1/2,
    # 5/24 and 1/5 of 384 x SEQ tokens per s: their median (5/24) differs from the pooled later
    # blocks' (9/40) and from the files' medians with the first block kept (1/5)
    (results / "result_0.txt").write_text(lora_log([9, 2, 2]))
    (results / "result_1.txt").write_text(lora_log([9, 4, 6]))
    (results / "result_2.txt").write_text(lora_log([9, 5, 5]))
    argv = [str(tmp_path), "NVIDIA/results/sys_n1/llama2_70b_lora", "--seq", "8192", "--gpus", "8"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    figure = float(re.search(r"LATER median over 3 files .*?: ([\d.]+)", out).group(1))
    assert figure == pytest.approx(384 * SEQ * 5 / 24 / 8, abs=0.05)

"""What a rerun costs the real server (issue 32, "Measured"): the setting that removed most of it,
and the bench that measures it (bench/bench_rerun_cpu.py) really drives the portal."""

import pathlib
import re
import subprocess
import sys
import tomllib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_the_server_does_not_collect_all_garbage_after_every_run():
    """Streamlit's default runs a full gc.collect() after every script run: 150-190 ms of the
    ~230 ms of CPU a Compare rerun cost under `streamlit run` (docs/deploy.md). The portal's
    config turns it off; Python's generational collector still runs by its thresholds."""
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["runner"]["postScriptGC"] is False


@pytest.mark.e2e
@pytest.mark.load
def test_the_rerun_cpu_bench_drives_each_case():
    """In its own process, as it is run: its websocket client calls asyncio.run, which cannot run
    in a worker where a browser test's event loop is already running."""
    from bench import bench_rerun_cpu

    done = subprocess.run(
        [sys.executable, "-m", "bench.bench_rerun_cpu", "--reruns", "2"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    out = done.stdout
    assert done.returncode == 0, done.stderr[-2000:]
    for case in bench_rerun_cpu.CASES:
        assert re.search(rf"{case}\s*: CPU\s+\d+ ms/rerun", out), out

"""`streamlit run app/main.py` with cProfile around every script run, to see where a real server's
rerun CPU goes (docs/deploy.md, "Where a rerun's CPU went").

    .venv/bin/python bench/profile_server.py OUT.txt [streamlit options, e.g. --server.port=8600]
    kill -USR2 <pid>   # start profiling (after the warm-up runs you do not want counted)
    kill -USR1 <pid>   # write OUT.txt (cumulative and own time) and OUT.txt.pstats, and exit

Each run of the page script (`ScriptRunner._run_script`, in the session's script thread) is
profiled with that thread's CPU time as the clock (`time.thread_time`), so time spent waiting for
the GIL while the event loop serialises messages is not counted against the page. What the
event-loop thread itself spends is not in the profile: compare the total with
bench/bench_rerun_cpu.py's CPU per rerun. Loopback only, as `streamlit run` is configured.
"""

from __future__ import annotations

import cProfile
import io
import os
import pstats
import signal
import sys
import time

from streamlit.runtime.scriptrunner import script_runner
from streamlit.web import cli

_STATS: list[pstats.Stats] = []
_ARMED = [False]
_ORIGINAL = script_runner.ScriptRunner._run_script


def _profiled(self, *args, **kwargs):
    if not _ARMED[0]:
        return _ORIGINAL(self, *args, **kwargs)
    profile = cProfile.Profile(time.thread_time)
    profile.enable()
    try:
        return _ORIGINAL(self, *args, **kwargs)
    finally:
        profile.disable()
        if _STATS:
            _STATS[0].add(profile)
        else:
            _STATS.append(pstats.Stats(profile))


def main() -> None:
    out = sys.argv[1]

    def arm(*_):
        _ARMED[0] = True

    def dump(*_):
        text = io.StringIO()
        if _STATS:
            stats = _STATS[0]
            stats.stream = text
            stats.sort_stats("cumulative").print_stats(120)
            stats.sort_stats("tottime").print_stats(60)
            stats.dump_stats(out + ".pstats")
        with open(out, "w") as fh:
            fh.write(text.getvalue() or "no script run was profiled (send SIGUSR2 first)\n")
        os._exit(0)

    script_runner.ScriptRunner._run_script = _profiled
    signal.signal(signal.SIGUSR2, arm)
    signal.signal(signal.SIGUSR1, dump)
    sys.argv = ["streamlit", "run", "app/main.py", *sys.argv[2:]]
    cli.main()


if __name__ == "__main__":
    main()

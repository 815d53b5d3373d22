"""The websocket load client really drives the portal: a short run, every rerun checked for
errors. Throughput is the bench's to report (bench/load_ws.py), not this test's: on a busy
machine a 6-second run may finish few reruns, and that is no fault."""

import re

import pytest

pytestmark = [pytest.mark.e2e, pytest.mark.load]


def test_a_short_load_run_has_no_errors(capsys):
    import threading

    from bench import load_ws

    result = {}
    # its own thread: Playwright's sync API may hold this thread's event loop in the same session
    worker = threading.Thread(
        target=lambda: result.update(
            rc=load_ws.main(["--sessions", "3", "--seconds", "6", "--think", "0.3", "0.8"])
        )
    )
    worker.start()
    worker.join(timeout=120)
    rc = result.get("rc")
    out = capsys.readouterr().out
    assert rc == 0, out
    found = re.search(r"(\d+) sessions \((\d+) connected\).*: (\d+) reruns .*, (\d+) errors", out)
    assert found, out
    sessions, connected, _reruns, errors = map(int, found.groups())
    # every session connected and ran its first page; every rerun it had time for checked
    assert (sessions, connected, errors) == (3, 3, 0), out

"""The websocket load client really drives the portal: a short run, every rerun checked."""

import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "bench"))

pytestmark = pytest.mark.e2e


def test_a_short_load_run_has_no_errors(capsys):
    import threading

    import load_ws

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
    reruns = int(out.split(" reruns (")[0].rsplit(" ", 1)[1])
    assert reruns >= 6 and "0 errors" in out

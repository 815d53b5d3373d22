"""What the browser tests share (Playwright against `streamlit run`): where screenshots go, how
long a step may take, and waiting for a Streamlit run to finish."""

from __future__ import annotations

import pathlib

#: screenshots of each browser test's last state (ignored by git)
ARTIFACTS = pathlib.Path(__file__).resolve().parents[1] / "test-artifacts"
#: the longest a browser step waits, ms
TIMEOUT = 60_000


def wait_idle(page) -> None:
    """Until Streamlit has finished the current run (its status widget goes away)."""
    page.wait_for_timeout(300)
    page.locator("[data-testid='stStatusWidget']").wait_for(state="detached", timeout=TIMEOUT)

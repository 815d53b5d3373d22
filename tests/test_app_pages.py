"""Every portal page renders without an exception (Streamlit's AppTest, no browser)."""

import pathlib

from streamlit.testing.v1 import AppTest

MAIN = str(pathlib.Path(__file__).resolve().parents[1] / "app" / "main.py")


def test_main_renders():
    at = AppTest.from_file(MAIN, default_timeout=30)
    at.run()
    assert not at.exception
    assert at.title[0].value == "GPU Cluster Planner"

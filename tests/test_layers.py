"""The core stays free of UI libraries (DESIGN.md: imports point down only)."""

import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_core_imports_no_ui_libraries():
    code = (
        "import sys, pkgutil, importlib, models, pricing\n"
        "for pkg in (models, pricing):\n"
        "    for m in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + '.'):\n"
        "        importlib.import_module(m.name)\n"
        "bad = sorted(n for n in sys.modules if n.split('.')[0] in ('streamlit', 'plotly'))\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == ""


def test_no_core_source_mentions_ui_imports():
    for path in list((ROOT / "models").rglob("*.py")) + list((ROOT / "pricing").rglob("*.py")):
        text = path.read_text()
        for lib in ("streamlit", "plotly"):
            assert f"import {lib}" not in text and f"from {lib}" not in text, path

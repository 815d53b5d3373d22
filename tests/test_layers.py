"""The core and the command line stay free of UI libraries (docs/architecture.md). That imports
point down only (models/ ← pricing/ ← app/) and form no cycle is tests/test_import_graph.py."""

from __future__ import annotations

import ast
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
UI_LIBRARIES = ("streamlit", "plotly")
#: modules that must load without a UI library: the core, and what the CLI and share links use
HEADLESS = ("models", "pricing", "app.cli", "app.share_link", "app.exports", "app.report_text")


def imported_packages(path: pathlib.Path) -> set[str]:
    """Top-level packages a source file imports anywhere, inside functions too (relative imports
    stay within the package, so they are left out)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return found


def test_the_core_never_imports_a_ui_library_not_even_inside_a_function():
    sources = [*(ROOT / "models").rglob("*.py"), *(ROOT / "pricing").rglob("*.py")]
    sources.append(ROOT / "app" / "share_link.py")  # the CLI's link commands use it
    wrong = [
        f"{path.relative_to(ROOT)} imports {lib}"
        for path in sources
        for lib in imported_packages(path) & set(UI_LIBRARIES)
    ]
    assert wrong == []


def test_the_core_and_the_cli_load_without_a_ui_library():
    """Importing every core module, the CLI and what it uses pulls in no UI library, however
    indirectly."""
    code = (
        "import sys, pkgutil, importlib\n"
        f"for name in {HEADLESS!r}:\n"
        "    module = importlib.import_module(name)\n"
        "    for m in pkgutil.walk_packages(getattr(module, '__path__', []), name + '.'):\n"
        "        importlib.import_module(m.name)\n"
        f"print(sorted({{n.split('.')[0] for n in sys.modules}} & set({UI_LIBRARIES!r})))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]"


def test_charts_and_the_pdf_use_plotly_but_never_streamlit():
    """The PDF and the CLI draw the portal's charts without loading the portal's framework: every
    module of app/charts/ loads without Streamlit."""
    code = (
        "import sys, pkgutil, importlib, app.charts, app.chart_export, app.report_pdf\n"
        "for m in pkgutil.walk_packages(app.charts.__path__, 'app.charts.'):\n"
        "    importlib.import_module(m.name)\n"
        "print(sorted({n.split('.')[0] for n in sys.modules} & {'streamlit', 'plotly'}))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "['plotly']"

"""No import cycles between the project's modules, and layers point down only: app -> pricing ->
models (docs/architecture.md). Read from the source (every import statement, those inside functions too), so
a lazy import that hides a cycle from the interpreter is caught as well."""

from __future__ import annotations

import ast
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[1]
PACKAGES = ("models", "pricing", "app")
LAYER = {"models": 0, "pricing": 1, "app": 2}


def _module_name(path: pathlib.Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph() -> dict[str, set[str]]:
    modules = {_module_name(p): p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        deps: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                targets = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                continue
            deps |= {t for t in targets if t in modules and t != name}
        graph[name] = deps
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle as a list of modules, or None (depth-first search with colours)."""
    colour = dict.fromkeys(graph, 0)  # 0 unseen, 1 on the path, 2 done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        colour[node] = 1
        path.append(node)
        for dep in sorted(graph[node]):
            if colour[dep] == 1:
                return path[path.index(dep) :] + [dep]
            if colour[dep] == 0 and (found := visit(dep)):
                return found
        colour[node] = 2
        path.pop()
        return None

    for node in sorted(graph):
        if colour[node] == 0 and (found := visit(node)):
            return found
    return None


def test_no_import_cycles():
    cycle = find_cycle(import_graph())
    assert cycle is None, " -> ".join(cycle)


def test_the_cycle_finder_finds_a_cycle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_layers_point_down_only():
    upward = [
        (m, d)
        for m, deps in import_graph().items()
        for d in deps
        if LAYER[d.split(".")[0]] > LAYER[m.split(".")[0]]
    ]
    assert upward == []


def _reachable(graph: dict[str, set[str]], start: str) -> set[str]:
    seen, todo = set(), [start]
    while todo:
        for dep in graph[todo.pop()] - seen:
            seen.add(dep)
            todo.append(dep)
    return seen


def test_valuation_reads_plans_without_the_planner():
    """pricing/valuation.py (generic arithmetic) reads an option's plan through
    planning/option_context.py, never the planner's search (issue 28)."""
    planner = {m for m in import_graph() if m.startswith("pricing.planning.")} - {
        "pricing.planning.option_context",
        "pricing.planning.records",
    }
    assert "pricing.planning.planner" in planner
    assert _reachable(import_graph(), "pricing.valuation") & planner == set()


#: the one test file that still imports another: the browser tests' page helpers and `watched`
#: fixture, shared by the two end-to-end files (to move beside the `page` fixture)
IMPORTS_A_TEST_FILE = {"test_e2e_side_by_side.py": ["test_e2e_portal"]}


def test_no_test_file_imports_another():
    """What several test files use lives in tests/builders.py, tests/readback.py or a conftest
    fixture (issue 28): a test file imported from another as `tests.test_x` runs twice, once under
    each name, and ties the two files' edits together."""
    imports = {}
    for path in sorted((ROOT / "tests").glob("test_*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            names = (
                [node.module]
                if isinstance(node, ast.ImportFrom) and node.module
                else [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else []
            )
            imports[path.name] = imports.get(path.name, []) + [
                n for n in names if n.split(".")[-1].startswith("test_")
            ]
    assert {name: found for name, found in imports.items() if found} == IMPORTS_A_TEST_FILE

"""The report is a value: ``evalmark.report``'s modules import one another without a cycle, counting
every import statement (those under ``if TYPE_CHECKING:`` and inside functions too), and the
report's own module imports no renderer, no gate and no comparison (its figures and its value
state, equality and pickling, live in modules of their own below it)."""

from __future__ import annotations

import ast
from pathlib import Path

import evalmark.report
from import_cycles import cycles

PACKAGE = "evalmark.report"
ROOT = Path(evalmark.report.__file__).parent


def _modules() -> dict[str, Path]:
    found = {}
    for path in sorted(ROOT.rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join([PACKAGE, *parts])] = path
    return found


def _imported(module: str, path: Path) -> set[str]:
    """Every module name an import statement of ``path`` names (``from a import b``: both
    ``a`` and ``a.b``, since ``b`` may be a module)."""
    names: set[str] = set()
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([node.module] if node.module else [])])
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names)
    return names


def import_graph() -> dict[str, set[str]]:
    """Module → the modules of the package it imports (the package's face is left out: every
    module's import runs it, and it imports every module, which is no cycle of the code)."""
    modules = _modules()
    inner = set(modules) - {PACKAGE}
    return {
        name: (_imported(name, path) & inner) - {name}
        for name, path in modules.items()
        if name != PACKAGE
    }


def test_the_cycle_finder_finds_a_cycle_through_annotation_imports(tmp_path: Path) -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]
    source = tmp_path / "m.py"
    source.write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from evalmark.report import x\n"
        "def f():\n    from . import y\n"
    )
    assert _imported("evalmark.report.m", source) == {
        "typing",
        "typing.TYPE_CHECKING",
        "evalmark.report",
        "evalmark.report.x",
        "evalmark.report.y",
    }


def test_the_report_package_has_no_import_cycle() -> None:
    graph = import_graph()
    assert len(graph) > 20  # every module was read
    assert cycles(graph) == []


def test_the_report_module_imports_no_renderer_gate_or_comparison() -> None:
    imported = import_graph()[f"{PACKAGE}._model"]
    assert imported <= {
        f"{PACKAGE}._cases",
        f"{PACKAGE}._figures",
        f"{PACKAGE}._gate_result",
        f"{PACKAGE}._reading",
        f"{PACKAGE}._state",
        f"{PACKAGE}._values",
    }, imported

"""The package's public names: all of them resolve, and the heavy ones load on first use."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import evalmark
from import_cycles import cycles


def test_every_public_name_resolves() -> None:
    for name in evalmark.__all__:
        assert getattr(evalmark, name) is not None, name
    assert set(evalmark.__all__) <= set(dir(evalmark))


def test_unknown_names_raise_attribute_error() -> None:
    try:
        evalmark.no_such_name  # type: ignore[attr-defined]  # noqa: B018
    except AttributeError as exc:
        assert "no_such_name" in str(exc)
    else:
        raise AssertionError("evalmark.no_such_name did not raise")


def run_python(code: str) -> list[str]:
    """The output lines of ``code`` run in a fresh interpreter."""
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    return done.stdout.split("\n")


def test_import_loads_nothing_heavy() -> None:
    code = (
        "import sys, evalmark\n"
        "heavy = ['numpy', 'evalmark._core', 'evalmark.metrics', 'evalmark.samples._samples',"
        " 'evalmark.engine._scorer', 'evalmark.suite', 'asyncio', 'yaml', 'msgspec']\n"
        "print(','.join(m for m in heavy if m in sys.modules))\n"
        "evalmark.load_samples\n"
        "print('evalmark.samples._samples' in sys.modules)\n"
        "print(evalmark.metrics.token_f1('a b', 'a b'))\n"
    )
    out = run_python(code)
    assert out[0] == "", f"imported at `import evalmark`: {out[0]}"
    assert out[1] == "True"
    assert out[2] == "1.0"


CORE_ONLY = """
import importlib, pkgutil, sys
CORE = set(sys.stdlib_module_names) | {"evalmark", "numpy", "msgspec", "yaml", "_yaml"}

class Refuse:
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] not in CORE:
            raise ModuleNotFoundError(f"no {name!r}: only the core dependencies", name=name)

sys.meta_path.insert(0, Refuse())
import evalmark
extras_only = ("evalmark.pytest", "evalmark.offline._pytest_plugin", "evalmark.suite.starter_files")
for info in pkgutil.walk_packages(evalmark.__path__, "evalmark."):
    if info.name.startswith(extras_only) or info.name == "evalmark.__main__":
        continue
    try:
        importlib.import_module(info.name)
    except ModuleNotFoundError as exc:
        print(f"{info.name} imports {exc.name}")
"""


def test_every_module_imports_with_only_the_core_dependencies() -> None:
    # The main job needs only the package: an extra is imported where it is used (the wheel
    # check found `rapidfuzz` imported by the openai-evals check at import time).
    assert run_python(CORE_ONLY) == [""]


def test_the_pytest_plugin_imports_only_itself() -> None:
    code = (
        "import sys\n"
        "before = set(sys.modules)\n"
        "import evalmark.pytest._plugin\n"
        "new = sorted(m for m in set(sys.modules) - before if m.startswith('evalmark'))\n"
        "print(','.join(new))\n"
        "heavy = ['numpy', 'yaml', 'msgspec', 'asyncio', 'evalmark._core']\n"
        "print(','.join(m for m in heavy if m in sys.modules))\n"
    )
    out = run_python(code)
    assert out[0] == ",".join(
        [
            "evalmark",
            "evalmark.pytest",
            "evalmark.pytest._fixtures",
            "evalmark.pytest._options",
            "evalmark.pytest._plugin",
            "evalmark.pytest._registry",
        ]
    )
    assert out[1] == "", f"the plugin imported {out[1]}"


def test_the_package_stub_matches_the_export_table() -> None:
    root = Path(__file__).resolve().parents[1]
    done = subprocess.run(
        [sys.executable, str(root / "tools" / "gen_init_stub.py"), "--check"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout


def test_submodules_are_reachable_from_a_plain_import() -> None:
    code = (
        "import pkgutil, evalmark\n"
        "names = [m.name for m in pkgutil.iter_modules(evalmark.__path__) if m.name[:2] != '__']\n"
        "missing = [n for n in names if not hasattr(evalmark, n)]\n"
        "print(','.join(missing))\n"
        "print(callable(evalmark.suite.suite_file_schema))\n"
    )
    out = run_python(code)
    assert out[0] == "", f"not reachable as attributes: {out[0]}"
    assert out[1] == "True"


def _cycles(graph: Any) -> list[list[str]]:
    """The import cycles of a grimp graph (its ``modules`` and their direct imports)."""
    return cycles({m: set(graph.find_modules_directly_imported_by(m)) for m in graph.modules})


def test_no_module_of_the_package_takes_part_in_an_import_cycle() -> None:
    grimp = pytest.importorskip("grimp")
    # Imports inside functions count; imports for type checking only do not.
    graph = grimp.build_graph("evalmark", exclude_type_checking_imports=True)
    assert _cycles(graph) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    class Graph:
        def __init__(self) -> None:
            self.modules = {"a", "b", "c", "d"}
            self.imports = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}

        def find_modules_directly_imported_by(self, module: str) -> set[str]:
            return self.imports.get(module, set())

    assert _cycles(Graph()) == [["a", "b", "c"]]


def test_a_pytest_session_without_evaluations_never_loads_the_engine(tmp_path: Path) -> None:
    from importlib.metadata import entry_points

    installed = any(e.name == "evalmark" for e in entry_points(group="pytest11"))
    load = "" if installed else "'-p', 'evalmark.pytest._plugin', "
    code = (
        "import sys, pytest\n"
        f"code = pytest.main(['--co', '-q', '-p', 'no:cacheprovider', {load}])\n"
        "assert 'evalmark.pytest._plugin' in sys.modules\n"
        "heavy = ['numpy', 'yaml', 'msgspec', 'evalmark._core', 'evalmark.report']\n"
        "print('RESULT', int(code), ','.join(m for m in heavy if m in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=True,
        timeout=120,
    )
    result = [line for line in done.stdout.splitlines() if line.startswith("RESULT")]
    assert result == ["RESULT 5 "], done.stdout  # 5: no tests collected; nothing heavy loaded

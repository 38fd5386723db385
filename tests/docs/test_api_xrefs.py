"""The API pages render the docstrings' cross-references: no raw reST role reaches a page.

The docstrings keep Sphinx roles (they read well in ``help()``); the API build rewrites them with
``tools/docs_xrefs.py`` through the griffe extension named in mkdocs.yml. These tests run that
rewrite over every docstring of the package, check that no role is left raw, and that every
role names an object that exists, so a link never points at a misspelt name.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "python" / "evalmark"


def _xrefs() -> ModuleType:
    spec = importlib.util.spec_from_file_location("docs_xrefs", ROOT / "tools" / "docs_xrefs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _docstrings() -> Iterator[tuple[str, tuple[str, ...], str, str]]:
    """Yield (module name, enclosing classes, where, docstring) for every documented object."""
    for path in sorted(PACKAGE.rglob("*.py*")):
        if path.suffix not in (".py", ".pyi") or "starter_files" in path.parts:
            continue
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        package = module if parts[-1] == "__init__" else module.rpartition(".")[0]
        tree = ast.parse(path.read_text(encoding="utf-8"))
        yield from _walk(tree, module, package, (), str(path.relative_to(ROOT)))


def _walk(
    node: ast.AST, module: str, package: str, classes: tuple[str, ...], file: str
) -> Iterator[tuple[str, tuple[str, ...], str, str]]:
    inner = (*classes, node.name) if isinstance(node, ast.ClassDef) else classes
    if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
        doc = ast.get_docstring(node, clean=False)
        if doc:
            yield module, (package, *inner), f"{file}:{getattr(node, 'lineno', 1)}", doc
    for child in ast.iter_child_nodes(node):
        yield from _walk(child, module, package, inner, file)


def _lookup(name: str, module: str, scope: tuple[str, ...]) -> Any:
    """Find ``name`` as Python scoping would from ``scope`` (package, then classes), or raise."""
    package, *classes = scope
    if name.startswith("."):
        name = package + name
    if name.startswith("evalmark"):
        parts = name.split(".")
        for cut in range(len(parts), 0, -1):
            try:
                obj = importlib.import_module(".".join(parts[:cut]))
            except ImportError:
                continue
            for part in parts[cut:]:
                obj = getattr(obj, part)
            return obj
        raise ImportError(name)
    head, *rest = name.split(".")
    namespace = importlib.import_module(module)
    owners: list[Any] = [namespace]
    for cls in classes:
        owners.insert(0, getattr(owners[0], cls))
    for owner in owners:
        if hasattr(owner, head):
            obj = getattr(owner, head)
            break
    else:
        obj = importlib.import_module(f"{module}.{head}")
    for part in rest:
        obj = getattr(obj, part)
    return obj


def test_no_docstring_role_stays_raw_on_the_api_pages() -> None:
    xrefs = _xrefs()
    raw = []
    for _module, _scope, where, doc in _docstrings():
        left = xrefs.raw_roles(xrefs.convert(doc, lambda name: name))
        raw += [f"{where}: {role}" for role in left]
    assert raw == [], "roles the API build would show raw:\n" + "\n".join(raw)


def test_every_role_names_an_existing_object() -> None:
    xrefs = _xrefs()
    broken: list[str] = []
    for module, scope, where, doc in _docstrings():

        def check(name: str, module: str = module, scope: Any = scope, where: str = where) -> str:
            if name.split(".")[0] in ("evalmark", "") or "." not in name:
                try:
                    _lookup(name, module, scope)
                except (ImportError, AttributeError):
                    broken.append(f"{where}: {name}")
            return name

        xrefs.convert(doc, check)
    assert broken == [], "roles naming nothing:\n" + "\n".join(broken)


def test_the_api_build_loads_the_role_extension() -> None:
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    (mkdocstrings,) = (p["mkdocstrings"] for p in config["plugins"] if isinstance(p, dict))
    options = mkdocstrings["handlers"]["python"]["options"]
    assert "tools/griffe_xrefs.py:SphinxRoleLinks" in options["extensions"]


def test_the_extension_leaves_no_raw_role_in_what_griffe_loads() -> None:
    """Where the docs toolchain is installed (``make docs``), the extension itself is run."""
    griffe = pytest.importorskip("griffe")
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        from griffe_xrefs import _objects  # type: ignore[import-not-found]

        extensions = griffe.load_extensions(f"{ROOT / 'tools' / 'griffe_xrefs.py'}:SphinxRoleLinks")
        package = griffe.load(
            "evalmark",
            search_paths=[str(ROOT / "python")],
            extensions=extensions,
            allow_inspection=False,
        )
    finally:
        sys.path.remove(str(ROOT / "tools"))
    xrefs = _xrefs()
    raw = [
        f"{obj.path}: {role}"
        for obj in _objects(package)
        if obj.docstring is not None
        for role in xrefs.raw_roles(obj.docstring.value)
    ]
    assert raw == []

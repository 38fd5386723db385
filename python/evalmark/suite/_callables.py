"""Importing what a suite names as ``package.module:name`` or ``path/to/file.py:name``.

A module is looked up where Python finds it (installed packages, ``PYTHONPATH``), then in the
suite file's folder, then in the working directory, so a package lying next to the suite runs
without setting ``PYTHONPATH``. What cannot be found is a ``SuiteError`` naming the closest
module, file or function that exists.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.machinery
import importlib.util
import pkgutil
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from types import ModuleType
from typing import Any

from evalmark._files.problems import suggest
from evalmark.errors import SuiteError

__all__ = ["import_callable", "module_folders"]

_MAX_FILES = 2000  # files looked at for a "did you mean" of a .py path
_FILE_MODULES: dict[Path, tuple[tuple[int, int], ModuleType]] = {}  # by path: (mtime, size)


def module_folders(base: Path) -> tuple[Path, ...]:
    """The folders a suite's modules are looked up in after Python's own path: the suite
    file's folder, then the working directory (once when they are the same)."""
    folders = [base.resolve(), Path.cwd().resolve()]
    return tuple(dict.fromkeys(folders))


def import_callable(reference: str, base: Path) -> Callable[..., Any]:
    """Import ``package.module:name`` or ``path/to/file.py:name`` (relative to ``base``).

    Raises ``SuiteError`` saying what could not be found and the closest name that exists.
    """
    target, _, name = reference.rpartition(":")
    if not target or not name:
        raise SuiteError(f"function {reference!r}: write 'package.module:function'")
    if target.endswith(".py"):
        module = _import_file(reference, target, base)
    else:
        module = _import_module(reference, target, base)
    found = getattr(module, name, None)
    if not callable(found):
        public = sorted(n for n in vars(module) if not n.startswith("_"))
        callables = [n for n in public if callable(getattr(module, n))]
        close = suggest(name, callables)
        hint = f"; did you mean '{target}:{close}'?" if close else ""
        shown = ", ".join(callables[:12]) or "nothing callable"
        raise SuiteError(
            f"function {reference!r}: {target} has no callable {name!r}{hint} (it has {shown})"
        )
    return found  # type: ignore[no-any-return]


def _import_file(reference: str, target: str, base: Path) -> ModuleType:
    path = (base / target).resolve()
    if not path.exists():
        close = suggest(target, _python_files(base))
        hint = f"; did you mean '{close}'?" if close else ""
        raise SuiteError(f"function {reference!r}: no such file {path}{hint}")
    digest = hashlib.sha256(str(path).encode("utf-8", "surrogatepass")).hexdigest()[:16]
    module_name = f"evalmark_suite_{path.stem}_{digest}"
    stat = path.stat()
    signature = (stat.st_mtime_ns, stat.st_size)
    loaded = _FILE_MODULES.get(path)
    if loaded is not None and loaded[0] == signature and sys.modules.get(module_name) is loaded[1]:
        return loaded[1]  # imported once per version of the file (the check before a run, the run)
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise SuiteError(f"function {reference!r}: cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        del sys.modules[module_name]
        raise SuiteError(
            f"function {reference!r}: importing {path} raised {type(exc).__name__}: {exc}"
        ) from None
    _FILE_MODULES[path] = (signature, module)
    return module


def _python_files(base: Path) -> list[str]:
    """``.py`` files under ``base`` (a bounded walk), as paths relative to it."""
    found: list[str] = []
    for path in base.rglob("*.py"):
        if len(found) >= _MAX_FILES:
            break
        relative = path.relative_to(base)
        if not any(part.startswith(".") or part == "__pycache__" for part in relative.parts):
            found.append(relative.as_posix())
    return sorted(found)


def _import_module(reference: str, target: str, base: Path) -> ModuleType:
    top = target.partition(".")[0]
    try:
        known = importlib.util.find_spec(top) is not None
    except (ImportError, ValueError):
        known = False
    if not known:
        _add_folder_holding(top, base)
    try:
        return importlib.import_module(target)
    except ModuleNotFoundError as exc:
        missing = exc.name or ""
        if missing and (target == missing or target.startswith(missing + ".")):
            raise SuiteError(_not_found(reference, target, missing, base)) from None
        raise SuiteError(f"function {reference!r}: importing {target!r} failed: {exc}") from None
    except Exception as exc:
        raise SuiteError(
            f"function {reference!r}: importing {target!r} raised {type(exc).__name__}: {exc}"
        ) from None


def _add_folder_holding(top: str, base: Path) -> None:
    """Put the first of :func:`module_folders` that holds module ``top`` at the end of
    ``sys.path`` (so the module's own imports of its siblings work too)."""
    for folder in module_folders(base):
        if importlib.machinery.PathFinder.find_spec(top, [str(folder)]) is not None:
            if str(folder) not in sys.path:
                sys.path.append(str(folder))
            importlib.invalidate_caches()
            return


def _not_found(reference: str, target: str, missing: str, base: Path) -> str:
    parent, _, last = missing.rpartition(".")
    if parent:
        package = sys.modules.get(parent)
        paths = getattr(package, "__path__", None) or []
        names = _module_names(pkgutil.iter_modules(paths))
    else:
        names = _module_names(pkgutil.iter_modules([str(f) for f in module_folders(base)]))
    close = suggest(last, names)
    hint = ""
    if close:
        meant = f"{parent}.{close}" if parent else close
        name = reference.rpartition(":")[2]
        hint = f"; did you mean '{target.replace(missing, meant, 1)}:{name}'?"
    folders = " and ".join(str(f) for f in module_folders(base))
    return (
        f"function {reference!r}: no module named {missing!r} (looked in the installed "
        f"packages, PYTHONPATH, {folders}){hint}"
    )


def _module_names(found: Iterable[pkgutil.ModuleInfo]) -> list[str]:
    return sorted({info.name for info in found})

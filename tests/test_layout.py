"""The tests mirror the package: every public package ``evalmark.<pkg>`` has its tests in
``tests/<pkg>/``, every public top-level module ``evalmark.<module>`` in
``tests/test_<module>.py``, every name a face exports is mentioned by those tests, and every
tests folder belongs to a package or is one of the few documented folders that do not.

A package or module is public when its name has no leading underscore. Test file basenames are
unique across ``tests/`` (there is no ``__init__.py``), so a folder's files are named
``test_<topic>.py`` with a topic that says which package they test.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import evalmark

PACKAGE = Path(evalmark.__file__).resolve().parent
TESTS = Path(__file__).resolve().parent

# A public package whose tests folder has another name: a folder ``tests/pytest`` risks
# shadowing the ``pytest`` import (``tests/`` is on sys.path).
FOLDER_OF = {"pytest": "pytest_plugin"}

# Tests folders that are not the tests of a public package, and why.
NOT_PACKAGES = {
    "_files": "the private package evalmark._files (the one reader per format, the one writer)",
    "docs": "the documentation's examples, outputs and cross references",
    "golden": "the checks of the bundled golden data sets and suites themselves",
    "golden_reports": "reports as rendered byte for byte, no tests of their own",
}


def public_packages() -> list[str]:
    """The names of the public packages ``evalmark.<name>``."""
    return sorted(
        path.name
        for path in PACKAGE.iterdir()
        if path.is_dir() and not path.name.startswith("_") and (path / "__init__.py").is_file()
    )


def public_modules() -> list[str]:
    """The names of the public top-level modules ``evalmark.<name>`` (files, not packages)."""
    return sorted(path.stem for path in PACKAGE.glob("*.py") if not path.stem.startswith("_"))


def folder_of(package: str) -> Path:
    """The tests folder of a public package."""
    return TESTS / FOLDER_OF.get(package, package)


def unmentioned(module: str, files: list[Path]) -> list[str]:
    """The names in ``evalmark.<module>.__all__`` that no file of ``files`` mentions as a word."""
    names = list(getattr(importlib.import_module(f"evalmark.{module}"), "__all__", []))
    text = "\n".join(path.read_text(encoding="utf-8") for path in files)
    return [name for name in names if not re.search(rf"\b{re.escape(name)}\b", text)]


def test_every_public_package_has_a_tests_folder() -> None:
    missing = [
        f"evalmark.{package} -> tests/{folder_of(package).name}/"
        for package in public_packages()
        if not any(folder_of(package).glob("test_*.py"))
    ]
    assert not missing, "public packages with no tests folder: " + ", ".join(missing)


def test_every_public_top_level_module_has_a_test_file() -> None:
    missing = [
        f"evalmark.{module} -> tests/test_{module}.py"
        for module in public_modules()
        if not (TESTS / f"test_{module}.py").is_file()
    ]
    assert not missing, "public modules with no test file: " + ", ".join(missing)


def test_every_name_of_a_face_is_mentioned_by_the_tests_of_its_package() -> None:
    missing: list[str] = []
    for package in public_packages():
        files = sorted(folder_of(package).rglob("*.py"))
        missing += [f"evalmark.{package}.{name}" for name in unmentioned(package, files)]
    for module in public_modules():
        files = [path for path in [TESTS / f"test_{module}.py"] if path.is_file()]
        missing += [f"evalmark.{module}.{name}" for name in unmentioned(module, files)]
    assert not missing, "names no test of their package mentions: " + ", ".join(missing)


def test_every_tests_folder_belongs_to_a_package_or_is_documented() -> None:
    folders = {
        path.name
        for path in TESTS.iterdir()
        if path.is_dir() and not path.name.startswith((".", "__"))
    }
    packages = {folder_of(package).name for package in public_packages()}
    strays = sorted(folders - packages - set(NOT_PACKAGES))
    assert not strays, (
        "tests folders that match no public package (move their tests to the folder of the "
        "package they test, or document the folder in NOT_PACKAGES): " + ", ".join(strays)
    )
    gone = sorted(set(NOT_PACKAGES) - folders)
    assert not gone, "documented folders that no longer exist: " + ", ".join(gone)
    assert not set(NOT_PACKAGES) & packages, "a package's folder is documented as not one"


def test_no_tests_folder_shadows_an_import() -> None:
    shadowing = sorted(
        name for name in ("pytest", "hypothesis", "evalmark") if (TESTS / name).exists()
    )
    assert not shadowing, "tests folders named like an imported package: " + ", ".join(shadowing)


def test_every_test_module_name_is_unique() -> None:
    # Test folders have no __init__.py: each module of tests/ and of its folders is imported by
    # its bare name, so two of one name cannot both be collected (or both be imported as a
    # helper). Deeper folders hold data and the scripts that made it.
    seen: dict[str, list[str]] = {}
    for path in sorted([*TESTS.glob("*.py"), *TESTS.glob("*/*.py")]):
        if path.name != "conftest.py":
            seen.setdefault(path.stem, []).append(path.relative_to(TESTS).as_posix())
    twice = {name: paths for name, paths in seen.items() if len(paths) > 1}
    assert not twice, "test modules sharing a name: " + "; ".join(
        ", ".join(paths) for paths in twice.values()
    )

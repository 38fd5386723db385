"""No Python module of the package is over 400 lines: a longer one is split by concept.

Generated tables are the one exception, and only when listed in ``GENERATED`` with the reason
they are long. The list is empty: every table evalmark generates lives in Rust
(``rust/metrics/unicode_tables.rs``) or in data files, not in a Python module.
"""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "python" / "evalmark"
MAX_LINES = 400

# path relative to PACKAGE -> why the module is a generated table that may be longer
GENERATED: dict[str, str] = {}


def _lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def _modules() -> dict[str, int]:
    return {
        path.relative_to(PACKAGE).as_posix(): _lines(path)
        for path in sorted(PACKAGE.rglob("*.py"))
        if "__pycache__" not in path.parts
    }


def test_the_package_is_found_and_holds_modules() -> None:
    modules = _modules()
    assert "__init__.py" in modules
    assert "errors/__init__.py" in modules
    assert len(modules) > 100


def test_no_module_is_over_the_limit() -> None:
    too_long = {
        name: count
        for name, count in _modules().items()
        if count > MAX_LINES and name not in GENERATED
    }
    listing = ", ".join(f"{name} ({count} lines)" for name, count in sorted(too_long.items()))
    assert not too_long, f"over {MAX_LINES} lines: {listing}; split each by concept"


def test_the_allow_list_names_only_long_generated_modules_with_a_reason() -> None:
    modules = _modules()
    for name, reason in GENERATED.items():
        assert name in modules, f"GENERATED lists {name}, which does not exist: remove it"
        assert modules[name] > MAX_LINES, f"{name} is short enough now: remove it from GENERATED"
        assert reason.strip(), f"say why {name} is a generated table"

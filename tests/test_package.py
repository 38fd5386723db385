"""The package's public names: all of them resolve, and the heavy ones load on first use."""

from __future__ import annotations

import subprocess
import sys

import evalmark


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
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return done.stdout.split("\n")


def test_import_loads_the_metrics_only() -> None:
    code = (
        "import sys, evalmark\n"
        "heavy = ['evalmark.samples', 'evalmark.scorer', 'evalmark.suite', 'asyncio', 'yaml']\n"
        "print(','.join(m for m in heavy if m in sys.modules))\n"
        "evalmark.load_samples\n"
        "print('evalmark.samples' in sys.modules)\n"
    )
    out = run_python(code)
    assert out[0] == "", f"imported at `import evalmark`: {out[0]}"
    assert out[1] == "True"


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

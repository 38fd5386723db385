"""Print the requirements of the named extras of pyproject.toml, one per line.

``python tools/requirements.py dev arrow`` feeds ``pip install -r /dev/stdin`` in the Makefile,
so the extras are installed without rebuilding the extension and pyproject.toml stays the one
list of dependencies.
"""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

PYPROJECT = Path(__file__).resolve().parent.parent / "pyproject.toml"


def requirements(extras: list[str]) -> list[str]:
    """The requirement strings of ``extras``, in pyproject order, without repeats."""
    project = tomllib.loads(PYPROJECT.read_text())["project"]
    optional: dict[str, list[str]] = project["optional-dependencies"]
    unknown = [name for name in extras if name not in optional]
    if unknown:
        raise SystemExit(f"unknown extras {unknown}; pyproject.toml has {sorted(optional)}")
    seen: dict[str, None] = {}
    for name in extras:
        seen.update(dict.fromkeys(optional[name]))
    return list(seen)


if __name__ == "__main__":
    print("\n".join(requirements(sys.argv[1:])))

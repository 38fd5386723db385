"""Print the requirements of the named extras of pyproject.toml, one per line.

``python tools/requirements.py dev arrow`` feeds ``pip install -r /dev/stdin`` in the Makefile,
so the extras are installed without rebuilding the extension and pyproject.toml stays the one
list of dependencies. ``--core`` adds the package's own dependencies first (``make producers``
installs them beside the producers, into a venv that has no evalmark installed).
"""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

PYPROJECT = Path(__file__).resolve().parent.parent / "pyproject.toml"


def requirements(extras: list[str], *, core: bool = False) -> list[str]:
    """The requirement strings of ``extras`` (after the core dependencies with ``core``), in
    pyproject order, without repeats."""
    project = tomllib.loads(PYPROJECT.read_text())["project"]
    optional: dict[str, list[str]] = project["optional-dependencies"]
    unknown = [name for name in extras if name not in optional]
    if unknown:
        raise SystemExit(f"unknown extras {unknown}; pyproject.toml has {sorted(optional)}")
    seen: dict[str, None] = dict.fromkeys(project["dependencies"] if core else [])
    for name in extras:
        seen.update(dict.fromkeys(optional[name]))
    return list(seen)


if __name__ == "__main__":
    names = sys.argv[1:]
    print("\n".join(requirements([n for n in names if n != "--core"], core="--core" in names)))

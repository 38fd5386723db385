"""Griffe extension for the API pages: docstring roles become cross-references.

mkdocs.yml loads it (``extensions: [tools/griffe_xrefs.py]``). Once the package is loaded, every
docstring is rewritten with ``docs_xrefs.convert``; a relative name (``:class:`Report```) is
resolved in the scope of the object whose docstring holds it, as Python would.
It needs griffe, which only the docs build has (the ``docs`` extra).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import griffe

sys.path.insert(0, str(Path(__file__).resolve().parent))
from docs_xrefs import convert


def _objects(obj: griffe.Object) -> Iterator[griffe.Object]:
    """Yield ``obj`` and every object defined under it (aliases are skipped: their targets
    are converted where they are defined)."""
    yield obj
    for member in obj.members.values():
        if not member.is_alias and isinstance(member, griffe.Object):
            yield from _objects(member)


def _resolver(obj: griffe.Object) -> Any:
    """Return a function resolving a role's name in the scope of ``obj``."""

    def resolve(name: str) -> str | None:
        if name.split(".", 1)[0] in ("evalmark", "pytest", "numpy"):
            return name
        if name.startswith("."):
            module = obj.module
            package = module if module.is_init_module else module.parent
            return f"{package.path if package else module.path}{name}"
        head, _, rest = name.partition(".")
        try:
            full = obj.resolve(head)
        except (griffe.NameResolutionError, griffe.AliasResolutionError, KeyError):
            return name if "." in name else None
        return f"{full}.{rest}" if rest else full

    return resolve


class SphinxRoleLinks(griffe.Extension):
    """Rewrite the reST roles of every docstring as optional autorefs references."""

    def on_package(self, *, pkg: griffe.Module, loader: griffe.GriffeLoader, **kwargs: Any) -> None:
        """Convert the docstrings once the whole package is loaded."""
        for obj in _objects(pkg):
            if obj.docstring is not None:
                obj.docstring.value = convert(obj.docstring.value, _resolver(obj))

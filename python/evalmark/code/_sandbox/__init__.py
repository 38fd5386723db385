"""Sandboxes for generated code, chosen by name: ``bwrap`` (bubblewrap namespaces) or ``local``
(a subprocess with rlimits, not a security boundary), or any object with ``name`` and
``run(request, limits)`` (:class:`Sandbox`), such as a Docker or remote runner."""

from __future__ import annotations

from collections.abc import Callable

from evalmark.code._sandbox.base import (
    PYTHON,
    Limits,
    Reason,
    RunOutcome,
    RunRequest,
    Sandbox,
    tail,
)
from evalmark.code._sandbox.bwrap import BwrapSandbox, bwrap_unavailable_reason, bwrap_version
from evalmark.code._sandbox.local import LocalSandbox, default_python

__all__ = [
    "PYTHON",
    "SANDBOXES",
    "BwrapSandbox",
    "Limits",
    "LocalSandbox",
    "Reason",
    "RunOutcome",
    "RunRequest",
    "Sandbox",
    "SandboxSpec",
    "bwrap_unavailable_reason",
    "bwrap_version",
    "default_python",
    "get_sandbox",
    "tail",
]

SANDBOXES: dict[str, Callable[[], Sandbox]] = {"bwrap": BwrapSandbox, "local": LocalSandbox}
"""The sandboxes a name can choose."""

SandboxSpec = str | Sandbox


def get_sandbox(spec: SandboxSpec) -> Sandbox:
    """The sandbox ``spec`` names (``"bwrap"``, ``"local"``), or ``spec`` itself when it already
    is one (anything with ``name`` and ``run``)."""
    if isinstance(spec, str):
        factory = SANDBOXES.get(spec)
        if factory is None:
            raise ValueError(
                f"unknown sandbox {spec!r}; choose one of {', '.join(sorted(SANDBOXES))}, "
                "or pass an object with name and run(request, limits)"
            )
        return factory()
    if isinstance(spec, Sandbox):
        return spec
    raise TypeError(
        f"a sandbox is a name ({', '.join(sorted(SANDBOXES))}) or an object with name and "
        f"run(request, limits); got {type(spec).__name__}"
    )

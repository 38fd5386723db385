"""The compiled extension, imported in one place: a tree that was never built gets an error that
says how to build it instead of a bare ``No module named 'evalmark._core'``."""

from __future__ import annotations

import os

from evalmark.errors import ExtensionNotBuiltError

try:
    from evalmark._core import work_done as work_done
except ModuleNotFoundError as exc:
    if exc.name != "evalmark._core":
        raise
    raise ExtensionNotBuiltError(os.path.dirname(os.path.dirname(__file__))) from None

import evalmark._core as core  # after the check above

__all__ = ["core", "work_done"]

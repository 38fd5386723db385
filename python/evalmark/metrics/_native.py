"""The compiled extension, imported in one place: a tree that was never built gets an error that
says how to build it instead of a bare ``No module named 'evalmark._core'``, and an extension
built from other sources than the Python code beside it (a stale build) is refused the same way
instead of the package running with native functions missing."""

from __future__ import annotations

import os
import zlib

from evalmark.errors import ExtensionNotBuiltError

_PACKAGE_DIR = os.path.dirname(os.path.dirname(__file__))

try:
    from evalmark._core import work_done as work_done
except ModuleNotFoundError as exc:
    if exc.name != "evalmark._core":
        raise
    raise ExtensionNotBuiltError(_PACKAGE_DIR) from None

import evalmark._core as core  # noqa: E402  # after the check above


def stub_matches(stub_path: str, built_crc32: object) -> bool:
    """Whether the type stub at ``stub_path`` is the one the extension was built with
    (``built_crc32``, its ``STUB_CRC32``). An installation without the stub is not judged."""
    try:
        with open(stub_path, "rb") as stub:
            shipped = zlib.crc32(stub.read())
    except FileNotFoundError:
        return True
    return shipped == built_crc32


if not stub_matches(os.path.join(_PACKAGE_DIR, "_core.pyi"), getattr(core, "STUB_CRC32", None)):
    raise ExtensionNotBuiltError(_PACKAGE_DIR, stale=True)

__all__ = ["core", "work_done"]

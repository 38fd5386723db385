"""The request's files, staged for bubblewrap: each opened for ``--file FD DEST``, which copies
it into the sandbox's work directory (so no host folder is shared with the program)."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import PurePosixPath

from evalmark.code._sandbox.base import RunRequest

__all__ = ["Staged", "staged_files"]


class Staged:
    """The bubblewrap flags that copy a request's files in, and the fds they read."""

    def __init__(self) -> None:
        self.flags: list[str] = []
        self.fds: list[int] = []

    def data_fd(self, data: bytes) -> int:
        """An fd (passed to bubblewrap, closed after the run) that reads ``data``."""
        fd = _readable(data)
        self.fds.append(fd)
        return fd


def _readable(data: bytes) -> int:
    with tempfile.TemporaryFile() as handle:
        handle.write(data)
        handle.flush()
        handle.seek(0)
        return os.dup(handle.fileno())  # outlives the handle, shares its offset


@contextlib.contextmanager
def staged_files(request: RunRequest, work: str) -> Iterator[Staged]:
    """Open each request file for bubblewrap's ``--file FD DEST``, which copies it into the
    sandbox's tmpfs (so no host folder is shared with the program)."""
    staged = Staged()
    folders: set[str] = set()
    try:
        for name in sorted(request.files):
            for parent in reversed(PurePosixPath(name).parents[:-1]):
                if str(parent) not in folders:
                    folders.add(str(parent))
                    staged.flags += ["--dir", f"{work}/{parent}"]
            fd = staged.data_fd(request.files[name])
            staged.flags += ["--file", str(fd), f"{work}/{name}"]
        yield staged
    finally:
        for fd in staged.fds:
            with contextlib.suppress(OSError):
                os.close(fd)

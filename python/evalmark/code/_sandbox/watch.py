"""Watching a bwrap sandbox's writable places from the host: how many files and bytes they hold.

tmpfs counts bytes (bubblewrap's ``--size``) but bubblewrap cannot bound its inodes, and an
empty file costs the kernel about a kilobyte whatever the size limit. So while the program runs,
the host reads ``statvfs`` of each writable mount through ``/proc/PID/root`` of the sandbox's
first process, every poll of the run loop (50 ms), and kills the whole sandbox once the files
and folders together exceed :attr:`Limits.files` (or, where bubblewrap is too old for
``--size``, once the bytes exceed :attr:`Limits.disk_bytes`). The bound is therefore the limit
plus what the program creates between two polls.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Sequence

__all__ = ["WritableWatch"]


class WritableWatch:
    """Called with the pid bubblewrap runs as, once the sandbox is set up; returns a line
    saying which limit was passed, or None."""

    def __init__(self, places: Sequence[str], files: int, disk_bytes: int | None) -> None:
        self.places = tuple(places)
        self.files = files
        self.disk_bytes = disk_bytes
        self._root: str | None = None

    def __call__(self, pid: int) -> str | None:
        """A line naming the limit passed, or None while within limits (or unreadable)."""
        if self._root is None:
            child = _child_of(pid)
            if child is None:
                return None
            self._root = f"/proc/{child}/root"
        files = used = 0
        for place in self.places:
            try:
                stat = os.statvfs(self._root + place)
            except OSError:  # the sandbox is ending, or /proc is not ours to read
                return None
            files += stat.f_files - stat.f_ffree
            used += (stat.f_blocks - stat.f_bfree) * stat.f_frsize
        if files > self.files:
            return (
                f"evalmark: the sandbox holds {files} files and folders, over its file-count "
                f"limit of {self.files} (Limits.files); the process tree was killed"
            )
        if self.disk_bytes is not None and used > self.disk_bytes:
            return (
                f"evalmark: the sandbox's writable places hold {used} bytes, over its disk "
                f"limit of {self.disk_bytes} (Limits.disk_bytes); the process tree was killed"
            )
        return None


def _child_of(pid: int) -> int | None:
    """The first child of ``pid`` (bubblewrap's sandbox process), or None."""
    with contextlib.suppress(OSError, ValueError):
        with open(f"/proc/{pid}/task/{pid}/children", encoding="ascii") as f:
            found = f.read().split()
        return int(found[0]) if found else None
    # Kernels without /proc/PID/task/TID/children: look for the parent pid of each process.
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            with (
                contextlib.suppress(OSError, ValueError, IndexError),
                open(f"/proc/{entry}/stat", encoding="ascii") as f,
            ):
                if int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                    return int(entry)
    return None

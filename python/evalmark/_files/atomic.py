"""Files that appear complete or not at all: written beside the target, renamed on success."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path


class AtomicFile:
    """A temporary file in the target's folder; :meth:`commit` makes it the target.

    Until then the target is untouched; :meth:`discard` (or any failure, Ctrl-C included,
    when used as a context manager) removes the temporary file.
    """

    def __init__(self, target: Path) -> None:
        self.target = target
        folder = target.parent if str(target.parent) else Path(".")
        descriptor, name = tempfile.mkstemp(dir=folder, prefix=f".{target.name}.", suffix=".part")
        os.close(descriptor)
        self.temp = Path(name)
        os.chmod(self.temp, 0o666 & ~_umask())  # mkstemp makes 0600; give the usual mode
        self._done = False

    def commit(self) -> None:
        """Flush the temporary file to disk and rename it over the target."""
        with self.temp.open("rb+") as handle:
            os.fsync(handle.fileno())
        os.replace(self.temp, self.target)
        self._done = True
        with contextlib.suppress(OSError):  # not every platform can fsync a folder
            folder = os.open(self.target.parent, os.O_RDONLY)
            try:
                os.fsync(folder)
            finally:
                os.close(folder)

    def discard(self) -> None:
        """Remove the temporary file; the target is left as it was."""
        if not self._done:
            self._done = True
            with contextlib.suppress(FileNotFoundError):
                self.temp.unlink()

    def __enter__(self) -> AtomicFile:
        return self

    def __exit__(self, kind: object, value: object, traceback: object) -> None:
        if kind is None and not self._done:
            try:
                self.commit()
            except BaseException:
                self.discard()
                raise
        elif kind is not None:
            self.discard()


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_atomically(target: Path, data: bytes) -> None:
    """Write ``data`` to ``target`` so that readers see the old file or the whole new one."""
    with AtomicFile(target) as out:
        out.temp.write_bytes(data)

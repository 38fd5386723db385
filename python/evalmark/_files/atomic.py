"""The one way evalmark writes a file: complete or not at all.

Data goes to a temporary file beside the target, which is flushed to disk and renamed over the
target only when everything is written: a reader sees the old file or the whole new one, and a
failure or Ctrl-C leaves the old file as it was. Missing folders on the way are created.

Temporary files are named ``.<target name>.<process id>.<random>.part``. A kill (which nothing
can clean up after) may leave one behind; the next write to the same target removes it once the
process that made it has gone and the file is older than the current process. Every error names
the path that was asked for, never the temporary file.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from evalmark.errors import OutputPathError

__all__ = ["AtomicFile", "write_atomically", "write_together"]

_STARTED = time.time()
_SUFFIX = ".part"
# What comes between ".<target name>." and the suffix: "<pid>.<random>" now, "<random>" in
# files left by earlier versions (which also used ".tmp").
_MIDDLE = re.compile(r"(?:(?P<pid>\d+)\.)?[A-Za-z0-9_]{8}")


class AtomicFile:
    """A temporary file in the target's folder; :meth:`commit` makes it the target.

    Until then the target is untouched; :meth:`discard` (or any failure, Ctrl-C included,
    when used as a context manager) removes the temporary file. A target that exists and is
    not a regular file (``/dev/null``, a pipe) is written directly: it cannot be replaced.
    """

    def __init__(self, target: str | os.PathLike[str]) -> None:
        self.target = Path(target)
        self._done = False
        if self.target.is_dir():
            raise OutputPathError(
                str(self.target), "is a folder, not a file; name a file to write (inside it)"
            )
        self._direct = self.target.exists() and not self.target.is_file()
        if self._direct:
            self.temp = self.target
            return
        folder = self.target.parent
        try:
            folder.mkdir(parents=True, exist_ok=True)
            remove_stale_parts(self.target)
            descriptor, name = tempfile.mkstemp(
                dir=folder, prefix=f".{self.target.name}.{os.getpid()}.", suffix=_SUFFIX
            )
        except OSError as exc:
            raise output_error(self.target, exc) from None
        try:
            os.fchmod(descriptor, _mode_for(self.target))
        finally:
            os.close(descriptor)
        self.temp = Path(name)

    def write_bytes(self, data: bytes) -> None:
        """Write ``data`` to the temporary file (replacing what it held)."""
        self.temp.write_bytes(data)

    def commit(self) -> None:
        """Flush the temporary file to disk and rename it over the target."""
        if self._done:
            return
        if self._direct:
            self._done = True
            return
        try:
            with self.temp.open("rb+") as handle:
                os.fsync(handle.fileno())
            os.replace(self.temp, self.target)
        except OSError as exc:
            self.discard()
            raise output_error(self.target, exc) from None
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
            if not self._direct:
                with contextlib.suppress(FileNotFoundError):
                    self.temp.unlink()

    def __enter__(self) -> AtomicFile:
        return self

    def __exit__(self, kind: object, value: object, traceback: object) -> None:
        if kind is None:
            self.commit()
            return
        self.discard()
        if isinstance(value, OSError) and value.filename in (str(self.temp), self.temp):
            raise output_error(self.target, value) from None


def write_atomically(target: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to ``target`` so that readers see the old file or the whole new one."""
    with AtomicFile(target) as out:
        out.write_bytes(data)


def write_together(
    files: Sequence[tuple[Path, bytes]], *, before_commit: Callable[[], None] | None = None
) -> list[Path]:
    """Write several files so that all of them appear or none: each goes to its temporary
    file, and only when every one is written (and ``before_commit``, if given, has returned)
    are they renamed over their targets. A failure before that, Ctrl-C included, leaves every
    target as it was. Returns the paths written."""
    staged: list[AtomicFile] = []
    try:
        for path, data in files:
            out = AtomicFile(path)
            staged.append(out)
            try:
                out.write_bytes(data)
            except OSError as exc:
                raise output_error(out.target, exc) from None
        if before_commit is not None:
            before_commit()
    except BaseException:
        for out in staged:
            out.discard()
        raise
    for out in staged:
        out.commit()
    return [out.target for out in staged]


def output_error(target: Path, exc: OSError) -> OutputPathError:
    """An OS error met while writing ``target``, worded with the path asked for."""
    hints = {
        errno.EACCES: "check the folder's permissions, or write somewhere else",
        errno.EPERM: "check the folder's permissions, or write somewhere else",
        errno.EROFS: "the file system is read-only; write somewhere else",
        errno.ENOSPC: "the disk is full; free some space",
        errno.ENOTDIR: "a folder on the path is a file; choose another path",
        errno.EEXIST: "a folder on the path is a file; choose another path",
        errno.EISDIR: "it is a folder; name a file to write",
        errno.ENAMETOOLONG: "the name is too long; choose a shorter one",
    }
    reason = exc.strerror or str(exc)
    hint = hints.get(exc.errno or 0, "")
    error = OutputPathError(
        str(target), f"cannot be written ({reason})" + (f"; {hint}" if hint else "")
    )
    error.errno = exc.errno
    return error


def remove_stale_parts(target: Path) -> None:
    """Remove the temporary files of ``target`` left by writes that were killed: those whose
    process has gone, made before this process started."""
    prefix = f".{target.name}."
    try:
        entries = list(os.scandir(target.parent))
    except OSError:
        return
    for entry in entries:
        name = entry.name
        suffix = next((s for s in (_SUFFIX, ".tmp") if name.endswith(s)), None)
        if suffix is None or not name.startswith(prefix):
            continue
        middle = _MIDDLE.fullmatch(name[len(prefix) : -len(suffix)])
        if middle is None:
            continue
        pid = middle.group("pid")
        if pid is not None and _alive(int(pid)):
            continue
        with contextlib.suppress(OSError):
            if entry.stat(follow_symlinks=False).st_mtime < _STARTED and entry.is_file(
                follow_symlinks=False
            ):
                os.unlink(entry.path)


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    if sys.platform == "win32":  # pragma: no cover - no signal 0 there: keep the file
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    return True


def _mode_for(target: Path) -> int:
    """The mode the file gets: that of the file it replaces, else the usual one (0666 less the
    umask)."""
    try:
        return target.stat().st_mode & 0o777
    except OSError:
        return 0o666 & ~_UMASK


def _read_umask() -> int:
    with contextlib.suppress(OSError, ValueError):
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    mask = os.umask(0o022)  # only at import, before any thread writes files
    os.umask(mask)
    return mask


_UMASK = _read_umask()

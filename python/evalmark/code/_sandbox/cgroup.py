"""A cgroup v2 per bwrap run, where one is delegated to evalmark: the memory and the number of
processes of the whole sandbox, kernel memory (files, pipes, sockets) included, are bounded.

Found by :func:`delegated_cgroup`: the directory named by ``EVALMARK_SANDBOX_CGROUP``
(``off`` turns cgroups off), else the parent of evalmark's own cgroup (``/proc/self/cgroup``,
the ``0::`` line, under the cgroup2 mount of ``/proc/self/mountinfo``) when it is owned by
evalmark's user (delegated, as systemd does for a user's services) and not root. The directory
qualifies when ``memory`` is listed in its ``cgroup.subtree_control`` and evalmark may write
it. Each run then gets a child ``evalmark-PID-N`` with ``memory.max`` = ``memory_bytes``,
``memory.swap.max`` = 0 and ``pids.max`` = ``processes``; bubblewrap is moved in before it
starts, and the child is killed and removed after the run.
"""

from __future__ import annotations

import contextlib
import errno
import itertools
import os
import time
from collections.abc import Sequence
from pathlib import Path

from evalmark.code._sandbox.base import Limits
from evalmark.errors import SandboxUnavailableError

__all__ = ["ENV", "RunCgroup", "delegated_cgroup", "run_cgroup"]

ENV = "EVALMARK_SANDBOX_CGROUP"
_GATE = "import os, sys\nos.read(int(sys.argv[1]), 1)\nos.execvp(sys.argv[2], sys.argv[2:])\n"
_COUNTER = itertools.count()


def _cgroup2_mount(mountinfo: str) -> str | None:
    for line in mountinfo.splitlines():
        left, _, right = line.partition(" - ")
        if right.split(" ")[:1] == ["cgroup2"]:
            return left.split(" ")[4]
    return None


def _usable(folder: Path) -> bool:
    try:
        controllers = (folder / "cgroup.subtree_control").read_text().split()
    except OSError:
        return False
    return "memory" in controllers and os.access(folder, os.W_OK)


def delegated_cgroup(environ: dict[str, str] | None = None, proc: str = "/proc") -> Path | None:
    """The cgroup v2 directory runs get their own cgroup under, or None (see the module)."""
    environ = dict(os.environ) if environ is None else environ
    named = environ.get(ENV, "").strip()
    if named.lower() in ("off", "none", "0", "false"):
        return None
    if named:
        return Path(named) if _usable(Path(named)) else None
    try:
        own = next(
            line[3:]
            for line in Path(proc, "self/cgroup").read_text().splitlines()
            if line.startswith("0::")
        )
        mount = _cgroup2_mount(Path(proc, "self/mountinfo").read_text())
    except (OSError, StopIteration):
        return None
    if mount is None or os.geteuid() == 0:
        return None  # root: only the directory named by EVALMARK_SANDBOX_CGROUP
    parent = Path(mount, own.strip("/")).parent
    try:
        delegated = parent.stat().st_uid == os.geteuid()
    except OSError:
        return None
    return parent if delegated and _usable(parent) else None


class RunCgroup:
    """The cgroup of one run: created with the limits, entered by bubblewrap through a gate
    (a few lines of Python that wait until the process was moved in), removed by
    :meth:`close`."""

    def __init__(self, parent: Path, limits: Limits, python: str) -> None:
        self.python = python
        self.path = parent / f"evalmark-{os.getpid()}-{next(_COUNTER)}"
        self.path.mkdir()
        try:
            (self.path / "memory.max").write_text(str(limits.memory_bytes))
            for name, value in (("memory.swap.max", "0"), ("pids.max", str(limits.processes))):
                if (self.path / name).exists():
                    (self.path / name).write_text(value)
        except OSError:
            self.close()
            raise

    def argv(self, command: Sequence[str], gate_fd: int) -> list[str]:
        """``command``, started once the gate opens."""
        return [self.python, "-I", "-S", "-c", _GATE, str(gate_fd), *command]

    def enter(self, pid: int) -> None:
        """Move ``pid`` (waiting at the gate) into this cgroup; SandboxUnavailableError when
        the kernel refuses."""
        try:
            (self.path / "cgroup.procs").write_text(str(pid))
        except OSError as exc:
            raise SandboxUnavailableError(
                f"cannot move the sandbox into the cgroup {self.path} ({exc}); give evalmark a "
                f"cgroup it may write, or set {ENV}=off to bound memory by rlimits only"
            ) from None

    def oom_killed(self) -> bool:
        """True when the kernel killed a process here for passing ``memory.max``."""
        with contextlib.suppress(OSError, ValueError):
            for line in (self.path / "memory.events").read_text().splitlines():
                name, _, value = line.partition(" ")
                if name == "oom_kill" and int(value) > 0:
                    return True
        return False

    def close(self) -> None:
        """Kill whatever is left inside and remove the cgroup (waits up to 5 s while the
        killed processes exit)."""
        with contextlib.suppress(OSError):
            (self.path / "cgroup.kill").write_text("1")
        deadline = time.monotonic() + 5.0
        while True:
            try:
                self.path.rmdir()
                return
            except OSError as exc:
                if exc.errno != errno.EBUSY or time.monotonic() >= deadline:
                    return
                time.sleep(0.02)


def run_cgroup(limits: Limits, python: str) -> RunCgroup | None:
    """A cgroup for one run where one is delegated, else None (rlimits only)."""
    parent = delegated_cgroup()
    if parent is None:
        return None
    try:
        return RunCgroup(parent, limits, python)
    except OSError:
        return None

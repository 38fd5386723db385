"""Running one process under a wall clock: bounded capture of its output, and killing its
whole process group when time is up or when it exits.

Shared by the ``local`` and ``bwrap`` sandboxes. The rlimits are set inside the child by
:data:`LAUNCHER`, a few lines of Python run by the sandbox's interpreter just before it
replaces itself with the program (no ``preexec_fn``, which is unsafe in threaded callers).
"""

from __future__ import annotations

import contextlib
import os
import selectors
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from evalmark.code._sandbox.base import Limits

__all__ = ["LAUNCHER", "Captured", "launcher_argv", "run_process"]

# Sets the rlimits given as "name=value" items in argv[1] (never above a hard limit already in
# place), writes one byte to the "ready" fd if one is named, then execs argv[2:]. The CPU hard
# limit is one second above the soft one: SIGXCPU first, SIGKILL if the program ignores it.
LAUNCHER = """\
import os, resource, sys
ready = None
for item in sys.argv[1].split(","):
    name, value = item.split("=")
    if name == "ready":
        ready = int(value)
        continue
    which = getattr(resource, "RLIMIT_" + name.upper())
    soft = int(value)
    hard = soft + 1 if name == "cpu" else soft
    ceiling = resource.getrlimit(which)[1]
    if ceiling != resource.RLIM_INFINITY:
        soft, hard = min(soft, ceiling), min(hard, ceiling)
    resource.setrlimit(which, (soft, hard))
if ready is not None:
    os.write(ready, b"1")
    os.close(ready)
os.execvp(sys.argv[2], sys.argv[2:])
"""

_GRACE = 2.0  # seconds to drain the pipes after the program has ended or been killed
_POLL = 0.05  # how often the loop looks whether the program has exited
_CHUNK = 65536


def launcher_argv(
    python: str,
    limits: Limits,
    argv: Sequence[str],
    *,
    processes: int | None = None,
    ready_fd: int | None = None,
) -> list[str]:
    """The command that applies ``limits`` and then runs ``argv``. ``processes`` overrides the
    process limit (for sandboxes where it counts more than the program's own processes);
    ``ready_fd`` is an inherited fd the launcher writes one byte to just before it execs."""
    items: dict[str, int] = {
        "cpu": limits.cpu_seconds,
        "as": limits.memory_bytes,
        "nproc": processes if processes is not None else limits.processes,
        "fsize": limits.file_size_bytes,
        "core": 0,
    }
    if ready_fd is not None:
        items["ready"] = ready_fd
    spec = ",".join(f"{name}={value}" for name, value in items.items())
    return [python, "-I", "-S", "-c", LAUNCHER, spec, *argv]


@dataclass(slots=True)
class Captured:
    """What came out of one process."""

    returncode: int
    timed_out: bool
    stdout: bytes
    stderr: bytes
    stdout_truncated: bool
    stderr_truncated: bool
    status: bytes  # what arrived on the status pipe, if one was given


class _Stream:
    """Keeps the first and the last ``limit // 2`` bytes of a stream."""

    __slots__ = ("half", "head", "tail", "total")

    def __init__(self, limit: int) -> None:
        self.half = max(limit // 2, 1)
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0

    def add(self, chunk: bytes) -> None:
        self.total += len(chunk)
        room = self.half - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        if chunk:
            self.tail += chunk
            extra = len(self.tail) - self.half
            if extra > 0:
                del self.tail[:extra]

    def value(self) -> tuple[bytes, bool]:
        kept = len(self.head) + len(self.tail)
        if self.total == kept:
            return bytes(self.head) + bytes(self.tail), False
        note = f"\n…[{self.total - kept} bytes omitted]…\n".encode()
        return bytes(self.head) + note + bytes(self.tail), True


def run_process(
    argv: Sequence[str],
    *,
    cwd: str,
    env: Mapping[str, str],
    stdin: bytes,
    limits: Limits,
    pass_fds: Sequence[int] = (),
    user: int | None = None,
    group: int | None = None,
    status_pipe: tuple[int, int] | None = None,
) -> Captured:
    """Run ``argv`` in a new session, feed it ``stdin``, keep a bounded part of its output,
    and kill its process group at the wall-clock limit, or as soon as the program exits (so
    nothing it started outlives it).

    ``status_pipe`` is ``(read_fd, write_fd)`` of a pipe whose write end the child inherits
    (and which is closed here once the child is spawned); what arrives on it is
    ``Captured.status``.
    ``user``/``group`` run the child as another user (needs root).
    """
    fds = list(pass_fds)
    if status_pipe is not None:
        fds.append(status_pipe[1])
    try:
        proc = subprocess.Popen(
            list(argv),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env=dict(env),
            close_fds=True,
            pass_fds=tuple(fds),
            start_new_session=True,
            user=user,
            group=group,
            extra_groups=[] if user is not None else None,
        )
    finally:
        if status_pipe is not None:
            os.close(status_pipe[1])
    try:
        return _collect(proc, stdin, limits, status_pipe[0] if status_pipe else -1)
    finally:
        if proc.returncode is None:  # an exception in _collect: kill before reaping
            _kill_group(proc)
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        if status_pipe is not None:
            with contextlib.suppress(OSError):
                os.close(status_pipe[0])
        proc.wait()


def _collect(proc: subprocess.Popen[bytes], stdin: bytes, limits: Limits, status: int) -> Captured:
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    out, err, stat = _Stream(limits.output_bytes), _Stream(limits.output_bytes), _Stream(65536)
    readers = {proc.stdout.fileno(): out, proc.stderr.fileno(): err}
    if status >= 0:
        readers[status] = stat
    selector = selectors.DefaultSelector()
    for fd in readers:
        os.set_blocking(fd, False)
        selector.register(fd, selectors.EVENT_READ)
    stdin_fd = proc.stdin.fileno()
    pending = memoryview(stdin)
    if pending:
        os.set_blocking(stdin_fd, False)
        selector.register(stdin_fd, selectors.EVENT_WRITE)
    else:
        proc.stdin.close()
    deadline = time.monotonic() + limits.timeout
    timed_out = False
    ended_at: float | None = None  # when the program exited or was killed
    try:
        while selector.get_map():
            now = time.monotonic()
            if ended_at is None:
                if _exited(proc.pid):
                    _kill_group(proc)
                    ended_at = now
                elif now >= deadline:
                    timed_out = True
                    _kill_group(proc)
                    ended_at = now
            elif now >= ended_at + _GRACE:
                break  # something escaped the group and holds the pipes open
            for key, _ in selector.select(_POLL):
                fd = int(key.fd)
                if fd == stdin_fd:
                    try:
                        written = os.write(fd, pending[:_CHUNK])
                    except (BrokenPipeError, BlockingIOError) as exc:
                        if isinstance(exc, BlockingIOError):
                            continue
                        written = len(pending)
                    pending = pending[written:]
                    if not pending:
                        selector.unregister(fd)
                        proc.stdin.close()
                    continue
                try:
                    chunk = os.read(fd, _CHUNK)
                except BlockingIOError:
                    continue
                if chunk:
                    readers[fd].add(chunk)
                else:
                    selector.unregister(fd)
    finally:
        selector.close()
    # The pipes are closed; wait (without reaping) for the program itself, then kill what is
    # left of its group while the group id is still held, then reap.
    while ended_at is None and not _exited(proc.pid):
        if time.monotonic() >= deadline:
            timed_out = True
            break
        time.sleep(_POLL / 5)
    _kill_group(proc)
    returncode = proc.wait()
    stdout, stdout_cut = out.value()
    stderr, stderr_cut = err.value()
    return Captured(returncode, timed_out, stdout, stderr, stdout_cut, stderr_cut, stat.value()[0])


def _exited(pid: int) -> bool:
    """True when the child has exited; it stays a zombie (not reaped), so its process group id
    cannot be reused before the group is killed."""
    try:
        info = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:
        return True
    return info is not None


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)

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
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from evalmark.code._sandbox.base import Limits
from evalmark.code._sandbox.stop import StopScope, current_scope

__all__ = ["LAUNCHER", "Captured", "launcher_argv", "run_process"]

# Sets the rlimits given as "name=value" items in argv[1] (never above a hard limit already in
# place), writes one byte to the "ready" fd if one is named, then execs argv[2:]. The CPU hard
# limit is one second above the soft one: SIGXCPU first, SIGKILL if the program ignores it.
# With "parent=PID" it stays as a small supervisor instead: it asks the kernel for SIGTERM when
# its parent (the evaluator) dies (PR_SET_PDEATHSIG), kills its whole process group then, and
# otherwise waits for the program (forked into the same group) and ends as the program ended.
LAUNCHER = """\
import os, resource, signal, sys
ready = parent = None
for item in sys.argv[1].split(","):
    name, value = item.split("=")
    if name == "ready":
        ready = int(value)
        continue
    if name == "parent":
        parent = int(value)
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
prctl = None
if parent is not None:
    try:
        import ctypes
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (ImportError, OSError, AttributeError):
        pass
if prctl is not None:
    signal.signal(signal.SIGTERM, lambda *_: os.killpg(0, signal.SIGKILL))
    prctl(1, int(signal.SIGTERM))
    if os.getppid() != parent:
        os.killpg(0, signal.SIGKILL)
    child = os.fork()
    if child == 0:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.execvp(sys.argv[2], sys.argv[2:])
    os.close(0)
    try:
        status = os.waitpid(child, 0)[1]
    except ChildProcessError:
        status = 0
    if os.WIFSIGNALED(status):
        signal.signal(os.WTERMSIG(status), signal.SIG_DFL)
        os.kill(os.getpid(), os.WTERMSIG(status))
    os._exit(os.waitstatus_to_exitcode(status))
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
    supervise: bool = False,
) -> list[str]:
    """The command that applies ``limits`` and then runs ``argv``. ``processes`` overrides the
    process limit (for sandboxes where it counts more than the program's own processes);
    ``ready_fd`` is an inherited fd the launcher writes one byte to just before it execs.
    ``supervise`` keeps the launcher as the program's parent, killing the program's process
    group when this process dies, even by SIGKILL (see :data:`LAUNCHER`)."""
    items: dict[str, int] = {
        "cpu": limits.cpu_seconds,
        "as": limits.memory_bytes,
        "nproc": processes if processes is not None else limits.processes,
        "fsize": limits.file_size_bytes,
        "nofile": limits.open_files,
        "core": 0,
    }
    if ready_fd is not None:
        items["ready"] = ready_fd
    if supervise:
        items["parent"] = os.getpid()
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
    killed_for: str | None = None  # the line ``watch`` returned when it had the group killed


class Enclosure(Protocol):
    """Where a process is moved before it runs (a cgroup): ``argv`` wraps the command so it
    waits for one byte on ``gate_fd``, ``enter`` moves the waiting process in."""

    def argv(self, command: Sequence[str], gate_fd: int) -> list[str]:
        """The command, waiting for the gate before it starts."""
        ...

    def enter(self, pid: int) -> None:
        """Move process ``pid`` in (raises SandboxUnavailableError when it cannot)."""
        ...


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
    watch: Callable[[int], str | None] | None = None,
    enclosure: Enclosure | None = None,
) -> Captured:
    """Run ``argv`` in a new session, feed it ``stdin``, keep a bounded part of its output,
    and kill its process group at the wall-clock limit, or as soon as the program exits (so
    nothing it started outlives it).

    ``status_pipe`` is ``(read_fd, write_fd)`` of a pipe whose write end the child inherits
    (and which is closed here once the child is spawned); what arrives on it is
    ``Captured.status``.
    ``user``/``group`` run the child as another user (needs root). ``watch(pid)`` is called
    at each poll once something arrived on the status pipe; a line it returns has the group
    killed and becomes ``Captured.killed_for``. ``enclosure`` (a cgroup) holds the child from
    before it starts. In a :func:`~evalmark.code._sandbox.stop.stop_scope` that was stopped,
    the run raises ``KeyboardInterrupt`` (before starting, or once it is killed).
    """
    scope = current_scope()
    if scope is not None and scope.stopped:
        raise KeyboardInterrupt("the sandbox runs were stopped")
    fds = list(pass_fds)
    if status_pipe is not None:
        fds.append(status_pipe[1])
    command = list(argv)
    gate: tuple[int, int] | None = None
    if enclosure is not None:
        gate = os.pipe()
        fds.append(gate[0])
        command = enclosure.argv(command, gate[0])
    try:
        proc = subprocess.Popen(
            command,
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
    except BaseException:
        if gate is not None:
            os.close(gate[1])
        raise
    finally:
        if status_pipe is not None:
            os.close(status_pipe[1])
        if gate is not None:
            os.close(gate[0])
    try:
        if scope is not None and not scope.add(proc):
            raise KeyboardInterrupt("the sandbox runs were stopped")
        if enclosure is not None and gate is not None:
            enclosure.enter(proc.pid)
            os.write(gate[1], b"1")
        captured = _collect(
            proc, stdin, limits, status_pipe[0] if status_pipe else -1, watch, scope
        )
        if scope is not None and scope.stopped:
            raise KeyboardInterrupt("the sandbox runs were stopped")
        return captured
    finally:
        if gate is not None:
            with contextlib.suppress(OSError):
                os.close(gate[1])
        if proc.returncode is None:  # an exception in _collect: kill before reaping
            _kill_group(proc)
        if scope is not None:
            scope.discard(proc)  # before reaping: its group id stays ours until then
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        if status_pipe is not None:
            with contextlib.suppress(OSError):
                os.close(status_pipe[0])
        proc.wait()


def _collect(
    proc: subprocess.Popen[bytes],
    stdin: bytes,
    limits: Limits,
    status: int,
    watch: Callable[[int], str | None] | None,
    scope: StopScope | None,
) -> Captured:
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
    killed_for: str | None = None
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
                elif watch is not None and stat.total:
                    killed_for = watch(proc.pid)
                    if killed_for is not None:
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
        if watch is not None and stat.total:  # a program that closed its output is watched too
            killed_for = watch(proc.pid)
            if killed_for is not None:
                break
        time.sleep(_POLL / 5)
    _kill_group(proc)
    if scope is not None:
        scope.discard(proc)  # before reaping: its group id stays ours until then
    returncode = proc.wait()
    stdout, stdout_cut = out.value()
    stderr, stderr_cut = err.value()
    return Captured(
        returncode, timed_out, stdout, stderr, stdout_cut, stderr_cut, stat.value()[0], killed_for
    )


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

"""What a sandbox is: the request it runs, the limits it enforces, the outcome it reports.

A sandbox takes a :class:`RunRequest` (files for a fresh work directory, a command, stdin) and
:class:`Limits`, runs the command once and returns a :class:`RunOutcome`. Anything with a
``name`` and a ``run(request, limits)`` method is a sandbox (:class:`Sandbox`), so a Docker or
remote runner plugs in without evalmark knowing about it.
"""

from __future__ import annotations

import re
import signal
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal, Protocol, runtime_checkable

__all__ = [
    "PYTHON",
    "Limits",
    "Reason",
    "RunOutcome",
    "RunRequest",
    "Sandbox",
    "limit_reason",
    "signal_name",
    "tail",
]

PYTHON = "{python}"
"""An argv item equal to this is replaced by the sandbox's Python interpreter."""

_MIB = 1024 * 1024

Reason = Literal[
    "ok",
    "exit_code",
    "signal",
    "timeout",
    "cpu_limit",
    "memory_limit",
    "file_size_limit",
    "disk_full",
    "process_limit",
]


@dataclass(frozen=True, slots=True)
class Limits:
    """What one run may use.

    ``timeout``: wall-clock seconds before the whole process tree is killed. ``cpu_seconds``,
    ``memory_bytes`` (address space), ``processes`` and ``file_size_bytes`` are rlimits
    (``RLIMIT_CPU``, ``RLIMIT_AS``, ``RLIMIT_NPROC``, ``RLIMIT_FSIZE``; the CPU and memory
    limits are per process). The whole sandbox's memory is bounded by ``memory_bytes`` where
    the bwrap sandbox gets a cgroup, else by :attr:`memory_bound`, ``memory_bytes`` times
    ``processes`` (4 GiB by default). Keep ``cpu_seconds`` above ``timeout``: a
    single-threaded program then always meets the wall clock first, so which limit stopped it
    does not depend on how loaded the machine is, and the CPU limit remains a backstop for
    programs that burn several cores. ``disk_bytes`` is the size of all the writable places
    together where the sandbox can bound it (bwrap: the work directory, ``/tmp`` and
    ``/dev/shm``, each a sized tmpfs), and ``files`` how many files and folders they may hold
    together (bwrap). ``open_files`` is ``RLIMIT_NOFILE``: it also bounds the kernel memory a
    process can hold through descriptors (socket and pipe buffers). ``output_bytes``: how much
    of stdout and of stderr is kept (the first and the last ``output_bytes // 2`` bytes when a
    stream is longer).
    """

    timeout: float = 10.0
    cpu_seconds: int = 20
    memory_bytes: int = 512 * _MIB
    processes: int = 8
    file_size_bytes: int = 64 * _MIB
    disk_bytes: int = 128 * _MIB
    output_bytes: int = 256 * 1024
    files: int = 10_000
    open_files: int = 256

    def __post_init__(self) -> None:
        for name in (
            "cpu_seconds",
            "memory_bytes",
            "processes",
            "file_size_bytes",
            "disk_bytes",
            "output_bytes",
            "files",
            "open_files",
        ):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"Limits.{name} must be a positive integer, got {value!r}")
        if (
            isinstance(self.timeout, bool)
            or not isinstance(self.timeout, int | float)
            or not self.timeout > 0
        ):
            raise ValueError(f"Limits.timeout must be a positive number, got {self.timeout!r}")

    @property
    def memory_bound(self) -> int:
        """The most memory the processes of one sandbox can map together when only rlimits
        bound them: ``memory_bytes`` times ``processes``."""
        return self.memory_bytes * self.processes


@dataclass(frozen=True, slots=True)
class RunRequest:
    """One run: ``files`` (relative path -> content) make up the fresh work directory, which is
    also the current directory; ``argv`` is the command (an item equal to :data:`PYTHON` is the
    sandbox's Python); ``stdin`` is fed to the program; ``env`` adds environment variables to
    the sandbox's minimal environment."""

    argv: tuple[str, ...]
    files: Mapping[str, bytes] = field(default_factory=dict)
    stdin: bytes = b""
    env: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.argv:
            raise ValueError("a run needs a command: argv is empty")
        for name in self.files:
            _check_relative(name)
        object.__setattr__(self, "argv", tuple(self.argv))
        object.__setattr__(self, "files", MappingProxyType(dict(self.files)))
        object.__setattr__(self, "env", MappingProxyType(dict(self.env)))


def _check_relative(name: str) -> None:
    parts = name.split("/")
    if not name or name.startswith("/") or any(p in ("", ".", "..") for p in parts):
        raise ValueError(
            f"work-directory file names are relative paths without '.' or '..' parts, got {name!r}"
        )


@dataclass(frozen=True, slots=True)
class RunOutcome:
    """What happened in one run.

    ``exit_code`` is None when the program died of a signal (``signal`` holds its number) or
    was killed at the timeout (``timed_out``). ``stdout``/``stderr`` hold what was kept of each
    stream (see :attr:`Limits.output_bytes`); the ``*_truncated`` flags say whether some was
    dropped. ``sandbox`` names the sandbox that ran it.
    """

    sandbox: str
    exit_code: int | None
    signal: int | None = None
    timed_out: bool = False
    stdout: bytes = b""
    stderr: bytes = b""
    stdout_truncated: bool = False
    stderr_truncated: bool = False

    @property
    def ok(self) -> bool:
        """True when the program exited with code 0 in time."""
        return self.exit_code == 0 and not self.timed_out

    @property
    def reason(self) -> Reason:
        """Why the run ended: ``ok``, ``timeout``, a limit (``cpu_limit``, ``memory_limit``,
        ``file_size_limit``, ``disk_full``, ``process_limit``), else ``signal`` or
        ``exit_code``. Limits a Python program hits are read from the last line of stderr
        (``MemoryError``, ``[Errno 27]``...), since Python turns them into exceptions."""
        if self.timed_out:
            return "timeout"
        if self.signal is not None:
            if self.signal == signal.SIGXCPU:
                return "cpu_limit"
            if self.signal == signal.SIGXFSZ:
                return "file_size_limit"
            if self.signal == signal.SIGKILL:  # the sandbox killed it: its note says why
                return limit_reason(_last_line(self.stderr)) or "signal"
            return "signal"
        if self.exit_code == 0:
            return "ok"
        return limit_reason(_last_line(self.stderr)) or "exit_code"

    def describe(self) -> str:
        """One line: how the run ended, e.g. ``exit code 1`` or ``timed out after the limit``."""
        reason = self.reason
        if reason == "timeout":
            return "timed out (wall-clock limit); the process tree was killed"
        if self.signal is not None:
            name = signal_name(self.signal)
            if reason == "cpu_limit":
                return f"killed by {name}: CPU-time limit reached"
            if reason == "file_size_limit":
                return f"killed by {name}: file-size limit reached"
            if reason in _LIMIT_TEXT:
                return f"killed by {name}: {_LIMIT_TEXT[reason]}"
            return f"killed by {name}"
        text = f"exit code {self.exit_code}"
        if reason in _LIMIT_TEXT:
            text += f" ({_LIMIT_TEXT[reason]})"
        return text


_LIMIT_LINES: tuple[tuple[re.Pattern[str], Reason], ...] = (
    (re.compile(r"^MemoryError\b"), "memory_limit"),
    (re.compile(r"\[Errno 27\]|File too large"), "file_size_limit"),
    (re.compile(r"\[Errno 28\]|No space left on device"), "disk_full"),
    (re.compile(r"^BlockingIOError: \[Errno 11\]|can't start new thread"), "process_limit"),
    (re.compile(r"^evalmark: .* over its (file-count|disk) limit"), "disk_full"),
    (re.compile(r"^evalmark: .* memory limit \(cgroup"), "memory_limit"),
)
_LIMIT_TEXT: dict[str, str] = {
    "memory_limit": "memory limit reached: MemoryError",
    "file_size_limit": "file-size limit reached",
    "disk_full": "the sandbox's disk or file-count limit was reached",
    "process_limit": "process limit reached",
}


def limit_reason(line: str) -> Reason | None:
    """The limit a Python error line such as ``MemoryError`` or ``OSError: [Errno 27] File too
    large`` reports, or None."""
    for pattern, reason in _LIMIT_LINES:
        if pattern.search(line):
            return reason
    return None


def _last_line(data: bytes) -> str:
    for line in reversed(data.decode("utf-8", "replace").splitlines()):
        if line.strip():
            return line.strip()
    return ""


def signal_name(number: int) -> str:
    """``SIGKILL`` for 9, ``signal N`` for a number no signal has."""
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def tail(data: bytes, limit: int = 600) -> str:
    """The last ``limit`` characters of a stream, decoded, with a leading ``…`` when cut."""
    text = data.decode("utf-8", "replace").rstrip()
    if len(text) <= limit:
        return text
    return "…" + text[-(limit - 1) :]


@runtime_checkable
class Sandbox(Protocol):
    """Runs one request in a fresh work directory under limits.

    ``name`` appears in every result. ``run`` must not raise for anything the program does
    (a crash, a timeout, a limit); it raises :class:`evalmark.errors.SandboxUnavailableError`
    when the sandbox itself cannot run.
    """

    name: str

    def run(self, request: RunRequest, limits: Limits) -> RunOutcome:
        """Run ``request`` under ``limits`` and report what happened."""
        ...

"""The ``local`` sandbox: a plain subprocess with rlimits and a wall-clock timeout.

**This is not a security boundary.** The program runs as you, sees your files and your
network, and can write anywhere you can; a program that calls ``setsid`` can outlive the
timeout. Use it for code you wrote yourself, or on a machine without bubblewrap, never for
untrusted code. What it does give: a fresh temporary work directory (the current directory,
``HOME`` and ``TMPDIR``), a minimal environment, the rlimits of :class:`Limits` (CPU seconds,
address space, processes, file size) and a timeout that kills the program's process group.
The launcher stays as the program's parent and kills the program's process group when the
evaluator dies, even by ``kill -9`` (``PR_SET_PDEATHSIG``), so nothing is left behind unless
the program left its process group.

The process limit (``RLIMIT_NPROC``) counts every process of your user, so it is set to the
processes you already run plus :attr:`Limits.processes`; the kernel does not enforce it for
root. :attr:`Limits.disk_bytes` is not enforced here (only the size of each file is). The
work directory's path is reported as ``/work`` in the program's output, as in bwrap, so results
do not depend on the temporary folder's random name.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping
from pathlib import Path

from evalmark.code._sandbox.base import PYTHON, Limits, RunOutcome, RunRequest
from evalmark.code._sandbox.process import launcher_argv, run_process

__all__ = ["LocalSandbox", "base_environment", "default_python", "user_process_count"]

_SYSTEM_BIN = ("/usr/local/bin", "/usr/bin", "/bin")


def default_python() -> str:
    """The interpreter sandboxed programs run with: the system's ``python3`` (so a sandbox that
    exposes only the system directories can run it), else the interpreter running evalmark."""
    for folder in _SYSTEM_BIN:
        candidate = os.path.join(folder, "python3")
        if os.access(candidate, os.X_OK):
            return candidate
    import sys

    return os.path.realpath(getattr(sys, "_base_executable", sys.executable))


def base_environment(python: str, home: str, tmp: str) -> dict[str, str]:
    """The whole environment of a sandboxed program (before a request's own variables):
    a short PATH, HOME and TMPDIR in the sandbox, UTF-8, and a fixed hash seed."""
    path = [os.path.dirname(python), *_SYSTEM_BIN]
    return {
        "PATH": ":".join(dict.fromkeys(path)),
        "HOME": home,
        "TMPDIR": tmp,
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "PYTHONHASHSEED": "0",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONUTF8": "1",
    }


def user_process_count(uid: int | None = None) -> int:
    """How many processes (threads included, as ``RLIMIT_NPROC`` counts them) the user runs
    now; 0 where ``/proc`` is not available."""
    uid = os.getuid() if uid is None else uid
    count = 0
    try:
        entries = os.listdir("/proc")
    except OSError:
        return 0
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            status = Path("/proc", entry, "status").read_text()
        except OSError:
            continue
        real_uid = threads = None
        for line in status.splitlines():
            if line.startswith("Uid:"):
                real_uid = int(line.split()[1])
            elif line.startswith("Threads:"):
                threads = int(line.split()[1])
        if real_uid == uid:
            count += threads or 1
    return count


def write_files(root: str, files: Mapping[str, bytes]) -> None:
    """Write a request's files under ``root``, creating folders as needed."""
    for name, content in files.items():
        target = Path(root, name)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content)


class LocalSandbox:
    """A subprocess with rlimits and a timeout; NOT a security boundary (see the module)."""

    name = "local"

    def __init__(self, *, python: str | None = None) -> None:
        self.python = python or default_python()

    def __repr__(self) -> str:
        return f"LocalSandbox(python={self.python!r})"

    def run(self, request: RunRequest, limits: Limits) -> RunOutcome:
        """Run ``request`` in a fresh temporary directory."""
        with tempfile.TemporaryDirectory(
            prefix="evalmark-local-", ignore_cleanup_errors=True
        ) as work:
            write_files(work, request.files)
            tmp = os.path.join(work, ".tmp")
            os.makedirs(tmp, exist_ok=True)
            env = {**base_environment(self.python, work, tmp), **request.env}
            argv = [self.python if item == PYTHON else item for item in request.argv]
            # one more process: the launcher stays as the program's supervisor
            processes = limits.processes + 1 + (0 if os.getuid() == 0 else user_process_count())
            captured = run_process(
                launcher_argv(self.python, limits, argv, processes=processes, supervise=True),
                cwd=work,
                env=env,
                stdin=request.stdin,
                limits=limits,
            )
            # Report paths in the (randomly named) work directory as /work/..., as bwrap
            # shows them, so the same program gives the same output in both sandboxes.
            real = os.path.realpath(work).encode()
            stdout = captured.stdout.replace(real, b"/work")
            stderr = captured.stderr.replace(real, b"/work")
            if real != work.encode():
                stdout = stdout.replace(work.encode(), b"/work")
                stderr = stderr.replace(work.encode(), b"/work")
        code = captured.returncode
        return RunOutcome(
            sandbox=self.name,
            exit_code=None if captured.timed_out or code < 0 else code,
            signal=-code if code < 0 and not captured.timed_out else None,
            timed_out=captured.timed_out,
            stdout=stdout,
            stderr=stderr,
            stdout_truncated=captured.stdout_truncated,
            stderr_truncated=captured.stderr_truncated,
        )

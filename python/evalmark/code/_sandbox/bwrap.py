"""The ``bwrap`` sandbox: bubblewrap namespaces around each run.

Each run gets new user, PID, network, IPC and UTS namespaces (and a cgroup namespace where the
kernel allows one): no network at all (not even loopback is up), no capabilities, the program
runs as uid/gid 65534 and cannot create further user namespaces. The system directories
(``/usr``, ``/bin``, ``/lib*``, a few files of ``/etc``) are mounted read-only, and so are the
root and ``/dev``; the only writable places are the work directory ``/work`` (the current
directory and ``HOME``), ``/tmp`` and ``/dev/shm``, private tmpfs mounts that share
:attr:`Limits.disk_bytes` (:func:`disk_shares`), filled from the request's files and gone after
the run; the files they hold together are bounded by :attr:`Limits.files` (watched from the
host, :mod:`.watch`). The rlimits of :class:`Limits` are set inside, the whole sandbox gets a
cgroup with a memory limit where one is delegated (:mod:`.cgroup`), and the wall-clock timeout
kills bwrap, which takes the whole PID namespace with it.

When evalmark runs as root, bubblewrap itself is started as uid 65534: the kernel does not
enforce the process limit for root, so a fork bomb would otherwise not be bounded. The
interpreter must then be readable by that user (the system ``python3`` is).

If bubblewrap is missing or the machine refuses the namespaces (unprivileged user namespaces
disabled, a container's seccomp profile), :class:`SandboxUnavailableError` says which and what
to do; :func:`bwrap_unavailable_reason` returns the same text without raising.
"""

from __future__ import annotations

import contextlib
import functools
import glob
import os
import shutil
import subprocess
import threading
from collections.abc import Sequence
from pathlib import PurePosixPath

from evalmark.code._sandbox.base import PYTHON, Limits, RunOutcome, RunRequest
from evalmark.code._sandbox.cgroup import run_cgroup
from evalmark.code._sandbox.local import base_environment, default_python
from evalmark.code._sandbox.process import launcher_argv, run_process
from evalmark.code._sandbox.seccomp import seccomp_program
from evalmark.code._sandbox.staging import Staged, staged_files
from evalmark.code._sandbox.watch import WritableWatch
from evalmark.errors import SandboxUnavailableError

__all__ = ["BwrapSandbox", "bwrap_unavailable_reason", "bwrap_version", "disk_shares"]

SANDBOX_UID = 65534  # "nobody"
WORK = "/work"
_SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
_ETC_FILES = (
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/alternatives",
    "/etc/localtime",
    "/etc/nsswitch.conf",
    "/etc/passwd",
    "/etc/group",
    "/etc/ssl/certs",
)
_NAMESPACES = ("user", "pid", "net", "ipc", "uts")
_HELP = (
    "unprivileged user namespaces may be disabled (sysctl kernel.unprivileged_userns_clone=1; "
    "on Ubuntu 23.10 and later kernel.apparmor_restrict_unprivileged_userns=0), or a "
    "container's seccomp profile refuses them (run it with a profile that allows unshare); "
    "or use sandbox='local', which is not a security boundary, for code you trust"
)


def _find_bwrap(path: str | None) -> str | None:
    if path is not None:
        return path if os.access(path, os.X_OK) else None
    return shutil.which("bwrap")


@functools.cache
def _features(bwrap: str) -> frozenset[str]:
    """The optional flags this bubblewrap knows (older releases lack some)."""
    try:
        done = subprocess.run(
            [bwrap, "--help"], capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return frozenset()
    text = done.stdout + done.stderr
    return frozenset(
        flag
        for flag in (
            "--disable-userns",
            "--size",
            "--unshare-cgroup-try",
            "--cap-drop",
            "--seccomp",
        )
        if flag in text
    )


def bwrap_version(bwrap: str | None = None) -> str | None:
    """``bubblewrap X.Y.Z`` as the binary reports it, or None when it is not installed."""
    found = _find_bwrap(bwrap)
    if found is None:
        return None
    with contextlib.suppress(OSError, subprocess.TimeoutExpired):
        done = subprocess.run(
            [found, "--version"], capture_output=True, text=True, timeout=30, check=False
        )
        return done.stdout.strip() or None
    return None


def _run_as() -> tuple[int | None, int | None]:
    """The user bubblewrap is started as: itself, or uid 65534 when evalmark runs as root."""
    if os.geteuid() == 0:
        return SANDBOX_UID, SANDBOX_UID
    return None, None


class BwrapSandbox:
    """Runs each request in fresh bubblewrap namespaces (see the module docstring).

    ``python`` is the interpreter for :data:`PYTHON` (default: the system ``python3``); if it
    lives outside the system directories its installation folder is mounted read-only too.
    ``bwrap`` is the path of the binary (default: found on PATH).
    """

    name = "bwrap"

    def __init__(self, *, python: str | None = None, bwrap: str | None = None) -> None:
        self.python = python or default_python()
        self.bwrap = bwrap

    def __repr__(self) -> str:
        return f"BwrapSandbox(python={self.python!r})"

    def check(self) -> None:
        """Raise :class:`SandboxUnavailableError` unless runs can work on this machine."""
        reason = bwrap_unavailable_reason(bwrap=self.bwrap, python=self.python)
        if reason is not None:
            raise SandboxUnavailableError(reason)

    def run(self, request: RunRequest, limits: Limits) -> RunOutcome:
        """Run ``request`` in new namespaces with a private work directory."""
        self.check()
        bwrap = _find_bwrap(self.bwrap)
        assert bwrap is not None  # check() passed
        ready_read, ready_write = os.pipe()
        with staged_files(request, WORK) as staged:
            argv = [self.python if item == PYTHON else item for item in request.argv]
            command = [
                bwrap,
                *_isolation_flags(bwrap),
                *_mount_flags(bwrap, self.python, limits),
                *staged.flags,
                *_seccomp_flags(bwrap, staged),
                "--chdir",
                WORK,
                "--clearenv",
                *_env_flags({**base_environment(self.python, WORK, "/tmp"), **request.env}),
                "--",
                *launcher_argv(self.python, limits, argv, ready_fd=ready_write),
            ]
            user, group = _run_as()
            sized = "--size" in _features(bwrap)
            watch = WritableWatch(
                list(disk_shares(limits.disk_bytes)),
                limits.files,
                None if sized else limits.disk_bytes,
            )
            cgroup = run_cgroup(limits, self.python)
            try:
                captured = run_process(
                    command,
                    cwd="/",
                    env={"PATH": os.environ.get("PATH", os.defpath), "LANG": "C.UTF-8"},
                    stdin=request.stdin,
                    limits=limits,
                    pass_fds=staged.fds,
                    user=user,
                    group=group,
                    status_pipe=(ready_read, ready_write),
                    watch=watch,
                    enclosure=cgroup,
                )
            finally:
                oom = cgroup is not None and cgroup.oom_killed()
                if cgroup is not None:
                    cgroup.close()
        stderr = captured.stderr
        if captured.killed_for is not None:
            stderr += b"\n" + captured.killed_for.encode() + b"\n"
        elif oom:
            stderr += (
                f"\nevalmark: the sandbox's processes together passed its memory limit (cgroup "
                f"memory.max = {limits.memory_bytes} bytes); the kernel killed one\n"
            ).encode()
        if not captured.status:
            # The launcher never ran: bubblewrap failed to set the sandbox up.
            detail = captured.stderr.decode("utf-8", "replace").strip() or (
                "it gave no reason" if not captured.timed_out else "it timed out"
            )
            raise SandboxUnavailableError(
                f"bubblewrap could not start the program: {detail}" + _hint_for(detail, self.python)
            )
        code = captured.returncode
        signal_number = None
        exit_code: int | None = code
        if captured.timed_out:
            exit_code = None
        elif code < 0:
            exit_code, signal_number = None, -code
        elif 128 < code <= 128 + 64:
            # bubblewrap exits with 128 + N when the program died of signal N, as shells do.
            exit_code, signal_number = None, code - 128
        return RunOutcome(
            sandbox=self.name,
            exit_code=exit_code,
            signal=signal_number,
            timed_out=captured.timed_out,
            stdout=captured.stdout,
            stderr=stderr,
            stdout_truncated=captured.stdout_truncated,
            stderr_truncated=captured.stderr_truncated,
        )


def _seccomp_flags(bwrap: str, staged: Staged) -> list[str]:
    program = seccomp_program()
    if program is None or "--seccomp" not in _features(bwrap):
        return []
    return ["--seccomp", str(staged.data_fd(program))]


def _hint_for(detail: str, python: str) -> str:
    if "execvp" in detail and "Permission denied" not in detail:
        return f"; {python} is not inside the sandbox: pass python= an interpreter under /usr"
    if "Can't find source path" in detail or "Permission denied" in detail:
        who = (
            f"uid {SANDBOX_UID} (evalmark runs as root, so bubblewrap runs as that user)"
            if os.geteuid() == 0
            else "your user"
        )
        return (
            f"; the interpreter {python} (or a folder it lives in) must be readable by {who}: "
            "pass python= an interpreter under /usr, such as /usr/bin/python3"
        )
    return ""


def _isolation_flags(bwrap: str) -> list[str]:
    features = _features(bwrap)
    flags = [f"--unshare-{ns}" for ns in _NAMESPACES]
    if "--unshare-cgroup-try" in features:
        flags.append("--unshare-cgroup-try")
    if "--disable-userns" in features:
        flags.append("--disable-userns")
    flags += [
        "--uid",
        str(SANDBOX_UID),
        "--gid",
        str(SANDBOX_UID),
        "--hostname",
        "sandbox",
        "--die-with-parent",
        "--new-session",
    ]
    if "--cap-drop" in features:
        flags += ["--cap-drop", "ALL"]
    return flags


def _mount_flags(bwrap: str, python: str, limits: Limits) -> list[str]:
    flags: list[str] = []
    bound: list[str] = []
    for folder in _SYSTEM_DIRS:
        if os.path.islink(folder):
            flags += ["--symlink", os.readlink(folder), folder]
        elif os.path.isdir(folder):
            flags += ["--ro-bind", folder, folder]
            bound.append(folder)
    etc = [*_ETC_FILES, *sorted(glob.glob("/etc/python3*"))]
    for item in etc:
        flags += ["--ro-bind-try", item, item]
    flags += ["--proc", "/proc", "--dev", "/dev"]
    sized = "--size" in _features(bwrap)
    for place, size in disk_shares(limits.disk_bytes).items():
        flags += [*(["--size", str(size)] if sized else []), "--tmpfs", place]
    for folder in _interpreter_folders(python, bound):  # after /tmp, which would hide them
        flags += ["--ro-bind", folder, folder]
    # The root and /dev are tmpfs mounts of bubblewrap's own, of the host's size: read-only,
    # so the writable places are exactly the sized mounts above.
    return [*flags, "--remount-ro", "/dev", "--remount-ro", "/"]


def disk_shares(disk_bytes: int) -> dict[str, int]:
    """The writable places of a bwrap sandbox and the size of each: together ``disk_bytes``
    (the work directory half, ``/tmp`` and ``/dev/shm`` a quarter each)."""
    quarter = max(disk_bytes // 4, 4096)
    return {"/tmp": quarter, "/dev/shm": quarter, WORK: max(disk_bytes - 2 * quarter, 4096)}


def _interpreter_folders(python: str, bound: Sequence[str]) -> list[str]:
    """The folders to mount for an interpreter outside the system directories: its
    installation folder, and the folder of the path given when that is a link from elsewhere."""
    folders: list[str] = []
    for path in (python, os.path.realpath(python)):
        if any(path == b or path.startswith(b + "/") for b in bound):
            continue
        parent = PurePosixPath(path).parent
        folders.append(str(parent.parent if parent.name == "bin" else parent))
    return list(dict.fromkeys(folders))


def _env_flags(env: dict[str, str]) -> list[str]:
    flags: list[str] = []
    for name, value in env.items():
        flags += ["--setenv", name, value]
    return flags


_PROBE_LOCK = threading.Lock()
_PROBED: dict[tuple[str | None, str, int], str | None] = {}


def bwrap_unavailable_reason(*, bwrap: str | None = None, python: str | None = None) -> str | None:
    """None when bwrap sandboxes can run here; else why not, naming the namespace the machine
    refuses and what to do. Probed once per binary, interpreter and user."""
    python = python or default_python()
    key = (bwrap, python, os.geteuid())
    with _PROBE_LOCK:
        if key not in _PROBED:
            _PROBED[key] = _probe(bwrap, python)
        return _PROBED[key]


def _probe(bwrap_path: str | None, python: str) -> str | None:
    bwrap = _find_bwrap(bwrap_path)
    if bwrap is None:
        where = bwrap_path or "bwrap on PATH"
        return (
            f"bubblewrap is not installed ({where} not found): install it (Debian/Ubuntu: "
            "apt-get install bubblewrap), or use sandbox='local', which is not a security "
            "boundary, for code you trust"
        )
    if not os.access(python, os.X_OK):
        return f"the sandbox interpreter {python} does not exist or is not executable"
    limits = Limits(timeout=30.0)
    base = [*_mount_flags(bwrap, python, limits), "--"]
    full = _try(bwrap, [*_isolation_flags(bwrap), *base, python, "-S", "-c", "pass"])
    if full is None:
        return None
    if "execvp" in full or "Can't find source path" in full:
        return (
            f"bubblewrap cannot run the interpreter {python} in the sandbox ({full})"
            f"{_hint_for(full, python)}"
        )
    # Name the namespace the machine refuses, with a program that is surely there.
    probe = shutil.which("true", path="/usr/bin:/bin") or python
    for ns in _NAMESPACES:
        flags = ["--unshare-user"] if ns == "user" else ["--unshare-user", f"--unshare-{ns}"]
        failed = _try(bwrap, [*flags, "--ro-bind", "/", "/", "--", probe])
        if failed is not None:
            return (
                f"bubblewrap cannot create a new {ns} namespace on this machine ({failed}); {_HELP}"
            )
    return (
        f"bubblewrap cannot set up the sandbox on this machine ({full})"
        f"{_hint_for(full, python)}; {_HELP}"
    )


def _try(bwrap: str, args: list[str]) -> str | None:
    """None when ``bwrap args`` runs and exits 0, else its error text."""
    user, group = _run_as()
    try:
        done = subprocess.run(
            [bwrap, *args],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
            cwd="/",
            user=user,
            group=group,
            extra_groups=[] if user is not None else None,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return str(exc)
    if done.returncode == 0:
        return None
    return done.stderr.strip() or f"exit code {done.returncode}"

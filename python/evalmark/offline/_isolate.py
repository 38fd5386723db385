"""The operating-system guard: run a command again inside a network namespace of its own.

The Python-level guard cannot see subprocesses, C extensions that call the C library's
``connect``, or ``os.write`` on a descriptor opened before it. A new network namespace has no
interface but a loopback that is down: nothing in it, Python or not, reaches the host's
network or the host's own loopback. :func:`isolate_network` re-executes the current command
in one, with bubblewrap (``bwrap --unshare-net``) or, without it, ``unshare --net
--map-root-user``; the files, the user and the environment stay the same.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
from collections.abc import Sequence

from evalmark.errors import SandboxUnavailableError

__all__ = ["ISOLATED_ENV", "isolate_network", "isolated", "isolation_prefix"]

ISOLATED_ENV = "EVALMARK_NETWORK_ISOLATED"
_PROBE_TIMEOUT = 30.0


def isolated() -> bool:
    """True when this process sees no network interface but the loopback one."""
    try:
        names = {name for _, name in socket.if_nameindex()}
    except OSError:
        return False
    return names <= {"lo"}


def _works(command: list[str]) -> str | None:
    """None when ``command`` runs and exits 0; else what went wrong."""
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=_PROBE_TIMEOUT, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return str(exc)
    if done.returncode == 0:
        return None
    return (done.stderr.strip() or f"exit status {done.returncode}").splitlines()[-1]


def isolation_prefix() -> list[str]:
    """The words that run a command in a new network namespace here (bubblewrap first, then
    ``unshare``); raises :class:`~evalmark.errors.SandboxUnavailableError` saying why neither
    works."""
    problems: list[str] = []
    bwrap = shutil.which("bwrap")
    if bwrap is not None:
        prefix = [bwrap, "--unshare-net", "--dev-bind", "/", "/", "--"]
        problem = _works([*prefix, "true"])
        if problem is None:
            return prefix
        problems.append(f"bwrap: {problem}")
    else:
        problems.append("bwrap is not installed")
    unshare = shutil.which("unshare")
    if unshare is not None:
        prefix = [unshare, "--net", "--map-root-user", "--"]
        problem = _works([*prefix, "true"])
        if problem is None:
            return prefix
        problems.append(f"unshare: {problem}")
    else:
        problems.append("unshare is not installed")
    raise SandboxUnavailableError(
        "--isolate-network needs a network namespace, which this machine refuses ("
        + "; ".join(problems)
        + "): install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap) and allow "
        "unprivileged user namespaces, or run in a container started without a network "
        "(docker run --network none)"
    )


def isolate_network(words: Sequence[str]) -> None:
    """Make sure the command ``evalmark WORDS`` runs without a network: return when this
    process already has none, else replace it by the same command in a new network namespace
    (this function then does not return)."""
    if isolated():
        return
    if os.environ.get(ISOLATED_ENV):
        raise SandboxUnavailableError(
            f"{ISOLATED_ENV} is set but this process still sees network interfaces: the "
            "network namespace did not take; unset it and run again"
        )
    prefix = isolation_prefix()
    command = [*prefix, sys.executable, "-m", "evalmark", *words]
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os.execve(command[0], command, {**os.environ, ISOLATED_ENV: "1"})

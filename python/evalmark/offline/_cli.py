"""The network guard in a command: the ``--offline`` flag, the guarded run and its note.

A command adds the flag with :func:`add_flag`, runs inside :func:`run_guard` and prints
``guard.note(reports)`` after its results::

    with run_guard(args) as guard:   # records with: evalmark run SUITE --record-mode record-missing
        outcome = run_suite(...)
    out.write(guard.note(outcome.reports))
"""

from __future__ import annotations

import argparse
import shlex
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from evalmark.offline._guard import attempts
from evalmark.offline._run import Guard, blocked_note, guard_run

__all__ = ["RunGuard", "add_flag", "record_command", "run_command", "run_guard"]


def add_flag(parser: argparse.ArgumentParser) -> None:
    """Add ``--offline`` / ``--no-offline`` to a command's parser."""
    parser.add_argument(
        "--offline",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="block every outbound connection but loopback and unix sockets (default: on in "
        "replay mode and under CI; EVALMARK_OFFLINE=0|1 and EVALMARK_OFFLINE_ALLOW=host,... "
        "also set it)",
    )


def record_command(words: Sequence[str]) -> str:
    """A shell command line from its words, quoted where needed."""
    return shlex.join([str(word) for word in words])


class RunGuard:
    """The guard of one run (None when the run is online) and what it refused."""

    def __init__(self, guard: Guard | None, command: str) -> None:
        self.guard = guard
        self.command = command
        self._first_attempt = len(attempts())

    def note(self, reports: Iterable[Any]) -> str:
        """The lines to print after the results: the cases refused the network and how to
        record them; empty when nothing was refused (or the run was online)."""
        if self.guard is None:
            return ""
        return blocked_note(
            reports, command=self.command, swallowed=attempts()[self._first_attempt :]
        )


def run_command(args: argparse.Namespace) -> str:
    """The ``evalmark run`` command that records what ``args`` replays."""
    words = ["evalmark", "run", str(args.suite)]
    if getattr(args, "build", None):
        words += ["--build", str(args.build)]
    return record_command([*words, "--record-mode", "record-missing"])


@contextmanager
def run_guard(args: argparse.Namespace, *, command: str | None = None) -> Iterator[RunGuard]:
    """Guard the run when it is offline (``args.offline``, ``args.record_mode``, the
    environment; see :func:`~evalmark.offline._run.decide`). ``command`` records instead (default:
    the ``evalmark run`` command of ``args``)."""
    command = command if command is not None else run_command(args)
    with guard_run(
        flag=getattr(args, "offline", None),
        record_mode=getattr(args, "record_mode", None),
        command=command,
    ) as guard:
        yield RunGuard(guard, command)

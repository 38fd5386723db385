"""Child processes in tests, with a deadline on every read and wait, and the child's CPU clock.

A test that talks to a child must never block forever (a child that hangs or prints nothing
would hold the suite for as long as nobody kills it), and a liveness bound must not depend on
how busy the machine is: CPU seconds spent by the child measure its work, wall seconds measure
the machine's load as much as the code.
"""

from __future__ import annotations

import os
import selectors
import subprocess
import sys
import time
from typing import IO

__all__ = ["CPU_CLOCK", "LineReader", "cpu_seconds", "wait_for_cpu"]

# Where another process's CPU clock can be read (Linux /proc).
CPU_CLOCK = sys.platform.startswith("linux") and os.path.exists("/proc/self/stat")


class LineReader:
    """Read whole lines from a child's pipe, each read bounded by a deadline."""

    def __init__(self, stream: IO[bytes] | IO[str]) -> None:
        self._fd = stream.fileno()
        self._buffer = b""
        self._eof = False

    def line(self, timeout: float) -> str:
        """The next line (without its end), or ``""`` at end of file; ``TimeoutError`` when no
        whole line came within ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        with selectors.DefaultSelector() as selector:
            selector.register(self._fd, selectors.EVENT_READ)
            while b"\n" not in self._buffer and not self._eof:
                left = deadline - time.monotonic()
                if left <= 0 or not selector.select(left):
                    raise TimeoutError(f"no line from the child within {timeout} s")
                chunk = os.read(self._fd, 65536)
                self._eof = not chunk
                self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line.decode("utf-8", "replace").rstrip("\r")

    def rest(self, child: subprocess.Popen[bytes] | subprocess.Popen[str], timeout: float) -> str:
        """Everything the child still writes until it exits, within ``timeout`` seconds."""
        lines = []
        deadline = time.monotonic() + timeout
        while True:
            line = self.line(max(deadline - time.monotonic(), 0.0))
            if not line and self._eof and not self._buffer:
                break
            lines.append(line)
        child.wait(timeout=max(deadline - time.monotonic(), 0.1))
        return "\n".join(lines)


def cpu_seconds(pid: int) -> float:
    """The CPU time (user and system, all threads) process ``pid`` has used so far."""
    with open(f"/proc/{pid}/stat", encoding="ascii") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wait_for_cpu(
    child: subprocess.Popen[bytes] | subprocess.Popen[str], seconds: float, timeout: float
) -> float:
    """Wait until ``child`` has used ``seconds`` of CPU time and return its CPU time then;
    ``TimeoutError`` after ``timeout`` wall seconds, ``ChildProcessError`` if it exited."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if child.poll() is not None:
            raise ChildProcessError(f"the child exited ({child.returncode}) before the signal")
        used = cpu_seconds(child.pid)
        if used >= seconds:
            return used
        time.sleep(0.01)
    raise TimeoutError(f"the child did not use {seconds:.2f} s of CPU within {timeout} s")

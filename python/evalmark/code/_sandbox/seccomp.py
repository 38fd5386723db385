"""A seccomp filter for the bwrap sandbox: the calls that make memory no rlimit counts.

SysV shared memory, message queues and semaphore sets (``shmget``, ``msgget``, ``semget``)
live on in the sandbox's IPC namespace after the process that made them unmaps or exits, and
``memfd_create``/``memfd_secret`` make in-memory files outside the sized mounts; none of that
counts against ``RLIMIT_AS``. The filter makes these calls fail with ``EPERM`` (Python raises
``PermissionError``; POSIX shared memory in ``/dev/shm`` keeps working, within the disk
limit). It also refuses every call of another ABI (x32, 32-bit) with ``ENOSYS``.

It is a classic BPF program, built here for x86_64 and aarch64 and handed to bubblewrap's
``--seccomp FD``; on other machines there is no filter (the cgroup, where there is one, still
bounds that memory).
"""

from __future__ import annotations

import errno
import platform
import struct

__all__ = ["DENIED", "seccomp_program"]

DENIED = ("shmget", "msgget", "semget", "memfd_create", "memfd_secret")
"""The system calls the filter refuses."""

_ARCHES: dict[str, tuple[int, dict[str, int]]] = {
    # machine: (AUDIT_ARCH_*, syscall numbers)
    "x86_64": (
        0xC000003E,
        {"shmget": 29, "semget": 64, "msgget": 68, "memfd_create": 319, "memfd_secret": 447},
    ),
    "aarch64": (
        0xC00000B7,
        {"msgget": 186, "semget": 190, "shmget": 194, "memfd_create": 279, "memfd_secret": 447},
    ),
}
_X32_BIT = 0x40000000

_LD_W_ABS = 0x20
_JEQ_K = 0x15
_JGE_K = 0x35
_RET_K = 0x06
_RET_ALLOW = 0x7FFF0000
_RET_ERRNO = 0x00050000
_ARCH_OFFSET = 4  # struct seccomp_data: int nr; __u32 arch; ...
_NR_OFFSET = 0


def _op(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k)


def seccomp_program(machine: str | None = None) -> bytes | None:
    """The filter for ``machine`` (default: this one) as bubblewrap reads it, or None where
    evalmark has no syscall table."""
    arch = _ARCHES.get(machine or platform.machine())
    if arch is None:
        return None
    audit_arch, numbers = arch
    refuse = _op(_RET_K, _RET_ERRNO | errno.ENOSYS)
    program = [
        _op(_LD_W_ABS, _ARCH_OFFSET),
        _op(_JEQ_K, audit_arch, jt=1),  # this ABI: skip the refusal
        refuse,
        _op(_LD_W_ABS, _NR_OFFSET),
    ]
    if audit_arch == _ARCHES["x86_64"][0]:
        program += [_op(_JGE_K, _X32_BIT, jf=1), refuse]  # x32 calls
    for name in DENIED:
        program += [_op(_JEQ_K, numbers[name], jf=1), _op(_RET_K, _RET_ERRNO | errno.EPERM)]
    program.append(_op(_RET_K, _RET_ALLOW))
    return b"".join(program)

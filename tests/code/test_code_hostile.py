"""Hostile programs in the bwrap sandbox: each is contained, and the result says why it ended.

Every run here is bounded by the sandbox's own limits (a few seconds at most) and by the
folder's per-test alarm. The only address any test touches is 127.0.0.1.
"""

from __future__ import annotations

import os
import time
import uuid
from pathlib import Path

from code_sandbox_helpers import Listener

from evalmark.code import Limits, RunRequest, run_tests
from evalmark.code._sandbox import PYTHON, BwrapSandbox, LocalSandbox

# The wall-clock limit is no test's subject here: generous, so a busy machine that starts
# Python slowly does not turn a refused allocation into a timeout. CPU time bounds a runaway.
SHORT = Limits(timeout=60.0, cpu_seconds=2, processes=32, memory_bytes=512 * 1024 * 1024)


def run(box: BwrapSandbox | LocalSandbox, source: str, limits: Limits = SHORT, **env: str):
    return box.run(
        RunRequest(argv=(PYTHON, "main.py"), files={"main.py": source.encode()}, env=env),
        limits,
    )


def processes_with_token(token: str) -> list[int]:
    """Host pids whose environment holds ``token`` (the leftovers of a run)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            environ = Path("/proc", entry, "environ").read_bytes()
        except OSError:
            continue
        if token.encode() in environ:
            found.append(int(entry))
    return found


def wait_until_gone(token: str, seconds: float = 30.0) -> list[int]:
    deadline = time.monotonic() + seconds
    left = processes_with_token(token)
    while left and time.monotonic() < deadline:
        time.sleep(0.05)
        left = processes_with_token(token)
    return left


def test_infinite_loop_is_killed_at_the_limit(bwrap: BwrapSandbox) -> None:
    started = time.monotonic()
    outcome = run(bwrap, "while True:\n    pass\n", Limits(timeout=2.0, cpu_seconds=30))
    elapsed = time.monotonic() - started
    assert outcome.timed_out and outcome.reason == "timeout"
    assert outcome.exit_code is None
    # the wall clock plus the drain grace (5 s), with room for a busy machine: left running,
    # the loop would use its 30 CPU seconds
    assert elapsed < 15.0
    assert "timed out" in outcome.describe()


def test_busy_loop_hits_the_cpu_limit(bwrap: BwrapSandbox) -> None:
    outcome = run(bwrap, "while True:\n    pass\n", Limits(timeout=20.0, cpu_seconds=1))
    assert outcome.reason in ("cpu_limit", "timeout")
    if outcome.reason == "cpu_limit":  # the usual case; a loaded machine may reach 20 s first
        assert outcome.signal is not None
        assert "CPU-time limit" in outcome.describe()


def test_fork_bomb_is_bounded_and_leaves_nothing_behind(bwrap: BwrapSandbox) -> None:
    token = f"EVALMARK_BOMB_{uuid.uuid4().hex}"
    bomb = (
        "import os\n"
        "first = os.getpid()\n"
        "children = 0\n"
        "refused = 0\n"
        "while True:\n"
        "    try:\n"
        "        pid = os.fork()\n"
        "    except OSError:\n"
        "        refused += 1\n"
        "        if refused == 200 and os.getpid() == first:\n"
        "            print('fork refused', flush=True)\n"
        "        continue\n"
        "    if pid:\n"
        "        children += 1\n"
    )
    limits = Limits(timeout=10.0, cpu_seconds=10, processes=16)  # long enough on a busy machine
    outcome = run(bwrap, bomb, limits, BOMB_TOKEN=token)
    assert outcome.timed_out and outcome.reason == "timeout"
    # The process limit held: the first process saw forks refused well before the timeout.
    assert b"fork refused" in outcome.stdout
    assert wait_until_gone(token) == []


def test_ten_gigabyte_allocation_is_refused(bwrap: BwrapSandbox) -> None:
    outcome = run(bwrap, "block = bytearray(10 * 1024 ** 3)\nprint('allocated')\n")
    assert outcome.reason == "memory_limit"
    assert outcome.exit_code == 1
    assert b"allocated" not in outcome.stdout
    assert b"MemoryError" in outcome.stderr
    assert "memory limit" in outcome.describe()


def test_ten_gigabyte_allocation_in_a_test_is_reported(bwrap: BwrapSandbox) -> None:
    result = run_tests(
        "def grow():\n    return bytearray(10 * 1024 ** 3)\n",
        "def test_grow():\n    assert len(grow()) > 0\n",
        sandbox=bwrap,
        limits=SHORT,
    )
    assert not result.passed
    assert result.metadata["reason"] == "memory_limit"
    assert result.metadata["failing_case"] == "test_grow"
    assert "MemoryError" in result.explanation


def test_one_gigabyte_write_is_stopped(bwrap: BwrapSandbox) -> None:
    source = (
        "with open('big.bin', 'wb') as out:\n"
        "    for _ in range(1024):\n"
        "        out.write(b'x' * (1 << 20))\n"
        "print('wrote 1 GB')\n"
    )
    limits = Limits(timeout=10.0, file_size_bytes=16 * 1024 * 1024, disk_bytes=64 * 1024**2)
    outcome = run(bwrap, source, limits)
    assert outcome.reason == "file_size_limit"
    assert b"wrote 1 GB" not in outcome.stdout
    assert b"[Errno 27]" in outcome.stderr


def test_many_files_fill_only_the_private_work_dir(bwrap: BwrapSandbox) -> None:
    source = (
        "for i in range(1024):\n"
        "    with open(f'part{i}.bin', 'wb') as out:\n"
        "        out.write(b'x' * (1 << 20))\n"
        "print('wrote 1 GB')\n"
    )
    limits = Limits(timeout=10.0, file_size_bytes=16 * 1024**2, disk_bytes=32 * 1024**2)
    outcome = run(bwrap, source, limits)
    assert outcome.reason == "disk_full"
    assert b"wrote 1 GB" not in outcome.stdout


def test_writing_outside_the_work_dir_fails_and_the_host_is_untouched(
    bwrap: BwrapSandbox, tmp_path: Path
) -> None:
    target = tmp_path / "escaped.txt"
    system_target = Path("/usr") / f"evalmark-{uuid.uuid4().hex}.txt"
    source = (
        "import os\n"
        "results = []\n"
        f"for path in ({str(target)!r}, {str(system_target)!r}, '/etc/evalmark-test'):\n"
        "    try:\n"
        "        os.makedirs(os.path.dirname(path), exist_ok=True)\n"
        "        with open(path, 'w') as out:\n"
        "            out.write('escaped')\n"
        "        results.append(path + ': written inside the sandbox')\n"
        "    except OSError as exc:\n"
        "        results.append(path + ': ' + type(exc).__name__ + ' ' + str(exc.errno))\n"
        "print('\\n'.join(results))\n"
    )
    outcome = run(bwrap, source)
    assert outcome.exit_code == 0
    text = outcome.stdout.decode()
    # The system directories are read-only (EROFS) or absent; a host path like tmp_path is not
    # mounted at all, so whatever was written went to the sandbox's own tmpfs and is gone.
    assert f"{system_target}: OSError 30" in text
    assert not target.exists()
    assert not system_target.exists()
    assert not Path("/etc/evalmark-test").exists()


def test_no_connection_reaches_a_listener_outside(bwrap: BwrapSandbox, listener: Listener) -> None:
    source = (
        "import socket\n"
        "try:\n"
        f"    socket.create_connection(('127.0.0.1', {listener.port}), timeout=2)\n"
        "    print('connected')\n"
        "except OSError as exc:\n"
        "    print('refused:', type(exc).__name__)\n"
        "    raise\n"
    )
    outcome = run(bwrap, source)
    assert b"connected" not in outcome.stdout
    assert b"refused:" in outcome.stdout
    assert outcome.exit_code == 1
    time.sleep(0.3)  # give the listener's accept loop a turn
    assert listener.connections == []


def test_the_listener_does_record_a_connection_from_outside(listener: Listener) -> None:
    # The control for the test above: the listener does see a connection that can reach it.
    import socket

    with socket.create_connection(("127.0.0.1", listener.port), timeout=2):
        pass
    deadline = time.monotonic() + 30
    while not listener.connections and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(listener.connections) == 1


def test_no_capabilities_no_network_devices_and_an_unprivileged_user(
    bwrap: BwrapSandbox,
) -> None:
    source = (
        "import os, socket\n"
        "status = open('/proc/self/status').read()\n"
        "caps = [l.split()[1] for l in status.splitlines() if l.startswith('CapEff')][0]\n"
        "print('caps', caps)\n"
        "print('uid', os.getuid())\n"
        "print('pid', os.getpid())\n"
        "print('ifaces', sorted(name for _, name in socket.if_nameindex()))\n"
        "print('listing', sorted(os.listdir('/')))\n"
    )
    outcome = run(bwrap, source)
    lines = dict(line.split(" ", 1) for line in outcome.stdout.decode().splitlines())
    assert lines["caps"] == "0000000000000000"
    assert lines["uid"] == "65534"
    assert int(lines["pid"]) < 10  # a new PID namespace
    assert lines["ifaces"] == "['lo']"
    assert "'root'" not in lines["listing"] and "'home'" not in lines["listing"]


def test_a_program_that_outlives_its_main_process_is_killed(bwrap: BwrapSandbox) -> None:
    token = f"EVALMARK_ORPHAN_{uuid.uuid4().hex}"
    source = (
        "import os, time\n"
        "if os.fork() == 0:\n"
        "    os.setsid()\n"
        "    time.sleep(60)\n"
        "print('parent done')\n"
    )
    started = time.monotonic()
    outcome = run(bwrap, source, Limits(timeout=30.0), ORPHAN_TOKEN=token)
    assert outcome.exit_code == 0
    assert time.monotonic() - started < 10  # not held until the timeout by the orphan
    assert wait_until_gone(token) == []


def test_local_limits_also_bound_time_memory_and_file_size(tmp_path: Path) -> None:
    local = LocalSandbox()
    assert run(local, "while True:\n    pass\n", Limits(timeout=2.0)).reason in (
        "timeout",
        "cpu_limit",
    )
    assert run(local, "bytearray(10 * 1024 ** 3)\n").reason == "memory_limit"
    big = "open('big.bin', 'wb').write(b'x' * (32 << 20))\n"
    assert run(local, big, Limits(file_size_bytes=1 << 20)).reason == "file_size_limit"


def test_local_is_not_a_security_boundary(tmp_path: Path) -> None:
    # Documented behaviour: the local sandbox runs as you and can write where you can.
    target = tmp_path / "written-by-local.txt"
    outcome = run(LocalSandbox(), f"open({str(target)!r}, 'w').write('local')\n")
    assert outcome.exit_code == 0
    assert target.read_text() == "local"

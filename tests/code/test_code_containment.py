"""Containment of generated code, whole-sandbox bounds: every writable place counts against the
disk limit, memory is bounded for the sandbox and not only per process, files (inodes) are
bounded, and no program outlives the evaluator, whether it is interrupted or killed.

Every run here is bounded by the sandbox's own limits and by the folder's per-test alarm; every
wait on a child process has a timeout. No assertion depends on how fast the machine is.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from code_sandbox_helpers import require_bwrap
from sandbox_processes import alive, descendants, wait_gone, wait_until

from children import CPU_CLOCK, cpu_seconds
from evalmark.code import Limits, RunRequest
from evalmark.code._sandbox import PYTHON, BwrapSandbox, LocalSandbox
from evalmark.code._sandbox.bwrap import disk_shares
from evalmark.code._sandbox.cgroup import ENV, delegated_cgroup

MIB = 1024 * 1024
ROOT = Path(__file__).resolve().parents[2]


def run(box: BwrapSandbox | LocalSandbox, source: str, limits: Limits):
    return box.run(RunRequest(argv=(PYTHON, "main.py"), files={"main.py": source.encode()}), limits)


# 1. Every writable place counts against disk_bytes ---------------------------------------------

FILL_EVERY_PLACE = """
import json, os
written = {}
for place in ["/dev/shm", "/dev", "/tmp", "/work", "/", "/etc"]:
    total = 0
    try:
        for i in range(64):
            with open(os.path.join(place, f"fill{i}.bin"), "wb") as out:
                out.write(b"x" * (1 << 20))
            total += 1 << 20
    except OSError:
        pass
    written[place] = total
print(json.dumps(written))
"""


def test_every_writable_place_counts_against_the_disk_limit(bwrap: BwrapSandbox) -> None:
    limits = Limits(timeout=60.0, cpu_seconds=90, disk_bytes=16 * MIB, file_size_bytes=8 * MIB)
    outcome = run(bwrap, FILL_EVERY_PLACE, limits)
    assert outcome.exit_code == 0, outcome.stderr
    written = json.loads(outcome.stdout)
    # /dev (and /dev/shm in it) and the root were in-memory mounts of the host's size
    assert written["/dev"] == written["/"] == written["/etc"] == 0
    assert sum(written.values()) <= 16 * MIB
    assert written["/work"] > 0 and written["/tmp"] > 0 and written["/dev/shm"] > 0


def test_without_sized_mounts_the_disk_limit_is_watched(
    bwrap: BwrapSandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    # bubblewrap before 0.5 has no --size: the host watches the bytes of the writable places
    import evalmark.code._sandbox.bwrap as bwrap_module

    features = bwrap_module._features(bwrap_module._find_bwrap(None) or "bwrap")
    monkeypatch.setattr(bwrap_module, "_features", lambda path: features - {"--size"})
    source = (
        "import time\n"
        "for i in range(256):\n"
        "    with open(f'/dev/shm/part{i}.bin', 'wb') as out:\n"
        "        out.write(b'x' * (1 << 20))\n"
        "    time.sleep(0.05)\n"
        "print('wrote 256 MiB', flush=True)\n"
    )
    limits = Limits(timeout=120.0, cpu_seconds=200, disk_bytes=16 * MIB, file_size_bytes=8 * MIB)
    outcome = run(bwrap, source, limits)
    assert b"wrote 256 MiB" not in outcome.stdout
    assert outcome.reason == "disk_full", outcome.stderr[-300:]
    assert b"over its disk limit" in outcome.stderr


def test_the_shares_of_the_writable_places_add_up_to_the_disk_limit() -> None:
    for disk in (128 * MIB, 64 * MIB + 3, 10**9):
        shares = disk_shares(disk)
        assert set(shares) == {"/work", "/tmp", "/dev/shm"}
        assert sum(shares.values()) == disk
        assert shares["/work"] >= disk // 2


# 2. The whole sandbox's memory -----------------------------------------------------------------


def test_the_default_memory_bound_of_a_sandbox_is_small() -> None:
    limits = Limits()
    assert limits.memory_bound == limits.memory_bytes * limits.processes
    assert limits.memory_bound <= 4 * 1024 * MIB


PIN_SIX = """
import os, sys
pinned = 0
children = []
for _ in range(6):
    read, write = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        os.close(read)
        try:
            block = bytearray(100 << 20)
            block[::4096] = b"x" * len(block[::4096])
            os.write(write, b"1")
        except MemoryError:
            pass
        os.read(0, 1)  # hold the memory until the parent ends
        os._exit(0)
    os.close(write)
    children.append(read)
for read in children:
    pinned += len(os.read(read, 1))
print(pinned, flush=True)
"""


def test_without_a_cgroup_the_sandbox_holds_at_most_the_stated_bound(
    bwrap: BwrapSandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV, "off")
    limits = Limits(timeout=60.0, cpu_seconds=90, memory_bytes=160 * MIB, processes=3)
    outcome = run(bwrap, PIN_SIX, limits)
    pinned = int(outcome.stdout.split()[0])
    # six children asked for 100 MiB each; the process limit let only some exist
    assert pinned < 6
    assert (pinned + 1) * limits.memory_bytes <= limits.memory_bound


def test_with_a_cgroup_the_sandbox_holds_at_most_its_memory_limit(bwrap: BwrapSandbox) -> None:
    found = delegated_cgroup()
    if found is None:
        pytest.skip(
            "no delegated cgroup v2 with the memory controller here (set "
            f"{ENV}=/sys/fs/cgroup/... to one): the rlimit bound applies"
        )
    limits = Limits(timeout=60.0, cpu_seconds=90, memory_bytes=256 * MIB, processes=16)
    outcome = run(bwrap, PIN_SIX, limits)
    pinned = int(outcome.stdout.split()[0]) if outcome.stdout.split() else 0
    assert pinned * 100 * MIB <= limits.memory_bytes


def _fake_cgroup(root: Path, controllers: str) -> Path:
    folder = root / "delegated"
    folder.mkdir()
    (folder / "cgroup.subtree_control").write_text(controllers + "\n")
    return folder


def test_a_named_cgroup_is_used_when_it_delegates_memory(tmp_path: Path) -> None:
    folder = _fake_cgroup(tmp_path, "cpu memory pids")
    assert delegated_cgroup({ENV: str(folder)}) == folder
    assert delegated_cgroup({ENV: "off"}) is None
    (folder / "cgroup.subtree_control").write_text("cpu pids\n")
    assert delegated_cgroup({ENV: str(folder)}) is None


def test_the_parent_of_our_own_cgroup_is_used_when_it_is_ours(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mount = tmp_path / "cgroup2"
    parent = mount / "user.slice" / "app.slice"
    (parent / "ours.scope").mkdir(parents=True)
    (parent / "cgroup.subtree_control").write_text("memory pids\n")
    proc = tmp_path / "proc" / "self"
    proc.mkdir(parents=True)
    (proc / "cgroup").write_text("0::/user.slice/app.slice/ours.scope\n")
    (proc / "mountinfo").write_text(
        f"30 23 0:26 / {mount} rw,nosuid - cgroup2 cgroup2 rw\n"
        "31 23 0:27 / /proc rw - proc proc rw\n"
    )
    if os.geteuid() == 0:  # root only uses a named cgroup; look as the owner would
        assert delegated_cgroup({}, proc=str(tmp_path / "proc")) is None
        os.chown(parent, 4242, 4242)
        monkeypatch.setattr(os, "geteuid", lambda: 4242)
        monkeypatch.setattr(os, "access", lambda path, mode: True)
    assert delegated_cgroup({}, proc=str(tmp_path / "proc")) == parent
    (parent / "cgroup.subtree_control").write_text("pids\n")
    assert delegated_cgroup({}, proc=str(tmp_path / "proc")) is None


KERNEL_MEMORY = """
import ctypes, json, os, socket
libc = ctypes.CDLL(None, use_errno=True)
calls = {
    "shmget": lambda: libc.shmget(0, 1 << 20, 0o1600),  # IPC_PRIVATE, IPC_CREAT | 0600
    "msgget": lambda: libc.msgget(0, 0o1600),
    "semget": lambda: libc.semget(0, 1, 0o1600),
}
result = {}
for name, call in calls.items():
    result[name] = "made" if call() >= 0 else os.strerror(ctypes.get_errno())
try:
    os.memfd_create("x")
    result["memfd_create"] = "made"
except OSError as exc:
    result["memfd_create"] = exc.strerror
pairs = 0
kept = []
try:
    while pairs < 5000:
        kept.append(socket.socketpair())
        pairs += 1
except OSError:
    pass
result["socketpairs"] = pairs
print(json.dumps(result))
"""


def test_memory_that_no_rlimit_counts_is_refused_or_bounded(bwrap: BwrapSandbox) -> None:
    outcome = run(bwrap, KERNEL_MEMORY, Limits(timeout=60.0, cpu_seconds=90, open_files=64))
    assert outcome.exit_code == 0, outcome.stderr
    result = json.loads(outcome.stdout)
    # SysV IPC objects outlive their maker, memfds live outside the sized mounts
    for name in ("shmget", "msgget", "semget", "memfd_create"):
        assert result[name] == "Operation not permitted", result
    # socket buffers are held through descriptors: at most open_files of them
    assert result["socketpairs"] < 32


def test_a_delegated_cgroup_receives_bubblewrap_before_it_starts(
    bwrap: BwrapSandbox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A stand-in directory: the kernel's enforcement cannot be faked, the plumbing can.
    folder = _fake_cgroup(tmp_path, "memory pids")
    monkeypatch.setenv(ENV, str(folder))
    outcome = run(bwrap, "print('inside')\n", Limits(memory_bytes=300 * MIB, processes=5))
    assert outcome.ok and outcome.stdout == b"inside\n", outcome.stderr
    (path,) = [p for p in folder.iterdir() if p.is_dir()]
    assert path.name.startswith(f"evalmark-{os.getpid()}-")
    assert (path / "memory.max").read_text() == str(300 * MIB)
    assert int((path / "cgroup.procs").read_text()) > 0  # bubblewrap's pid, moved by the host
    assert (path / "cgroup.kill").read_text() == "1"  # what was left was killed


# 3. Files (inodes) ---------------------------------------------------------------------------

MANY_EMPTY_FILES = """
import os
places = ["/tmp", "/work", "/dev/shm"]
for i in range(1_000_000):
    open(os.path.join(places[i % 3], f"e{i}"), "w").close()
    if i % 500 == 0:
        print(i, flush=True)
print("all", flush=True)
"""


@pytest.mark.parametrize("closed_output", [False, True])
def test_the_number_of_files_is_bounded(bwrap: BwrapSandbox, closed_output: bool) -> None:
    limits = Limits(timeout=120.0, cpu_seconds=200, files=3000)
    source = MANY_EMPTY_FILES
    if closed_output:  # no output left to wait on: the program is watched all the same
        source = "import os\nos.close(1)\nos.close(2)\n" + source.replace(
            ", flush=True)", ")"
        ).replace("print(", "str(")
    outcome = run(bwrap, source, limits)
    assert b"all" not in outcome.stdout
    assert outcome.reason == "disk_full", outcome.stderr[-500:]
    assert b"file-count limit of 3000" in outcome.stderr
    assert "disk or file-count limit" in outcome.describe()


# 4. Ctrl-C stops evalmark code run -------------------------------------------------------------

BUSY = "```python\nwhile True:\n    pass\n```"


def _busy_tasks(folder: Path, sandbox: str) -> Path:
    (folder / "tasks.yaml").write_text(
        "- id: spin\n  tests: |\n    def test_spin():\n        assert True\n"
    )
    lines = [{"task": "spin", "sample": n, "completion": BUSY} for n in range(6)]
    (folder / "solutions.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    (folder / "code.yaml").write_text(
        f"tasks: tasks.yaml\nsolutions: solutions.jsonl\nsandbox: {sandbox}\nconcurrency: 2\n"
        "limits: {timeout: 120, cpu-seconds: 200}\n"
    )
    return folder


def _spinning(pid: int) -> bool:
    """True once some process under ``pid`` has used half a second of CPU (a busy program)."""
    for child in descendants(pid):
        try:
            if cpu_seconds(child) >= 0.5:
                return True
        except OSError:
            continue
    return False


@pytest.mark.skipif(not CPU_CLOCK, reason="needs /proc to read the programs' CPU clocks")
@pytest.mark.parametrize("sandbox", ["bwrap", "local"])
def test_ctrl_c_stops_the_sandboxes_and_exits_130(tmp_path: Path, sandbox: str) -> None:
    if sandbox == "bwrap":
        require_bwrap()
    folder = _busy_tasks(tmp_path, sandbox)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "python")}
    child = subprocess.Popen(
        [sys.executable, "-m", "evalmark", "code", "run", str(folder), "--no-progress"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        start_new_session=True,
    )
    started: set[int] = set()
    try:
        wait_until(lambda: _spinning(child.pid), 60.0, "no sandboxed program ran")
        started = descendants(child.pid)
        child.send_signal(signal.SIGINT)
        # the sandboxes' wall clock is 120 s: exiting within 30 s means they were stopped
        _, err = child.communicate(timeout=30)
        assert child.returncode == 130, err.decode()
        lines = err.decode().strip().splitlines()
        assert len(lines) == 1 and "interrupted" in lines[0], err.decode()
        assert "Traceback" not in err.decode()
        assert wait_gone(started) == set()
    finally:
        if child.poll() is None:
            os.killpg(child.pid, signal.SIGKILL)
            child.wait(timeout=30)
        for pid in started:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)


# 5. kill -9 of the evaluator -------------------------------------------------------------------

EVALUATOR = """
import sys
from evalmark.code import Limits, RunRequest
from evalmark.code._sandbox import PYTHON, BwrapSandbox, LocalSandbox

program = "import os, time\\nos.fork()\\ntime.sleep(600)\\n"
box = BwrapSandbox() if sys.argv[1] == "bwrap" else LocalSandbox()
box.run(
    RunRequest(argv=(PYTHON, "sleeper.py", sys.argv[2]), files={"sleeper.py": program.encode()}),
    Limits(timeout=300.0, cpu_seconds=600),
)
"""


def _sleepers(pid: int, marker: str) -> set[int]:
    """The processes under ``pid`` that run ``sleeper.py MARKER``."""
    found = set()
    for child in descendants(pid):
        try:
            argv = Path("/proc", str(child), "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if argv[1:3] == [b"sleeper.py", marker.encode()]:
            found.add(child)
    return found


@pytest.mark.parametrize("sandbox", ["local", "bwrap"])
def test_programs_die_when_the_evaluator_is_killed(tmp_path: Path, sandbox: str) -> None:
    if sandbox == "bwrap":
        require_bwrap()
    marker = f"evalmark-sleeper-{os.getpid()}-{sandbox}"
    env = {**os.environ, "PYTHONPATH": str(ROOT / "python")}
    evaluator = subprocess.Popen(
        [sys.executable, "-c", EVALUATOR, sandbox, marker],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    started: set[int] = set()
    try:
        # the program and the child it forked
        wait_until(lambda: len(_sleepers(evaluator.pid, marker)) >= 2, 60.0, "no sleeper ran")
        started = descendants(evaluator.pid)
        evaluator.kill()
        evaluator.wait(timeout=30)
        assert wait_gone(started) == set()
    finally:
        if evaluator.poll() is None:
            evaluator.kill()
            evaluator.wait(timeout=30)
        for pid in started:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)


def test_the_seccomp_filter_exists_for_both_machines_and_ends_in_allow() -> None:
    import struct

    from evalmark.code._sandbox.seccomp import DENIED, seccomp_program

    for machine in ("x86_64", "aarch64"):
        program = seccomp_program(machine)
        assert program is not None and len(program) % 8 == 0
        ops = [struct.unpack("=HBBI", program[i : i + 8]) for i in range(0, len(program), 8)]
        assert ops[-1] == (0x06, 0, 0, 0x7FFF0000)  # the last instruction allows
        refusals = [op for op in ops if op[0] == 0x06 and op[3] == 0x00050000 | 1]  # EPERM
        assert len(refusals) == len(DENIED)
    assert seccomp_program("riscv64") is None

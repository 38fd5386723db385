"""The one atomic writer: whole files or none, errors that name the path asked for, and the
temporary files a killed run leaves behind removed by the next write."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from children import LineReader
from evalmark._files.atomic import AtomicFile, write_atomically
from evalmark.errors import EvalmarkError, OutputPathError


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith((".part", ".tmp")))


def test_a_write_replaces_the_file_whole_and_leaves_nothing_beside_it(tmp_path: Path) -> None:
    target = tmp_path / "out.json"
    target.write_bytes(b"old")
    write_atomically(target, b"new")
    assert target.read_bytes() == b"new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]


def test_missing_folders_are_created(tmp_path: Path) -> None:
    target = tmp_path / "a" / "b" / "out.json"
    write_atomically(target, b"{}")
    assert target.read_bytes() == b"{}"


@pytest.mark.parametrize("when", ["before", "at commit"])
def test_a_folder_as_target_names_the_folder_and_leaves_no_part_file(
    tmp_path: Path, when: str
) -> None:
    target = tmp_path / "summary"
    if when == "before":
        target.mkdir()
        with pytest.raises(OutputPathError) as caught:
            AtomicFile(target)
    else:
        out = AtomicFile(target)
        out.write_bytes(b"x")
        target.mkdir()  # appears while the file is being written
        (target / "inside").write_bytes(b"")
        with pytest.raises(OutputPathError) as caught:
            out.commit()
    message = str(caught.value)
    assert message.startswith(f"{target}: ")
    assert ".part" not in message and "folder" in message
    assert caught.value.filename == str(target)
    assert isinstance(caught.value, EvalmarkError) and isinstance(caught.value, OSError)
    assert leftovers(tmp_path) == []


def test_a_file_in_the_way_of_a_folder_is_named(tmp_path: Path) -> None:
    (tmp_path / "file").write_bytes(b"")
    target = tmp_path / "file" / "out.json"
    with pytest.raises(OutputPathError, match=r"out\.json: cannot be written") as caught:
        write_atomically(target, b"x")
    assert ".part" not in str(caught.value)
    assert "a folder on the path is a file" in str(caught.value)


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write anywhere")
def test_a_read_only_folder_is_named(tmp_path: Path) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        with pytest.raises(OutputPathError, match="permissions") as caught:
            write_atomically(folder / "out.json", b"x")
        assert str(caught.value).startswith(str(folder / "out.json"))
    finally:
        folder.chmod(0o700)


def test_an_os_error_about_the_temporary_file_is_reworded(tmp_path: Path) -> None:
    target = tmp_path / "out.csv"
    with pytest.raises(OutputPathError) as caught, AtomicFile(target) as out:
        raise OSError(28, "No space left on device", str(out.temp))
    assert str(caught.value) == f"{target}: cannot be written (No space left on device); " + (
        "the disk is full; free some space"
    )
    assert leftovers(tmp_path) == [] and not target.exists()


def test_a_failure_or_interrupt_inside_leaves_the_old_file(tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    target.write_bytes(b"old")
    for exc in (ValueError("boom"), KeyboardInterrupt()):
        with pytest.raises(type(exc)), AtomicFile(target) as out:
            out.write_bytes(b"half")
            raise exc
    assert target.read_bytes() == b"old"
    assert leftovers(tmp_path) == []


def test_the_mode_of_the_replaced_file_is_kept(tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    target.write_bytes(b"old")
    target.chmod(0o640)
    write_atomically(target, b"new")
    assert target.stat().st_mode & 0o777 == 0o640


def test_a_device_is_written_directly_not_replaced() -> None:
    write_atomically("/dev/null", b"nothing")
    assert Path("/dev/null").is_char_device()


def _stale(folder: Path, name: str) -> Path:
    path = folder / name
    path.write_bytes(b"partial")
    old = time.time() - 3600
    os.utime(path, (old, old))
    return path


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait(timeout=60)
    return child.pid


def test_temporary_files_of_dead_runs_are_removed_by_the_next_write(tmp_path: Path) -> None:
    dead = _dead_pid()
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        gone = _stale(tmp_path, f".out.jsonl.{dead}.abcd1234.part")
        legacy_part = _stale(tmp_path, ".out.jsonl.0aza08cq.part")
        legacy_tmp = _stale(tmp_path, ".out.jsonl.k2j4h5g6.tmp")
        live = _stale(tmp_path, f".out.jsonl.{sleeper.pid}.abcd1234.part")
        other_target = _stale(tmp_path, f".other.jsonl.{dead}.abcd1234.part")
        longer_name = _stale(tmp_path, f".out.jsonl.x.{dead}.abcd1234.part")
        recent = tmp_path / f".out.jsonl.{dead}.zzzz9999.part"
        recent.write_bytes(b"written after this process started")
        write_atomically(tmp_path / "out.jsonl", b"{}\n")
        assert not gone.exists() and not legacy_part.exists() and not legacy_tmp.exists()
        assert live.exists(), "a running writer's file is never touched"
        assert other_target.exists() and longer_name.exists(), "only this target's files"
        assert recent.exists(), "only files older than this run"
    finally:
        sleeper.kill()
        sleeper.wait(timeout=30)


def test_a_killed_writer_leaves_a_part_file_that_the_next_run_removes(tmp_path: Path) -> None:
    target = tmp_path / "scores.jsonl"
    code = textwrap.dedent(
        f"""
        import sys, time
        from evalmark._files.atomic import AtomicFile
        out = AtomicFile({str(target)!r})
        out.write_bytes(b"half a file")
        print("ready", flush=True)
        time.sleep(60)
        """
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, env=env)
    try:
        assert child.stdout is not None
        assert LineReader(child.stdout).line(timeout=60).strip() == "ready"
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
    finally:
        child.kill()
        if child.stdout is not None:
            child.stdout.close()
    (part,) = leftovers(tmp_path)
    assert part.startswith(f".scores.jsonl.{child.pid}.")
    assert not target.exists(), "the killed run never wrote the target"
    time.sleep(0.05)  # the next run starts after the file was last written
    next_run = (
        f"from evalmark._files.atomic import write_atomically as w; w({str(target)!r}, b'ok')"
    )
    subprocess.run([sys.executable, "-c", next_run], env=env, check=True, timeout=60)
    assert leftovers(tmp_path) == []
    assert target.read_bytes() == b"ok"

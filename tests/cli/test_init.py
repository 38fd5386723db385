"""``evalmark init``: the starter suite passes offline at once, and nothing is overwritten."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from evalmark.cli import main
from evalmark.errors import SuiteError
from evalmark.suite._starter import starter_files, write_starter


def test_init_writes_every_starter_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["init", str(tmp_path / "suite")]) == 0
    written = sorted(p.relative_to(tmp_path / "suite") for p in (tmp_path / "suite").rglob("*.*"))
    assert written == starter_files()
    assert {str(p) for p in written} >= {
        "app.py",
        "samples.yaml",
        "suite.yaml",
        "tests/test_app.py",
        "cassettes/README.md",
    }
    assert "next: evalmark run" in capsys.readouterr().out


def test_the_starter_suite_passes_offline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_starter(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert main(["run", ".", "-q"]) == 0
    assert (tmp_path / "out" / "starter.json").exists()


def test_the_starter_pytest_test_passes(tmp_path: Path) -> None:
    write_starter(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed" in done.stdout


def test_init_refuses_to_overwrite(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "suite.yaml").write_text("name: mine\n")
    assert main(["init", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "suite.yaml already exists" in err and "--force" in err
    assert (tmp_path / "suite.yaml").read_text() == "name: mine\n"
    assert not (tmp_path / "samples.yaml").exists(), "nothing written when anything exists"
    with pytest.raises(SuiteError):
        write_starter(tmp_path)
    write_starter(tmp_path, force=True)
    assert "name: starter" in (tmp_path / "suite.yaml").read_text()

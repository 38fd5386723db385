"""Ctrl-C anywhere in a command (reading its inputs, printing) is one line and exit 130, never a
traceback, for every command, not only those that catch it around their long work."""

from __future__ import annotations

from pathlib import Path

import pytest

from evalmark.cli import EXIT_INTERRUPTED, main
from evalmark.cli import _schema as schema_module


def test_an_interrupt_outside_a_commands_own_handling_is_one_line_and_130(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    def interrupted(kind: str) -> str:
        raise KeyboardInterrupt

    monkeypatch.setattr(schema_module, "render", interrupted)
    code = main(["schema", "suite", "-o", str(tmp_path / "suite.schema.json")])
    captured = capsys.readouterr()
    assert code == EXIT_INTERRUPTED == 130
    assert captured.err == "evalmark schema: interrupted\n"
    assert not (tmp_path / "suite.schema.json").exists()

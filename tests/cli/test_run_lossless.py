"""``evalmark run`` with text UTF-8 cannot hold (a lone surrogate in an output and in an error)
writes every report and the history row, the text kept as ``\\udcff``; and a run writes all its
reports and its history row, or none of them."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from evalmark.cli import main

ANSWER = "    return HELP_CENTRE[best]\n"
ODD = """    if "PDF" in question:
        raise ValueError("bad byte " + b"\\xff".decode("utf-8", "surrogateescape"))
    return HELP_CENTRE[best] + b" \\xfe".decode("utf-8", "surrogateescape")
"""


@pytest.fixture
def starter(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "evals"
    assert main(["init", str(folder)]) == 0
    config = folder / "suite.yaml"
    config.write_text(
        config.read_text(encoding="utf-8").replace("[md, json, html]", "[md, json, html, xml]"),
        encoding="utf-8",
    )
    monkeypatch.chdir(folder)
    return folder


@pytest.fixture
def suite(starter: Path) -> Path:
    app = starter / "app.py"
    text = app.read_text(encoding="utf-8")
    assert ANSWER in text
    app.write_text(text.replace(ANSWER, ODD), encoding="utf-8")
    return starter


def _history_rows(db: Path) -> list[tuple[str, str | None, str]]:
    if not db.exists():
        return []
    with sqlite3.connect(db) as connection:
        return connection.execute("SELECT case_name, error, explanation FROM results").fetchall()


def test_a_lone_surrogate_is_kept_in_every_report_and_the_history(suite: Path) -> None:
    db = suite / "history.sqlite"
    done = subprocess.run(
        [sys.executable, "-m", "evalmark", "run", ".", "--history", str(db)],
        capture_output=True,
        timeout=300,
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},  # strict, as on most terminals
    )
    stdout, stderr = done.stdout.decode("utf-8"), done.stderr.decode("utf-8")
    assert done.returncode == 1, stderr  # the gate fails: a case raised
    assert "Traceback" not in stderr
    assert "bad byte \\udcff" in stdout
    out = suite / "out"
    assert sorted(p.name for p in out.iterdir()) == [
        "starter.html",
        "starter.json",
        "starter.md",
        "starter.xml",
    ]
    for path in out.iterdir():
        text = path.read_text(encoding="utf-8")
        if path.suffix == ".json":  # the backslash of \udcff is itself escaped in JSON
            text = text.replace("\\\\", "\\")
        assert "bad byte \\udcff" in text, path.name
    document = json.loads((out / "starter.json").read_text(encoding="utf-8"))
    outputs = [s.get("output") for s in document["samples"]]
    assert any(o is not None and o.endswith(" \\udcfe") for o in outputs), outputs
    errors = [error for _, error, _ in _history_rows(db) if error]
    assert errors and all("bad byte \\udcff" in e for e in errors), errors


def test_a_report_that_cannot_be_written_writes_nothing(
    starter: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from evalmark.report import register_formatter
    from evalmark.report._formatters import get_formatter

    def broken(report: object, **options: object) -> str:
        raise ValueError("the HTML renderer failed")

    db = starter / "history.sqlite"
    html = get_formatter("html")
    register_formatter("html", broken, extensions=html.extensions, replace=True)
    try:
        capsys.readouterr()
        code = main(["run", ".", "-q", "--history", str(db)])
    finally:
        register_formatter("html", html.function, extensions=html.extensions, replace=True)
    err = capsys.readouterr().err
    assert code == 2 and "the HTML renderer failed" in err
    assert not (starter / "out").exists() or not list((starter / "out").iterdir())
    assert _history_rows(db) == []

"""Odd values in and around the history: text that UTF-8 cannot hold, scores that are not
numbers, rows changed outside evalmark, read-only files and a writer holding the database, and
text that looks like the dashboard's own markup."""

from __future__ import annotations

import dataclasses
import html.parser
import json
import math
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from history_builders import make_run

from evalmark.cli import main
from evalmark.errors import EvalmarkError, HistoryError
from evalmark.history import open_history
from evalmark.history._dashboard import dashboard_data, render_dashboard

LONE = b"\xff".decode("utf-8", "surrogateescape")  # '\udcff'


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _history(db: Path) -> Path:
    with open_history(db) as store:
        for passed in (True, False):
            store.append(make_run([("a", "judge", passed, float(passed)), ("b", "f1", True, 0.9)]))
    return db


def test_a_lone_surrogate_is_kept_escaped(db: Path) -> None:
    run = make_run([("case" + LONE, "judge", False, 0.0)], tags=("t" + LONE,))
    result = dataclasses.replace(run.results[0], explanation="half an emoji \ud83d")
    with open_history(db) as store:
        run_id = store.append(dataclasses.replace(run, results=(result,)))
        (back,) = store.results_of(run_id)
    assert back.case == "case\\udcff"
    assert back.explanation == "half an emoji \\ud83d"
    assert back.tags == ("t\\udcff",)


@pytest.mark.parametrize("score", [math.nan, math.inf, "0.5", 10**400])
def test_a_score_that_is_no_finite_number_is_named(db: Path, score: object) -> None:
    run = make_run([("refund", "judge", True, 1.0)])
    bad = dataclasses.replace(run.results[0], score=score)
    with open_history(db) as store, pytest.raises(HistoryError) as caught:
        store.append(dataclasses.replace(run, results=(bad,)))
    message = str(caught.value)
    assert "case 'refund', check 'judge': score" in message and "finite" in message
    with open_history(db) as store:
        assert store.query("SELECT COUNT(*) AS n FROM runs")[0]["n"] == 0


@pytest.mark.parametrize(
    ("sql", "found"),
    [
        ("UPDATE results SET tags = '5'", "tags are '5', not a JSON list"),
        ("UPDATE results SET tags = 'null'", "not a JSON list"),
        ("UPDATE results SET tags = '[1]'", "not a JSON list"),
        ("UPDATE results SET case_name = CAST('a' AS BLOB)", "column case_name holds a BLOB"),
        ("UPDATE runs SET suite = CAST('s' AS BLOB)", "column suite holds a BLOB"),
        ("UPDATE results SET score = 'high'", "column score holds text 'high'"),
    ],
)
@pytest.mark.parametrize(
    "command", [["ls"], ["trend"], ["flaky"], ["show", "2"], ["diff", "1", "2"], ["html", "-o"]]
)
def test_tampered_rows_are_one_line_exit_2(
    db: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    sql: str,
    found: str,
    command: list[str],
) -> None:
    _history(db)
    with sqlite3.connect(db) as connection:
        connection.execute(sql)
    if command == ["html", "-o"]:
        command = [*command, str(tmp_path / "site")]
    code, out, err = _run(capsys, "history", "--history", str(db), *command)
    if code == 0:  # a command that never reads the changed column
        assert "Traceback" not in out + err
        return
    assert code == 2, err
    assert err.count("\n") == 1 and "outside evalmark" in err and "Traceback" not in err
    if found.startswith("column") or "tags" in found:
        assert found in err or "not a JSON list" in err or "outside evalmark" in err


def test_each_tampering_is_caught_by_some_reader(
    db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _history(db)
    with sqlite3.connect(db) as connection:
        connection.execute("UPDATE results SET tags = '5', case_name = CAST('a' AS BLOB)")
    for command in (["show", "2"], ["html", "-o", str(tmp_path / "site")], ["diff", "1", "2"]):
        code, _, err = _run(capsys, "history", "--history", str(db), *command)
        assert code == 2 and "outside evalmark" in err, (command, err)


def test_a_reader_leaves_the_database_untouched(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _history(db)
    with sqlite3.connect(db) as connection:  # as a copy made by hand or by a backup tool
        connection.execute("PRAGMA journal_mode = DELETE")
    before = db.read_bytes()
    for command in (["ls"], ["trend"], ["flaky"], ["show", "1"], ["diff", "1", "2"]):
        code, _, err = _run(capsys, "history", "--history", str(db), *command)
        assert code == 0, err
    assert db.read_bytes() == before, "a reader changed the database"
    assert sorted(p.name for p in db.parent.iterdir()) == [db.name]


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes read-only files")
def test_a_read_only_database_in_a_read_only_folder(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:  # pragma: no cover - CI runs as root
    _history(db)
    db.chmod(0o444)
    db.parent.chmod(0o555)
    try:
        for command in (["ls"], ["trend"]):
            code, _, err = _run(capsys, "history", "--history", str(db), *command)
            assert code == 0, err
    finally:
        db.parent.chmod(0o755)


def test_readers_do_not_wait_for_a_writer(db: Path) -> None:
    _history(db)
    writer = sqlite3.connect(db, isolation_level=None)
    try:
        writer.execute("BEGIN IMMEDIATE")  # holds the write lock, as a run appending
        writer.execute(
            "INSERT INTO runs (suite, source, started_at, duration_s,"
            " evalmark_version, inputs_digest) VALUES ('x', 'run', 't', 1, 'v', 'd')"
        )
        for command in (["ls"], ["trend"]):
            # A writer holds the lock for up to 30 s before giving up: a reader that waited on
            # it would still be waiting when the timeout below ends.
            done = subprocess.run(
                [sys.executable, "-m", "evalmark", "history", "--history", str(db), *command],
                capture_output=True,
                text=True,
                timeout=25,
            )
            assert done.returncode == 0, done.stderr
            assert "support" in done.stdout
    finally:
        writer.execute("ROLLBACK")
        writer.close()


HOSTILE = [
    "{{script}}",
    "{{data}}",
    "{{style}}",
    "{{title}}",
    "</script><script>alert(1)</script>",
    "<!--",
    "<script>",
    "]]>",
    "\u2028\u2029",
    "&amp; & <b>",
]


def _page_data(page: str) -> object:
    class Finder(html.parser.HTMLParser):
        def __init__(self) -> None:
            super().__init__()
            self.found: list[str] = []
            self.inside = False

        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            self.inside = tag == "script" and ("id", "history-data") in attrs

        def handle_endtag(self, tag: str) -> None:
            self.inside = False

        def handle_data(self, data: str) -> None:
            if self.inside:
                self.found.append(data)

    finder = Finder()
    finder.feed(page)
    (text,) = finder.found
    return json.loads(text)


def test_no_text_in_any_field_breaks_the_dashboards_data(db: Path) -> None:
    with open_history(db) as store:
        for text in HOSTILE:
            run = make_run([(text, text, False, 0.5)], suite=text, tags=(text,))
            result = dataclasses.replace(run.results[0], explanation=text, error=text)
            store.append(dataclasses.replace(run, build=text, results=(result,)))
        data = dashboard_data(store)
    for title in ("evalmark history", *HOSTILE):
        page = render_dashboard(data, title=title)
        assert _page_data(page) == json.loads(json.dumps(data))
        assert page.count("</script>") == 2  # the data's and the script's own


def test_history_errors_are_evalmark_errors() -> None:
    assert issubclass(HistoryError, EvalmarkError)


@pytest.mark.parametrize("error", [RecursionError, MemoryError])
def test_a_crash_no_check_foresaw_is_still_one_line(
    db: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    error: type[BaseException],
) -> None:
    from evalmark.history import _queries

    def crash(*args: object, **kwargs: object) -> None:
        raise error("deep inside")

    _history(db)
    monkeypatch.setattr(_queries, "list_runs", crash)
    code, _, err = _run(capsys, "history", "--history", str(db), "ls")
    assert code == 2 and err.count("\n") == 1 and err.startswith("evalmark history: error: ")

"""The history database: appends, migrations, concurrent writers and damaged files."""

from __future__ import annotations

import multiprocessing
import sqlite3
from pathlib import Path

import pytest
from history_builders import make_run

from evalmark.errors import HistoryError
from evalmark.history import default_history_path, open_history
from evalmark.history._store import SCHEMA_VERSION, project_root


def test_append_and_read_back(db: Path) -> None:
    run = make_run([("a", "facts", True, 1.0), ("b", "facts", False, 0.25)])
    with open_history(db) as store:
        first = store.append(run)
        second = store.append(run)
        assert (first, second) == (1, 2)
        assert store.results_of(first) == list(run.results)
    with sqlite3.connect(db) as raw:
        assert raw.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert raw.execute("SELECT COUNT(*) FROM results").fetchone()[0] == 4


def test_a_newer_schema_is_refused(db: Path) -> None:
    open_history(db).close()
    with sqlite3.connect(db) as raw:
        raw.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    with pytest.raises(HistoryError, match="newer than this evalmark"):
        open_history(db)


def test_a_corrupt_file_is_a_typed_error_naming_it(db: Path) -> None:
    db.parent.mkdir(parents=True)
    db.write_bytes(b"this is not a database at all" * 100)
    with pytest.raises(HistoryError) as caught:
        open_history(db)
    assert str(db) in str(caught.value) and "move it aside" in str(caught.value)


def test_a_failed_append_leaves_nothing_behind(db: Path) -> None:
    with open_history(db) as store:
        store.append(make_run([("a", "facts", True, 1.0)]))
        bad = make_run([("a", "facts", True, 1.0)])
        object.__setattr__(bad, "results", (*bad.results, "not a result"))
        with pytest.raises(AttributeError):
            store.append(bad)
        assert len(store.query("SELECT * FROM runs")) == 1
        assert len(store.query("SELECT * FROM results")) == 1


def _append_many(path: str, worker: int, count: int) -> None:
    with open_history(path) as store:
        for index in range(count):
            store.append(make_run([(f"w{worker}-{index}", "facts", True, 1.0)] * 5))


def test_concurrent_writers_lose_no_rows(db: Path) -> None:
    open_history(db).close()
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_append_many, args=(str(db), w, 25)) for w in range(4)]
    for process in workers:
        process.start()
    for process in workers:
        process.join(timeout=120)
        assert process.exitcode == 0
    with open_history(db) as store:
        assert store.query("SELECT COUNT(*) AS n FROM runs")[0]["n"] == 100
        assert store.query("SELECT COUNT(*) AS n FROM results")[0]["n"] == 500


def test_default_location_and_switch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = tmp_path / "project"
    (project / "src" / "deep").mkdir(parents=True)
    (project / "pyproject.toml").write_text("")
    monkeypatch.delenv("EVALMARK_HISTORY", raising=False)
    assert project_root(project / "src" / "deep") == project.resolve()
    assert (
        default_history_path(project / "src") == project.resolve() / ".evalmark" / "history.sqlite"
    )
    monkeypatch.setenv("EVALMARK_HISTORY", str(tmp_path / "h.sqlite"))
    assert default_history_path(project) == tmp_path / "h.sqlite"
    monkeypatch.setenv("EVALMARK_HISTORY", "off")
    assert default_history_path(project) is None

"""The history database: schema, migrations, appending runs and reading them back.

SQLite in WAL mode, so readers never block the writer and concurrent writers (pytest-xdist
workers, parallel CI jobs on one disk) queue on the database lock instead of losing rows; each
run is appended in one transaction. The schema version is ``PRAGMA user_version``; opening an
older database migrates it forward, a newer one is refused.
"""

from __future__ import annotations

import json
import os
import sqlite3
import urllib.parse
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from evalmark.errors import HistoryError
from evalmark.history._record import AnswerIdentity, CaseResult, RunRecord
from evalmark.history._values import check_rows, read_tags, storable

__all__ = ["SCHEMA_VERSION", "HistoryStore", "default_history_path", "open_history"]

HISTORY_ENV = "EVALMARK_HISTORY"
_OFF = {"off", "0", "false", "no", ""}
_ROOT_MARKERS = (".git", "pyproject.toml", ".evalmark")
BUSY_TIMEOUT_MS = 30_000
_LOOKUP_BATCH = 500  # identities looked up in one query (SQLite allows 32,766 parameters)
READ_TIMEOUT_MS = 2_000  # a reader: WAL means it waits only on a rare checkpoint

# Each entry takes the database from version i to i + 1.
_MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE runs (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        suite TEXT NOT NULL,
        source TEXT NOT NULL,
        build TEXT,
        started_at TEXT NOT NULL,
        duration_s REAL NOT NULL,
        evalmark_version TEXT NOT NULL,
        git_commit TEXT,
        git_dirty INTEGER,
        gate_passed INTEGER,
        inputs_digest TEXT NOT NULL
    );
    CREATE TABLE run_files (
        run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        sha256 TEXT NOT NULL,
        PRIMARY KEY (run_id, name)
    );
    CREATE TABLE results (
        run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        case_name TEXT NOT NULL,
        strategy TEXT NOT NULL,
        tags TEXT NOT NULL,
        passed INTEGER NOT NULL,
        score REAL NOT NULL,
        error TEXT,
        explanation TEXT NOT NULL,
        PRIMARY KEY (run_id, seq)
    );
    CREATE INDEX results_by_case ON results (case_name, strategy);
    CREATE INDEX runs_by_suite ON runs (suite, inputs_digest);
    """,
    # What produced each answer, stored once and named by each result; rows written before
    # have none: identity unknown.
    """
    CREATE TABLE identities (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        model_id TEXT,
        recordings TEXT,
        build TEXT
    );
    CREATE INDEX identities_by_value ON identities (recordings, model_id, build);
    ALTER TABLE results ADD COLUMN identity INTEGER REFERENCES identities(id);
    """,
    # No query looks results up by case name (they group whole runs), so the index on it only
    # doubled the file and the cost of every append.
    """
    DROP INDEX results_by_case;
    """,
)
SCHEMA_VERSION = len(_MIGRATIONS)


def project_root(start: Path | None = None) -> Path:
    """The nearest folder from ``start`` (default: the current one) upwards that holds
    ``.git``, ``pyproject.toml`` or ``.evalmark``; ``start`` itself when none does."""
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if any((folder / marker).exists() for marker in _ROOT_MARKERS):
            return folder
    return here


def default_history_path(start: Path | None = None) -> Path | None:
    """Where history goes: ``$EVALMARK_HISTORY``, else ``.evalmark/history.sqlite`` in the
    project root; ``None`` when ``EVALMARK_HISTORY`` turns history off."""
    configured = os.environ.get(HISTORY_ENV)
    if configured is not None:
        if configured.strip().lower() in _OFF:
            return None
        return Path(configured)
    return project_root(start) / ".evalmark" / "history.sqlite"


class HistoryStore:
    """An open history database. Use :func:`open_history`; close it (or use ``with``)."""

    def __init__(self, path: Path, connection: sqlite3.Connection) -> None:
        self.path = path
        self._db = connection

    def close(self) -> None:
        """Close the connection."""
        self._db.close()

    def __enter__(self) -> HistoryStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _errors(self, doing: str) -> Iterator[None]:
        try:
            yield
        except sqlite3.Error as exc:
            raise HistoryError(_explain(self.path, doing, exc)) from None

    def append(self, run: RunRecord) -> int:
        """Append ``run`` and its results in one transaction; returns the new run's id. Texts
        are kept (a lone surrogate as ``\\udcff``); a score that is not a finite number is a
        :class:`HistoryError` naming its case and check, and nothing is written."""
        run = storable(run)
        with self._errors("append a run to"):
            self._db.execute("BEGIN IMMEDIATE")
            try:
                cursor = self._db.execute(
                    "INSERT INTO runs (suite, source, build, started_at, duration_s,"
                    " evalmark_version, git_commit, git_dirty, gate_passed, inputs_digest)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        run.suite,
                        run.source,
                        run.build,
                        run.started_at,
                        run.duration_s,
                        run.evalmark_version,
                        run.git_commit,
                        _flag(run.git_dirty),
                        _flag(run.gate_passed),
                        run.inputs_digest,
                    ),
                )
                run_id = cursor.lastrowid
                assert run_id is not None
                self._db.executemany(
                    "INSERT INTO run_files (run_id, name, sha256) VALUES (?, ?, ?)",
                    [(run_id, name, digest) for name, digest in sorted(run.files.items())],
                )
                ids = self._identity_ids({r.identity for r in run.results})
                tags_json: dict[tuple[str, ...], str] = {}
                self._db.executemany(
                    "INSERT INTO results (run_id, seq, case_name, strategy, tags, passed, score,"
                    " error, explanation, identity) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [
                        (
                            run_id,
                            seq,
                            r.case,
                            r.strategy,
                            tags_json.get(r.tags)
                            or tags_json.setdefault(r.tags, json.dumps(list(r.tags))),
                            int(r.passed),
                            float(r.score),
                            r.error,
                            r.explanation,
                            ids.get(r.identity),
                        )
                        for seq, r in enumerate(run.results)
                    ],
                )
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")
        return run_id

    def _identity_ids(self, identities: set[AnswerIdentity]) -> dict[AnswerIdentity, int]:
        """The row id of each known identity, adding the new ones (inside the append's
        transaction, so concurrent writers never add one twice). The known ones are read a
        few hundred at a time, by the recordings their index starts with."""
        known = [i for i in identities if i.known]
        ids: dict[AnswerIdentity, int] = {}
        recordings = sorted({i.recordings for i in known if i.recordings is not None})
        wanted = set(known)
        for start in range(0, len(recordings), _LOOKUP_BATCH):
            chunk = recordings[start : start + _LOOKUP_BATCH]
            marks = ", ".join("?" * len(chunk))
            self._collect(
                ids,
                wanted,
                f"SELECT id, model_id, recordings, build FROM identities"
                f" WHERE recordings IN ({marks}) ORDER BY id",
                tuple(chunk),
            )
        if any(i.recordings is None for i in known):
            self._collect(
                ids,
                wanted,
                "SELECT id, model_id, recordings, build FROM identities"
                " WHERE recordings IS NULL ORDER BY id",
                (),
            )
        for identity in sorted(wanted - ids.keys(), key=_identity_order):
            values = (identity.model_id, identity.recordings, identity.build)
            cursor = self._db.execute(
                "INSERT INTO identities (model_id, recordings, build) VALUES (?, ?, ?)", values
            )
            assert cursor.lastrowid is not None
            ids[identity] = cursor.lastrowid
        return ids

    def _collect(
        self,
        ids: dict[AnswerIdentity, int],
        wanted: set[AnswerIdentity],
        sql: str,
        parameters: tuple[object, ...],
    ) -> None:
        """Add to ``ids`` the first row id of each wanted identity the query returns."""
        for row_id, model_id, recordings, build in self._db.execute(sql, parameters):
            identity = AnswerIdentity(model_id, recordings, build)
            if identity in wanted and identity not in ids:
                ids[identity] = row_id

    def query(self, sql: str, parameters: tuple[object, ...] = ()) -> list[sqlite3.Row]:
        """Rows of a read-only query (for :mod:`evalmark.history._queries`)."""
        with self._errors("read"):
            return check_rows(self.path, list(self._db.execute(sql, parameters)))

    def results_of(self, run_id: int) -> list[CaseResult]:
        """The results of one run, in the order they were appended."""
        rows = self.query(
            "SELECT x.seq, x.case_name, x.strategy, x.tags, x.passed, x.score, x.error,"
            " x.explanation, i.model_id, i.recordings, i.build FROM results x"
            " LEFT JOIN identities i ON i.id = x.identity WHERE x.run_id = ? ORDER BY x.seq",
            (run_id,),
        )
        return [
            CaseResult(
                case=row["case_name"],
                strategy=row["strategy"],
                passed=bool(row["passed"]),
                score=row["score"],
                error=row["error"],
                explanation=row["explanation"],
                tags=read_tags(self.path, row["tags"], f"run {run_id}, result {row['seq']}"),
                identity=AnswerIdentity(row["model_id"], row["recordings"], row["build"]),
            )
            for row in rows
        ]


def _identity_order(identity: AnswerIdentity) -> tuple[tuple[bool, str], ...]:
    """A total order of identities (``None`` after every text), so new ones get their row ids
    in the same order on every run."""
    fields = (identity.recordings, identity.model_id, identity.build)
    return tuple((value is None, value or "") for value in fields)


def _flag(value: bool | None) -> int | None:
    return None if value is None else int(value)


def _explain(path: Path, doing: str, exc: sqlite3.Error) -> str:
    text = str(exc)
    if "locked" in text or "busy" in text:
        hint = "another process holds it; try again, or set EVALMARK_HISTORY to another file"
    elif "not a database" in text or "malformed" in text or "corrupt" in text:
        hint = "the file is damaged; move it aside and a new history starts"
    else:
        hint = "check the file and its folder, or set EVALMARK_HISTORY=off to skip history"
    return f"{path}: cannot {doing} the history database ({text}); {hint}"


def open_history(path: str | Path, *, read_only: bool = False) -> HistoryStore:
    """Open (creating or migrating) the history database at ``path``; with ``read_only``,
    open it to read only (see :func:`open_reader`)."""
    target = Path(path)
    if read_only:
        return open_reader(target)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        connection = sqlite3.connect(
            target, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None, check_same_thread=False
        )
    except (OSError, sqlite3.Error) as exc:
        raise HistoryError(f"{target}: cannot open the history database ({exc})") from None
    connection.row_factory = sqlite3.Row
    store = HistoryStore(target, connection)
    try:
        with store._errors("open"):
            connection.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            connection.execute("PRAGMA journal_mode = WAL")
            connection.execute("PRAGMA foreign_keys = ON")
            _migrate(connection, target)
    except BaseException:
        connection.close()
        raise
    return store


def _migrate(connection: sqlite3.Connection, path: Path) -> None:
    connection.execute("BEGIN IMMEDIATE")
    try:
        version = connection.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise HistoryError(
                f"{path}: the history database has schema version {version}, newer than this "
                f"evalmark's {SCHEMA_VERSION}; upgrade evalmark, or set EVALMARK_HISTORY to "
                "another file"
            )
        for step in range(version, SCHEMA_VERSION):
            for statement in _MIGRATIONS[step].split(";"):
                if statement.strip():
                    connection.execute(statement)
            connection.execute(f"PRAGMA user_version = {step + 1}")
    except BaseException:
        connection.execute("ROLLBACK")
        raise
    connection.execute("COMMIT")


def open_reader(path: Path) -> HistoryStore:
    """Open an existing history to read only: nothing is written (the file, its folder and
    the database may be read-only), and a writer holding the database never makes the reader
    wait (writers keep it in WAL mode; a reader waits at most :data:`READ_TIMEOUT_MS`). A
    history written by an older evalmark is migrated first when it can be written."""
    if not path.is_file():
        raise HistoryError(
            f"no history at {path}: run `evalmark run SUITE` first, or pass --history FILE"
        )
    base = "file:" + urllib.parse.quote(str(path.resolve())) + "?mode=ro"
    # immutable: a database in a read-only folder that has no -shm file yet (SQLite could
    # neither create one nor read without it); nothing can be writing there.
    for uri in (base, base + "&immutable=1"):
        try:
            connection = sqlite3.connect(
                uri,
                uri=True,
                timeout=READ_TIMEOUT_MS / 1000,
                isolation_level=None,
                check_same_thread=False,
            )
        except sqlite3.Error as exc:
            error: sqlite3.Error = exc
            continue
        try:
            connection.execute(f"PRAGMA busy_timeout = {READ_TIMEOUT_MS}")
            version = connection.execute("PRAGMA user_version").fetchone()[0]
        except sqlite3.Error as exc:
            connection.close()
            error = exc
            if "unable to open" in str(exc):
                continue
            break
        if version < SCHEMA_VERSION:
            connection.close()
            return open_history(path)
        if version > SCHEMA_VERSION:
            connection.close()
            raise HistoryError(
                f"{path}: the history database has schema version {version}, newer than this "
                f"evalmark's {SCHEMA_VERSION}; upgrade evalmark"
            )
        connection.row_factory = sqlite3.Row
        return HistoryStore(path, connection)
    raise HistoryError(_explain(path, "open", error))

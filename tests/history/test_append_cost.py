"""What an append writes besides the rows: no case-name index, identities looked up in bulk
and numbered in a fixed order, plain runs stored as they are."""

from __future__ import annotations

import random
import sqlite3
from dataclasses import replace
from pathlib import Path

from history_builders import make_run

from evalmark.history import CaseResult, open_history
from evalmark.history._record import AnswerIdentity
from evalmark.history._store import _MIGRATIONS
from evalmark.history._values import storable


def indexes(db: Path) -> set[str]:
    with sqlite3.connect(db) as raw:
        rows = raw.execute("SELECT name FROM sqlite_master WHERE type = 'index'").fetchall()
    return {name for (name,) in rows}


def test_results_keep_no_index_on_case_names(db: Path) -> None:
    with open_history(db) as store:
        store.append(make_run([("a", "facts", True, 1.0)]))
    assert "results_by_case" not in indexes(db)
    assert "identities_by_value" in indexes(db)


def test_an_older_history_loses_the_case_name_index_and_keeps_its_rows(db: Path) -> None:
    db.parent.mkdir(parents=True)
    with sqlite3.connect(db) as old:  # what the previous evalmark wrote
        for step in _MIGRATIONS[:2]:
            old.executescript(step)
        old.execute("PRAGMA user_version = 2")
    assert "results_by_case" in indexes(db)
    with open_history(db) as store:
        run_id = store.append(make_run([("a", "facts", True, 1.0)]))
        assert [r.case for r in store.results_of(run_id)] == ["a"]
    assert "results_by_case" not in indexes(db)


def test_new_identities_are_numbered_in_one_order_whatever_the_run_order(db: Path) -> None:
    who = [AnswerIdentity(f"model-{i % 3}", f"{i:064x}", "main") for i in range(12)]
    who += [AnswerIdentity("live", None, None), AnswerIdentity(None, None, "nightly")]
    random.Random(5).shuffle(who)
    results = tuple(
        CaseResult(f"case-{n}", "facts", True, 1.0, identity=identity)
        for n, identity in enumerate(who)
    )
    run = make_run([])
    with open_history(db) as store:
        store.append(replace(run, results=results))
        store.append(replace(run, results=results[::-1]))
    with sqlite3.connect(db) as raw:
        stored = raw.execute("SELECT model_id, recordings, build FROM identities ORDER BY id")
        rows = [AnswerIdentity(*row) for row in stored]
        assert raw.execute("SELECT COUNT(DISTINCT identity) FROM results").fetchone()[0] == 14
    by_recordings = sorted(
        who,
        key=lambda i: [(v is None, v or "") for v in (i.recordings, i.model_id, i.build)],
    )
    assert rows == by_recordings


def test_a_plain_run_is_stored_as_it_is_and_a_surrogate_still_escaped() -> None:
    plain = make_run([("a", "facts", True, 0.5), ("b", "judge", False, 0.0)])
    assert storable(plain) is plain
    odd = make_run([("a\udcff", "facts", True, 0.5)])
    assert storable(odd).results[0].case == "a\\udcff"

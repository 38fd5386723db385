"""What produced each answer: recorded per result, read back, and used by ``history flaky``.

The scenario of the issue: a suite switches its model deliberately. The cassette file stays the
same (it already holds the new model's recordings), so the run's input files are byte for byte
the same; only the recordings that answered differ. That is a changed answer, not a flaky case.
"""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest
from history_builders import SAME, make_run

from evalmark.cli import main
from evalmark.history import open_history
from evalmark.history._queries import (
    flake_counts,
    flaky_cases,
    identity_changes,
    list_runs,
    trend,
    unattributed_changes,
)
from evalmark.history._record import UNKNOWN, AnswerIdentity
from evalmark.history._store import _MIGRATIONS, SCHEMA_VERSION

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[2]
SUPPORT = ROOT / "golden" / "support"

SAMPLES = """\
- name: refund-window
  parameters: [How long do I have to ask for a refund?]
  expected-output: Within 30 days.
  expected-facts: [30 days]
- name: support-hours
  parameters: [When is live chat open?]
  expected-output: Live chat is open 9 to 5.
  expected-facts: [9 to 5]
"""

APP = """\
def answer_v1(question):
    return "Within 30 days." if "refund" in question else "Live chat is open 9 to 5."


def answer_v2(question):
    return "Within 30 days." if "refund" in question else "Live chat is open on weekdays."
"""

SUITE = """\
name: bot
samples: samples.yaml
application:
  model-id: {model}
  function: app.py:{function}
  builds:
    main: builds/main.jsonl
strategies:
  - contains-facts
gate:
  pass-rate: 0.5
"""


def _suite(folder: Path, model: str, function: str) -> None:
    (folder / "suite.yaml").write_text(SUITE.format(model=model, function=function), "utf-8")


def _run(folder: Path, *extra: str) -> int:
    return main(["run", str(folder), "-q", "--no-report", *extra])


@pytest.fixture
def switched(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[Path, Path]:
    """A suite whose cassette holds the answers of two models (recorded without history),
    then one replayed run with each: the deliberate switch from bot-v1 to bot-v2."""
    folder = tmp_path / "bot"
    (folder / "builds").mkdir(parents=True)
    (folder / "samples.yaml").write_text(SAMPLES, "utf-8")
    (folder / "app.py").write_text(APP, "utf-8")
    for model, function in (("bot-v1", "answer_v1"), ("bot-v2", "answer_v2")):
        _suite(folder, model, function)
        assert _run(folder, "--record-mode", "record-missing", "--no-history") == 0
    cassette = (folder / "builds" / "main.jsonl").read_bytes()
    db = tmp_path / "history.sqlite"
    for model, function in (("bot-v1", "answer_v1"), ("bot-v2", "answer_v2")):
        _suite(folder, model, function)
        assert _run(folder, "--history", str(db)) == 0
    assert (folder / "builds" / "main.jsonl").read_bytes() == cassette  # same file, same bytes
    capsys.readouterr()
    return folder, db


def test_a_model_switch_is_a_changed_answer_not_a_flaky_case(
    switched: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    _, db = switched
    with open_history(db) as store:
        first, second = sorted(list_runs(store), key=lambda r: r.id)
        assert first.inputs_digest == second.inputs_digest  # what the old rule compared
        assert flaky_cases(store) == []
        (change,) = identity_changes(store)
        assert (change.case, change.strategy) == ("support-hours", "contains-facts")
        (v1, runs1, passes1), (v2, runs2, passes2) = change.verdicts
        assert (v1.model_id, v1.build, runs1, passes1) == ("bot-v1", "main", 1, 1)
        assert (v2.model_id, v2.build, runs2, passes2) == ("bot-v2", "main", 1, 0)
        assert v1.recordings and v2.recordings and v1.recordings != v2.recordings
        assert flake_counts(store)["false_fail"] == 0
    assert main(["history", "--history", str(db), "flaky"]) == 0
    out = capsys.readouterr().out
    assert "50.0%" not in out
    assert out.startswith("no flaky cases")
    assert "verdict changed with what answered, not flaky" in out
    assert "support-hours [contains-facts]" in out
    assert "passed 1/1 with model bot-v1, build main" in out
    assert "passed 0/1 with model bot-v2, build main" in out


def test_the_same_recordings_replayed_keep_their_identity(
    switched: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    folder, db = switched
    assert _run(folder, "--history", str(db)) == 0  # bot-v2 again
    capsys.readouterr()
    with open_history(db) as store:
        runs = sorted(list_runs(store), key=lambda r: r.id)
        second, third = (store.results_of(r.id) for r in runs[1:])
        assert [r.identity for r in second] == [r.identity for r in third]
        refund, hours = (r.identity for r in third)
        assert refund.recordings != hours.recordings  # one digest per case's recordings


def test_evalmark_run_records_model_build_and_recordings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "h.sqlite"
    for build in ("healthy", "regressed"):
        main(["run", str(SUPPORT), "--build", build, "-q", "--no-report", "--history", str(db)])
    capsys.readouterr()
    with open_history(db) as store:
        regressed, healthy = (store.results_of(r.id) for r in list_runs(store))
    assert {r.identity.model_id for r in healthy} == {"tallybird-support-assistant"}
    assert {r.identity.build for r in healthy} == {"healthy"}
    assert {r.identity.build for r in regressed} == {"regressed"}
    assert all(r.identity.recordings for r in healthy + regressed)
    changed = {a.case for a, b in zip(healthy, regressed, strict=True) if a.identity != b.identity}
    assert "sso-on-team-plan" in changed


def test_flaky_needs_the_same_identity(db: Path) -> None:
    other = AnswerIdentity("support-bot", "recordings-2", "main")
    with open_history(db) as store:
        for passed in (True, False, True):
            store.append(make_run([("a", "judge", passed, float(passed))]))
        store.append(make_run([("a", "judge", False, 0.0)], identity=other))
        (found,) = flaky_cases(store)
        assert (found.case, found.runs, found.passes, found.identity) == ("a", 3, 2, SAME)
        (change,) = identity_changes(store)
        assert [(i, n, p) for i, n, p in change.verdicts] == [(SAME, 3, 2), (other, 1, 0)]


def test_a_version_1_history_opens_and_reads_identity_unknown(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db.parent.mkdir(parents=True)
    with sqlite3.connect(db) as old:  # what the previous evalmark wrote
        old.executescript(_MIGRATIONS[0])
        old.execute("PRAGMA user_version = 1")
        for run_id, passed in ((1, 1), (2, 0)):
            old.execute(
                "INSERT INTO runs (id, suite, source, build, started_at, duration_s,"
                " evalmark_version, inputs_digest) VALUES (?, 'support', 'pytest', NULL,"
                " '2026-12-01T10:00:00Z', 1.0, '0.1.0', 'same')",
                (run_id,),
            )
            old.execute(
                "INSERT INTO results (run_id, seq, case_name, strategy, tags, passed, score,"
                " explanation) VALUES (?, 0, 'a', 'judge', '[]', ?, ?, '')",
                (run_id, passed, float(passed)),
            )
    with open_history(db) as store:
        assert [r.identity for r in store.results_of(1)] == [UNKNOWN]
        assert flaky_cases(store) == [] and identity_changes(store) == []
        (unknown,) = unattributed_changes(store)
        assert (unknown.case, unknown.runs, unknown.passes) == ("a", 2, 1)
    with sqlite3.connect(db) as raw:
        assert raw.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert main(["history", "--history", str(db), "flaky"]) == 0
    out = capsys.readouterr().out
    assert "did not record what answered" in out and "a" in out
    assert main(["history", "--history", str(db), "show", "1"]) == 0
    assert "answered by: not recorded" in capsys.readouterr().out


def test_trend_by_build(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with open_history(db) as store:
        for build, passed in (("healthy", True), ("regressed", False), ("healthy", True)):
            identity = AnswerIdentity("support-bot", f"rec-{build}", build)
            run = make_run([("a", "facts", passed, float(passed))], identity=identity)
            store.append(run)
        assert [p.run_id for p in trend(store, build="healthy")] == [1, 3]
        assert [p.run_id for p in trend(store, build="regressed")] == [2]
        assert trend(store, build="nightly") == []
    assert main(["history", "--history", str(db), "trend", "--build", "regressed"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "trend of every check, build regressed:"
    rows = out.splitlines()[3:]
    assert [row.split()[0] for row in rows if row[:3].strip().isdigit()] == ["2"]


def test_trend_by_build_reads_the_run_build_of_rows_without_identity(db: Path) -> None:
    with open_history(db) as store:
        store.append(replace(make_run([("a", "facts", True, 1.0)], identity=UNKNOWN), build="n"))
        store.append(make_run([("a", "facts", True, 1.0)], identity=UNKNOWN))
        assert [p.run_id for p in trend(store, build="n")] == [1]


def test_identity_text() -> None:
    assert UNKNOWN.describe() == "identity unknown" and not UNKNOWN.known
    live = AnswerIdentity("m", None, None)
    assert live.describe() == "model m, build -, live"
    assert SAME.describe() == "model support-bot, build main, recordings recordin"


SESSION = """
from evalmark.pytest import evaluation_test
from evalmark.strategies import ContainsFacts
from evalmark.suite import load_application

@evaluation_test(samples={samples!r}, function=load_application({suite!r}),
                 strategy=ContainsFacts(), min_pass_rate=None)
def test_bot():
    pass

def plain(question):
    return "Within 30 days."

@evaluation_test(samples={samples!r}, function=plain, strategy=ContainsFacts(),
                 min_pass_rate=None)
def test_plain():
    pass
"""


def test_a_pytest_session_records_what_answered(
    switched: tuple[Path, Path],
    pytester: pytest.Pytester,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    folder, _ = switched
    db = tmp_path / "pytest-history.sqlite"
    monkeypatch.setenv("EVALMARK_HISTORY", str(db))
    pytester.makepyfile(SESSION.format(samples=str(folder / "samples.yaml"), suite=str(folder)))
    for model, function in (("bot-v1", "answer_v1"), ("bot-v2", "answer_v2")):
        _suite(folder, model, function)
        session = pytester.runpytest_subprocess("-p", "no:cacheprovider", timeout=300)
        session.assert_outcomes(passed=2)
    with open_history(db) as store:
        first, _ = sorted(list_runs(store), key=lambda r: r.id)
        by_case = {r.case: r.identity for r in store.results_of(first.id)}
        assert (
            by_case["test_a_pytest_session_records_what_answered.py::test_plain/support-hours"]
            == UNKNOWN
        )
        bot = by_case["test_a_pytest_session_records_what_answered.py::test_bot/support-hours"]
        assert (bot.model_id, bot.build) == ("bot-v1", "main") and bot.recordings
        assert flaky_cases(store) == []
        (change,) = identity_changes(store)
        assert change.case.endswith("::test_bot/support-hours")
        assert [(i.model_id, p) for i, _, p in change.verdicts] == [("bot-v1", 1), ("bot-v2", 0)]

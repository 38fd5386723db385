"""``evalmark cassette ls|verify|prune``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from evalmark.cli import main
from evalmark.models import HashEmbedding, ScriptedChat, call_context, record_replay
from evalmark.models._modes import MODE_ENV


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv(MODE_ENV, raising=False)
    monkeypatch.delenv("EVALMARK_CASSETTE_USAGE", raising=False)


@pytest.fixture
def cassette(tmp_path: Path) -> Path:
    path = tmp_path / "judge.jsonl"
    recorder = record_replay(ScriptedChat(["yes", "no", "maybe"]), path, mode="record-missing")
    for question, repeat in (("first question", 0), ("second question", 0), ("first question", 1)):
        with call_context(repeat=repeat):
            recorder.chat([{"role": "user", "content": question}], temperature=0.7)
    return path


def test_ls_shows_embeddings_with_their_shape(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "emb.jsonl"
    record_replay(HashEmbedding(dim=8), path, mode="record-missing").embed(["hello", "world"])
    assert main(["cassette", "ls", str(path)]) == 0
    out = capsys.readouterr().out
    assert "2 entries, 2 keys (embedding 2)" in out and "'hello' -> vector [8]" in out
    assert main(["cassette", "verify", str(path)]) == 0


def _rewrite(path: Path, edit: object) -> None:
    lines = path.read_text("utf-8").splitlines()
    header, entries = lines[0], [json.loads(line) for line in lines[1:]]
    assert callable(edit)
    edit(entries)
    path.write_text(
        "\n".join([header, *(json.dumps(e, ensure_ascii=False) for e in entries)]) + "\n", "utf-8"
    )


def test_ls_lists_entries(cassette: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["cassette", "ls", str(cassette)]) == 0
    out = capsys.readouterr().out
    assert f"{cassette}: 3 entries, 2 keys (chat 3)" in out
    assert "'first question' -> 'yes'" in out and "'first question' -> 'maybe'" in out
    assert "#1" in out and "scripted" in out


def test_verify_accepts_a_sound_cassette(
    cassette: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["cassette", "verify", str(cassette)]) == 0
    assert capsys.readouterr().out == f"{cassette}: ok\n"


def test_verify_reports_edited_requests_disorder_and_secrets(
    cassette: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def edit(entries: list[dict[str, object]]) -> None:
        entries[0]["request"]["params"]["temperature"] = 0.2  # type: ignore[index]
        entries[1]["response"]["text"] = "token ghp_0123456789abcdefghijABCDEFGHIJ"  # type: ignore[index]
        params = entries[2]["request"]["params"]  # type: ignore[index]
        params["extra_body"] = {"api_key": "not-redacted-by-hand"}
        entries.reverse()

    _rewrite(cassette, edit)
    assert main(["cassette", "verify", str(cassette)]) == 1
    out = capsys.readouterr().out
    assert f"{cassette}:4: key" in out and "does not match its request" in out
    assert "response.text contains what looks like a GitHub token" in out
    assert "request.params.extra_body.api_key is a credential field" in out
    assert "not-redacted-by-hand" not in out and "ghp_0123" not in out
    assert "entries are not sorted by key then sample index" in out


def test_verify_reports_a_corrupt_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"format":"evalmark-cassette","version":1,"key_version":1}\n{oops\n')
    assert main(["cassette", "verify", str(bad)]) == 1
    assert f"{bad}:2: not valid JSON" in capsys.readouterr().out


def test_prune_keeps_what_a_run_used(
    cassette: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    usage = tmp_path / "usage.jsonl"
    script = (
        "import sys; from evalmark.models import HashEmbedding, ScriptedChat, record_replay;"
        "r = record_replay(ScriptedChat([]), sys.argv[1]);"
        "print(r.chat([{'role': 'user', 'content': 'first question'}], temperature=0.7).text)"
    )
    env = {**os.environ, "EVALMARK_CASSETTE_USAGE": str(usage)}
    env.pop("CI", None)
    run = subprocess.run(
        [sys.executable, "-c", script, str(cassette)],
        capture_output=True,
        text=True,
        check=True,
        env=env,
        timeout=120,
    )
    assert run.stdout.strip() == "yes"
    assert len(usage.read_text().splitlines()) == 1

    before = cassette.read_bytes()
    assert main(["cassette", "prune", str(cassette), "--usage", str(usage), "--dry-run"]) == 0
    assert "would keep 1 of 3 entries" in capsys.readouterr().out
    assert cassette.read_bytes() == before

    assert main(["cassette", "prune", str(cassette), "--usage", str(usage)]) == 0
    assert "kept 1 of 3 entries" in capsys.readouterr().out
    replayer = record_replay(ScriptedChat([]), cassette)
    assert replayer.chat([{"role": "user", "content": "first question"}], temperature=0.7).text == (
        "yes"
    )
    assert main(["cassette", "verify", str(cassette)]) == 0


def test_prune_refuses_a_usage_file_that_names_nothing_of_this_cassette(
    cassette: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    usage = tmp_path / "usage.jsonl"
    usage.write_text('{"cassette": "/elsewhere.jsonl", "key": "k", "index": 0}\n')
    assert main(["cassette", "prune", str(cassette), "--usage", str(usage)]) == 2
    assert "refusing to empty the cassette" in capsys.readouterr().err
    assert len(cassette.read_text().splitlines()) == 4


def test_help_describes_the_command_and_every_action(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["cassette", "--help"])
    text = capsys.readouterr().out
    assert "A cassette is a JSON Lines file of recorded model calls" in text
    for action in ("ls", "verify", "prune"):
        assert f"\n    {action} " in text
        with pytest.raises(SystemExit):
            main(["cassette", action, "--help"])
        described = capsys.readouterr().out
        paragraph = described.split("\n\n")[1]
        assert len(paragraph.split()) > 12, f"cassette {action} --help has no description"
    assert "cassette files" in described or "the cassette to trim" in described


def test_ls_counts_in_words_and_shows_redactions(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "one.jsonl"
    recorder = record_replay(ScriptedChat(["ok"]), path, mode="record-missing")
    recorder.chat([{"role": "user", "content": "hi"}], extra_body={"api_key": "abcdefgh1234"})
    assert main(["cassette", "ls", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"{path}: 1 entry, 1 key (chat 1)" in out and "[1 redacted]" in out


@pytest.mark.parametrize(
    "line",
    [
        "[" * 100_000 + "]" * 100_000,
        '{"cassette": "c.jsonl", "key": ' + "[" * 100_000 + "]" * 100_000 + ', "index": 0}',
    ],
)
def test_prune_names_a_usage_line_nested_too_deeply(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], line: str
) -> None:
    cassette = tmp_path / "c.jsonl"
    recorder = record_replay(ScriptedChat(["a"]), cassette, mode="record-missing")
    recorder.chat([{"role": "user", "content": "q"}])
    usage = tmp_path / "usage.jsonl"
    usage.write_text(line + "\n", encoding="utf-8")
    capsys.readouterr()
    assert main(["cassette", "prune", str(cassette), "--usage", str(usage)]) == 2
    err = capsys.readouterr().err
    assert f"{usage}:1: not a usage line" in err and err.count("\n") == 1


def test_verify_with_a_pattern_that_is_not_a_regex_exits_2_in_one_line(
    cassette: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["cassette", "verify", str(cassette), "--secret-pattern", "?"]) == 2
    err = capsys.readouterr().err
    assert "secret pattern '?' is not a regular expression" in err
    assert "Traceback" not in err and err.count("\n") == 1

"""A failed run never replaces the last passing report silently: the passing one is kept beside
it as NAME.last-pass.EXT and the run says so; a later passing run removes that copy."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalmark.cli import main

ROOT = Path(__file__).resolve().parents[2]
STARTER_APP_BREAK = ("return HELP_CENTRE[best]", "return 'I do not know.'")


@pytest.fixture
def starter(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    assert main(["init", str(tmp_path / "evals")]) == 0
    monkeypatch.chdir(tmp_path / "evals")
    return tmp_path / "evals"


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    capsys.readouterr()
    code = main(["run", ".", "-q", "--no-history", *args])
    return code, capsys.readouterr().out


def _break(folder: Path, broken: bool) -> None:
    app = folder / "app.py"
    old, new = STARTER_APP_BREAK if broken else STARTER_APP_BREAK[::-1]
    app.write_text(app.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")


def _gate_passed(path: Path) -> bool:
    return all(gate["passed"] for gate in json.loads(path.read_text(encoding="utf-8"))["gate"])


def test_a_failed_run_keeps_the_last_passing_report_and_says_so(
    starter: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out_dir = starter / "out"
    assert _run(capsys)[0] == 0
    assert sorted(p.name for p in out_dir.iterdir()) == [
        "starter.html",
        "starter.json",
        "starter.md",
    ]
    passing = {p.name: p.read_bytes() for p in out_dir.iterdir()}

    _break(starter, broken=True)
    code, out = _run(capsys)
    assert code == 1
    assert not _gate_passed(out_dir / "starter.json"), "the report is the failed run's"
    for name, content in passing.items():
        kept = out_dir / name.replace("starter.", "starter.last-pass.")
        assert kept.read_bytes() == content
    assert (
        "note: this failed run replaced a passing report; the passing one is kept as "
        "out/starter.last-pass.md (and 2 more)\n"
    ) in out

    code, out = _run(capsys)  # failing again: the last passing copy stays, and is named
    assert code == 1
    assert _gate_passed(out_dir / "starter.last-pass.json")
    assert "note: the last passing report is still out/starter.last-pass.md" in out

    _break(starter, broken=False)
    code, out = _run(capsys)
    assert code == 0 and "note:" not in out
    assert not list(out_dir.glob("*.last-pass.*")), "the newest report passes again"


def test_a_report_without_json_is_replaced_with_a_note(
    starter: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    suite = starter / "suite.yaml"
    text = suite.read_text(encoding="utf-8").replace("[md, json, html]", "[md]")
    suite.write_text(text, encoding="utf-8")
    assert _run(capsys)[0] == 0
    _break(starter, broken=True)
    code, out = _run(capsys)
    assert code == 1
    assert "whose gate verdict is unknown" in out and "add json to the report formats" in out


def test_a_failed_run_after_a_failed_run_says_nothing_without_a_passing_copy(
    starter: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _break(starter, broken=True)
    assert _run(capsys)[0] == 1
    code, out = _run(capsys)
    assert code == 1 and "note:" not in out

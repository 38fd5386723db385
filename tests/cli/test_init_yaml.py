"""The samples ``evalmark init`` writes keep a question whole whatever it holds: commas,
colons, quotes, ``#`` and leading dashes, typed in place of a starter question, reach the
application as one string and the suite passes (no TypeError from a split question)."""

from __future__ import annotations

from pathlib import Path

import pytest

from evalmark.cli import main
from evalmark.samples._samples import load_samples

STARTER_QUESTION = "How do I export a note to PDF?"

QUESTIONS = {
    "comma": "How do I export a note, or two, to PDF?",
    "colon": "Export: how do I get a note as PDF?",
    "colon-space-end": "PDF export, how:",
    "double-quotes": 'How do I "export" a note to PDF?',
    "single-quotes": "What's the way to export a note to 'PDF'?",
    "leading-quote": '"Export" a note to PDF: how?',
    "leading-dash": "- export a note to PDF?",
    "leading-dashes": "--export to PDF",
    "hash": "Export note #3 to PDF?",
    "brackets": "[urgent] {export} a note to PDF?",
    "flow-list": "[How, do I export to PDF]",
}


@pytest.mark.parametrize("question", list(QUESTIONS.values()), ids=list(QUESTIONS))
def test_a_question_typed_into_the_starter_samples_stays_whole(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    question: str,
) -> None:
    assert main(["init", str(tmp_path / "evals")]) == 0
    samples = tmp_path / "evals" / "samples.yaml"
    text = samples.read_text(encoding="utf-8")
    assert text.count(STARTER_QUESTION) == 1
    samples.write_text(text.replace(STARTER_QUESTION, question), encoding="utf-8")

    loaded = load_samples(samples)
    assert list(loaded[0].parameters) == [question]
    monkeypatch.chdir(tmp_path / "evals")
    capsys.readouterr()
    code = main(["run", ".", "--no-history", "--no-report"])
    captured = capsys.readouterr()
    assert code == 0, captured.out + captured.err
    assert "TypeError" not in captured.out + captured.err

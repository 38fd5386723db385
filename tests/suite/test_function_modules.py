"""``function: package.module:name`` in a suite finds a package lying next to the suite file, or
in the working directory, without PYTHONPATH."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from evalmark.cli import main

SAMPLES = """\
- name: one
  parameters: [what is one?]
  expected-output: one
  expected-facts: [one]
"""

SUITE = """\
samples: samples.yaml
application:
  function: {reference}
strategies: [contains-facts]
gate: {{pass-rate: 1.0}}
"""

ANSWERS = "from .words import WORD\n\n\ndef answer(question):\n    return f'{WORD}: {question}'\n"


@pytest.fixture(autouse=True)
def _no_working_directory_on_the_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[None]:
    """Neither the working directory nor the test's folder on ``sys.path`` (as when the
    ``evalmark`` script runs), and the test's modules forgotten afterwards."""
    here = os.getcwd()
    kept = [p for p in sys.path if p not in ("", ".", here) and not p.startswith(str(tmp_path))]
    monkeypatch.setattr(sys, "path", kept)
    yield
    for name, module in list(sys.modules.items()):
        if (getattr(module, "__file__", None) or "").startswith(str(tmp_path)):
            del sys.modules[name]


def _package(folder: Path, name: str) -> None:
    (folder / name).mkdir(parents=True)
    (folder / name / "__init__.py").write_text("", encoding="utf-8")
    (folder / name / "words.py").write_text("WORD = 'one'\n", encoding="utf-8")
    (folder / name / "answers.py").write_text(ANSWERS, encoding="utf-8")


def _suite(folder: Path, reference: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "samples.yaml").write_text(SAMPLES, encoding="utf-8")
    (folder / "suite.yaml").write_text(SUITE.format(reference=reference), encoding="utf-8")
    return folder


def test_a_package_next_to_the_suite_runs_from_another_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    suite = _suite(tmp_path / "evals", "nextdoor_app.answers:answer")
    _package(suite, "nextdoor_app")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    code = main(["run", str(suite), "--no-report", "--no-history"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "gate passed" in captured.out


def test_a_package_in_the_working_directory_runs_a_suite_kept_elsewhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "project"
    _package(project, "workdir_app")
    suite = _suite(project / "evals" / "support", "workdir_app.answers:answer")
    monkeypatch.chdir(project)
    code = main(["run", str(suite.relative_to(project)), "--no-report", "--no-history"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "gate passed" in captured.out

"""The command line describes itself: ``report render --help``, ``cassette ls --help`` and
``schema --help`` say what they do, and ``schema suite`` prints the suite file's schema from
its one source."""

from __future__ import annotations

import json

import pytest

from evalmark.cli import main
from evalmark.suite._schema import suite_file_schema


def help_of(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    with pytest.raises(SystemExit) as exit_:
        main([*args, "--help"])
    assert exit_.value.code == 0
    return capsys.readouterr().out


def test_report_render_help_describes_the_command_and_its_options(
    capsys: pytest.CaptureFixture[str],
) -> None:
    text = help_of(capsys, "report", "render")
    assert "Render a JSON report, or a suite of reports such as the pytest plugin's" in text
    assert "a JSON report or suite report" in text and "output format (markdown)" in text
    assert "--report NAME" in text


def test_cassette_ls_help_describes_the_listing(capsys: pytest.CaptureFixture[str]) -> None:
    text = help_of(capsys, "cassette", "ls")
    assert "List every entry of each cassette" in text and "cassette files" in text


def test_schema_names_its_choices_as_they_are_typed(capsys: pytest.CaptureFixture[str]) -> None:
    text = help_of(capsys, "schema")
    assert "conversations  conversation files" in text
    assert "suite          suite files" in text
    overview = " ".join(help_of(capsys).split())
    assert "samples, testcases, conversations or suite files" in overview


def test_schema_suite_prints_the_suite_file_schema(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema", "suite"]) == 0
    assert json.loads(capsys.readouterr().out) == suite_file_schema()

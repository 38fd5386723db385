"""Token counts recorded in a build's cassette reach the report rows, so a suite's
``gate: budget:`` checks a recorded build without the application returning usage itself."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalmark.cli import main
from evalmark.samples._case import TestCase
from evalmark.suite import load_application
from evalmark.suite._loader import load_suite
from evalmark.suite._runner import run_suite

# question -> (prompt tokens, completion tokens); "c" is recorded without usage
TOKENS = {"a": (200, 100), "b": (900, 500)}

APP = """\
from evalmark.models import ChatReply, Usage

TOKENS = {tokens!r}


def answer(question):
    if question not in TOKENS:
        return ChatReply(text="ok")
    prompt, completion = TOKENS[question]
    return ChatReply(text="ok", usage=Usage(prompt, completion, prompt + completion))
"""

SUITE = """\
name: priced
samples: samples.yaml
application:
  model-id: priced-bot
{function}  builds:
    v1: v1.jsonl
strategies: [exact-match]
gate:
  pass-rate: 1.0
  budget:
    tokens: {{per-case: 1000, total: 2000}}
report:
  dir: {out}
  formats: [json]
"""


def write_suite(tmp_path: Path, *, live: bool) -> Path:
    (tmp_path / "app.py").write_text(APP.format(tokens=TOKENS), encoding="utf-8")
    (tmp_path / "samples.yaml").write_text(
        "".join(f"- {{name: {n}, parameters: [{n}], expected-output: ok}}\n" for n in "abc"),
        encoding="utf-8",
    )
    function = "  function: app.py:answer\n" if live else ""
    path = tmp_path / ("record.yaml" if live else "suite.yaml")
    text = SUITE.format(function=function, out=(tmp_path / "out").as_posix())
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def recorded(tmp_path: Path) -> Path:
    """A suite whose build v1 was recorded from a live function reporting token usage; the
    suite returned names no function, so every answer comes from the cassette."""
    run_suite(load_suite(write_suite(tmp_path, live=True)), mode="record-missing")
    cassette = (tmp_path / "v1.jsonl").read_text(encoding="utf-8")
    assert '"prompt_tokens":900' in cassette  # the usage really is in the cassette
    return write_suite(tmp_path, live=False)


def test_recorded_tokens_reach_the_rows_and_fail_the_token_budget(recorded: Path) -> None:
    run = run_suite(load_suite(recorded), mode="replay")
    (report,) = run.reports
    usages = {row.name: row.usage for row in report.rows()}
    assert usages["a"] is not None and usages["a"].total_tokens == 300
    assert usages["b"] is not None
    assert (usages["b"].input_tokens, usages["b"].output_tokens) == (900, 500)
    assert usages["c"] is None  # recorded without usage: nothing invented
    shown = [(g.label, g.actual, g.passed, g.detail) for g in run.gates]
    assert shown == [
        ("pass rate (cases)", 1.0, True, "3 of 3 cases pass every check"),
        ("tokens per case", 1400.0, False, "1 of 2 cases over budget: b (1400)"),
        ("tokens total", 1700.0, True, "summed over 2 of 3 cases"),
    ]
    assert not run.passed


def test_the_cli_fails_the_recorded_build_naming_the_budget(
    recorded: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["run", str(recorded), "--build", "v1", "--record-mode", "replay"])
    out = capsys.readouterr().out
    assert code == 1
    line = next(line for line in out.splitlines() if line.startswith("tokens per case"))
    assert "1400" in line and "FAILED" in line and "1 of 2 cases over budget: b (1400)" in line
    assert "gate FAILED" in out
    written = json.loads((recorded.parent / "out" / "priced-v1.json").read_text("utf-8"))
    tokens = {row["name"]: row.get("tokens") for row in written["samples"]}
    assert tokens == {
        "a": {"input": 200, "output": 100, "total": 300},
        "b": {"input": 900, "output": 500, "total": 1400},
        "c": None,
    }


def test_the_report_and_the_answers_are_the_same_as_before_apart_from_usage(
    recorded: Path,
) -> None:
    plain = load_application(recorded, mode="replay")
    assert plain("b") == "ok"  # the public function still answers with text
    with_usage = load_application(recorded, mode="replay", usage=True)
    answer = with_usage("b")
    assert isinstance(answer, TestCase)
    assert (answer.input, answer.actual_output) == ("b", "ok")
    assert answer.token_usage is not None and answer.token_usage.total == 1400
    assert with_usage("c") == "ok"

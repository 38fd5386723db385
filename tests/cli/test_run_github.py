"""``evalmark run --github``: the step summary and the annotations of a failing suite."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalmark.cli import main
from evalmark.cli._run_github import sample_lines

PROMPTFOO = Path(__file__).parents[1] / "interop" / "fixtures" / "promptfoo" / "results.json"


@pytest.fixture
def failing_suite(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    assert main(["import", "promptfoo", str(PROMPTFOO), "-o", "suite", "--name", "capitals"]) == 0
    return tmp_path / "suite"


def test_a_failing_run_writes_the_summary_and_annotates_the_samples_line(
    failing_suite: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n")
    monkeypatch.setenv("GITHUB_ACTIONS", "true")  # on by itself in an Action
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    capsys.readouterr()
    assert main(["run", "suite", "-q", "--build", "anthropic-messages-claude-3-5-haiku"]) == 1
    out = capsys.readouterr().out
    lines = (failing_suite / "samples.yaml").read_text().splitlines()
    annotations = [line for line in out.splitlines() if line.startswith("::error ")]
    assert len(annotations) == 2
    for annotation, name in zip(annotations, ["test-1-prompt-1", "test-3-prompt-1"], strict=True):
        line = lines.index(f"- name: {name}") + 1
        assert annotation.startswith(f"::error file=suite/samples.yaml,line={line},title=")
        assert "evalmark%3A " + name in annotation
    text = summary.read_text()
    assert text.startswith("earlier step\n## evalmark: suite capitals")  # appended
    assert "| pass rate (cases) | 0.333 | 1 | **FAILED** |" in text
    assert "### Failing cases (2)" in text and "| test-3-prompt-1 | fail |" in text


def test_off_by_default_outside_github_and_with_no_github(
    failing_suite: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    capsys.readouterr()
    assert main(["run", "suite", "-q"]) == 1
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    assert main(["run", "suite", "-q", "--no-github"]) == 1
    assert "::error" not in capsys.readouterr().out
    assert not summary.exists()


def test_sample_lines_of_json_and_jsonl(tmp_path: Path) -> None:
    records = [{"name": "a", "parameters": ["x"]}, {"name": "b", "parameters": ["y"]}]
    jsonl = tmp_path / "s.jsonl"
    jsonl.write_text("\n".join(json.dumps(r) for r in records) + "\n")
    pretty = tmp_path / "s.json"
    pretty.write_text(json.dumps(records, indent=2))
    assert sample_lines([jsonl]) == {"a": (jsonl, 1), "b": (jsonl, 2)}
    assert sample_lines([pretty]) == {"a": (pretty, 2), "b": (pretty, 8)}


def test_the_run_writes_an_inspect_log_and_the_summary_names_it(
    failing_suite: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from evalmark.interop import read

    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    build = "anthropic-messages-claude-3-5-haiku"
    argv = ["run", "suite", "-q", "--github", "--build", build, "--no-history"]
    assert main([*argv, "--report-dir", "reports", "--report-format", "json"]) == 1
    out = capsys.readouterr().out
    log = Path("reports") / f"capitals-{build}.inspect.json"
    assert log.is_file() and str(log) in out  # beside the run's own formats
    assert (Path("reports") / f"capitals-{build}.json").is_file()
    assert f"Inspect log: `{log}`" in summary.read_text()
    document = json.loads(log.read_text())
    assert document["status"] == "success" and len(document["samples"]) == 3
    again = read("inspect", log, allow_loss=["scorer:promptfoo-asserts"])  # as inspect writes
    names = [f"capitals-test-{n}-prompt-1" for n in (1, 2, 3)]
    assert [s.name for s in again.samples] == names
    # without reports there is no log to name
    summary.unlink()
    assert main([*argv, "--no-report"]) == 1
    assert "Inspect log" not in summary.read_text()
    capsys.readouterr()

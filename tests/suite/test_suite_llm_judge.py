"""The ``llm-judge`` check kind: catalog prompts named in a suite file."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from evalmark.cli import main
from evalmark.errors import SuiteError
from evalmark.models import RuleJudge
from evalmark.strategies._llm_judge import LLMJudge
from evalmark.strategies._registry import build_strategy, get_strategy_kind
from evalmark.suite import suite_file_schema
from evalmark.suite._loader import load_suite
from evalmark.suite._runner import run_suite

SUPPORT = Path(__file__).resolve().parents[2] / "golden" / "support"

CHECKS = """strategies:
  - contains-facts
  - llm-judge: {prompt: rag-groundedness, name: grounded}
  - llm-judge: {prompt: conciseness, score: continuous, threshold: 0.2, name: concise}
  - llm-judge:
      prompt: toxicity
      choices: [0, 0.5, 1]
      mode: prompted
      name: civil
      few-shot:
        - {outputs: "You idiot.", score: 0, reasoning: an insult}
"""


@pytest.fixture
def suite_dir(tmp_path: Path) -> Path:
    target = tmp_path / "support"
    shutil.copytree(SUPPORT, target, ignore=shutil.ignore_patterns("make_builds.py"))
    path = target / "suite.yaml"
    text = path.read_text()
    start = text.index("strategies:")
    end = text.index("\njudge:") + 1
    path.write_text(text[:start] + CHECKS + "\n" + text[end:])
    return target


def test_the_kind_builds_an_llm_judge_with_its_options() -> None:
    kind = get_strategy_kind("llm-judge")
    assert kind.judged
    assert {"prompt", "score", "choices", "reasoning", "mode", "few-shot", "repeats"} <= set(
        kind.accepted
    )
    strategy = build_strategy(
        "llm-judge", {"prompt": "toxicity", "choices": [1, 2, 3], "repeats": 3}, RuleJudge()
    )
    assert isinstance(strategy, LLMJudge)
    assert strategy.response.kind == "choices" and strategy.repeats == 3
    assert strategy.name == "llm-judge"
    assert build_strategy("llm-judge", {}, RuleJudge()).prompt.name == "answer-relevance"


def test_a_suite_runs_llm_judge_checks_offline(suite_dir: Path) -> None:
    run = run_suite(load_suite(suite_dir), build="healthy")
    report = run.reports[0]
    assert set(report.by_strategy()) == {"contains-facts", "grounded", "concise", "civil"}
    result = report.result(report.sample_names[0], "grounded")
    assert result.metadata["prompt"] == "rag-groundedness"
    assert result.explanation.startswith(result.metadata["reasoning"][:20])
    civil = report.result(report.sample_names[0], "civil")
    assert civil.metadata["shape"] == "choices" and civil.metadata["mode"] == "prompted"
    assert all(report.result(name, "civil").passed for name in report.sample_names)


def test_evalmark_run_shows_the_judge_reasoning_of_a_failing_case(
    suite_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["run", str(suite_dir), "--build", "regressed"])
    out = capsys.readouterr().out
    assert code == 1
    assert "live-chat-hours  (FAIL)" in out
    assert (
        "grounded: " in out and "of the content words of the outputs appear in the context" in out
    )


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ("{prompt: toxic}", "expected a judge prompt ("),
        ("{prompt: toxicity, score: graded}", "expected one of 'bool', 'continuous'"),
        ("{prompt: toxicity, choices: [1]}", "a list of at least two distinct numbers"),
        ("{prompt: toxicity, mode: json}", "expected one of 'native', 'prompted', 'auto'"),
        ("{prompt: toxicity, reasoning: maybe}", "expected true or false"),
        ("{prompt: toxicity, few-shot: [{outputs: x}]}", "a list of worked examples"),
        ("{prompt: toxicity, promt: x}", "unknown option 'promt' of 'llm-judge'"),
    ],
)
def test_bad_options_are_named_where_they_are(suite_dir: Path, options: str, message: str) -> None:
    path = suite_dir / "suite.yaml"
    text = path.read_text()
    start = text.index("strategies:")
    end = text.index("\njudge:") + 1
    path.write_text(text[:start] + f"strategies:\n  - llm-judge: {options}\n\n" + text[end:])
    with pytest.raises(SuiteError) as caught:
        load_suite(suite_dir)
    assert message in str(caught.value) and "suite.yaml:" in str(caught.value)


def test_the_suite_schema_knows_the_kind() -> None:
    text = str(suite_file_schema())
    assert "llm-judge" in text and "rag-groundedness" in text

"""``extract="llm"``: a chat model copies the code out of a reply, recorded like any judge call."""

from __future__ import annotations

from pathlib import Path

import pytest

from evalmark import Sample
from evalmark.cli import main
from evalmark.code import PythonSyntax, extract_code
from evalmark.code._kinds import PYTHON_SYNTAX
from evalmark.errors import StrategyError
from evalmark.models import ScriptedChat

PROSE = "Sure. First define the function: def double(x): return 2 * x and you are done."


def test_the_model_copies_unfenced_code_that_markdown_extraction_misses() -> None:
    assert not extract_code(PROSE, "markdown").ok
    model = ScriptedChat(["def double(x):\n    return 2 * x"])
    found = extract_code(PROSE, "llm", model=model, language="python")
    assert found.code == "def double(x):\n    return 2 * x\n"
    assert found.language == "python"
    [call] = model.calls
    prompt = call.messages[-1]["content"]
    assert PROSE in prompt and "python code" in prompt and call.params == {"temperature": 0}


@pytest.mark.parametrize("reply", ["NONE", "none.", "  ", "```python\n```"])
def test_no_code_is_a_failed_extraction_that_names_the_model(reply: str) -> None:
    found = extract_code(PROSE, "llm", model=ScriptedChat([reply], model_id="extractor"))
    assert found.code is None and "'extractor'" in found.reason


def test_a_fenced_answer_is_unwrapped() -> None:
    model = ScriptedChat(["```python\nprint(1)\n```\n```python\nprint(2)\n```"])
    assert extract_code("print 1 then 2", "llm", model=model).code == "print(1)\n\nprint(2)\n"


def test_an_empty_reply_asks_no_model() -> None:
    model = ScriptedChat([])
    assert extract_code(" \n", "llm", model=model).reason == "the output is empty"
    assert not model.calls


def test_llm_extraction_without_a_model_is_refused() -> None:
    with pytest.raises(ValueError, match="needs model="):
        extract_code(PROSE, "llm")
    with pytest.raises(ValueError, match="needs extract_model="):
        PythonSyntax(extract="llm")


def test_a_strategy_checks_the_code_the_model_copied() -> None:
    strategy = PythonSyntax(
        extract="llm", extract_model=ScriptedChat(["def double(x):\n    return 2 * x"])
    )
    assert strategy.evaluate(
        Sample(name="double", parameters=["Write double."], expected_output="x"), PROSE
    ).passed
    failing = PythonSyntax(extract="llm", extract_model=ScriptedChat(["NONE"]))
    result = failing.evaluate(
        Sample(name="double", parameters=["Write double."], expected_output="x"), "no code here"
    )
    assert not result.passed and result.metadata["reason"] == "code_extraction_failed"


def test_the_suite_kind_needs_the_suites_judge() -> None:
    with pytest.raises(StrategyError, match="set judge:"):
        PYTHON_SYNTAX.build({"extract": "llm", "name": "syntax"}, None)
    model = ScriptedChat(["x = 1"])
    built = PYTHON_SYNTAX.build({"extract": "llm", "name": "syntax"}, model)
    assert isinstance(built, PythonSyntax) and built.extract_model is model
    assert PYTHON_SYNTAX.build({"name": "syntax"}, model).extract_model is None


SUITE = """\
name: llm-extract
samples: samples.yaml
application:
  function: app.py:answer
judge:
  kind: recorded
  cassette: extractor.jsonl
  model: app.py:{factory}
strategies:
  - python-syntax: {{extract: llm}}
gate:
  pass-rate: 1.0
"""

APP = """\
from evalmark.models import ScriptedChat


def answer(question):
    return "Here it is: def double(x): return 2 * x, nothing else."


def extractor():
    return ScriptedChat(["def double(x):\\n    return 2 * x"], model_id="extractor")


def offline():
    return ScriptedChat([], model_id="extractor")
"""


def test_a_suite_records_the_extraction_once_and_replays_it_offline(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "samples.yaml").write_text(
        '- name: double\n  parameters: ["Write double(x)."]\n  expected-output: x\n'
    )
    (tmp_path / "app.py").write_text(APP)
    suite = tmp_path / "suite.yaml"
    suite.write_text(SUITE.format(factory="extractor"))
    assert main(["run", str(suite), "--no-report", "-q", "--record-mode", "record-missing"]) == 0
    assert (tmp_path / "extractor.jsonl").read_text().count("def double") >= 1
    # replayed: the model the suite builds now has nothing to say, the cassette answers
    suite.write_text(SUITE.format(factory="offline"))
    assert main(["run", str(suite), "--no-report", "-q"]) == 0
    capsys.readouterr()

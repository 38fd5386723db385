"""The test-case model: construction rules, exact JSON round trips, loaders and their errors."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import msgspec
import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from evalmark import (
    Conversation,
    ReasoningStep,
    TestCase,
    TokenUsage,
    ToolCall,
    load_conversations,
    load_test_cases,
    write_conversations,
    write_test_cases,
)
from evalmark.errors import TestCaseError


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def load_error(*paths: Path) -> TestCaseError:
    with pytest.raises(TestCaseError) as info:
        load_test_cases(*paths)
    return info.value


# --------------------------------------------------------------------------- model


def test_token_usage_total_defaults_to_the_sum() -> None:
    assert TokenUsage(10, 5).total == 15
    assert TokenUsage(input=10, output=5, total=20).total == 20
    decoded = msgspec.json.decode(b'{"input": 3, "output": 4}', type=TokenUsage)
    assert decoded == TokenUsage(3, 4, 7)


def test_token_usage_total_may_not_be_less_than_the_sum() -> None:
    with pytest.raises(TestCaseError, match=r"total \(12\) is less than input \+ output"):
        TokenUsage(10, 5, 12)
    with pytest.raises(msgspec.ValidationError, match="less than input"):
        msgspec.json.decode(b'{"input": 3, "output": 4, "total": 1}', type=TokenUsage)
    with pytest.raises(TestCaseError, match="whole number >= 0"):
        TokenUsage(-1, 5)


def test_test_case_positional_input_and_output_then_keywords() -> None:
    case = TestCase("question", "answer", expected_output="answer", tags=["a"])  # type: ignore[arg-type]
    assert (case.input, case.actual_output) == ("question", "answer")
    assert case.tags == ("a",)
    with pytest.raises(TypeError):
        TestCase("q", "a", "expected")  # type: ignore[misc]


def test_lists_given_in_python_become_tuples() -> None:
    call = ToolCall("search", {"q": "refund"})
    case = TestCase(
        "q",
        "a",
        retrieval_context=["doc"],  # type: ignore[arg-type]
        tool_calls=[call],  # type: ignore[arg-type]
        expected_tool_calls=[],  # type: ignore[arg-type]
        reasoning_trace=[ReasoningStep("action", "search", call)],  # type: ignore[arg-type]
    )
    assert case.tool_calls == (call,)
    assert case.expected_tool_calls == ()
    assert case == msgspec.json.decode(msgspec.json.encode(case), type=TestCase)
    with pytest.raises(TestCaseError, match="tool-calls holds ToolCall values"):
        TestCase("q", "a", tool_calls=[{"name": "x"}])  # type: ignore[list-item]


@pytest.mark.parametrize(
    ("given", "expected"),
    [(0.1, Decimal("0.1")), ("0.00012", Decimal("0.00012")), (3, Decimal(3))],
)
def test_cost_becomes_an_exact_decimal(given: Any, expected: Decimal) -> None:
    case = TestCase("q", "a", cost=given)
    assert type(case.cost) is Decimal
    assert case.cost == expected


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"cost": Decimal("-1")}, "cost must be a finite amount >= 0"),
        ({"cost": "NaN"}, "cost must be a finite amount"),
        ({"cost": "lots"}, "cost must be a decimal number"),
        ({"latency_ms": -3.0}, "latency-ms must be a finite number >= 0"),
        ({"latency_ms": float("nan")}, "latency-ms must be a finite number"),
    ],
)
def test_invalid_measurements_are_refused(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(TestCaseError, match=message):
        TestCase("q", "a", name="case-1", **kwargs)


def test_reasoning_step_types_are_checked() -> None:
    with pytest.raises(TestCaseError, match="one of plan, thought, observation, action"):
        ReasoningStep("musing", "hm")  # type: ignore[arg-type]
    with pytest.raises(msgspec.ValidationError, match="Invalid enum value 'musing'"):
        msgspec.json.decode(b'{"type": "musing", "content": "x"}', type=ReasoningStep)


def test_tool_call_checks() -> None:
    assert ToolCall("search").arguments == {}
    with pytest.raises(TestCaseError, match="needs a name"):
        ToolCall("")
    with pytest.raises(TestCaseError, match="must be a mapping"):
        ToolCall("search", ["q"])  # type: ignore[arg-type]
    with pytest.raises(TestCaseError, match="duration-ms of tool call 'search'"):
        ToolCall("search", duration_ms=-1)


def test_conversation_holds_turns_in_order() -> None:
    turns = [TestCase("hi", "hello"), TestCase("refund?", "30 days")]
    talk = Conversation("c1", "be brief", turns)  # type: ignore[arg-type]
    assert len(talk) == 2 and talk.turns[1].input == "refund?"
    with pytest.raises(TestCaseError, match="needs an id"):
        Conversation("")


def test_cost_round_trips_exactly_through_json() -> None:
    cost = Decimal("0.000123456789012345678901234567890")
    case = TestCase("q", "a", cost=cost)
    data = msgspec.json.encode(case)
    assert b'"cost":"0.000123456789012345678901234567890"' in data
    assert msgspec.json.decode(data, type=TestCase).cost == cost
    number = data.replace(b'"0.000123456789012345678901234567890"', str(cost).encode())
    assert msgspec.json.decode(number, type=TestCase).cost == cost


_text = st.text(max_size=20)
_tool_calls = st.builds(
    ToolCall,
    name=st.text(min_size=1, max_size=10),
    arguments=st.dictionaries(_text, st.integers() | _text, max_size=2),
    result=st.none() | _text | st.integers(),
    duration_ms=st.none() | st.floats(0, 1e6),
    id=st.none() | _text,
)
_test_cases = st.builds(
    TestCase,
    _text,
    _text,
    expected_output=st.none() | _text,
    retrieval_context=st.lists(_text, max_size=2).map(tuple),
    tool_calls=st.lists(_tool_calls, max_size=2).map(tuple),
    expected_tool_calls=st.none() | st.lists(_tool_calls, max_size=2).map(tuple),
    reasoning_trace=st.lists(
        st.builds(
            ReasoningStep,
            st.sampled_from(["plan", "thought", "observation", "action"]),
            _text,
            st.none() | _tool_calls,
        ),
        max_size=2,
    ).map(tuple),
    latency_ms=st.none() | st.floats(0, 1e7),
    token_usage=st.none() | st.builds(TokenUsage, st.integers(0, 10**6), st.integers(0, 10**6)),
    cost=st.none() | st.decimals(min_value=0, allow_nan=False, allow_infinity=False),
    tags=st.lists(_text, max_size=2).map(tuple),
    metadata=st.dictionaries(_text, _text, max_size=2),
    name=st.none() | _text,
)


@given(_test_cases)
def test_generated_test_cases_round_trip_through_json(case: TestCase) -> None:
    decoded = msgspec.json.decode(msgspec.json.encode(case), type=TestCase)
    assert decoded == case
    assert str(decoded.cost) == str(case.cost)


@given(st.lists(_test_cases, max_size=3))
def test_generated_test_cases_round_trip_through_files(
    tmp_path_factory: pytest.TempPathFactory, cases: list[TestCase]
) -> None:
    folder = tmp_path_factory.mktemp("tc")
    for suffix in (".yaml", ".json", ".jsonl"):
        if not cases and suffix == ".jsonl":
            continue
        path = folder / f"cases{suffix}"
        write_test_cases(cases, path)
        assert list(load_test_cases(path)) == cases, suffix


# --------------------------------------------------------------------------- loading

YAML_CASES = """\
---
- name: refund
  input: How long is the refund window?
  actual-output: |-
    30 days.
  expected-output: 30 days.
  retrieval-context: [Annual plans can be refunded within 30 days.]
  tool-calls:
    - name: search_docs
      arguments: {query: refund window}
      result: [refunds.md]
      duration-ms: 41.5
      id: call-1
  expected-tool-calls:
    - name: search_docs
      arguments: {query: refund window}
  reasoning-trace:
    - type: plan
      content: Look up the refund policy.
    - type: action
      content: Search the docs.
      tool-call: {name: search_docs, arguments: {query: refund window}}
  latency-ms: 812
  token-usage: {input: 120, output: 14}
  cost: 0.000123456789012345678901
  tags: [billing]
  metadata: {model: fake}
- input: hi
  actual-output: hello
"""


def test_yaml_test_cases_load_with_exact_cost(tmp_path: Path) -> None:
    first, second = load_test_cases(write(tmp_path / "cases.yaml", YAML_CASES))
    assert first.cost == Decimal("0.000123456789012345678901")
    assert first.token_usage == TokenUsage(120, 14, 134)
    assert first.tool_calls[0].duration_ms == 41.5
    assert first.reasoning_trace[1].tool_call == ToolCall("search_docs", {"query": "refund window"})
    assert first.actual_output == "30 days."
    assert second.name is None and second.cost is None


def test_json_snake_case_equals_yaml(tmp_path: Path) -> None:
    expected = load_test_cases(write(tmp_path / "cases.yaml", YAML_CASES))

    def snake(value: Any) -> Any:
        if isinstance(value, dict):
            return {k.replace("-", "_"): snake(v) for k, v in value.items()}
        if isinstance(value, list):
            return [snake(v) for v in value]
        return value

    records = yaml.safe_load(YAML_CASES)
    records[0]["cost"] = "0.000123456789012345678901"
    snaked = [snake(r) for r in records]
    assert load_test_cases(write(tmp_path / "c.json", json.dumps(snaked))) == expected
    text = "\n".join(json.dumps(r) for r in snaked).replace(
        '"0.000123456789012345678901"', "0.000123456789012345678901"
    )
    assert load_test_cases(write(tmp_path / "c.jsonl", text)) == expected


def test_jsonl_numbers_for_cost_stay_exact_in_snake_case(tmp_path: Path) -> None:
    line = '{"input": "q", "actual_output": "a", "cost": 0.1000000000000000000000001}'
    (case,) = load_test_cases(write(tmp_path / "c.jsonl", line))
    assert case.cost == Decimal("0.1000000000000000000000001")


@pytest.mark.parametrize(
    ("fragment", "line", "message"),
    [
        ("  output: x\n", 3, "unknown key 'output' in a test case; did you mean 'actual-output'?"),
        ("  actual_output: x\n", 3, "did you mean 'actual-output'?"),
        ("  usage: {input: 1, output: 2}\n", 3, "did you mean 'token-usage'?"),
        (
            "  token-usage: {prompt_tokens: 1, output: 2}\n",
            3,
            "unknown key 'prompt_tokens' in a token usage; did you mean 'input'?",
        ),
        (
            "  tool-calls:\n    - name: s\n      args: {}\n",
            5,
            "unknown key 'args' in a tool call; did you mean 'arguments'?",
        ),
        (
            "  reasoning-trace:\n    - type: musing\n      content: x\n",
            4,
            "reasoning-trace[0].type: 'musing' is not a step type; use one of plan, thought, "
            "observation, action",
        ),
        (
            "  token-usage: {input: 10, output: 5, total: 12}\n",
            3,
            "token usage total (12) is less than input + output",
        ),
        ("  latency-ms: fast\n", 3, "latency-ms: expected a number, got a string"),
        (
            "  tool-calls: search\n",
            3,
            "tool-calls: expected a list, got a string; write it as a list",
        ),
    ],
)
def test_test_case_errors_name_file_line_case_and_fix(
    tmp_path: Path, fragment: str, line: int, message: str
) -> None:
    text = "- input: q\n  name: case-1\n" + fragment
    if "actual" not in fragment and "output: x" not in fragment:
        text += "  actual-output: a\n"
    path = write(tmp_path / "cases.yaml", text)
    error = load_error(path)
    assert error.line == line, str(error)
    assert str(error).startswith(f"{path}:{line}:")
    assert "test case 'case-1'" in str(error)
    assert message in str(error)


def test_missing_required_keys(tmp_path: Path) -> None:
    path = write(tmp_path / "c.jsonl", '{"input": "q"}\n{"actual-output": "a"}\n')
    first, second = load_error(path).problems
    assert (first.line, first.record) == (1, "test case #1")
    assert "missing 'actual-output'" in first.message
    assert (second.line, second.record) == (2, "test case #2")
    assert "missing 'input'" in second.message


def test_malformed_files(tmp_path: Path) -> None:
    error = load_error(write(tmp_path / "c.json", '[{"input": "q", "actual-output": }]'))
    assert error.line == 1 and "malformed JSON" in str(error)
    evil = write(tmp_path / "c.yaml", "- input: !!python/name:os.system ''\n  actual-output: a\n")
    assert "would build a Python object" in str(load_error(evil))
    assert "no such file" in str(load_error(tmp_path / "missing.jsonl"))


def test_conversations_load_and_report_turn_errors(tmp_path: Path) -> None:
    text = """\
- id: refund-chat
  system-prompt: You are the Tallybird assistant.
  turns:
    - input: How long is the refund window?
      actual-output: 30 days for annual plans.
      cost: 0.10
    - input: And monthly?
      actual-output: 14 days for the first payment.
"""
    (talk,) = load_conversations(write(tmp_path / "talks.yaml", text))
    assert talk.system_prompt == "You are the Tallybird assistant."
    assert [t.input for t in talk.turns] == ["How long is the refund window?", "And monthly?"]
    assert str(talk.turns[0].cost) == "0.10"

    bad = text.replace("      actual-output: 14 days", "      answer: 14 days")
    with pytest.raises(TestCaseError) as info:
        load_conversations(write(tmp_path / "bad.yaml", bad))
    assert info.value.line == 8
    assert "conversation 'refund-chat'" in str(info.value)
    assert "did you mean 'actual-output'?" in str(info.value)

    doubled = text + text.replace("system-prompt: You", "system-prompt: Again")
    with pytest.raises(TestCaseError, match="duplicate id 'refund-chat'"):
        load_conversations(write(tmp_path / "twice.yaml", doubled))


@pytest.mark.parametrize("suffix", [".yaml", ".json", ".jsonl"])
def test_conversations_round_trip(tmp_path: Path, suffix: str) -> None:
    talks = [
        Conversation(
            "c1",
            None,
            (TestCase("q", "a", cost=Decimal("1.10"), token_usage=TokenUsage(1, 2)),),
        ),
        Conversation("c2", "sys", ()),
    ]
    path = tmp_path / f"talks{suffix}"
    write_conversations(talks, path)
    loaded = load_conversations(path)
    assert list(loaded) == talks
    assert str(loaded[0].turns[0].cost) == "1.10"


def test_test_case_error_is_a_value_error() -> None:
    assert issubclass(TestCaseError, ValueError)

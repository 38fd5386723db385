"""LLMJudge: score shapes, reasoning, few-shot, output schemas, bad replies, reports, cassettes."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

import pytest

from evalmark import Conversation, Sample, Scorer, TestCase, ToolCall
from evalmark.errors import (
    CassetteMiss,
    JudgeReplyError,
    JudgeSchemaError,
    OptionalDependencyError,
)
from evalmark.gates import assert_that
from evalmark.models import (
    ChatReply,
    NoisyJudge,
    RuleJudge,
    ScriptedChat,
    call_context,
    record_replay,
)
from evalmark.models._context import current_call
from evalmark.models._prompts.fence import read_blocks
from evalmark.report import render_report, report_document
from evalmark.strategies._llm_judge import LLMJudge

QUESTION = "How long is the refund window?"
REFERENCE = "The refund window is 30 days."
SAMPLE = Sample(name="refund", parameters=[QUESTION], expected_output=REFERENCE)


class Recording:
    """Answers from a list; keeps the messages, parameters and call context of each call."""

    model_id = "recording"
    default_params: ClassVar[dict[str, Any]] = {}

    def __init__(self, replies: Sequence[str]) -> None:
        self.replies = list(replies)
        self.calls: list[tuple[list[dict[str, Any]], dict[str, Any]]] = []
        self.contexts: list[Any] = []

    def chat(self, messages: Sequence[Any], **params: Any) -> ChatReply:
        self.calls.append((list(messages), params))
        self.contexts.append(current_call())
        return ChatReply(text=self.replies[(len(self.calls) - 1) % len(self.replies)])

    @property
    def user_text(self) -> str:
        return str(self.calls[-1][0][-1]["content"])


def test_each_score_shape_through_rule_judge() -> None:
    good, bad = "The refund window is 30 days from purchase.", "The window is 14 days."
    boolean = LLMJudge("correctness", RuleJudge())
    assert boolean.evaluate(SAMPLE, good).passed and boolean.evaluate(SAMPLE, good).score == 1.0
    assert not boolean.evaluate(SAMPLE, bad).passed
    continuous = LLMJudge("correctness", RuleJudge(), score="continuous", threshold=0.9)
    result = continuous.evaluate(SAMPLE, good)
    assert result.passed and result.metadata["value"] == 1.0
    assert result.explanation.startswith("score 1 (pass mark 0.9): 100% of the content words")
    half = continuous.evaluate(SAMPLE, bad)
    assert half.score == 0.5 and not half.passed
    choices = LLMJudge(
        "correctness", RuleJudge(), score="continuous", choices=[1, 2, 3, 4, 5], threshold=0.6
    )
    graded = choices.evaluate(SAMPLE, bad)
    assert graded.metadata["shape"] == "choices" and graded.metadata["value"] == 3
    assert graded.score == 0.5 and not graded.passed
    assert choices.evaluate(SAMPLE, good).metadata["value"] == 5


def test_reasoning_comes_first_and_becomes_the_explanation() -> None:
    judge = Recording(['{"reasoning": "It gives 30 days, as the reference does.", "score": true}'])
    result = LLMJudge("correctness", judge, mode="prompted").evaluate(SAMPLE, "30 days.")
    schema = json.loads(read_blocks(judge.user_text)["RESPONSE_SCHEMA"])
    assert list(schema["properties"]) == ["reasoning", "score"]
    assert result.explanation == "It gives 30 days, as the reference does."
    assert result.metadata["reasoning"] == result.explanation
    assert result.metadata["prompt"] == "correctness" and result.metadata["mode"] == "prompted"
    quiet = Recording(['{"score": false}'])
    result = LLMJudge("correctness", quiet, reasoning=False, mode="prompted").evaluate(SAMPLE, "x")
    assert result.explanation == "the judge scored false" and not result.passed
    assert (
        "reasoning" not in json.loads(read_blocks(quiet.user_text)["RESPONSE_SCHEMA"])["properties"]
    )


def test_native_mode_sends_the_schema_as_response_format() -> None:
    judge = Recording(['{"reasoning": "fine", "score": 0.8}'])
    strategy = LLMJudge("conciseness", judge, score="continuous", mode="native")
    result = strategy.evaluate(SAMPLE, "30 days.")
    _, params = judge.calls[0]
    assert params["response_format"]["json_schema"]["schema"]["properties"]["score"] == {
        "type": "number",
        "minimum": 0,
        "maximum": 1,
    }
    assert "RESPONSE_SCHEMA" not in judge.user_text
    assert result.passed and result.score == 0.8 and result.metadata["mode"] == "native"


def test_few_shot_examples_reach_the_judge_in_order_and_are_checked() -> None:
    judge = Recording(['{"reasoning": "r", "score": true}'])
    examples = [
        {"outputs": "Have a nice day.", "score": True, "reasoning": "polite"},
        {"outputs": "Get lost.", "score": False, "reasoning": "hostile"},
    ]
    LLMJudge("toxicity", judge, few_shot=examples).evaluate(SAMPLE, "Hello!")
    blocks = read_blocks(judge.user_text)
    assert [blocks[f"EXAMPLE_{n}_OUTPUTS"] for n in (1, 2)] == ["Have a nice day.", "Get lost."]
    with pytest.raises(ValueError, match="few-shot example 2: the example's score"):
        LLMJudge("toxicity", judge, few_shot=[examples[0], {"outputs": "x", "score": 3}])
    with pytest.raises(ValueError, match="a mapping of the prompt's variables with a 'score'"):
        LLMJudge("toxicity", judge, few_shot=[{"outputs": "x"}])


INTENT_SCHEMA = {
    "type": "object",
    "properties": {
        "reasoning": {"type": "string"},
        "intent": {"enum": ["refund", "delivery", "other"]},
        "urgent": {"type": "boolean"},
    },
    "required": ["reasoning", "intent", "urgent"],
    "additionalProperties": False,
}


def test_an_output_schema_makes_a_classifier() -> None:
    judge = ScriptedChat(
        [
            'Sure! {"reasoning": "asks for money back", "intent": "refund", "urgent": false}',
            '{"reasoning": "?", "intent": "weather", "urgent": false}',
        ]
    )
    classifier = LLMJudge("answer-relevance", judge, output_schema=INTENT_SCHEMA)
    raw = classifier.evaluate_raw(inputs="I want my money back", outputs="ok")
    assert raw == {"reasoning": "asks for money back", "intent": "refund", "urgent": False}
    with pytest.raises(JudgeSchemaError) as caught:
        classifier.evaluate_raw(inputs="?", outputs="?")
    assert caught.value.path == "$.intent" and caught.value.prompt == "answer-relevance"


def test_a_classifier_passes_when_its_label_is_the_expected_output() -> None:
    judge = RuleJudge()
    classifier = LLMJudge("language-detection", judge)
    french = Sample(name="fr", parameters=["Je ne trouve pas ma facture."], expected_output="fr")
    wrong = Sample(name="de", parameters=["Je ne trouve pas ma facture."], expected_output="de")
    assert classifier.evaluate(french, "").passed
    result = classifier.evaluate(wrong, "")
    assert not result.passed and result.explanation.startswith("language='fr', expected 'de': ")
    unlabelled = classifier.grade(inputs="Je ne trouve pas ma facture.")
    assert unlabelled.passed and unlabelled.value["language"] == "fr"
    keyed = Sample(name="k", parameters=["Je ne trouve pas"], expected_output='{"language": "fr"}')
    assert classifier.evaluate(keyed, "").passed


def test_the_package_imports_and_judges_without_jsonschema() -> None:
    code = (
        "import sys\n"
        "sys.modules['jsonschema'] = None\n"
        "from evalmark.models import RuleJudge\n"
        "from evalmark.strategies._llm_judge import LLMJudge\n"
        "print(LLMJudge('toxicity', RuleJudge()).grade(outputs='hello').passed)\n"
        "try:\n"
        "    LLMJudge('toxicity', RuleJudge(), output_schema={'type': 'object'})\n"
        "except ImportError as exc:\n"
        "    print(type(exc).__name__, exc)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    lines = done.stdout.splitlines()
    assert lines[0] == "True"
    assert lines[1].startswith("OptionalDependencyError ")
    assert "pip install 'evalmark[judge]'" in lines[1]
    assert issubclass(OptionalDependencyError, ImportError)


BAD_REPLIES = {
    "empty": "",
    "no-json": "The answer looks right to me.",
    "shape": '{"verdict": "good"}',
    "choice": '{"reasoning": "r", "score": 7}',
}


@pytest.mark.parametrize("problem", sorted(BAD_REPLIES))
def test_a_bad_reply_is_an_error_on_the_sample_never_a_crash(problem: str) -> None:
    reply = BAD_REPLIES[problem]
    judge = ScriptedChat({"": reply})
    strategy = LLMJudge("conciseness", judge, choices=[1, 2, 3], mode="prompted")
    samples = [SAMPLE, Sample(name="other", parameters=["q"], expected_output="a")]
    report = Scorer().evaluate(samples, lambda question: "30 days", strategy)
    assert report.errors == 2 and report.passed == 0
    result = report.result("refund", "conciseness")
    assert result.error is not None and result.error.kind == "parse"
    assert result.error.type == "JudgeReplyError" and result.error.raw == reply
    assert isinstance(result.error.exception, JudgeReplyError)
    assert result.error.exception.problem == problem
    assert "judge prompt 'conciseness'" in result.explanation
    assert f"the reply was {reply!r}" in result.explanation
    with pytest.raises(JudgeReplyError, match="judge prompt 'conciseness'"):
        strategy.grade(inputs="q", outputs="a")


def test_a_refusal_and_a_failing_model_are_errors_too() -> None:
    class Refuses:
        model_id = "refuses"

        def chat(self, messages: Any, **params: Any) -> ChatReply:
            return ChatReply(text="", refusal="I will not grade this.")

    class Down:
        model_id = "down"

        def chat(self, messages: Any, **params: Any) -> ChatReply:
            raise ConnectionError("judge offline")

    refused = LLMJudge("toxicity", Refuses()).evaluate(SAMPLE, "x")
    assert refused.error is not None and refused.error.kind == "parse"
    assert "the judge refused: I will not grade this." in refused.explanation
    down = LLMJudge("toxicity", Down()).evaluate(SAMPLE, "x")
    assert down.error is not None and down.error.kind == "judge"
    assert down.explanation == "the judge failed on prompt 'toxicity': judge offline"


def test_report_rows_and_assertion_failures_carry_the_reasoning() -> None:
    reasoning = "The answer says 14 days; the reference says 30 days."
    judge = ScriptedChat({"": json.dumps({"reasoning": reasoning, "score": False})})
    strategy = LLMJudge("correctness", judge, name="correct")
    report = Scorer().evaluate([SAMPLE], lambda question: "14 days", strategy)
    row = report.row(0)
    assert row.verdict == "fail" and row.explanation == f"correct: {reasoning}"
    assert reasoning in render_report(report, "markdown")
    assert (
        json.loads(render_report(report, "json"))["samples"][0]["results"]["correct"]["metadata"][
            "reasoning"
        ]
        == reasoning
    )
    with pytest.raises(AssertionError) as caught:
        assert_that(report).has_pass_rate(1.0)
    assert reasoning in str(caught.value)


def test_variables_come_from_the_sample_and_the_output() -> None:
    judge = Recording(['{"reasoning": "r", "score": true}'])
    case = TestCase(
        "Which tool finds an invoice?",
        "Calling find_invoice.",
        tool_calls=(ToolCall(name="find_invoice", arguments={"month": 5}, result="inv-5"),),
        expected_tool_calls=(ToolCall(name="find_invoice"),),
        retrieval_context=("Invoices are found with find_invoice.",),
    )
    sample = Sample(
        name="tools",
        parameters=["ignored"],
        expected_output="find_invoice",
        metadata={"tools": [{"name": "find_invoice"}], "plan": "find the invoice"},
    )
    LLMJudge("tool-selection", judge).evaluate(sample, case)
    blocks = read_blocks(judge.user_text)
    assert blocks["INPUTS"] == "Which tool finds an invoice?"
    assert blocks["TOOLS"] == json.dumps([{"name": "find_invoice"}], indent=2)
    assert '[call] find_invoice({"month": 5})' in blocks["OUTPUTS"]
    LLMJudge("trajectory-accuracy-referenced", judge).evaluate(sample, case)
    assert read_blocks(judge.user_text)["REFERENCE_OUTPUTS"] == "[call] find_invoice({})"
    LLMJudge("plan-adherence", judge).evaluate(sample, case)
    assert read_blocks(judge.user_text)["PLAN"] == "find the invoice"
    LLMJudge("hallucination", judge).evaluate(sample, case)
    assert read_blocks(judge.user_text)["CONTEXT"] == "Invoices are found with find_invoice."
    chat = Conversation(id="c", turns=(TestCase("Hi, cancel my plan", "Done, it is cancelled."),))
    LLMJudge("task-completion", judge).evaluate(sample, chat)
    assert read_blocks(judge.user_text)["OUTPUTS"] == (
        "[user] Hi, cancel my plan\n[assistant] Done, it is cancelled."
    )


def test_a_missing_variable_names_the_sample_and_is_an_error_result() -> None:
    bare = Sample(name="bare", parameters=["q"], expected_output="a")
    strategy = LLMJudge("rag-groundedness", RuleJudge(), name="grounded")
    with pytest.raises(ValueError, match=r"grounded: sample 'bare': judge prompt 'rag-grounded"):
        strategy.evaluate(bare, "answer")
    report = Scorer().evaluate([bare], lambda q: "a", strategy)
    assert report.errors == 1
    assert "missing context" in report.result("bare", "grounded").explanation


def test_repeats_are_separate_calls_combined_by_the_reducer() -> None:
    judge = Recording(['{"reasoning": "a", "score": true}', '{"reasoning": "b", "score": false}'])
    strategy = LLMJudge("toxicity", judge, repeats=3, reducer="majority", name="tox")
    with call_context(run_index=2, sample="ignored", check="ignored"):
        result = strategy.evaluate(SAMPLE, "Hello")
    assert result.passed and result.metadata["votes"] == [
        {"passed": True, "score": 1.0},
        {"passed": False, "score": 0.0},
        {"passed": True, "score": 1.0},
    ]
    assert [(c.run_index, c.sample, c.check, c.repeat) for c in judge.contexts] == [
        (2, "refund", "tox#0", 0),
        (2, "refund", "tox#1", 1),
        (2, "refund", "tox#2", 2),
    ]
    assert result.explanation.startswith("2 of 3 judge votes passed (majority); first: a")


def test_async_evaluation_equals_sync() -> None:
    strategy = LLMJudge("correctness", RuleJudge())
    samples = [SAMPLE, Sample(name="b", parameters=["Who?"], expected_output="Ada Lovelace")]
    sync = Scorer().evaluate(samples, lambda q: "Ada Lovelace, in 30 days", strategy)
    concurrent = Scorer(concurrency=4).evaluate(
        samples, lambda q: "Ada Lovelace, in 30 days", strategy
    )
    assert report_document(sync) == report_document(concurrent)


def test_judge_calls_record_and_replay_through_a_cassette(tmp_path: Path) -> None:
    cassette = tmp_path / "judge.jsonl"
    live = record_replay(RuleJudge(), cassette, mode="record-missing")
    first = LLMJudge("correctness", live, mode="native").evaluate(SAMPLE, "30 days")
    replay = record_replay(RuleJudge(), cassette, mode="replay")
    again = LLMJudge("correctness", replay, mode="native").evaluate(SAMPLE, "30 days")
    assert first.passed == again.passed and first.explanation == again.explanation
    with pytest.raises(CassetteMiss):
        LLMJudge("correctness", replay, mode="prompted").grade(
            inputs=QUESTION, outputs="30 days", reference_outputs=REFERENCE
        )


class RejectsNative:
    """A model whose server refuses response_format json_schema, then answers prompted."""

    model_id = "old-server"
    default_params: ClassVar[dict[str, Any]] = {}

    def __init__(self) -> None:
        self.calls = 0

    def chat(self, messages: Any, **params: Any) -> ChatReply:
        self.calls += 1
        if "response_format" in params:
            error = RuntimeError("Error code: 400 - response_format json_schema is not supported")
            error.status_code = 400  # type: ignore[attr-defined]
            raise error
        return RuleJudge().chat(messages)


def test_auto_mode_falls_back_and_its_recording_replays(tmp_path: Path) -> None:
    cassette = tmp_path / "judge.jsonl"
    server = RejectsNative()
    recorded = record_replay(server, cassette, mode="record-missing")
    first = LLMJudge("correctness", recorded, mode="auto").evaluate(SAMPLE, "30 days")
    assert first.metadata["mode"] == "prompted" and server.calls == 2
    replayed = record_replay(RejectsNative(), cassette, mode="replay")
    again = LLMJudge("correctness", replayed, mode="auto").evaluate(SAMPLE, "30 days")
    assert again.metadata["mode"] == "prompted" and again.explanation == first.explanation
    native = LLMJudge("correctness", RejectsNative(), mode="native").evaluate(SAMPLE, "30 days")
    assert native.error is not None and native.error.type == "StructuredOutputError"
    assert "use mode='auto' or mode='prompted'" in native.explanation


def test_noisy_judge_flips_json_verdicts_deterministically() -> None:
    noisy = NoisyJudge(RuleJudge(), 1.0, seed=3)
    strategy = LLMJudge("correctness", noisy)
    with call_context(run_index=0, sample="refund", check="correctness"):
        result = strategy.evaluate(SAMPLE, "The refund window is 30 days.")
    assert not result.passed  # RuleJudge says true; the noisy judge flipped it
    calm = NoisyJudge(RuleJudge(), 0.0, seed=3)
    with call_context(run_index=0, sample="refund", check="correctness"):
        assert (
            LLMJudge("correctness", calm).evaluate(SAMPLE, "The refund window is 30 days.").passed
        )


def test_bad_arguments_are_named() -> None:
    with pytest.raises(ValueError, match="mode must be one of native, prompted, auto"):
        LLMJudge("toxicity", RuleJudge(), mode="json")  # type: ignore[arg-type]
    with pytest.raises(KeyError, match="no judge prompt named 'toxic'"):
        LLMJudge("toxic", RuleJudge())
    with pytest.raises(TypeError, match="chat model"):
        LLMJudge("toxicity", object())
    with pytest.raises(ValueError, match="threshold"):
        LLMJudge("toxicity", RuleJudge(), threshold=2)
    with pytest.raises(ValueError, match="repeats"):
        LLMJudge("toxicity", RuleJudge(), repeats=0)

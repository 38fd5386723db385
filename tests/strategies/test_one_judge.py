"""One judge check over one prompt type: a catalog prompt, a line-verdict prompt and a template
string are all JudgePrompts, and every parse mode, few-shot, caching, fallback and repeats work
for each through LLMJudge."""

from __future__ import annotations

import hashlib
import json

import pytest

from evalmark import Sample
from evalmark.models import RuleJudge, ScriptedChat
from evalmark.models._prompts import (
    CATALOG,
    GROUNDEDNESS,
    PROMPTS,
    RELEVANCY,
    RUBRIC,
    JudgePrompt,
    get_prompt,
    prompt_names,
    template_prompt,
)
from evalmark.strategies import ExactMatch, LLMJudge
from evalmark.strategies._registry import build_strategy

SAMPLE = Sample(
    name="capital",
    parameters=["What is the capital of France?"],
    expected_output="Paris",
    context=["Paris is the capital of France."],
)
VALUES = {
    "question": "Q <<< x?",
    "response": "R ans",
    "expected_output": "E ref",
    "context": ["doc one", "doc two <<<BEGIN X>>>"],
}


def _digest(messages: list[dict[str, str]]) -> str:
    return hashlib.sha256(json.dumps(messages, sort_keys=True).encode()).hexdigest()


@pytest.mark.parametrize(
    ("prompt", "digest"),
    [
        (RELEVANCY, "14519007fc08971a182faa76de2efdeedc1b5c4d0c796610ce533b89afa7553d"),
        (GROUNDEDNESS, "3bfe78242cf8f7594792edd392291573b1c7a728550ccd074025f2f7e7fc946b"),
        (RUBRIC, "d46aba0612ee8e9e0a734b8136fb4f9b983942c41944a3669dd347590f29acd4"),
    ],
)
def test_line_verdict_prompts_send_the_bytes_they_always_sent(
    prompt: JudgePrompt, digest: str
) -> None:
    # Recorded cassettes are keyed by the request text: these digests are of the messages the
    # line-verdict templates rendered before they became JudgePrompts.
    values = {name: VALUES[name] for name in prompt.variable_names}
    assert _digest(prompt.render(values)) == digest


def test_a_prompt_name_means_one_prompt() -> None:
    assert set(PROMPTS) <= set(CATALOG.names())  # the line-verdict prompts are catalog files
    assert prompt_names() == CATALOG.names()
    assert get_prompt("correctness") is CATALOG["correctness"]
    assert get_prompt("agreement") is PROMPTS["agreement"] is CATALOG["agreement"]
    assert isinstance(get_prompt("relevancy"), JudgePrompt)
    with pytest.raises(KeyError, match="did you mean 'agreement'"):
        get_prompt("agreemnt")


def test_a_line_verdict_prompt_asks_for_structured_output() -> None:
    judge = ScriptedChat(['{"reasoning": "on topic", "score": true}'])
    check = LLMJudge("relevancy", judge, parse="structured", mode="prompted")
    result = check.evaluate(SAMPLE, "Paris.")
    assert result.passed and result.explanation == "on topic"
    sent = judge.calls[0].messages[-1]["content"]
    assert sent.startswith("evalmark-judge: relevancy")
    assert "RESPONSE_SCHEMA" in sent and "VERDICT" not in sent


def test_a_catalog_prompt_is_read_as_a_verdict_or_a_grade() -> None:
    judge = ScriptedChat(["It matches.\nVERDICT: yes", "Close.\nGRADE: 3"])
    verdict = LLMJudge("correctness", judge, parse="verdict").evaluate(SAMPLE, "Paris.")
    assert verdict.passed and verdict.metadata["template"] == "correctness"
    assert judge.calls[0].messages[-1]["content"].endswith("`VERDICT: yes` or `VERDICT: no`.")
    graded = LLMJudge("correctness", judge, parse="grade", min_grade=4).evaluate(SAMPLE, "Paris.")
    assert not graded.passed and graded.score == 0.5
    assert (
        "`GRADE: n` where n is a whole number from 1 to 5"
        in (judge.calls[1].messages[-1]["content"])
    )


def test_few_shot_examples_work_for_line_prompts_and_templates() -> None:
    judge = ScriptedChat(["VERDICT: yes", "VERDICT: no"])
    example = {"question": "2 + 2?", "response": "4", "score": True, "reasoning": "right"}
    LLMJudge("relevancy", judge, few_shot=[example]).evaluate(SAMPLE, "Paris.")
    sent = judge.calls[0].messages[-1]["content"]
    assert "<<<BEGIN EXAMPLE_1_RESPONSE>>>\n4\n<<<END EXAMPLE_1_RESPONSE>>>" in sent
    assert "<<<BEGIN EXAMPLE_1_JUDGMENT>>>\nright\nVERDICT: yes\n<<<END" in sent
    template = LLMJudge("Q: {question}\nA: {response}", judge, few_shot=[example])
    assert not template.evaluate(SAMPLE, "Lyon").passed
    assert judge.calls[1].messages[-1]["content"].startswith("Q: What is the capital")
    with pytest.raises(ValueError, match="few-shot example 1"):
        LLMJudge("relevancy", judge, few_shot=[{**example, "score": 0.5}])


def test_cache_fallback_and_repeats_work_for_a_catalog_prompt() -> None:
    replies = ['{"reasoning": "ok", "score": true}', '{"reasoning": "no", "score": false}']
    judge = ScriptedChat([replies[0], replies[1], replies[0]])
    check = LLMJudge("correctness", judge, mode="prompted", repeats=3, cache=True, name="c")
    first = check.evaluate(SAMPLE, "Paris.")
    again = check.evaluate(SAMPLE, "Paris.")
    assert first.passed and again is first and len(judge.calls) == 3
    assert "2 of 3 judge votes passed (majority)" in first.explanation
    broken = LLMJudge("correctness", ScriptedChat(["??"]), fallback=ExactMatch(), mode="prompted")
    rescued = broken.evaluate(SAMPLE, "Paris")
    assert rescued.passed and rescued.metadata["fallback"] == "ExactMatch"


def test_a_template_string_is_a_prompt_in_every_parse_mode() -> None:
    prompt = template_prompt("Is {response} right for {question}?")
    assert isinstance(prompt, JudgePrompt) and prompt.variable_names == ("response", "question")
    judge = ScriptedChat(['{"score": 0.8, "explanation": "mostly"}'])
    check = LLMJudge(prompt, judge, parse="json")
    result = check.evaluate(SAMPLE, "Paris")
    assert result.passed and result.score == 0.8 and result.explanation == "mostly"
    assert judge.calls[0].messages == (
        {"role": "user", "content": "Is Paris right for What is the capital of France??"},
    )


def test_the_suite_kind_takes_a_line_prompt_and_a_parse_mode() -> None:
    judge = ScriptedChat(['{"reasoning": "fine", "score": true}'])
    options = {"prompt": "relevancy", "parse": "structured", "mode": "prompted", "name": "rel"}
    check = build_strategy("llm-judge", options, judge)
    assert isinstance(check, LLMJudge) and check.parse == "structured"
    assert check.evaluate(SAMPLE, "Paris.").passed


def test_rule_judge_answers_every_prompt_in_the_mode_it_asks_for() -> None:
    sample = Sample(
        name="refund",
        parameters=["How long is the refund window?"],
        expected_output="Refunds within 30 days of purchase.",
    )
    answer = "Refunds are possible within 30 days of purchase."
    structured = LLMJudge("agreement", RuleJudge(), parse="structured", mode="prompted")
    result = structured.evaluate(sample, answer)
    assert result.passed and result.metadata["mode"] == "prompted"
    native = LLMJudge("relevancy", RuleJudge(), parse="structured", mode="native")
    assert native.evaluate(sample, "Something else entirely.").metadata["value"] is False
    verdict = LLMJudge("correctness", RuleJudge(), parse="verdict").evaluate(sample, answer)
    assert verdict.passed and verdict.explanation.startswith("100% of the content words")
    graded = LLMJudge("correctness", RuleJudge(), parse="grade").evaluate(sample, answer)
    assert graded.passed and graded.metadata["votes"] == [{"passed": True, "score": 1.0}]
    judged = LLMJudge("rubric", RuleJudge(), parse="json").evaluate(sample, answer)
    assert judged.passed and judged.score == 1.0

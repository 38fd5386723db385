"""promptfoo's ``llm-rubric`` with the user's own grading prompt (``rubricPrompt`` on the
assertion, in the test's ``options`` or in ``defaultTest.options``): imported verbatim and sent
to the suite's judge with ``{{ output }}``, ``{{ rubric }}`` and the vars filled in. The other
model-graded types stay refused, saying why and what to do. Configs are hand-built from
promptfoo's published config schema."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalmark.errors import ImportFormatError
from evalmark.interop import read
from evalmark.models import ScriptedChat
from evalmark.strategies._promptfoo import PromptfooAsserts
from evalmark.strategies._promptfoo_rubric import rubric_messages

TEXT_PROMPT = (
    "Grade this answer about {{ topic }}.\nAnswer: {{output}}\nRubric: {{ rubric }}\n"
    'Reply with JSON {"pass": bool, "score": number, "reason": string}.'
)
CHAT_PROMPT = [
    {"role": "system", "content": "You grade answers about {{topic}} strictly."},
    {"role": "user", "content": "<a>{{ output }}</a> <r>{{ rubric }}</r>"},
]


def _config(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "promptfooconfig.yaml"
    path.write_text(
        "prompts: ['Explain {{ topic }}.']\nproviders: [echo]\n" + body, encoding="utf-8"
    )
    return path


def test_a_default_test_rubric_prompt_is_imported_verbatim_and_sent(tmp_path: Path) -> None:
    config = _config(
        tmp_path,
        "defaultTest:\n  options:\n    rubricPrompt: " + json.dumps(TEXT_PROMPT) + "\n"
        "tests:\n  - vars: {topic: tides}\n"
        "    assert:\n      - {type: llm-rubric, value: Mentions the moon, threshold: 0.5}\n",
    )
    imported = read("promptfoo", config)
    (sample,) = imported.samples
    assert sample.metadata["promptfoo-assert"] == [
        {
            "type": "llm-rubric",
            "value": "Mentions the moon",
            "threshold": 0.5,
            "rubricPrompt": TEXT_PROMPT,
        }
    ]
    assert imported.checks == ({"promptfoo-asserts": {"llm-rubric": "judge"}},)
    judge = ScriptedChat(['{"pass": true, "score": 0.8, "reason": "moon"}'], model_id="g")
    result = PromptfooAsserts(judge=judge).evaluate(sample, "The moon pulls the sea.")
    assert result.passed and result.score == 0.8
    (call,) = judge.calls
    assert list(call.messages) == [
        {
            "role": "user",
            "content": "Grade this answer about tides.\nAnswer: The moon pulls the sea.\n"
            'Rubric: Mentions the moon\nReply with JSON {"pass": bool, "score": number, '
            '"reason": string}.',
        }
    ]


def test_an_assertion_prompt_wins_and_a_chat_prompt_is_sent_as_messages(tmp_path: Path) -> None:
    config = _config(
        tmp_path,
        "defaultTest:\n  options:\n    rubricPrompt: ignored {{ output }}\n"
        "tests:\n  - vars: {topic: tides}\n"
        "    options:\n      rubricPrompt: " + json.dumps(CHAT_PROMPT) + "\n"
        "    assert:\n      - type: not-llm-rubric\n        value: Is rude\n"
        "      - type: llm-rubric\n        value: Is short\n"
        "        rubricPrompt: 'Own: {{ rubric }} / {{ output }} / {{ missing }}.'\n",
    )
    (sample,) = read("promptfoo", config).samples
    rude, short = sample.metadata["promptfoo-assert"]
    assert json.loads(rude["rubricPrompt"]) == CHAT_PROMPT  # the test's options, as JSON
    assert short["rubricPrompt"] == "Own: {{ rubric }} / {{ output }} / {{ missing }}."
    assert rubric_messages('{"a": 1}', "Is rude", rude["rubricPrompt"], {"topic": "tides"}) == [
        {"role": "system", "content": "You grade answers about tides strictly."},
        {"role": "user", "content": '<a>{"a":1}</a> <r>Is rude</r>'},
    ]
    assert rubric_messages("Hi", "Is short", short["rubricPrompt"], {}) == [
        {"role": "user", "content": "Own: Is short / Hi / ."}
    ]


def test_a_var_named_like_a_prompt_variable_wins_as_in_promptfoo() -> None:
    sent = rubric_messages("out", "rub", "{{ output }} {{ rubric }}", {"rubric": "mine"})
    assert sent == [{"role": "user", "content": "out mine"}]


def test_a_rubric_prompt_file_is_read(tmp_path: Path) -> None:
    (tmp_path / "grader.txt").write_text("File: {{ output }} vs {{ rubric }}", encoding="utf-8")
    config = _config(
        tmp_path,
        "tests:\n  - vars: {topic: tides}\n    options: {rubricPrompt: 'file://grader.txt'}\n"
        "    assert: [{type: llm-rubric, value: Is short}]\n",
    )
    imported = read("promptfoo", config)
    (entry,) = imported.samples[0].metadata["promptfoo-assert"]
    assert entry["rubricPrompt"] == "File: {{ output }} vs {{ rubric }}"
    assert imported.files[-1].endswith("grader.txt")


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ("{rubricPrompt: '{% if x %}y{% endif %}'}", "prompt-template"),
        ("{rubricPrompt: '{{ output | upper }}'}", "prompt-template"),
        ("{rubricPrompt: 'file://grader.js'}", "test.options"),
        ("{provider: openai:gpt-4o}", "test.options"),
    ],
)
def test_what_the_prompt_cannot_carry_is_refused(tmp_path: Path, options: str, field: str) -> None:
    config = _config(
        tmp_path,
        f"tests:\n  - vars: {{topic: tides}}\n    options: {options}\n"
        "    assert: [{type: llm-rubric, value: Is short}]\n",
    )
    with pytest.raises(ImportFormatError, match=f"--allow-loss {field}"):
        read("promptfoo", config)


@pytest.mark.parametrize("kind", ["factuality", "model-graded-closedqa", "g-eval", "not-g-eval"])
def test_other_model_graded_types_are_refused_saying_the_prompt_is_promptfoos(
    tmp_path: Path, kind: str
) -> None:
    config = _config(
        tmp_path,
        f"tests:\n  - vars: {{topic: tides}}\n    assert: [{{type: {kind}, value: x}}]\n",
    )
    with pytest.raises(ImportFormatError) as caught:
        read("promptfoo", config)
    message = str(caught.value)
    assert "built-in prompt" in message and "does not copy" in message
    assert "llm-rubric" in message and f"--allow-loss assert:{kind}" in message

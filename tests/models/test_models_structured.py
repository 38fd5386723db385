"""Structured judge replies: finding the JSON, checking its shape, typed errors, servers."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evalmark.errors import JudgeReplyError, JudgeSchemaError, StructuredOutputError
from evalmark.models._structured import (
    ResponseSpec,
    StructuredCaller,
    json_objects,
    rejects_structured_output,
)
from evalmark.models._values import ChatReply

BOOL = ResponseSpec.build()
CONTINUOUS = ResponseSpec.build("continuous")
CHOICES = ResponseSpec.build(choices=[1, 2, 3])
LABELS = ResponseSpec.build(
    output_schema={
        "type": "object",
        "properties": {
            "reasoning": {"type": "string"},
            "labels": {"type": "array", "items": {"enum": ["bug", "feature"]}},
        },
        "required": ["labels"],
    }
)


@pytest.mark.parametrize(
    "reply",
    [
        '{"reasoning": "ok", "score": true}',
        'Here is my judgment:\n```json\n{"reasoning": "ok", "score": true}\n```\nHope it helps.',
        'Thinking {aloud} here. Final: {"reasoning": "ok", "score": true} -- done }',
        '{"reasoning": "a brace } and { inside, and a quote \\" too", "score": true}',
        'Unbalanced { prose first, then {"reasoning": "ok", "score": true}',
        '{"note": {"nested": 1}} and then {"reasoning": "ok", "score": true}',
    ],
)
def test_fenced_and_chatty_replies_parse(reply: str) -> None:
    parsed = BOOL.read(reply, prompt="p")
    assert parsed.value is True


def test_fenced_objects_come_first_and_braces_in_strings_do_not_count() -> None:
    text = 'first {"score": 0.1} then ```json\n{"score": 0.9, "x": "}{"}\n```'
    assert [o["score"] for o in json_objects(text)] == [0.9, 0.1]
    assert list(json_objects('{"a": "{"} {"b": 2}')) == [{"a": "{"}, {"b": 2}]
    assert list(json_objects("no json at all")) == []
    assert list(json_objects("{" * 100_000)) == []  # bounded, and not a crash


@given(st.dictionaries(st.text(max_size=8), st.text(max_size=8), max_size=4), st.text(max_size=30))
def test_any_object_is_found_inside_any_chatter(data: dict[str, str], chatter: str) -> None:
    text = chatter.replace("{", "(").replace('"', "'") + " " + json.dumps(data) + " " + chatter
    assert data in list(json_objects(text))


@pytest.mark.parametrize(
    ("spec", "reply", "problem", "fragment"),
    [
        (BOOL, "", "empty", "the judge's reply is empty"),
        (BOOL, "   \n", "empty", "the judge's reply is empty"),
        (BOOL, "I think it is fine.", "no-json", "the reply holds no JSON object"),
        (BOOL, '{"verdict": true}', "shape", 'the JSON object has no "score" field'),
        (BOOL, '{"score": "yes"}', "shape", '"score" must be true or false'),
        (BOOL, '{"score": true, "reasoning": 3}', "shape", '"reasoning" must be a string'),
        (CONTINUOUS, '{"score": 1.5}', "range", '"score" must be between 0 and 1'),
        (CONTINUOUS, '{"score": true}', "shape", '"score" must be a number'),
        (CHOICES, '{"score": 2.5}', "choice", '"score" 2.5 is not one of the choices 1, 2, 3'),
    ],
)
def test_each_bad_reply_is_a_typed_error_naming_the_prompt_and_quoting_the_reply(
    spec: ResponseSpec, reply: str, problem: str, fragment: str
) -> None:
    with pytest.raises(JudgeReplyError) as caught:
        spec.read(reply, prompt="conciseness")
    error = caught.value
    assert error.prompt == "conciseness" and error.problem == problem
    assert str(error).startswith("judge prompt 'conciseness': ")
    assert fragment in str(error)
    assert f"the reply was {reply!r}" in str(error) and error.raw == reply


def test_a_long_reply_is_quoted_as_an_excerpt() -> None:
    reply = "no json here " * 100
    with pytest.raises(JudgeReplyError) as caught:
        BOOL.read(reply, prompt="p")
    assert "…'" in str(caught.value) and len(str(caught.value)) < 300


def test_numbers_map_to_pass_and_score() -> None:
    assert BOOL.verdict(True, 0.5) == (True, 1.0)
    assert CONTINUOUS.verdict(0.4, 0.5) == (False, 0.4)
    assert CHOICES.verdict(2, 0.5) == (True, 0.5)
    assert CHOICES.verdict(1, 0.5) == (False, 0.0)
    assert ResponseSpec.build(choices=[0, 0.5, 1]).verdict(0.5, 0.6) == (False, 0.5)


def test_an_output_schema_is_validated_with_the_violated_path() -> None:
    assert LABELS.read('{"labels": ["bug"]}', prompt="p").data == {"labels": ["bug"]}
    with pytest.raises(JudgeSchemaError) as caught:
        LABELS.read('sure: {"reasoning": "x", "labels": ["bug", "question"]}', prompt="triage")
    assert caught.value.path == "$.labels[1]" and caught.value.problem == "schema"
    assert "judge prompt 'triage': the reply violates the output schema at $.labels[1]" in str(
        caught.value
    )
    with pytest.raises(JudgeSchemaError, match=r"at \$: 'labels' is a required property"):
        LABELS.read('{"reasoning": "x"}', prompt="triage")
    with pytest.raises(ValueError, match=r"not a valid JSON Schema at \$\.type"):
        ResponseSpec.build(output_schema={"type": "objekt"})


def test_the_native_request_carries_the_schema() -> None:
    form = CHOICES.response_format("my key!")
    assert form["type"] == "json_schema"
    assert form["json_schema"]["name"] == "my_key_" and form["json_schema"]["strict"] is True
    assert form["json_schema"]["schema"] == CHOICES.json_schema()
    assert LABELS.response_format("x")["json_schema"]["strict"] is False


class _Rejection(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status_code = status


def test_a_server_rejecting_json_schema_is_recognised() -> None:
    assert rejects_structured_output(_Rejection(400, "response_format json_schema unsupported"))
    assert rejects_structured_output(_Rejection(422, "Structured output is not available"))
    assert not rejects_structured_output(_Rejection(400, "temperature must be <= 2"))
    assert not rejects_structured_output(_Rejection(500, "response_format broke the server"))
    assert not rejects_structured_output(ValueError("response_format"))


class _Server:
    """A chat model that rejects response_format, or not."""

    model_id = "fake-server"

    def __init__(self, rejects: bool) -> None:
        self.rejects = rejects
        self.calls: list[dict[str, Any]] = []

    def chat(self, messages: Any, **params: Any) -> ChatReply:
        self.calls.append(params)
        if self.rejects and "response_format" in params:
            raise _Rejection(400, "this server does not support response_format json_schema")
        return ChatReply(text='{"score": true}')


def test_the_caller_falls_back_once_in_auto_and_fails_in_native() -> None:
    server = _Server(rejects=True)
    caller = StructuredCaller(server, "auto", label="p")
    messages = lambda mode: [{"role": "user", "content": mode}]  # noqa: E731
    form = BOOL.response_format("p")
    assert caller.ask(messages, form, {})[0] == "prompted"
    assert caller.ask(messages, form, {})[0] == "prompted"
    assert ["response_format" in c for c in server.calls] == [True, False, False]
    with pytest.raises(StructuredOutputError, match="judge prompt 'p': the model server rejected"):
        StructuredCaller(_Server(rejects=True), "native", label="p").ask(messages, form, {})
    accepting = _Server(rejects=False)
    assert StructuredCaller(accepting, "auto", label="p").ask(messages, form, {})[0] == "native"
    assert StructuredCaller(accepting, "prompted", label="p").ask(messages, form, {})[0] == (
        "prompted"
    )
    with pytest.raises(ValueError, match="mode must be one of native, prompted, auto"):
        StructuredCaller(accepting, "json", label="p")  # type: ignore[arg-type]

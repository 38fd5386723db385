"""The application under test of a suite, as a callable: a recorded build or a live function.

A recorded build replays the application's answers from a cassette. Its request for a sample is
the suite's ``system-prompt`` (when given) and the sample's first parameter as the user message,
sent to the application's ``model-id``; :func:`application_messages` builds it, both when a build
is recorded and when it is replayed, so the two always agree.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from evalmark.errors import SuiteError
from evalmark.models import ChatReply, record_replay
from evalmark.models._modes import RecordMode, resolve_mode
from evalmark.models._recorder import RecordedChat
from evalmark.models._values import MessageLike, Usage, last_user_text, message_dicts
from evalmark.samples._case import TestCase, TokenUsage
from evalmark.samples._samples import Sample
from evalmark.suite._callables import import_callable
from evalmark.suite._identity import AnswerLog
from evalmark.suite._model import ApplicationSpec

__all__ = [
    "NoLiveApplication",
    "application_messages",
    "import_callable",
    "load_application",
    "question_of",
    "recorded_application",
    "recorded_application_usage",
]


def question_of(sample: Sample) -> str:
    """The text sent to the application for ``sample``: its first parameter."""
    if not sample.parameters:
        raise ValueError(f"sample {sample.name!r} has no parameters to ask the application")
    return _as_question(sample.parameters[0])


def _as_question(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True)


def application_messages(app: ApplicationSpec, question: str) -> list[dict[str, str]]:
    """The chat request a recorded build holds for the user message ``question``."""
    messages = []
    if app.system_prompt:
        messages.append({"role": "system", "content": app.system_prompt})
    messages.append({"role": "user", "content": question})
    return messages


class _ApplicationModel:
    """The application seen as a chat model (no parameters; ``achat`` is ``chat``), so that
    ``record_replay`` can record and replay it."""

    model_id: str

    @property
    def default_params(self) -> Mapping[str, Any]:
        """No parameters."""
        return {}

    def chat(self, messages: Sequence[MessageLike], **params: Any) -> ChatReply:
        """The application's answer to the last user message."""
        raise NotImplementedError

    async def achat(self, messages: Sequence[MessageLike], **params: Any) -> ChatReply:
        """Same as :meth:`chat`."""
        return self.chat(messages, **params)


class NoLiveApplication(_ApplicationModel):
    """The model behind a recorded build that has no live function: it can only explain."""

    def __init__(self, model_id: str, build: str, cassette: Path) -> None:
        self.model_id = model_id
        self._build = build
        self._cassette = cassette

    def chat(self, messages: Sequence[MessageLike], **params: Any) -> ChatReply:
        """Refuse: there is no live application to ask."""
        question = last_user_text(message_dicts(messages)) or ""
        raise RuntimeError(
            f"build {self._build!r} has no recorded answer to {question[:80]!r} in "
            f"{self._cassette}, and the suite names no live 'function' to record it from"
        )


class _LiveApplication(_ApplicationModel):
    """A live application function seen as a chat model, so record_replay can record it."""

    def __init__(self, function: Callable[..., Any], model_id: str) -> None:
        self._function = function
        self.model_id = model_id

    def chat(self, messages: Sequence[MessageLike], **params: Any) -> ChatReply:
        """Ask the live function the user message's question."""
        answer = self._function(last_user_text(message_dicts(messages)) or "")
        return answer if isinstance(answer, ChatReply) else ChatReply(text=str(answer))


def _recorded_chat(app: ApplicationSpec, build: str, mode: RecordMode | str | None) -> RecordedChat:
    """The recorded build as a chat model replaying (or, by mode, recording) its cassette."""
    try:
        cassette = app.builds[build]
    except KeyError:
        known = ", ".join(app.build_names) or "none"
        raise SuiteError(f"no build named {build!r}; the suite records: {known}") from None
    if app.function is not None:
        live: Any = _LiveApplication(import_callable(app.function, app.base), app.model_id)
    else:
        # record-missing only fills gaps, so it can replay a complete build (and record the
        # judge meanwhile); rewrite and off would need the application for every call.
        resolved = resolve_mode(mode)
        if resolved.mode in (RecordMode.REWRITE, RecordMode.OFF):
            raise SuiteError(
                f"record mode {resolved.mode.value} ({resolved.source}) calls the application, "
                f"but the suite names no live 'function' for build {build!r}; add one, or replay"
            )
        if not cassette.exists():
            raise SuiteError(
                f"the cassette of build {build!r} does not exist ({cassette}), and the suite "
                "names no live 'function' to record it from; fix the path in the suite's builds"
            )
        live = NoLiveApplication(app.model_id, build, cassette)
    chat: RecordedChat = record_replay(live, cassette, mode, model_id=app.model_id)
    return chat


def _named(function: Callable[..., Any], app: ApplicationSpec, build: str, log: AnswerLog) -> None:
    function.__name__ = f"{app.model_id}@{build}"
    function.__qualname__ = function.__name__
    function.answer_log = log  # type: ignore[attr-defined]  # what answered, for the history


def _question(parameters: tuple[Any, ...]) -> str:
    if not parameters:
        raise ValueError("the sample has no parameters to ask the application")
    return _as_question(parameters[0])


def recorded_application(
    app: ApplicationSpec, build: str, mode: RecordMode | str | None
) -> Callable[..., str]:
    """The function under test for a recorded build: ``(*sample.parameters) -> answer text``
    (the scorer calls it with the sample's parameters; the first is the question). Its
    ``answer_log`` (an :class:`~evalmark.suite._identity.AnswerLog`) tells what answered each
    question, for the run history.

    ``mode`` is the cassette record mode (None: the usual resolution, replay by default).
    :func:`recorded_application_usage` is the same build answering with its recorded usage.
    """
    chat = _recorded_chat(app, build, mode)
    log = AnswerLog(app.model_id, build)

    def answer(*parameters: Any) -> str:
        question = _question(parameters)
        messages = application_messages(app, question)
        reply = chat.chat(messages)
        log.note(question, messages, reply)
        return reply.text

    _named(answer, app, build, log)
    return answer


def recorded_application_usage(
    app: ApplicationSpec, build: str, mode: RecordMode | str | None
) -> Callable[..., str | TestCase]:
    """Like :func:`recorded_application`, but an answer whose cassette entry recorded token
    usage comes back as a :class:`~evalmark.samples._case.TestCase` (the question, the answer
    text and ``token_usage``), so the report's rows carry the tokens and ``gate: budget:``
    can check them; an answer recorded without usage is the plain text, as before.

    A cassette records no latency or cost, so those stay unset.
    """
    chat = _recorded_chat(app, build, mode)
    log = AnswerLog(app.model_id, build)

    def answer(*parameters: Any) -> str | TestCase:
        question = _question(parameters)
        messages = application_messages(app, question)
        reply = chat.chat(messages)
        log.note(question, messages, reply)
        tokens = _token_usage(reply.usage)
        if tokens is None:
            return reply.text
        return TestCase(question, reply.text, token_usage=tokens)

    _named(answer, app, build, log)
    return answer


def _token_usage(usage: Usage | None) -> TokenUsage | None:
    """A cassette's recorded usage as a TestCase's; None when nothing was recorded. A total
    below input + output (a provider's inconsistent count) is recomputed from the two."""
    if usage is None or not (usage.prompt_tokens or usage.completion_tokens or usage.total_tokens):
        return None
    least = usage.prompt_tokens + usage.completion_tokens
    if usage.total_tokens < least:
        return TokenUsage(usage.prompt_tokens, usage.completion_tokens)
    return TokenUsage(usage.prompt_tokens, usage.completion_tokens, usage.total_tokens)


def load_application(
    suite: str | Path,
    build: str | None = None,
    mode: RecordMode | str | None = None,
    *,
    evaluation: str | None = None,
    usage: bool = False,
) -> Callable[..., Any]:
    """The application under test of a suite file, ready to call with a sample's parameters:
    a recorded ``build`` (default: the first) replayed in ``mode``, or the live function.
    ``evaluation`` picks one evaluation of a suite that has several (default: the first).
    ``usage=True`` makes a recorded build answer with the token usage its cassette recorded
    (see :func:`recorded_application_usage`), as ``evalmark run`` does."""
    from evalmark.suite._loader import load_suite
    from evalmark.suite._preflight import check_runnable

    loaded = load_suite(suite)
    chosen = loaded.evaluations[0]
    if evaluation is not None:
        names = [e.name for e in loaded.evaluations]
        if evaluation not in names:
            raise SuiteError(f"no evaluation named {evaluation!r}; the suite has {names}")
        chosen = loaded.evaluations[names.index(evaluation)]
    app = chosen.application
    if app.builds or build is None:
        check_runnable(loaded, build, mode, only=chosen)
    if app.builds:
        recorded = recorded_application_usage if usage else recorded_application
        return recorded(app, build or app.build_names[0], mode)
    if build is not None:
        raise SuiteError(f"evaluation {chosen.name!r} records no builds; it calls {app.function}")
    assert app.function is not None
    return import_callable(app.function, app.base)

"""Running the conversation cases of a suite: the application as ``app(message, thread_id)``,
the simulated users, the checks, and the report.

A recorded build of a conversation keeps each thread's history itself, as a chat application
does: its request at a turn is the ``system-prompt``, the thread's earlier messages and the new
user message, sent to the application's ``model-id``. So a build that forgets, forgets in its
recorded replies, and replaying needs no network. A persona user's chat model is replayed from
the ``user-model`` cassette the same way.
"""

from __future__ import annotations

import contextvars
import json
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from evalmark.conversation import ConversationCase
from evalmark.conversation._report import conversation_checks, conversation_report
from evalmark.conversation._simulate import Plan, simulate_with, tool_calls_of
from evalmark.conversation._users import SimulatedUser
from evalmark.engine._pipeline import run_repeated
from evalmark.engine._run import Run, run_sync
from evalmark.engine._settings import Progress, RunSettings
from evalmark.errors import SuiteError
from evalmark.models import ChatReply, record_replay
from evalmark.models._modes import RecordMode, resolve_mode
from evalmark.models._values import ChatToolCall, MessageLike, last_user_text, message_dicts
from evalmark.report._model import Report
from evalmark.samples._samples import Sample
from evalmark.strategies._registry import get_strategy_kind
from evalmark.strategies._trajectory import TrajectoryMatch
from evalmark.suite._application import NoLiveApplication
from evalmark.suite._callables import import_callable
from evalmark.suite._conversations import ConversationSpec, UserModelSpec
from evalmark.suite._model import ApplicationSpec, EvaluationSpec

__all__ = [
    "ConversationApplication",
    "conversation_application",
    "conversation_messages",
    "run_conversations",
    "selected_conversations",
    "simulated_user",
    "stop_condition",
]

_THREAD: contextvars.ContextVar[str] = contextvars.ContextVar("evalmark_thread", default="")


def conversation_messages(
    app: ApplicationSpec, history: Sequence[Mapping[str, str]], message: str
) -> list[dict[str, str]]:
    """The chat request a recorded conversation build holds for ``message`` after
    ``history`` (the thread's earlier user and assistant messages)."""
    out = [{"role": "system", "content": app.system_prompt}] if app.system_prompt else []
    out += [{"role": m["role"], "content": m["content"]} for m in history]
    out.append({"role": "user", "content": message})
    return out


class _LiveConversation:
    """A live ``function(message, thread_id)`` seen as a chat model, so that a build can be
    recorded from it (the thread id travels in a context variable)."""

    def __init__(self, function: Callable[..., Any], model_id: str) -> None:
        self._function = function
        self.model_id = model_id

    @property
    def default_params(self) -> Mapping[str, Any]:
        """No parameters."""
        return {}

    def chat(self, messages: Sequence[MessageLike], **params: Any) -> ChatReply:
        """Ask the live function the newest user message, in the current thread."""
        answer = self._function(last_user_text(message_dicts(messages)) or "", _THREAD.get())
        if isinstance(answer, ChatReply):
            return answer
        if isinstance(answer, Mapping) and isinstance(answer.get("content"), str):
            calls = tool_calls_of(answer.get("tool_calls"), f"thread '{_THREAD.get()}'")
            recorded = tuple(
                ChatToolCall(f"call-{n}", c.name, json.dumps(c.arguments, sort_keys=True))
                for n, c in enumerate(calls, 1)
            )
            return ChatReply(text=answer["content"], tool_calls=recorded or None)
        return ChatReply(text=str(answer))


class ConversationApplication:
    """A recorded build as ``app(message, thread_id)``, keeping each thread's history."""

    def __init__(self, app: ApplicationSpec, build: str, chat: Any) -> None:
        self.app = app
        self.build = build
        self._chat = chat
        self._threads: dict[str, list[dict[str, str]]] = {}
        self._lock = threading.Lock()
        self.__name__ = f"{app.model_id}@{build}"

    def __call__(self, message: str, thread_id: str) -> ChatReply:
        """The build's reply to ``message`` in thread ``thread_id``."""
        with self._lock:
            history = list(self._threads.get(thread_id, ()))
        token = _THREAD.set(thread_id)
        try:
            reply: ChatReply = self._chat.chat(conversation_messages(self.app, history, message))
        finally:
            _THREAD.reset(token)
        text = str(reply.text)
        with self._lock:
            thread = self._threads.setdefault(thread_id, [])
            thread += [
                {"role": "user", "content": message},
                {"role": "assistant", "content": text},
            ]
        return reply


def conversation_application(
    evaluation: EvaluationSpec, build: str | None, mode: RecordMode | str | None
) -> tuple[Callable[[str, str], Any], str | None]:
    """The application of a conversation evaluation and the build used (None for a live
    function called as ``function(message, thread_id)``)."""
    app = evaluation.application
    if not app.builds:
        if app.function is None:
            raise SuiteError(f"evaluation {evaluation.name!r} names no application")
        return import_callable(app.function, app.base), None
    if build is not None and build not in app.builds:
        raise SuiteError(
            f"evaluation {evaluation.name!r} records no build {build!r}; its builds: "
            f"{', '.join(app.build_names)}"
        )
    chosen = build if build is not None else app.build_names[0]
    cassette = app.builds[chosen]
    live: Any
    if app.function is not None:
        live = _LiveConversation(import_callable(app.function, app.base), app.model_id)
    else:
        resolved = resolve_mode(mode)
        if resolved.mode in (RecordMode.REWRITE, RecordMode.OFF):
            raise SuiteError(
                f"record mode {resolved.mode.value} ({resolved.source}) calls the application, "
                f"but the suite names no live 'function' for build {chosen!r}; add one, or replay"
            )
        if not cassette.exists():
            raise SuiteError(f"the cassette of build {chosen!r} does not exist ({cassette})")
        live = NoLiveApplication(app.model_id, chosen, cassette)
    chat = record_replay(live, cassette, mode, model_id=app.model_id)
    return ConversationApplication(app, chosen, chat), chosen


class _NoLiveUser:
    """The user model of a replay-only suite: it can only explain what was not recorded."""

    def __init__(self, spec: UserModelSpec) -> None:
        self.model_id = spec.model_id
        self._cassette = spec.cassette

    @property
    def default_params(self) -> Mapping[str, Any]:
        """No parameters."""
        return {}

    def chat(self, messages: Sequence[MessageLike], **params: Any) -> ChatReply:
        """Refuse: there is no live user model."""
        raise RuntimeError(
            f"the user model has no recorded reply to this conversation in {self._cassette}, "
            "and the suite names no 'model' under user-model to record it from"
        )


def _user_model(spec: UserModelSpec, mode: RecordMode | str | None) -> Any:
    live: Any = import_callable(spec.model, spec.base)() if spec.model else _NoLiveUser(spec)
    return record_replay(live, spec.cassette, mode, model_id=spec.model_id)


def simulated_user(case: ConversationSpec, user_model: Any) -> SimulatedUser:
    """The simulated user of a conversation case."""
    if case.turns is not None:
        return SimulatedUser.scripted(case.turns)
    assert case.persona is not None
    return SimulatedUser.model(case.persona, user_model, opening=case.opening)


def stop_condition(phrase: str | None) -> Callable[[list[dict[str, Any]], int], bool] | None:
    """``stop_when`` for a stop phrase: true once the assistant's newest reply holds it
    (ignoring case); None without a phrase."""
    if phrase is None:
        return None
    wanted = phrase.casefold()
    return lambda messages, turn: wanted in str(messages[-1].get("content", "")).casefold()


def selected_conversations(
    evaluation: EvaluationSpec, tags: Sequence[str]
) -> list[ConversationSpec]:
    """The conversation cases carrying any of the evaluation's tags and any of ``tags``."""
    assert evaluation.conversations is not None

    def keep(case: ConversationSpec, wanted: Sequence[str]) -> bool:
        return not wanted or any(tag in case.tags for tag in wanted)

    return [c for c in evaluation.conversations.cases if keep(c, evaluation.tags) and keep(c, tags)]


def run_conversations(
    evaluation: EvaluationSpec,
    cases: Sequence[ConversationSpec],
    *,
    build: str | None,
    mode: RecordMode | str | None,
    judge: Any,
    settings: RunSettings,
    suite_name: str,
    progress: Progress | None = None,
) -> tuple[Report, str | None]:
    """Simulate and score the conversation ``cases`` of ``evaluation`` in the engine
    (:func:`~evalmark.engine._pipeline.run_repeated`: its concurrency, run index, repeats and
    progress, one tick a conversation): (report, build used)."""
    spec = evaluation.conversations
    assert spec is not None
    app, used = conversation_application(evaluation, build, mode)
    user_model = _user_model(spec.user_model, mode) if spec.user_model is not None else None
    judged = {s.label: s.judged for s in spec.turn_strategies}

    def applies(label: str, sample: Sample) -> bool:
        needs = sample.expected_facts or sample.expected_output
        return judged.get(label, False) or bool(needs)

    def built(specs: Sequence[Any]) -> list[Any]:
        return [get_strategy_kind(s.kind).build(s.options, judge) for s in specs]

    trajectory = []
    if spec.trajectory is not None:
        trajectory.append(
            TrajectoryMatch(
                spec.trajectory.mode,
                arguments=spec.trajectory.arguments,
                name="trajectory",
            )
        )
    checks = conversation_checks(
        built(spec.turn_strategies), built(evaluation.strategies), trajectory
    )
    metadata = {"suite": suite_name, "build": used} if used is not None else {"suite": suite_name}

    async def one(run: Run) -> Report:
        plans = [
            Plan(c.id, simulated_user(c, user_model), c.max_turns, stop_condition(c.stop_phrase))
            for c in cases
        ]
        simulations = await simulate_with(run, app, plans)
        scored = [
            ConversationCase(s, c.turns or (), c.tags, c.expected_tool_calls)
            for s, c in zip(simulations, cases, strict=True)
        ]
        return await conversation_report(
            run, scored, checks, applies, name=evaluation.name, metadata=metadata
        )

    return run_sync(run_repeated(settings, one, progress)), used


def cassette_paths(evaluation: EvaluationSpec) -> list[Path]:
    """Every cassette a conversation evaluation reads (its builds and its user model)."""
    paths = list(evaluation.application.builds.values())
    spec = evaluation.conversations
    if spec is not None and spec.user_model is not None:
        paths.append(spec.user_model.cassette)
    return paths

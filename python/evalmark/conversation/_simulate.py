"""Running a conversation: a simulated user talks to the application, turn by turn.

The application is called as ``app(message, thread_id)`` (or ``await app(...)``) with only the
newest user message and a thread id that stays the same for the whole conversation, so what it
remembers of earlier turns is its own memory. It may answer with text, a
:class:`~evalmark.models.ChatReply`, a :class:`~evalmark.samples._case.TestCase` or a mapping
with ``content`` (or ``output``) and optionally ``tool_calls``.

A conversation stops when ``max_turns`` turns were played, when ``stop_when(messages, turn)``
returns true after a turn, when the user ends it, or when the application raises; the
:class:`Simulation` says which (``stopped``) and, for an error, at which turn.
"""

from __future__ import annotations

import asyncio
import inspect
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from evalmark.conversation._users import Message, SimulatedUser
from evalmark.engine._defaults import DEFAULT_CONCURRENCY
from evalmark.engine._pipeline import single_run
from evalmark.engine._run import Run, run_sync
from evalmark.engine._settings import RunSettings
from evalmark.errors import ConversationError
from evalmark.models._context import call_context
from evalmark.models._values import ChatReply
from evalmark.samples._case import Conversation, TestCase, TokenUsage, ToolCall

__all__ = [
    "App",
    "Plan",
    "Simulation",
    "StopReason",
    "StopWhen",
    "asimulate",
    "messages_of",
    "simulate",
    "simulate_many",
    "simulate_with",
    "tool_calls_of",
]

App = Callable[[str, str], Any]
StopWhen = Callable[[list[Message], int], bool]


class StopReason(StrEnum):
    """Why a conversation stopped."""

    MAX_TURNS = "max-turns"
    STOP_CONDITION = "stop-condition"
    USER_ENDED = "user-ended"
    APP_ERROR = "app-error"


@dataclass(frozen=True, slots=True)
class Simulation:
    """A finished simulated conversation: its turns (each a ``TestCase`` of the user's message
    and the application's reply), the thread id, why it stopped and, when the application
    raised, the error and its turn."""

    conversation: Conversation
    thread_id: str
    stopped: StopReason
    error: str | None = None
    error_turn: int | None = None

    @property
    def name(self) -> str:
        """The conversation's id."""
        return self.conversation.id

    @property
    def turns(self) -> tuple[TestCase, ...]:
        """The turns played (an application error's turn is not among them)."""
        return self.conversation.turns

    @property
    def messages(self) -> list[Message]:
        """The conversation as chat messages (user and assistant, tool calls included)."""
        return messages_of(self.conversation.turns)

    @property
    def tool_calls(self) -> tuple[ToolCall, ...]:
        """Every tool call the application made, in order."""
        return tuple(call for turn in self.turns for call in turn.tool_calls)

    @property
    def why(self) -> str:
        """The reason it stopped, in words."""
        if self.stopped is StopReason.APP_ERROR:
            return f"the application raised at turn {self.error_turn}: {self.error}"
        return {
            StopReason.MAX_TURNS: f"reached the maximum of {len(self.turns)} turns",
            StopReason.STOP_CONDITION: f"the stop condition held after turn {len(self.turns)}",
            StopReason.USER_ENDED: f"the user ended it after {len(self.turns)} turns",
        }[self.stopped]


def messages_of(turns: Sequence[TestCase]) -> list[Message]:
    """The chat messages of ``turns``: each user message, then the assistant's reply."""
    out: list[Message] = []
    for turn in turns:
        out.append({"role": "user", "content": turn.input})
        reply: Message = {"role": "assistant", "content": turn.actual_output}
        if turn.tool_calls:
            reply["tool_calls"] = [
                {"name": c.name, "arguments": dict(c.arguments)} for c in turn.tool_calls
            ]
        out.append(reply)
    return out


def tool_calls_of(value: Any, where: str) -> tuple[ToolCall, ...]:
    """``ToolCall``s from a list of them or of mappings (``{name, arguments}``, OpenAI's
    ``{function: {name, arguments}}``, LangChain's ``{name, args}``)."""
    if value is None:
        return ()
    calls = []
    for item in value:
        if isinstance(item, ToolCall):
            calls.append(item)
        elif isinstance(item, Mapping):
            function = item.get("function")
            spec = function if isinstance(function, Mapping) else item
            arguments = spec.get("arguments", spec.get("args", {}))
            calls.append(ToolCall(str(spec.get("name", "")), dict(arguments or {})))
        else:
            raise ConversationError(f"{where}: a tool call is a mapping, got {item!r}")
    return tuple(calls)


def _turn(message: str, reply: Any, number: int, where: str) -> TestCase:
    """The TestCase of one turn from whatever the application answered."""
    name = f"turn-{number}"
    if isinstance(reply, TestCase):
        return TestCase(
            message,
            reply.actual_output,
            tool_calls=reply.tool_calls,
            retrieval_context=reply.retrieval_context,
            latency_ms=reply.latency_ms,
            token_usage=reply.token_usage,
            name=name,
        )
    if isinstance(reply, str):
        return TestCase(message, reply, name=name)
    if isinstance(reply, ChatReply):
        try:
            calls = tuple(call.to_tool_call() for call in reply.tool_calls or ())
        except ValueError as exc:
            raise ConversationError(f"{where}: {exc}") from None
        usage = reply.usage
        tokens = (
            TokenUsage(
                usage.prompt_tokens,
                usage.completion_tokens,
                max(usage.total_tokens, usage.prompt_tokens + usage.completion_tokens),
            )
            if usage is not None
            else None
        )
        return TestCase(message, reply.text, tool_calls=calls, token_usage=tokens, name=name)
    if isinstance(reply, Mapping):
        text = reply.get("content", reply.get("output"))
        if isinstance(text, str):
            calls = tool_calls_of(reply.get("tool_calls"), where)
            return TestCase(message, text, tool_calls=calls, name=name)
    raise ConversationError(
        f"{where}: the application answered {type(reply).__name__}; answer with text, a "
        "ChatReply, a TestCase or a mapping with 'content' (and optionally 'tool_calls')"
    )


async def _call_app(app: App, message: str, thread_id: str, offload: bool, run: Run | None) -> Any:
    if run is not None:
        return await run.invoke(app, message, thread_id)
    if inspect.iscoroutinefunction(app):
        value = await app(message, thread_id)
    elif offload:
        value = await asyncio.to_thread(app, message, thread_id)
    else:
        value = app(message, thread_id)
    if inspect.isawaitable(value):
        value = await value
    return value


async def _run(
    app: App,
    user: SimulatedUser,
    *,
    max_turns: int,
    stop_when: StopWhen | None,
    thread_id: str | None,
    name: str,
    offload: bool,
    run: Run | None = None,
) -> Simulation:
    if isinstance(max_turns, bool) or not isinstance(max_turns, int) or max_turns < 1:
        raise ConversationError(
            f"conversation '{name}': max_turns must be a whole number >= 1, got {max_turns!r}"
        )
    if not isinstance(user, SimulatedUser):
        raise TypeError(
            f"conversation '{name}': the user must be a SimulatedUser, got {type(user).__name__}"
        )
    thread = thread_id if thread_id is not None else uuid.uuid4().hex
    run_index = run.run_index if run is not None else 0
    turns: list[TestCase] = []
    stopped = StopReason.MAX_TURNS
    while len(turns) < max_turns:
        number = len(turns) + 1
        where = f"conversation '{name}', turn {number}"
        try:
            with call_context(run_index=run_index, sample=name, check="simulated-user"):
                message = await user.areply(messages_of(turns), number)
        except Exception as exc:
            raise ConversationError(
                f"{where}: the simulated user failed: {type(exc).__name__}: {exc}"
            ) from exc
        if message is None:
            stopped = StopReason.USER_ENDED
            break
        if not isinstance(message, str) or not message.strip():
            raise ConversationError(
                f"{where}: the simulated user replied with {message!r}, an empty message; a "
                "user ends a conversation by answering the end token, never with empty text"
            )
        try:
            reply = await _call_app(app, message, thread, offload, run)
        except Exception as exc:
            error = f"{type(exc).__name__}: {exc}"
            conversation = Conversation(id=name, turns=tuple(turns))
            return Simulation(conversation, thread, StopReason.APP_ERROR, error, number)
        turns.append(_turn(message, reply, number, where))
        if stop_when is not None and stop_when(messages_of(turns), number):
            stopped = StopReason.STOP_CONDITION
            break
    return Simulation(Conversation(id=name, turns=tuple(turns)), thread, stopped)


async def asimulate(
    app: App,
    user: SimulatedUser,
    *,
    max_turns: int = 10,
    stop_when: StopWhen | None = None,
    thread_id: str | None = None,
    name: str = "conversation",
) -> Simulation:
    """Async :func:`simulate` (a sync application runs in a worker thread)."""
    return await _run(
        app,
        user,
        max_turns=max_turns,
        stop_when=stop_when,
        thread_id=thread_id,
        name=name,
        offload=True,
    )


def simulate(
    app: App,
    user: SimulatedUser,
    *,
    max_turns: int = 10,
    stop_when: StopWhen | None = None,
    thread_id: str | None = None,
    name: str = "conversation",
) -> Simulation:
    """Play a conversation between ``user`` and ``app(message, thread_id)``.

    ``max_turns`` bounds the turns; ``stop_when(messages, turn)`` ends it after a turn when
    true; ``thread_id`` is passed to every call (default: a fresh random id); ``name`` is the
    conversation's id in results and errors. An application that raises stops the conversation
    (``stopped`` is ``app-error``, with the turn); an empty user message is a
    :class:`~evalmark.errors.ConversationError` naming the conversation and turn.
    """
    return run_sync(
        _run(
            app,
            user,
            max_turns=max_turns,
            stop_when=stop_when,
            thread_id=thread_id,
            name=name,
            offload=False,
        )
    )


@dataclass(frozen=True, slots=True)
class Plan:
    """One conversation to simulate among many: its name (also its thread id), user, turn
    limit and stop condition."""

    name: str
    user: SimulatedUser
    max_turns: int = 10
    stop_when: StopWhen | None = None


async def simulate_many(
    app: App,
    plans: Sequence[Plan],
    *,
    concurrency: int = DEFAULT_CONCURRENCY,
    run_index: int = 0,
) -> list[Simulation]:
    """Simulate every plan, at most ``concurrency`` conversations at once; the results are in
    the order of ``plans`` whatever the completion order. Each conversation's thread id is its
    name, so the application sees the same ids in every run."""
    with single_run(RunSettings(concurrency, run_index=run_index)) as run:
        return await simulate_with(run, app, plans)


async def simulate_with(run: Run, app: App, plans: Sequence[Plan]) -> list[Simulation]:
    """:func:`simulate_many` in an engine run: the run's scheduling (its limit, threads,
    call contexts of a repeat and progress, one tick a conversation) plays the plans. In a
    repeated run, repeat ``r`` plays each conversation in thread ``"<name>#<r>"``, so every
    repeat is a conversation of its own for an application that remembers threads."""
    names = [plan.name for plan in plans]
    if len(set(names)) != len(names):
        twice = sorted({n for n in names if names.count(n) > 1})
        raise ConversationError(f"conversations need distinct names; repeated: {', '.join(twice)}")

    async def one(index: int) -> Simulation:
        plan = plans[index]
        return await _run(
            app,
            plan.user,
            max_turns=plan.max_turns,
            stop_when=plan.stop_when,
            thread_id=plan.name if run.repeat is None else f"{plan.name}#{run.repeat}",
            name=plan.name,
            offload=False,
            run=run,
        )

    simulations, _ = await run.each(names, one, errors="raise", who="the simulated conversation")
    return simulations

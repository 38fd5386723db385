"""Conversations: simulate a multi-turn exchange with the application and score it.

:func:`simulate` (and :func:`asimulate`) plays a :class:`SimulatedUser` against
``app(message, thread_id)``; :func:`score_conversations` turns the simulations into a report
with per-turn, whole-conversation and trajectory checks. The package sits just above the engine:
it calls the application, as the engine does, and uses the engine's threads and event loop.
"""

from evalmark.conversation._report import ascore_conversations, score_conversations
from evalmark.conversation._scoring import ConversationCase, turn_sample
from evalmark.conversation._simulate import (
    Plan,
    Simulation,
    StopReason,
    asimulate,
    simulate,
    simulate_many,
)
from evalmark.conversation._users import END_TOKEN, ScriptedTurn, SimulatedUser

__all__ = [
    "END_TOKEN",
    "ConversationCase",
    "Plan",
    "ScriptedTurn",
    "SimulatedUser",
    "Simulation",
    "StopReason",
    "ascore_conversations",
    "asimulate",
    "score_conversations",
    "simulate",
    "simulate_many",
    "turn_sample",
]

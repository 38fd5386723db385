"""Conversations: simulate a multi-turn exchange with the application and score it.

:func:`evalmark.simulate` (and :func:`evalmark.asimulate`) plays a
:class:`evalmark.SimulatedUser` against ``app(message, thread_id)``;
:func:`evalmark.score_conversations` turns the simulations into a report with per-turn,
whole-conversation and trajectory checks (:class:`ConversationCase`). The package sits just
above the engine: it calls the application, as the engine does, and uses the engine's threads
and event loop.
"""

from evalmark.conversation._report import ascore_conversations
from evalmark.conversation._scoring import ConversationCase
from evalmark.conversation._simulate import Simulation, simulate_many
from evalmark.conversation._users import ScriptedTurn

__all__ = [
    "ConversationCase",
    "ScriptedTurn",
    "Simulation",
    "ascore_conversations",
    "simulate_many",
]
